"""Every fixture folder reports exactly the findings marked in its files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, KNOWN_CODES, REPO, Mark, actual_marks, expected_marks, run_check

FOLDERS = sorted(p for p in FIXTURES.iterdir() if p.is_dir())


def _only_known(marks: Counter[Mark]) -> Counter[Mark]:
    return Counter({mark: n for mark, n in marks.items() if mark[2] in KNOWN_CODES})


def _describe(marks: Counter[Mark]) -> list[str]:
    return sorted(f"{path}:{line} {code}" for (path, line, code), n in marks.items() for _ in range(n))


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_fixture_folder_reports_exactly_its_marks(folder: Path) -> None:
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
