"""Speed benchmark: epochlint against libcst's parse, fixit and ruff on a real code base.

    .venv/bin/python bench/run.py [--repeat N]

Builds `bench/.work/` (git-ignored): the pinned pure-Python wheels below, downloaded with pip and
unpacked (about 85k lines: a Kafka client and the HTTP, CLI and template libraries around it), plus
copies of that tree at 2x and 4x with renamed packages, and a snapshot of epochlint itself (so that
edits made while it runs cannot change what is measured, nor invalidate the facts cache between
runs). Installs its own tools (fixit, ruff, psutil) into the running environment when they are
missing. Then measures, in one run, every command as a separate process: wall time, and peak
memory of its whole process tree (sampled), and prints the table docs/speed.md shows.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from snapshot import snapshot

BENCH = Path(__file__).resolve().parent
WORK = BENCH / ".work"
SNAPSHOT = WORK / "epochlint"
WHEELS = (
    "kafka-python==3.0.12",
    "requests==2.34.2",
    "urllib3==2.8.0",
    "click==8.5.1",
    "jinja2==3.1.6",
)
TOOLS = {"fixit": "fixit==2.2.1", "ruff": "ruff==0.17.5", "psutil": "psutil==7.2.2"}
# The file edited for the "one changed file" run: a relevant one, as in a real pre-commit run.
TOUCHED = "kafka/consumer/fetcher.py"
BIN = Path(sys.executable).parent
PARSE_ALL = """
import sys, pathlib, libcst
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        libcst.parse_module(path.read_bytes())
    except Exception:
        pass
"""


@dataclass(frozen=True)
class Measure:
    seconds: float
    # User + system time of the command and every process it waited for: on a machine shared
    # with other work, this moves far less than the wall time does.
    cpu: float
    peak_mb: float | None  # None: not sampled
    stdout: bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each command; the fastest counts")
    args = parser.parse_args()
    _install_tools()
    snapshot(SNAPSHOT)
    base = _tree(1)
    trees = {1: base, 2: _tree(2), 4: _tree(4)}
    lines = _lines(base)
    rows = _measure_all(trees, args.repeat)
    print(_table(rows, lines))


def _install_tools() -> None:
    missing = [spec for module, spec in TOOLS.items() if importlib.util.find_spec(module) is None]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)


def _tree(copies: int) -> Path:
    """The code base, `copies` times over, each copy's packages renamed (`kafka` -> `kafka_2`)."""
    target = WORK / f"tree-x{copies}"
    if (target / "pyproject.toml").is_file():
        return target
    unpacked = _unpacked()
    if target.exists():
        shutil.rmtree(target)
    packages = sorted(p.name for p in unpacked.iterdir() if p.is_dir())
    for copy in range(1, copies + 1):
        _copy_renamed(unpacked, target, packages, copy)
    # An empty configuration: the tree is its own project, with its own cache.
    (target / "pyproject.toml").write_text("[tool.epochlint]\n")
    return target


def _unpacked() -> Path:
    folder = WORK / "unpacked"
    if folder.is_dir():
        return folder
    wheels = WORK / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", str(wheels), *WHEELS],
        check=True,
    )
    staging = Path(tempfile.mkdtemp(dir=WORK))
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.endswith(".py") and ".dist-info/" not in name:
                    archive.extract(name, staging)
    staging.rename(folder)
    return folder


def _copy_renamed(source: Path, target: Path, packages: list[str], copy: int) -> None:
    if copy == 1:
        shutil.copytree(source, target, dirs_exist_ok=True)
        return
    names = re.compile(rb"(?<![\w.])(" + b"|".join(p.encode() for p in packages) + rb")(?!\w)")
    for path in source.rglob("*.py"):
        rel = path.relative_to(source)
        renamed = Path(f"{rel.parts[0]}_{copy}", *rel.parts[1:])
        out = target / renamed
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(names.sub(rb"\1_" + str(copy).encode(), path.read_bytes()))


def _lines(tree: Path) -> int:
    return sum(path.read_bytes().count(b"\n") for path in tree.rglob("*.py"))


