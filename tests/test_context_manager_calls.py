"""A `with` calls its context manager's `__exit__` where the statement ends, but a finding's chain
shows that call at its `with` item, as the code is read, each item's at its own even where several
end together. The fixture `context_manager_enter_and_exit.py` of EPL004 marks the findings; here,
where their chains put the calls."""

from __future__ import annotations

from pathlib import Path

from epochlint.findings import Finding, Location
from tests.conftest import FIXTURES, run_check

CASES = FIXTURES / "EPL004" / "context_manager_enter_and_exit.py"
READS = FIXTURES / "EPL001" / "epoch_read_where_a_with_enters.py"


def _finding_of(method: str, cases: Path = CASES) -> Finding:
    return next(f for f in run_check(cases).findings if f.function.endswith(f"Consumer.{method}"))


def _item_at(text: str, line: int, cases: Path = CASES) -> tuple[int, int, int, int]:
    """Where `text` is on `line` of the cases (1-based, end column exclusive)."""
    column = cases.read_text(encoding="utf-8").splitlines()[line - 1].index(text) + 1
    return line, column, line, column + len(text)


def _span(location: Location) -> tuple[int, int, int, int]:
    return location.line, location.column, location.end_line, location.end_column


def test_an_exit_that_bumps_is_shown_at_its_item() -> None:
    finding = _finding_of("seek")
    (step,) = [step for step in finding.chain if "Advancing.__exit__" in step.message]
    assert _span(step.location) == _item_at("Advancing(self)", finding.location.line - 1)


def test_exits_that_end_together_are_shown_each_at_its_own_item() -> None:
    finding = _finding_of("seek_two_items")
    shown = {step.message: _span(step.location) for step in finding.chain if "__exit__" in step.message}
    line = finding.location.line
    assert shown == {
        "calls `context_manager_enter_and_exit.Flushing.__exit__`": _item_at("Flushing(self)", line),
        "calls `context_manager_enter_and_exit.Advancing.__exit__`": _item_at("Advancing(self)", line),
    }
    assert _span(finding.location) == _item_at("Flushing(self)", line)


def test_an_exit_inside_a_locks_with_is_shown_at_its_own_item_in_a_read_chain() -> None:
    # The `with Tally(self):` ends where the lock's `with` around it does.
    finding = _finding_of("ack_sending", READS)
    (step,) = [step for step in finding.chain if "Tally.__exit__" in step.message]
    assert _span(step.location) == _item_at("Tally(self)", finding.location.line + 3, READS)
