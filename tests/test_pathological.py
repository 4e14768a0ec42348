"""Pathological inputs (bench/pathological.py measures their growth): the work of the analysis is
counted here, never timed, so these tests say the same on a loaded machine."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from epochlint.audit.tasks import FINDING, UNIT
from epochlint.cli import EXIT_USAGE, main
from epochlint.config import load_config
from epochlint.engine import check
from epochlint.program import locks, lockorder
from epochlint.program.callgraph import MAX_CONTEXTS
from epochlint.program.lockorder import LockOrder
from epochlint.program.model import Program
from epochlint.program.symbols import Symbols
from epochlint.report import RunResult
from epochlint.rules.epl004_epoch_bump_after_queue_clear import EpochBumpAfterQueueClear
from bench.pathological import (
    CONSUMER,
    LOCK_RING_ENTRIES,
    bump_chain,
    call_chain,
    factory_chain,
    forking_calls,
    forking_cycle,
    forking_cycle_reading_in_its_loops,
    forking_lock_cycle,
    forking_lock_parameters,
    forwarded_callbacks,
    lock_ring,
    loops_into_a_forking_cycle,
    identity_decorated,
    method_chain,
    nested_lock_chain,
)
from tests.conftest import KNOWN_CODES, actual_marks
from tests.test_audit_tasks import audit_in_process, one_unit

WriteTree = Callable[..., Path]


def calls_by_function(monkeypatch: pytest.MonkeyPatch, owner: type, method: str) -> Counter[str]:
    """How many times `owner.method(fid, ...)` is called for each function id, from now on."""
    counts: Counter[str] = Counter()
    original = getattr(owner, method)

    def counted(self: object, fid: str, *rest: object) -> object:
        counts[fid] += 1
        return original(self, fid, *rest)

    monkeypatch.setattr(owner, method, counted)
    return counts


def test_a_call_chain_is_searched_for_bumps_once_per_function(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each function of the chain searched everything below it for a bump (EPL004 asks of every
    # function): length * length / 2 functions looked at, 25 s and 464 MB at 5,000 functions.
    length = 400
    looked_at = calls_by_function(monkeypatch, LockOrder, "bumps_in")
    root = write_tree(call_chain(length))
    result = fresh_check(root)
    assert [code for _, _, code in actual_marks(result)] == ["EPL001"]
    assert max(looked_at.values()) <= 3
    assert sum(looked_at.values()) <= 3 * (length + 10)


def test_calls_that_fork_and_join_again_are_walked_once_per_function_and_state(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every path through calls from a batch loop to each epoch read was walked: 2 ** levels of them,
    # 59 s and 1.1 GB at 20 levels, and redis-py's call graph never finished.
    levels = 12
    walked = calls_by_function(monkeypatch, Program, "_reads_from")
    reads = reads_reported_by_the_one_epl001(write_tree(forking_calls(levels)))
    # Both reads at the bottom are found through the calls, as the consumer's own read is.
    assert {path for path, _ in reads} == {"calls.py"} and len(reads) == 3
    assert sum(walked.values()) <= 4 * (2 * levels + 2)


def test_a_lock_handed_up_callers_that_fork_and_join_again_is_followed_once_per_function(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Which lock a parameter holds was asked of every caller, again for each path of callers up to
    # the lock: 2 ** levels of them. Kafka Streams' `init(context)` methods, calling each other's,
    # kept one check busy for more than eight minutes.
    levels = 14
    asked = calls_by_function(monkeypatch, locks.Locks, "_locks_passed")
    reads = reads_reported_by_the_one_epl001(write_tree(forking_lock_parameters(levels)))
    # The reads at the bottom hold the consumer's lock, handed down: only its own read is reported.
    assert reads == {("calls.py", 18)}
    assert max(asked.values()) == 1


def test_a_lock_handed_around_a_call_cycle_is_followed_within_a_fixed_number_of_steps(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Inside a call cycle no answer is complete until the cycle is, and each question took 2 **
    # levels steps; it now stops at a fixed number of them (and the lock is not known there).
    asked = calls_by_function(monkeypatch, locks.Locks, "_locks_passed")
    reads = reads_reported_by_the_one_epl001(write_tree(forking_lock_cycle(14)))
    assert ("calls.py", 18) in reads
    assert sum(asked.values()) <= 2 * locks.MAX_FOLLOWED_STEPS


def reads_reported_by_the_one_epl001(root: Path) -> set[tuple[str, int]]:
    """The reads (path, line) that the only finding of a fresh check of `root`, an EPL001, names."""
    (finding,) = fresh_check(root).findings
    assert finding.code == "EPL001"
    return {(r.location.path, r.location.line) for r in finding.related if r.message.startswith("read of")}


def test_callbacks_handed_on_through_helpers_keep_the_search_linear(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each of 16 helpers hands 16 callbacks on to the next twice, its own one replaced: 2 ** 16
    # combinations of what the paths pass reach the last helper, which reads the epoch. Each was
    # walked (the search stopped at its work limit with an EPL900 from 20 helpers on); a search
    # now keeps a bounded number of them per function.
    walked = calls_by_function(monkeypatch, Program, "_reads_from")
    reads = reads_reported_by_the_one_epl001(write_tree(forwarded_callbacks(16)))
    assert len(reads) == 2  # the loop's own read and the last helper's, through the calls
    # Two calls into each helper, from each state the search keeps of its caller.
    assert max(walked.values()) <= 4 * MAX_CONTEXTS


def test_calls_that_fork_inside_a_call_cycle_stop_at_the_loops_work_limit_with_epl900_there(
    write_tree: WriteTree,
) -> None:
    # Inside a cycle the paths on from a function depend on the path that reached it: redis-py's
    # search went on for more than half an hour. It now stops at a fixed budget, and says so, at
    # the loop whose search it was.
    result = fresh_check(write_tree(forking_cycle(20)))
    (limit,) = result.findings
    assert (limit.code, limit.location.path, limit.location.line) == ("EPL900", "calls.py", 17)
    assert limit.message == (
        "Cannot check this batch loop: the search for epoch reads through calls from this batch loop "
        "takes more than 20,000 steps, a fixed work limit; EPL001 and EPL002 were not checked for it."
    )


def test_a_call_cycle_that_reads_only_in_batch_loops_of_its_own_is_not_walked(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Kafka Streams' iterator wrappers, each `peekNextKey` calling every other, reach epoch reads
    # only in batch loops of their own, which the search from another loop does not enter: two of
    # its loops walked that cycle path by path past their work limit (EPL900) to find nothing.
    walked = calls_by_function(monkeypatch, Program, "_reads_from")
    result = fresh_check(write_tree(forking_cycle_reading_in_its_loops(20)))
    lines = sorted(f.location.line for f in result.findings)
    # The consumer's own read, and each of the two loops of the cycle's, reported at that loop.
    assert codes(result) == [("calls.py", "EPL001")] * 3 and lines == [17, 24, 27]
    assert not walked


def test_one_loop_past_its_work_limit_leaves_the_other_loops_of_its_unit_checked(write_tree: WriteTree) -> None:
    # Kafka Streams' state restore loop alone spent most of its unit's budget, and EPL001 and
    # EPL002 were not checked anywhere in Kafka's 1,885 files.
    files = forking_cycle(20)
    files["racy.py"] = CONSUMER
    assert codes(fresh_check(write_tree(files))) == [("calls.py", "EPL900"), ("racy.py", "EPL001")]


def test_loops_past_their_units_work_limit_together_stop_it_with_epl900(write_tree: WriteTree) -> None:
    result = fresh_check(write_tree(loops_into_a_forking_cycle(8)))
    (limit,) = result.findings
    assert limit.code == "EPL900" and limit.location.path == "calls.py"
    assert limit.message == (
        "Cannot analyse the part of the program linked to this file by imports: the search for epoch "
        "reads through calls from batch loops takes more than 100,000 steps, a fixed work limit; "
        "EPL001 and EPL002 were not checked anywhere in it."
    )


def test_a_search_within_the_work_limit_counts_once_though_two_rules_ask(write_tree: WriteTree) -> None:
    # EPL002 asks for the reads EPL001 found: searched again, the same steps were counted twice,
    # and a unit whose search took more than half the budget had its EPL001 finding and also an
    # EPL900 saying that EPL002 was not checked there.
    result = fresh_check(write_tree(loops_into_a_forking_cycle(4)))  # 12,283 steps from each loop
    assert [finding.code for finding in result.findings] == ["EPL001"] * 5


def test_functions_given_back_by_their_decorators_each_call_only_the_next(
    write_tree: WriteTree, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each decorated name stood for every function its decorators were ever given: every call
    # reached all of them (functions ** 2 edges), and CPython's tests with unittest ran out of memory.
    functions = 300
    root = write_tree(identity_decorated(functions))
    assert [code for _, _, code in actual_marks(fresh_check(root))] == ["EPL001"]
    assert main(["graph", "calls", str(root), "--format", "pycg"]) == 0
    graph = json.loads(capsys.readouterr().out)
    assert graph["cases.case7"] == ["cases.case8"]
    assert sum(len(callees) for callees in graph.values()) <= 3 * functions


def test_a_read_through_a_chain_of_factories_past_the_depth_limit_is_found_in_linear_work(
    monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree
) -> None:
    # Past the depth limit (about eleven factories), the instance the chain returns was unknown, and
    # the loop's one epoch read, in its method, went unreported. Each factory's return is resolved
    # again a few times as what was cut short is resolved from the top, as many for a longer chain.
    computed = calls_by_function(monkeypatch, Symbols, "_return_entity")
    most = []
    for length in (50, 100):
        computed.clear()
        assert [code for _, _, code in actual_marks(fresh_check(write_tree(factory_chain(length))))] == ["EPL001"]
        most.append(max(computed.values()))
    assert most[0] == most[1]


def test_a_chain_of_method_calls_resolves_each_call_once(
    monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree
) -> None:
    # Each call of `a.b().b()...` resolved everything before it again: a chain of 60 calls took
    # 6 s, one of 120 more than 6 minutes. The read at its end must still be found.
    computed = calls_by_function(monkeypatch, Symbols, "_call_result")
    most = []
    for length in (40, 80):
        computed.clear()
        assert [code for _, _, code in actual_marks(fresh_check(write_tree(method_chain(length))))] == ["EPL001"]
        most.append(max(computed.values()))
    assert most[1] < 3 * most[0]  # linear: twice the calls, twice the work


INVERSION = """\
import threading

