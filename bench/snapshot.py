"""A copy of epochlint's own packages for a benchmark to run: edits made to the checkout while a
long benchmark runs can change neither what is measured nor the processes it starts."""

from __future__ import annotations

import compileall
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
# What building the compiled wheel needs beside setuptools, by the module that tells it is there.
_BUILD_TOOLS = {"mypyc": "mypy", "wheel": "wheel"}
COMPILED_HELP = "measure epochlint built with EPOCHLINT_COMPILE=1 (setup.py: mypyc, a C compiler)"


def snapshot(target: Path, compiled: bool = False) -> None:
    """Lay out `linter/` as `epochlint` and `rules/` as `epochlint.rules` under `target`, as the
    installed distribution names them, to be put first on PYTHONPATH; compiled to bytecode, as pip
    compiles what it installs (where PYTHONDONTWRITEBYTECODE is set, every run would otherwise
    compile the modules it imports again: 0.19 s of a one-file run measured here). With
    `compiled`, the wheel `setup.py` builds with EPOCHLINT_COMPILE=1 is unpacked there instead."""
    shutil.rmtree(target, ignore_errors=True)
    if compiled:
        _unpack_compiled_wheel(target)
    else:
        for folder, package in (("linter", "epochlint"), ("rules", "epochlint/rules")):
            shutil.copytree(PROJECT / folder, target / package, ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(target, quiet=1)


def _unpack_compiled_wheel(target: Path) -> None:
    missing = [spec for module, spec in _BUILD_TOOLS.items() if importlib.util.find_spec(module) is None]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)
    with tempfile.TemporaryDirectory() as built:
        command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w", built]
        environment = {**os.environ, "EPOCHLINT_COMPILE": "1"}
        done = subprocess.run([*command, str(PROJECT)], env=environment, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"building the compiled wheel failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        (wheel,) = Path(built).glob("*.whl")
        with zipfile.ZipFile(wheel) as unpacked:
            unpacked.extractall(target)
