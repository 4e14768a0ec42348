"""The distribution installs one import package, `epochlint` (the rules as `epochlint.rules`), and
nothing else at the top level, so it lives beside PyPI's `rules` (Django's authorization package)
in one environment."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from epochlint import __version__
from epochlint.rules import all_rules
from tests.conftest import REPO

pytestmark = pytest.mark.slow

PROJECT_FILES = ("pyproject.toml", "README.md", "linter", "rules")
# What pip prints when the package index cannot be reached: the test cannot run here, it did not fail.
OFFLINE = ("No matching distribution found", "Could not find a version", "Failed to establish a new connection")


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=900)


def succeeded(result: subprocess.CompletedProcess[str], what: str) -> None:
    """Fail on an error of the project's; skip when the package index cannot be reached."""
    if result.returncode == 0:
        return
    if any(sign in result.stderr for sign in OFFLINE):
        pytest.skip(
            f"{what} needs the package index, which cannot be reached: {result.stderr.strip().splitlines()[-1]}"
        )
    pytest.fail(f"{what} failed:\n{result.stdout}\n{result.stderr}")


def dependency_folders() -> list[str]:
    """The folders this environment imports the project's dependencies from."""
    import libcst
    import networkx
    import pathspec
    import rich

    return sorted({str(Path(module.__file__ or "").parent.parent) for module in (libcst, networkx, pathspec, rich)})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the project's files (the build leaves nothing in the checkout)."""
    source = tmp_path_factory.mktemp("source")
    for name in PROJECT_FILES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / name)
    out = tmp_path_factory.mktemp("dist")
    succeeded(run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, source), "building the wheel")
    [built] = out.glob("epochlint-*.whl")
    return built


def test_the_wheel_holds_nothing_at_the_top_level_but_epochlint(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        top = {name.split("/", 1)[0] for name in archive.namelist()}
    assert top == {"epochlint", f"epochlint-{__version__}.dist-info"}
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"epochlint/rules/epl001_unlocked_epoch_read_in_batch_loop.py", "epochlint/__main__.py"} <= names


def test_installed_beside_pypis_rules_both_import(wheel: Path, tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").stdout.strip())
    # The dependencies (libcst, networkx, rich, pathspec) come from this environment, after the new
    # one's own packages: the wheel is installed without them, offline.
    (site / "zz_running_environment.pth").write_text("\n".join(dependency_folders()) + "\n", encoding="utf-8")
    succeeded(run(python, "-m", "pip", "install", "--no-deps", wheel), "installing the wheel")
    succeeded(run(python, "-m", "pip", "install", "rules"), "installing PyPI's rules")
    imported = run(
        python,
        "-c",
        "import epochlint, epochlint.rules, rules, rules.predicates; "
        "print(epochlint.__file__); print(epochlint.rules.__file__); print(rules.__file__); "
        "print(len(epochlint.rules.all_rules()), callable(rules.predicates.predicate))",
        cwd=tmp_path,
    )
    assert imported.returncode == 0, imported.stderr
    linter, our_rules, their_rules, loaded = imported.stdout.splitlines()
    assert Path(linter).parent == site / "epochlint"
    assert Path(our_rules).parent == site / "epochlint" / "rules"
    assert Path(their_rules).parent == site / "rules"
    assert loaded == f"{len(all_rules())} True"
    version = run(python, "-m", "epochlint", "--version", cwd=tmp_path)
    assert (version.returncode, version.stdout) == (0, f"epochlint {__version__}\n"), version.stderr