def _run(command: list[str], cwd: Path, *, sample_memory: bool = False) -> Measure:
    """One run of `command`: its wall and CPU time, and with `sample_memory`, the peak memory of
    its process tree, polled every 10 ms. Timed runs are not polled: a poll takes about a
    millisecond of CPU, a tenth of a core, which a command keeping both cores of a two-core machine
    busy loses (a cold run of kafka-python took 0.3 s longer polled, median of 3 pairs)."""
    environment = {**os.environ, "PYTHONPATH": str(SNAPSHOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak = [0]
    done = threading.Event()
    sampler = threading.Thread(target=_sample_tree, args=(process.pid, peak, done), daemon=True)
    if sample_memory:
        sampler.start()
    stdout, _ = process.communicate()
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    done.set()
    if sample_memory:
        sampler.join()
    return Measure(seconds, cpu, peak[0] / 2**20 if sample_memory else None, stdout)


def _sample_tree(pid: int, peak: list[int], done: threading.Event) -> None:
    """The largest sum of the resident sets of process `pid` and its descendants into `peak[0]`,
    until `done` or the process ends."""
    import psutil

    watched = psutil.Process(pid)
    while not done.is_set():
        try:
            tree = [watched, *watched.children(recursive=True)]
            total = 0
            for member in tree:
                try:
                    total += member.memory_info().rss
                except psutil.Error:
                    pass
            peak[0] = max(peak[0], total)
        except psutil.Error:
            return
        time.sleep(0.01)


def _best(command: list[str], cwd: Path, repeat: int, before: Callable[[], None] | None = None) -> Measure:
    """The fastest of `repeat` timed runs, each after `before`, with the peak memory of one more
    run (after `before` too) that is sampled instead of timed."""
    runs = []
    for _ in range(repeat):
        if before is not None:
            before()
        runs.append(_run(command, cwd))
    fastest = min(runs, key=lambda m: m.seconds)
    if before is not None:
        before()
    return replace(fastest, peak_mb=_run(command, cwd, sample_memory=True).peak_mb)


def _epochlint(*extra: str) -> list[str]:
    return [sys.executable, "-m", "epochlint", "check", ".", "--output-format", "json", "--exit-zero", *extra]


def _cache_dropper(tree: Path) -> Callable[[], None]:
    return lambda: shutil.rmtree(tree / ".epochlint_cache", ignore_errors=True)


def _measure_all(trees: dict[int, Path], repeat: int) -> dict[str, Measure]:
    base = trees[1]
    drop_cache = _cache_dropper(base)
    rows: dict[str, Measure] = {}
    rows["libcst parse, every file, 1 core"] = _best([sys.executable, "-c", PARSE_ALL, "."], base, repeat)
    rows["epochlint check, cold"] = _best(_epochlint(), base, repeat, drop_cache)
    rows["epochlint check, cold, 1 core"] = _best(_epochlint("--jobs", "1"), base, repeat, drop_cache)
    rows["epochlint check, cold, 1 core, no prefilter"] = _best(
        _epochlint("--jobs", "1", "--no-prefilter"), base, repeat, drop_cache
    )
    _run(_epochlint(), base)
    rows["epochlint check, warm"] = _best(_epochlint(), base, repeat)
    touched = base / TOUCHED
    original = touched.read_bytes()
    counter = iter(range(1_000_000))

    def touch() -> None:
        touched.write_bytes(original + f"# edited {next(counter)}\n".encode())

    try:
        rows["epochlint check, one file changed"] = _best(_epochlint(), base, repeat, touch)
    finally:
        touched.write_bytes(original)
    # What these two measure happens once (the file edited back; fixit's minutes are enough to see
    # its order of magnitude): timed and sampled in the same run.
    rows["epochlint check, warm, once more"] = _run(_epochlint(), base, sample_memory=True)
    rows["fixit lint"] = _run([str(BIN / "fixit"), "lint", "."], base, sample_memory=True)
    rows["ruff check --select ALL --no-cache"] = _best(
        [str(BIN / "ruff"), "check", "--select", "ALL", "--no-cache", "--exit-zero", "-q", "."], base, repeat
    )
    for copies in (2, 4):
        tree = trees[copies]
        rows[f"epochlint check, cold, {copies}x tree"] = _best(_epochlint(), tree, repeat, _cache_dropper(tree))
    return rows


def _table(rows: dict[str, Measure], lines: int) -> str:
    parse = rows["libcst parse, every file, 1 core"]
    cold = rows["epochlint check, cold"]
    warm = rows["epochlint check, warm"]
    touched = rows["epochlint check, one file changed"]
    ruff = rows["ruff check --select ALL --no-cache"]
    fixit = rows["fixit lint"]
    four = rows["epochlint check, cold, 4x tree"]
    out = [
        f"Tree: {', '.join(WHEELS)}: {lines:,} lines (1x).",
        "",
        "| Command | Wall (s) | CPU (s) | Peak memory (MB) | Wall vs libcst parse |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, m in rows.items():
        out.append(
            f"| {name} | {m.seconds:.2f} | {m.cpu:.2f} | {m.peak_mb:.0f} | {m.seconds / parse.seconds:.2f}x |"
        )
    json_same = cold.stdout == warm.stdout == rows["epochlint check, warm, once more"].stdout
    summary = json.loads(cold.stdout)["summary"]
    # Each target as (name, wall ratio, CPU ratio, limit): met when the wall ratio is within it.
    checks = [
        ("cold / libcst parse of every file", cold.seconds / parse.seconds, cold.cpu / parse.cpu, 0.5),
        ("cold / fixit", cold.seconds / fixit.seconds, cold.cpu / fixit.cpu, 0.1),
        ("warm / ruff --select ALL --no-cache", warm.seconds / ruff.seconds, warm.cpu / ruff.cpu, 1.0),
        ("one file changed / ruff", touched.seconds / ruff.seconds, touched.cpu / ruff.cpu, 1.0),
        ("4x tree / 1x tree, cold", four.seconds / cold.seconds, four.cpu / cold.cpu, 4.4),
    ]
    out += ["", "| Target | Wall ratio | CPU ratio | Limit | Met |", "| --- | ---: | ---: | ---: | :---: |"]
    out += [
        f"| {name} | {wall:.2f} | {cpu:.2f} | {limit} | {'yes' if wall <= limit else 'no'} |"
        for name, wall, cpu, limit in checks
    ]
    assert cold.peak_mb is not None, "cold runs are measured with `_best`, which samples memory"
    memory_met = "yes" if cold.peak_mb <= 250 else "no"
    out.append(f"| peak memory of a cold run (MB) | {cold.peak_mb:.0f} | | 250 | {memory_met} |")
    out += [
        "",
        f"Files: {summary['files']}, not relevant (read, not parsed): {summary['files_not_relevant']}; "
        f"findings: {summary['findings']}; JSON identical cold/warm: {'yes' if json_same else 'no'}.",
    ]
    return "\n".join(out)


if __name__ == "__main__":
    main()
