"""The compiled build (setup.py with EPOCHLINT_COMPILE=1: the hottest modules of the frontend and
the program model built by mypyc) reports exactly what the interpreted one reports."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from bench.snapshot import snapshot
from tests.conftest import REPO

_PRINT_FILES = "import importlib, sys; print(*(importlib.import_module(name).__file__ for name in sys.argv[1:]))"
CHECK = [sys.executable, "-m", "epochlint", "check", "--no-cache", "--jobs", "1", "--output-format", "json"]


@pytest.mark.slow
def test_the_compiled_build_reports_what_the_interpreted_one_reports(tmp_path: Path) -> None:
    installed = tmp_path / "installed"
    snapshot(installed, compiled=True)
    compiled_environment = {**os.environ, "PYTHONPATH": str(installed)}
    imported = subprocess.run(
        [sys.executable, "-c", _PRINT_FILES, "epochlint.frontend.extract", "epochlint.program.symbols"],
        env=compiled_environment,
        capture_output=True,
        text=True,
        check=True,
    )
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert [file.endswith(suffix) for file in imported.stdout.split()] == [True, True]

    compiled = subprocess.run([*CHECK, "fixtures"], cwd=REPO, env=compiled_environment, capture_output=True)
    interpreted = subprocess.run([*CHECK, "fixtures"], cwd=REPO, capture_output=True)

    assert compiled.returncode == interpreted.returncode == 1, compiled.stderr.decode()[-2000:]
    assert compiled.stdout == interpreted.stdout
