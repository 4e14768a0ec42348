"""epochlint only reads: analysed code is never imported or executed, symlinks that leave the analysed
roots are not followed, and report paths are relative and never leave the root."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from epochlint.config import load_config
from epochlint.engine import check
from tests.conftest import FIXTURES, KNOWN_CODES
from tests.test_cli import ENV, epochlint

WriteTree = Callable[..., Path]

CONSUMER = (FIXTURES / "EPL900" / "consumer.py").read_text(encoding="utf-8")
MARKER = "EXECUTED"

# Top-level code that leaves a trace, then ends the process: run, it would be seen.
SIDE_EFFECT = f"""\
import os
import pathlib
import sys

pathlib.Path(__file__).with_name("{MARKER}").write_text(__name__)
print("executed", __name__)
sys.exit(3)
os._exit(4)
"""

# Modules a project may have that would shadow the standard library, epochlint's own packages and
# its dependencies, if the analysed tree were ever on sys.path; and the files Python runs by itself.
BOOBY_TRAPS = (
    "rules/__init__.py", "libcst/__init__.py", "networkx/__init__.py", "rich/__init__.py", "pathspec.py",
    "json.py", "re.py", "typing.py", "threading.py", "hashlib.py", "tomllib.py", "pickle.py",
    "sitecustomize.py", "usercustomize.py", "conftest.py", "setup.py", "__main__.py",
    "pkg/__init__.py", "pkg/side_effects.py",
)
# The consumer imports them, so a linter that imported what it analyses would run them.
IMPORTING_CONSUMER = "import json\nimport pkg.side_effects\nfrom rules import Rule\n" + CONSUMER


@pytest.fixture
def trapped(write_tree: WriteTree) -> Path:
    # Enough source for `--jobs 2` to parse in worker processes.
    bulk = {"pkg/bulk.py": CONSUMER * 200}
    return write_tree({"pkg/consumer.py": IMPORTING_CONSUMER, **bulk, **{rel: SIDE_EFFECT for rel in BOOBY_TRAPS}})


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if ".epochlint_cache" not in p.parts}


def assert_nothing_ran(root: Path, before: set[str]) -> None:
    assert not list(root.rglob(MARKER)), "analysed code was executed"
    assert _files(root) == before


def test_check_never_imports_what_it_analyses(trapped: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _files(trapped)
    monkeypatch.chdir(trapped)
    result = check([trapped], load_config([trapped], None, KNOWN_CODES), use_cache=False)
    assert "pkg/consumer.py" in {f.location.path for f in result.findings if f.code == "EPL001"}
    assert result.files_analysed == len(BOOBY_TRAPS) + 2
    assert_nothing_ran(trapped, before)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_python_dash_m_in_the_analysed_project_runs_none_of_it(trapped: Path, jobs: str) -> None:
    """`python -m` puts the current folder first on sys.path: the project's `rules/`, `json.py`...
    would shadow epochlint's own modules and run."""
    before = _files(trapped)
    result = epochlint(trapped, "check", "--no-cache", "--jobs", jobs)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "executed" not in result.stdout
    assert "pkg/consumer.py" in result.stdout
    assert_nothing_ran(trapped, before)


def test_the_installed_command_in_the_analysed_project_runs_none_of_it(trapped: Path) -> None:
    script = Path(sys.executable).parent / "epochlint"
    if not script.is_file():
        pytest.skip("epochlint is not installed next to this interpreter")
    before = _files(trapped)
    result = subprocess.run([str(script), "check", "--no-cache"], cwd=trapped, capture_output=True, text=True,
                            env=ENV, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stdout + result.stderr
    assert_nothing_ran(trapped, before)


# --- symlinks that leave the analysed roots -------------------------------------------------------


def test_symlinks_out_of_the_analysed_root_are_not_followed(
    write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "racy.py").write_text(CONSUMER)
    (outside / "lib").mkdir()
    (outside / "lib" / "racy.py").write_text(CONSUMER)
    root = write_tree({"app/consumer.py": CONSUMER})
    (root / "app" / "linked.py").symlink_to(outside / "racy.py")
    (root / "app" / "vendor").symlink_to(outside / "lib", target_is_directory=True)
    (root / "app" / "up").symlink_to(outside, target_is_directory=True)
    result = check([root / "app"], load_config([root / "app"], None, KNOWN_CODES), use_cache=False)
    assert {f.location.path for f in result.findings if f.code != "EPL900"} == {"app/consumer.py"}
    # Never read, but reported rather than skipped silently.
    not_followed = {f.location.path: f.message for f in result.findings if f.code == "EPL900"}
    assert set(not_followed) == {"app/linked.py", "app/vendor", "app/up"}
    assert all("symbolic link to outside the analysed paths, not followed" in m for m in not_followed.values())


def test_a_symlink_given_explicitly_is_taken_under_its_own_name(
    write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "racy.py").write_text(CONSUMER)
    root = write_tree({"app/consumer.py": CONSUMER})
    (root / "app" / "linked.py").symlink_to(outside / "racy.py")
    given = [root / "app", root / "app" / "linked.py"]
    result = check(given, load_config(given, None, KNOWN_CODES), use_cache=False)
    assert {f.location.path for f in result.findings} == {"app/consumer.py", "app/linked.py"}


# --- report paths ---------------------------------------------------------------------------------


def _paths(value: Any, key: str = "") -> Iterator[str]:
    """Every path or URI anywhere in a JSON or SARIF document."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _paths(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _paths(item, key)
    elif isinstance(value, str) and key in ("path", "uri"):
        yield value


def assert_relative_paths(document: dict[str, Any], machine_paths: tuple[str, ...]) -> list[str]:
    paths = list(_paths(document))
    assert paths
    text = json.dumps(document)
    for path in paths:
        assert not path.startswith(("/", "\\")) and ":" not in path and "\\" not in path, path
        assert ".." not in path.split("/") and "." not in path.split("/"), path
    for machine_path in machine_paths:
        assert machine_path not in text, machine_path
    return paths


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_report_paths_are_relative_to_the_root_and_never_leave_it(
    write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory, fmt: str
) -> None:
    root = write_tree({"app/consumer.py": CONSUMER, "app/deep/er/consumer.py": CONSUMER, "bad.py": "def f(:\n"})
    (root / "app" / "alias").symlink_to(root / "app" / "deep", target_is_directory=True)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "other.py").write_text(CONSUMER)
    outside = str(elsewhere / "other.py")
    result = epochlint(root / "app", "check", "--output-format", fmt, "--no-cache", ".", "../bad.py", outside)
    assert result.returncode == 1, result.stderr
    paths = assert_relative_paths(json.loads(result.stdout), (str(root), str(root.resolve()), str(elsewhere)))
    assert {"app/consumer.py", "app/deep/er/consumer.py", "bad.py"} <= set(paths)
    assert any(path.endswith("other.py") for path in paths)
