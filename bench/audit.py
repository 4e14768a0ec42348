"""Bulk-audit benchmark: `epochlint audit` on the installed Python packages, each one a unit.

    .venv/bin/python bench/audit.py [--files 20000] [--roots DIR ...] [--skip-check]

The corpus is every top-level package folder of this interpreter's site-packages, of its base
interpreter's site-packages and of its standard library, and of each `--roots` folder (and its
`site-packages`, for another interpreter's library folder), taken in a fixed shuffled order until
`--files` Python files are reached (fewer if fewer are installed). Every command runs as a process
of its own, with the peak memory of the Python driver, of the JVM and of the whole process tree
sampled from /proc. Measured:
- files per second of the audit with `local[1]` and `local[2]` on the whole corpus (the job's own
  time, from its accounting line, and the command's wall time with the JVM's start and stop);
- the driver's peak memory with 25%, 50% and 100% of the corpus;
- `epochlint check` run unit by unit (the same units, one `check` each, in one process, with its
  default parallelism) on the whole corpus.
Results go to `bench/.work/audit/results.json`; the table printed at the end is docs/audit.md's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from snapshot import snapshot

BENCH = Path(__file__).resolve().parent
WORK = BENCH / ".work" / "audit"
SKIPPED = {"__pycache__", "site-packages"}
ACCOUNTING = re.compile(r"discovered (\d+) files = analysed (\d+) \+ errored (\d+).*; (\d+) findings in ([\d.]+) s")
CHECK_UNITS = """
import sys, time
from pathlib import Path
from epochlint.audit.units import resolve_units
from epochlint.engine import check
from epochlint.rules import all_rules
units = resolve_units([], Path(sys.argv[1]), None, frozenset(r.code for r in all_rules()))
files = findings = failed = 0
start = time.monotonic()
for unit in units:
    try:
        result = check([Path(unit.root)], unit.config, use_cache=False)
    except Exception as error:
        failed += 1
        print(unit.name, type(error).__name__, file=sys.stderr)
        continue
    files += result.files_analysed
    findings += len(result.findings)
print(files, findings, failed, time.monotonic() - start)
"""


@dataclass(frozen=True)
class Sample:
    """A command's wall time and the peak resident memory (MB) of its parts."""

    wall: float
    driver_mb: float
    jvm_mb: float
    tree_mb: float
    stdout: str


@dataclass(frozen=True)
class AuditRun:
    label: str
    master: str
    units: int
    files: int
    findings: int
    job_seconds: float
    wall_seconds: float
    files_per_second: float
    driver_mb: float
    jvm_mb: float
    tree_mb: float


def library_roots(extra: list[Path]) -> list[Path]:
    roots = {
        Path(sysconfig.get_paths()["purelib"]),
        Path(sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["purelib"]),
        Path(sysconfig.get_paths()["stdlib"]),
    }
    for root in extra:
        roots.add(root)
        if (root / "site-packages").is_dir():
            roots.add(root / "site-packages")
    return sorted(roots)


def package_folders(roots: list[Path]) -> list[Path]:
    folders = []
    for root in roots:
        for entry in sorted(root.iterdir()):
            named_as_a_package = "." not in entry.name and not entry.name.startswith("_")
            if entry.is_dir() and entry.name not in SKIPPED and named_as_a_package:
                folders.append(entry)
    return folders


def python_files(folder: Path) -> int:
    count = 0
    for _, directories, files in os.walk(folder):
        directories[:] = [d for d in directories if d not in SKIPPED and not d.startswith(".")]
        count += sum(1 for name in files if name.endswith(".py"))
    return count


def corpus(target: int, roots: list[Path]) -> list[tuple[Path, int]]:
    """Units in a fixed shuffled order (so every prefix mixes big and small packages), up to `target` files."""
    folders = [(folder, python_files(folder)) for folder in package_folders(roots)]
    folders = [(folder, count) for folder, count in folders if count]
    random.Random(20261122).shuffle(folders)
    chosen, total = [], 0
    for folder, count in folders:
        if total >= target:
            break
        chosen.append((folder, count))
        total += count
    return chosen


def prefix(units: list[tuple[Path, int]], share: float) -> list[tuple[Path, int]]:
    goal = share * sum(count for _, count in units)
    chosen, total = [], 0
    for folder, count in units:
        if total >= goal:
            break
        chosen.append((folder, count))
        total += count
    return chosen


def repos_file(units: list[tuple[Path, int]], name: str) -> Path:
    path = WORK / f"{name}.txt"
    path.write_text("".join(f"{folder}\n" for folder, _ in units))
    return path


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found.extend(int(child) for child in (task / "children").read_text().split())
    except OSError:
        pass
    return found


