"""Every fixture folder reports exactly the findings marked in its files, and its README.md tables
name every file in it (none that is not there), so the tables cannot drift from the files."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from epochlint.frontend.java import available as java_frontend_available

from tests.conftest import FIXTURES, KNOWN_CODES, REPO, Mark, actual_marks, expected_marks, run_check

JAVA_FIXTURES = FIXTURES / "java"
README = "README.md"
# A file is named in a table row's first cell, as a path in backticks from the README's folder.
_NAMED_FILE = re.compile(r"`([^`]+)`")
# Each Java fixture folder is a unit of its own, as each Python one is.
FOLDERS = sorted(
    [p for p in FIXTURES.iterdir() if p.is_dir() and p != JAVA_FIXTURES]
    + [p for p in JAVA_FIXTURES.iterdir() if p.is_dir()]
)


def _only_known(marks: Counter[Mark]) -> Counter[Mark]:
    return Counter({mark: n for mark, n in marks.items() if mark[2] in KNOWN_CODES})


def _describe(marks: Counter[Mark]) -> list[str]:
    return sorted(f"{path}:{line} {code}" for (path, line, code), n in marks.items() for _ in range(n))


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.relative_to(FIXTURES).as_posix() for p in FOLDERS])
def test_fixture_folder_reports_exactly_its_marks(folder: Path) -> None:
    if folder.parent == JAVA_FIXTURES and not java_frontend_available():
        pytest.skip("the Java frontend (tree-sitter, tree-sitter-java) is not installed: pip install 'epochlint[java]'")
    expected = _only_known(expected_marks(REPO, folder))
    actual = actual_marks(run_check(folder))
    missing = expected - actual
    unexpected = actual - expected
    assert not missing and not unexpected, (
        f"missing: {_describe(missing)}\nunexpected: {_describe(unexpected)}"
    )


def test_every_rule_has_a_fixture_folder_with_marks() -> None:
    marked = {code for folder in FOLDERS for (_, _, code) in expected_marks(REPO, folder)}
    assert KNOWN_CODES <= marked


def _named_in_readme(readme: Path) -> dict[Path, str]:
    """Each path the README's table rows name in their first cell, with the name as written."""
    named: dict[Path, str] = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            first_cell = line.split("|")[1]
            named.update({(readme.parent / name).resolve(): name for name in _NAMED_FILE.findall(first_cell)})
    return named


def _files_named_by_each_readme() -> dict[Path, dict[Path, str]]:
    return {readme: _named_in_readme(readme) for readme in sorted(FIXTURES.rglob(README))}


def test_every_fixture_file_has_a_readme_row() -> None:
    # Only a README in the file's own folder or one around it counts, so a table cannot vouch for
    # files it does not sit above.
    rows = _files_named_by_each_readme()
    unnamed = [
        path.relative_to(FIXTURES).as_posix()
        for path in sorted(FIXTURES.rglob("*"))
        if path.is_file() and path.name != README
        and not any(path.resolve() in named for readme, named in rows.items() if path.is_relative_to(readme.parent))
    ]
    assert not unnamed, f"fixture files without a row in a README.md above them: {unnamed}"


def test_every_readme_row_names_a_fixture_file_below_it() -> None:
    stale = [
        f"{readme.relative_to(FIXTURES).as_posix()}: {name}"
        for readme, named in _files_named_by_each_readme().items()
        for path, name in named.items()
        if not path.is_file() or not path.is_relative_to(readme.parent.resolve())
    ]
    assert not stale, f"README.md rows naming no fixture file in or below their folder: {stale}"
