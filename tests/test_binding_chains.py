"""Of the calls that bind a helper's lock parameters the same locks and pass it the same
callbacks, a finding's chain shows the first in the source (its file, then its line), whatever the
functions that make them are named. The fixture `bindings_shown_in_source_order.py` of EPL009
holds the case and marks the finding; here, the chain it shows."""

from __future__ import annotations

from tests.conftest import FIXTURES, run_check

CASES = FIXTURES / "EPL009" / "bindings_shown_in_source_order.py"


def test_the_chain_starts_at_the_binding_call_first_in_the_file() -> None:
    (finding,) = run_check(CASES).findings
    lines = CASES.read_text(encoding="utf-8").splitlines()
    first_call = next(number for number, line in enumerate(lines, 1) if line.strip() == "both(_A, _B)")
    start = finding.chain[0]
    assert start.function.endswith(".zz_drain"), [step.function for step in finding.chain]
    assert (start.location.line, start.message) == (first_call, "calls `bindings_shown_in_source_order.both`")