def _is_java(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/exe").resolve().name == "java"
    except OSError:
        return False


def measure(command: list[str]) -> Sample:
    """Run `command`, sampling the memory of its process, its JVM and its whole tree."""
    peaks = {"driver": 0.0, "jvm": 0.0, "tree": 0.0}
    start = time.monotonic()
    with (WORK / "stderr.log").open("a") as log:
        # Not from the checkout: a process's working folder comes first on its import path.
        process = subprocess.Popen(command, cwd=WORK, stdout=subprocess.PIPE, stderr=log, text=True)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            tree, pending = [], [process.pid]
            while pending:
                pid = pending.pop()
                tree.append(pid)
                pending.extend(_children(pid))
            peaks["driver"] = max(peaks["driver"], _rss_mb(process.pid))
            peaks["jvm"] = max(peaks["jvm"], sum(_rss_mb(pid) for pid in tree if _is_java(pid)))
            peaks["tree"] = max(peaks["tree"], sum(_rss_mb(pid) for pid in tree))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    done.set()
    sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"{command} failed with status {process.returncode}:\n{stdout[-2000:]}")
    return Sample(time.monotonic() - start, peaks["driver"], peaks["jvm"], peaks["tree"], stdout)


def audit(label: str, units: list[tuple[Path, int]], master: str) -> AuditRun:
    out = WORK / f"out-{label}"
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "epochlint", "audit", "--repos-file", str(repos_file(units, label)),
               "--master", master, "--out", str(out)]
    sample = measure(command)
    match = ACCOUNTING.search(sample.stdout)
    assert match is not None, sample.stdout[-2000:]
    files, findings, seconds = int(match[1]), int(match[4]), float(match[5])
    run = AuditRun(label, master, len(units), files, findings, seconds, sample.wall, files / seconds,
                   sample.driver_mb, sample.jvm_mb, sample.tree_mb)
    print(f"  {label}: {files} files in {seconds:.1f} s ({files / seconds:.0f} files/s), "
          f"wall {sample.wall:.1f} s, driver {sample.driver_mb:.0f} MB, JVM {sample.jvm_mb:.0f} MB", flush=True)
    return run


def check_unit_by_unit(units: list[tuple[Path, int]]) -> dict[str, float]:
    sample = measure([sys.executable, "-c", CHECK_UNITS, str(repos_file(units, "check"))])
    files, findings, failed, seconds = sample.stdout.split()
    result = {"files": int(files), "findings": int(findings), "failed_units": int(failed), "seconds": float(seconds),
              "files_per_second": int(files) / float(seconds), "peak_mb": sample.tree_mb}
    print(f"  check unit by unit: {files} files in {float(seconds):.1f} s ({failed} units crashed)", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=20_000, help="corpus size in Python files (default 20000)")
    parser.add_argument("--roots", type=Path, nargs="*", default=[], metavar="DIR", help="more library folders")
    parser.add_argument("--skip-check", action="store_true", help="do not time `check` unit by unit")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    # Every process started from here (the audit's driver, Spark's Python workers, `check`)
    # imports epochlint from this copy.
    snapshot(WORK / "epochlint")
    os.environ["PYTHONPATH"] = str(WORK / "epochlint")
    units = corpus(args.files, library_roots(args.roots))
    print(f"corpus: {len(units)} units, {sum(count for _, count in units)} Python files", flush=True)
    runs = [audit("local2-100", units, "local[2]"), audit("local1-100", units, "local[1]")]
    runs += [audit(f"local2-{share}", prefix(units, share / 100), "local[2]") for share in (25, 50)]
    checked = None if args.skip_check else check_unit_by_unit(units)
    results = {"runs": [asdict(run) for run in runs], "check": checked, "cpus": os.cpu_count(),
               "load_average_at_end": os.getloadavg()}
    (WORK / "results.json").write_text(json.dumps(results, indent=2))
    print_table(runs, checked)


def print_table(runs: list[AuditRun], checked: dict[str, float] | None) -> None:
    by_label = {run.label: run for run in runs}
    one, two = by_label["local1-100"], by_label["local2-100"]
    print("\n| run | units | files | job time | files/s | wall | driver peak | JVM peak |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label in ("local1-100", "local2-100", "local2-25", "local2-50"):
        run = by_label[label]
        print(f"| `{run.master}`, {label.split('-')[1]}% | {run.units} | {run.files} | {run.job_seconds:.0f} s | "
              f"{run.files_per_second:.0f} | {run.wall_seconds:.0f} s | {run.driver_mb:.0f} MB | {run.jvm_mb:.0f} MB |")
    if checked is not None:
        print(f"| `check` unit by unit, 100% | {one.units} | {checked['files']} | {checked['seconds']:.0f} s | "
              f"{checked['files_per_second']:.0f} | | | |")
    print(f"\nlocal[2] / local[1]: {two.files_per_second / one.files_per_second:.2f}x")


if __name__ == "__main__":
    main()