FIRST = threading.Lock()
SECOND = threading.Lock()


def forward():
    with FIRST:
        backward_inner()


def backward_inner():
    with SECOND:
        pass


def backward():
    with SECOND:
        with FIRST:  # expect: EPL009
            pass
"""


def fresh_check(root: Path, **overrides: object) -> RunResult:
    """`check` of `root` analysed again, never answered from the cache."""
    return check([root], load_config([root], None, KNOWN_CODES, overrides), use_cache=False)


def codes(result: RunResult) -> list[tuple[str, str]]:
    return sorted((f.location.path, f.code) for f in result.findings)


def test_nested_lock_holding_calls_stop_at_the_work_limit_with_epl900_where_it_was_reached(
    write_tree: WriteTree,
) -> None:
    # 200 nested calls: 3.9 s of CPU, 400: 25 s and growing as the cube; now the lock order stops
    # at its fixed budget, the unit gets an EPL900 saying so, and the other rules still report.
    root = write_tree({**nested_lock_chain(200), "consumer.py": CONSUMER})
    result = fresh_check(root)
    assert codes(result) == [("consumer.py", "EPL001"), ("held.py", "EPL900")]
    (limit,) = [f for f in result.findings if f.code == "EPL900"]
    assert limit.message == (
        "Cannot analyse the part of the program linked to this file by imports: the lock order through "
        "calls takes more than 1,000,000 steps, "
        "a fixed work limit; EPL008 and EPL009 were not checked anywhere in it."
    )
    # At the call whose chains went past the limit, in the function that makes it.
    caller = int(limit.function.removeprefix("held.f"))
    assert limit.location.line == _line_of(root / "held.py", f"        f{caller + 1}()")


def test_locks_handed_around_a_ring_of_helpers_bind_each_binding_of_a_caller_once(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The locks bound to parameters around a call cycle are found round after round of it; each
    # round went through every binding found above each call again, new or not: rounds times the
    # work, and 201 helpers handing their locks on swapped went past the lock order's work limit
    # (an EPL900 in place of the cycle).
    helpers = 201
    made: Counter[str] = Counter()
    kept_passed = lockorder._kept_passed

    def counted(*args: Any) -> Any:
        made["bindings"] += 1
        return kept_passed(*args)

    monkeypatch.setattr(lockorder, "_kept_passed", counted)
    assert codes(fresh_check(write_tree(lock_ring(helpers)))) == [("ring.py", "EPL009")]
    # Each call of a helper binds the locks of each entry once, in both orders (and the entries
    # their own).
    assert made["bindings"] <= (2 * LOCK_RING_ENTRIES + 1) * helpers


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_a_unit_past_the_lock_order_budget_reports_no_partial_lock_order_findings(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree({"locks.py": INVERSION})
    assert codes(fresh_check(root)) == [("locks.py", "EPL009")]
    monkeypatch.setattr(lockorder, "LOCK_ORDER_STEPS", 3)
    result = fresh_check(root)
    assert codes(result) == [("locks.py", "EPL900")]
    assert "EPL008 and EPL009 were not checked" in result.findings[0].message
    selected = fresh_check(root, select=["EPL009", "EPL900"])
    assert "; EPL009 was not checked anywhere in it." in selected.findings[0].message


def test_the_lock_graph_past_the_work_limit_is_one_error_line(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree({"locks.py": INVERSION})
    monkeypatch.setattr(lockorder, "LOCK_ORDER_STEPS", 3)
    assert main(["graph", "locks", str(root)]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "epochlint: error: cannot draw the graph: the lock order through calls takes more than 3 steps, "
        f"a fixed work limit (at locks.py:{_line_of(root / 'locks.py', 'backward_inner()')}:9)\n"
    )


def test_an_audited_unit_past_the_work_limit_has_its_epl900_and_is_not_counted_analysed(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lockorder, "LOCK_ORDER_STEPS", 3)
    rows = audit_in_process(one_unit(write_tree({"locks.py": INVERSION})))
    assert [r[6] for tag, r in rows if tag == FINDING] == ["EPL900"]
    (unit_row,) = [r for tag, r in rows if tag == UNIT]
    assert unit_row.error == (  # type: ignore[attr-defined]
        "the analysis stopped: the lock order through calls takes more than 3 steps, a fixed work limit; "
        "EPL008 and EPL009 were not checked anywhere in it"
    )


# The rule's own example of a clear made in a helper, so the two cannot drift apart.
CLEAR_IN_A_HELPER = next(
    example.code for example in EpochBumpAfterQueueClear.invalid if example.title == "the clear happens in a helper"
)


def test_a_chain_of_calls_ending_in_a_bump_stops_at_the_work_limit_with_epl900(write_tree: WriteTree) -> None:
    # Every function of the chain has the bump as an event with the rest of the chain: n*n/2 calls
    # kept, 21.7 s of CPU at 5,000 functions and growing as the square.
    root = write_tree({**bump_chain(1500), "consumer.py": CONSUMER})
    result = fresh_check(root)
    assert codes(result) == [("bump.py", "EPL900"), ("consumer.py", "EPL001")]
    assert result.findings[0].message == (
        "Cannot analyse the part of the program linked to this file by imports: the search for epoch bumps "
        "and queue clears through calls takes more than 1,000,000 steps, a fixed work limit; "
        "EPL004 was not checked anywhere in it."
    )


def test_a_unit_past_the_events_budget_reports_no_partial_epl004(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree({"consumer.py": CLEAR_IN_A_HELPER})
    assert codes(fresh_check(root)) == [("consumer.py", "EPL004")]
    monkeypatch.setattr(lockorder, "EVENT_STEPS", 0)
    result = fresh_check(root)
    assert codes(result) == [("consumer.py", "EPL900")]
    assert result.findings[0].location.line == _line_of(root / "consumer.py", "self._reset_pending()")
