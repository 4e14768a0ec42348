"""Suppression comments: `noqa` in flake8's and ruff's form, and EPL901 for the ones that hide nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, actual_marks, run_check

STALE = FIXTURES / "EPL901" / "stale_and_mistyped.py"
STALE_REL = STALE.relative_to(REPO).as_posix()


def _line_of(text: str) -> int:
    return next(n for n, line in enumerate(STALE.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("comment", "silenced"),
    [
        pytest.param("# noqa: EPL001", True, id="noqa-code"),
        pytest.param("# NOQA:EPL001,E501", True, id="noqa-list-any-case"),
        pytest.param("# noqa", False, id="bare-noqa-is-not-ours"),
        pytest.param("# noqa: E501", False, id="other-linters-code"),
        pytest.param("# epochlint: ignore[EPL001]  # audited", True, id="ignore-then-comment"),
        pytest.param("# epochlint: ignore[EPL001] (audited)", True, id="reason-after-the-list"),
        pytest.param("# noqa: E501  # epochlint: ignore[EPL001]", True, id="after-another-linters-comment"),
    ],
)
def test_noqa_silences_like_ignore(write_tree, comment: str, silenced: bool) -> None:  # type: ignore[no-untyped-def]
    source = (FIXTURES / "EPL001" / "suppressed_inline.py").read_text()
    root: Path = write_tree({"consumer.py": source.replace("# epochlint: ignore[EPL001]", comment)})
    codes = [f.code for f in run_check(root).findings]
    assert ("EPL001" not in codes) == silenced, codes
    assert "EPL901" not in codes


def test_unused_suppressions_are_judged_only_for_codes_that_ran() -> None:
    result = run_check(STALE, overrides={"select": ["EPL001", "EPL901"]})
    unused = {line for (path, line, code) in actual_marks(result) if code == "EPL901"}
    # The typo is judged whatever ran; EPL009, EPL006 and the bare ignore wait for their rules.
    assert unused == {_line_of("ignore[EPL01]")}


def test_unused_suppression_names_what_it_silenced_nothing_for() -> None:
    messages = {f.location.line: f.message for f in run_check(STALE).findings if f.code == "EPL901"}
    assert messages[_line_of("ignore[EPL01]")] == "Unused suppression: unknown code `EPL01`."
    assert messages[_line_of("EPL001, EPL009")] == "Unused suppression: `EPL009` reported nothing on this line."


def test_unused_suppression_lands_on_its_comment() -> None:
    line = _line_of("ignore[EPL006]")
    text = STALE.read_text().splitlines()[line - 1]
    (finding,) = [f for f in run_check(STALE).findings if f.code == "EPL901" and f.location.line == line]
    assert finding.location.path == STALE_REL
    assert text[finding.location.column - 1 :].startswith("# epochlint: ignore[EPL006]")


def test_an_explicit_ignore_of_epl901_keeps_a_stale_suppression(write_tree) -> None:  # type: ignore[no-untyped-def]
    root: Path = write_tree({"a.py": "x = 1  # epochlint: ignore[EPL006]; ignore[EPL901]\n"})
    assert [f.code for f in run_check(root).findings] == []
