"""A copy of epochlint's own packages for a benchmark to run: edits made to the checkout while a
long benchmark runs can change neither what is measured nor the processes it starts."""

from __future__ import annotations

import compileall
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
# The program model's hottest modules (name resolution and the call graph), which a compiled
# snapshot builds as C extensions with mypyc; Python imports those instead of the sources.
COMPILED_MODULES = (
    "epochlint/program/resolutions.py",
    "epochlint/program/symbols.py",
    "epochlint/program/callgraph.py",
)
MYPYC = "mypy==2.4.1"
COMPILED_HELP = "measure a snapshot whose program model is built with mypyc (needs a C compiler)"


def snapshot(target: Path, compiled: bool = False) -> None:
    """Lay out `linter/` as `epochlint` and `rules/` as `epochlint.rules` under `target`, as the
    installed distribution names them, to be put first on PYTHONPATH; compiled to bytecode, as pip
    compiles what it installs (where PYTHONDONTWRITEBYTECODE is set, every run would otherwise
    compile the modules it imports again: 0.19 s of a one-file run measured here). With
    `compiled`, `COMPILED_MODULES` are built with mypyc too (a C compiler is needed)."""
    shutil.rmtree(target, ignore_errors=True)
    for folder, package in (("linter", "epochlint"), ("rules", "epochlint/rules")):
        shutil.copytree(PROJECT / folder, target / package, ignore=shutil.ignore_patterns("__pycache__"))
    if compiled:
        _build_with_mypyc(target)
    compileall.compile_dir(target, quiet=1)


def _build_with_mypyc(target: Path) -> None:
    if importlib.util.find_spec("mypyc") is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", MYPYC], check=True)
    built = subprocess.run(
        [sys.executable, "-m", "mypyc", "--ignore-missing-imports", *COMPILED_MODULES],
        cwd=target,
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        raise SystemExit(f"mypyc failed to build the compiled snapshot:\n{built.stdout[-3000:]}{built.stderr[-3000:]}")
    for scratch in ("build", ".mypy_cache"):
        shutil.rmtree(target / scratch, ignore_errors=True)
