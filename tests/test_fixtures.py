"""Every fixture folder reports exactly the findings marked in its files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from epochlint.frontend.java import available as java_frontend_available

from tests.conftest import FIXTURES, KNOWN_CODES, REPO, Mark, actual_marks, expected_marks, run_check

JAVA_FIXTURES = FIXTURES / "java"
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
