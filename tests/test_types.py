"""The sources type-check as the package they install as. In the checkout they import each other as
`epochlint` from `linter/` and `rules/`, which mypy cannot follow: run over the folders, it takes
every such import as `Any` and passes code whose types disagree across modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.snapshot import snapshot


@pytest.mark.slow
def test_the_installed_package_type_checks(tmp_path: Path) -> None:
    installed = tmp_path / "installed"
    snapshot(installed)
    command = [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--cache-dir", str(tmp_path / "cache")]
    checked = subprocess.run([*command, "epochlint"], cwd=installed, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
