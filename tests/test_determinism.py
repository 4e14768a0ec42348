"""The same tree always gives the same bytes: JSON, SARIF, console and GitHub output are identical
across runs, processes and hash seeds, serial and parallel, cold and warm cache, whatever the order
of the paths given, with broken files in the tree."""

from __future__ import annotations

import io
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from epochlint import collect
from epochlint.config import load_config
from epochlint.engine import check
from epochlint.report import RunResult
from epochlint.report.formats import FORMATS
from tests.conftest import FIXTURES, KNOWN_CODES
from tests.test_cli import ENV

FIXTURE_FOLDERS = ("EPL001", "EPL003", "EPL900")
BROKEN: dict[str, bytes] = {
    "broken/syntax.py": b"def f(:\n",
    "broken/undecodable.py": b"x = 1\n# caf\xe9\n",
    "broken/deep.py": b"x = " + b"-" * 3000 + b"1\n",
    "broken/nul.py": b"x = 1\0\n",
    "broken/empty.py": b"",
    "broken/crlf.py": (FIXTURES / "EPL900" / "consumer.py").read_bytes().replace(b"\n", b"\r\n"),
    "broken/big.py": b"x = 1\n" * 200_000,
}


@pytest.fixture(scope="module")
def messy_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Fixture folders and broken files; big enough that `jobs=2` parses in worker processes."""
    root = tmp_path_factory.mktemp("messy")
    (root / "pyproject.toml").write_text("[project]\nname = 'messy'\n")
    for folder in FIXTURE_FOLDERS:
        shutil.copytree(FIXTURES / folder, root / folder)
    for rel, data in BROKEN.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    (root / "broken" / "loop.py").symlink_to("loop.py")
    if sys.platform not in ("win32", "darwin"):
        Path(os.fsdecode(bytes(root / "broken") + b"/caf\xe9.py")).write_bytes(b"x = 1\n")
    return root


def rendered(result: RunResult) -> dict[str, str]:
    """The run in every output format."""
    outputs = {}
    for name, render in sorted(FORMATS.items()):
        stream = io.StringIO()
        render(result, stream)
        outputs[name] = stream.getvalue()
    return outputs


def run(paths: Sequence[Path], **options: object) -> dict[str, str]:
    config = load_config(list(paths), None, KNOWN_CODES)
    return rendered(check(list(paths), config, **options))  # type: ignore[arg-type]


def _without_cache(root: Path) -> None:
    shutil.rmtree(root / ".epochlint_cache", ignore_errors=True)


def _without_findings_cache(root: Path) -> None:
    """Keep the facts, forget the findings: the next run analyses the whole program again."""
    shutil.rmtree(root / ".epochlint_cache" / "findings")


def test_two_runs_in_one_process_are_byte_identical(messy_tree: Path) -> None:
    first = run([messy_tree], use_cache=False)
    assert first == run([messy_tree], use_cache=False)
    assert '"EPL900"' in first["json"] and '"EPL001"' in first["json"]


def test_serial_parallel_cold_and_warm_are_byte_identical(messy_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parses: list[str] = []
    real_facts = collect.file_facts
    monkeypatch.setattr(collect, "file_facts", lambda task: parses.append(task[0]) or real_facts(task))
    _without_cache(messy_tree)
    serial_uncached = run([messy_tree], use_cache=False, jobs=1)
    cold_serial = run([messy_tree], jobs=1)
    assert parses, "the cold run parsed"
    parses.clear()
    warm_serial = run([messy_tree], jobs=1)
    _without_findings_cache(messy_tree)
    warm_facts_only = run([messy_tree], jobs=1)
    assert parses == [], "the warm runs parsed nothing"
    monkeypatch.setattr(collect, "file_facts", real_facts)
    parallel_uncached = run([messy_tree], use_cache=False, jobs=2)
    warm_parallel = run([messy_tree], jobs=2)
    _without_cache(messy_tree)
    cold_parallel = run([messy_tree], jobs=2)
    assert serial_uncached == cold_serial == warm_serial == warm_facts_only == parallel_uncached == warm_parallel
    assert warm_parallel == cold_parallel


def _entries(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.name not in ("pyproject.toml", ".epochlint_cache"))


def test_the_order_of_the_paths_given_does_not_matter(messy_tree: Path) -> None:
    everything = run([messy_tree], use_cache=False)
    entries = _entries(messy_tree)
    files = sorted(p for p in (messy_tree / "EPL001").rglob("*.py"))[:5]
    rng = random.Random(2026)
    for _ in range(3):
        paths = [*entries, *files, entries[0]]  # overlapping and repeated paths
        rng.shuffle(paths)
        assert run(paths, use_cache=False) == everything, [p.name for p in paths]


def _command(cwd: Path, seed: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", *args],
        cwd=cwd, capture_output=True, text=True, encoding="utf-8", env={**ENV, "PYTHONHASHSEED": seed}, timeout=300,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_processes_with_different_hash_seeds_print_the_same_bytes(messy_tree: Path, fmt: str) -> None:
    """Set and dict orders change with the hash seed; the report must not."""
    first = _command(messy_tree, "1", "--output-format", fmt, "--no-cache")
    assert first == _command(messy_tree, "2", "--output-format", fmt, "--no-cache", "--jobs", "2")
    assert first == run([messy_tree], use_cache=False)[fmt]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "sarif", "console", "github"])
def test_processes_cold_warm_serial_parallel_and_path_orders_print_the_same_bytes(messy_tree: Path, fmt: str) -> None:
    _without_cache(messy_tree)
    names = [p.name for p in _entries(messy_tree)]
    outputs = {
        _command(messy_tree, "3", "--output-format", fmt, "--jobs", "1"),  # cold, writes the cache
        _command(messy_tree, "4", "--output-format", fmt, "--jobs", "2"),  # warm
        _command(messy_tree, "5", "--output-format", fmt, "--no-cache", "--jobs", "2", *reversed(names)),
        _command(messy_tree, "6", "--output-format", fmt, "--no-cache", "--jobs", "1", *names),
    }
    assert len(outputs) == 1
