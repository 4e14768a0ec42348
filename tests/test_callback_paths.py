"""A helper that calls the function it is given (or a method of the object it is given) runs, on
each path through a call of it, only what the calls along that path gave it: a finding's chain
goes through what was passed there, never through what other callers pass. The fixtures
`callback_runs_what_its_caller_passed.py` of EPL001 and EPL008, and
`receiver_passed_along_the_path.py` of EPL008, hold the cases and mark their findings; here, what
the findings say."""

from __future__ import annotations

from tests.conftest import FIXTURES, run_check

EPL001_CASES = FIXTURES / "EPL001" / "callback_runs_what_its_caller_passed.py"
EPL008_CASES = FIXTURES / "EPL008" / "callback_runs_what_its_caller_passed.py"
RECEIVER_CASES = FIXTURES / "EPL008" / "receiver_passed_along_the_path.py"


def test_the_reported_loop_is_explained_by_the_lambda_it_passes() -> None:
    (finding,) = run_check(EPL001_CASES).findings
    functions = [step.function for step in finding.chain]
    assert any(".deliver_current.<lambda" in function for function in functions), functions
    assert not any(".status." in function for function in functions), functions
    assert ".status." not in finding.message


def test_a_callback_handed_on_through_a_second_helper_keeps_what_was_passed() -> None:
    findings = run_check(EPL008_CASES).findings
    flush = next(f for f in findings if f.function.endswith("Committer.flush"))
    functions = [step.function for step in flush.chain]
    assert any(function.endswith(".logged_retries") for function in functions), functions
    assert any(".flush_under_lock.<lambda" in function for function in functions), functions
    assert {f.code for f in findings} == {"EPL008"}
    assert not any(f.function.endswith("Fetcher.seek") for f in findings)


def test_the_deadlock_is_blamed_on_the_region_that_passes_the_object_that_takes_the_lock() -> None:
    (finding,) = run_check(RECEIVER_CASES).findings
    assert finding.chain[0].function.endswith("Producer.reroute_locked")
    held_at = [related for related in finding.related if "already held" in related.message]
    assert [related.location.line for related in held_at] == [finding.chain[0].location.line]
