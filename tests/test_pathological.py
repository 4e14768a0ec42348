"""Pathological inputs (bench/pathological.py measures their growth): the work of the analysis is
counted here, never timed, so these tests say the same on a loaded machine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from epochlint.program.lockorder import LockOrder
from tests.conftest import FIXTURES, actual_marks, run_check

WriteTree = Callable[..., Path]

CONSUMER = (FIXTURES / "EPL900" / "consumer.py").read_text(encoding="utf-8")


def call_chain(length: int) -> str:
    """The racy consumer's batch loop calls f0, which calls f1, ... which takes a lock."""
    functions = [f"def f{i}(lock):\n    f{i + 1}(lock)\n" for i in range(length)]
    functions.append(f"def f{length}(lock):\n    with lock:\n        pass\n")
    consumer = CONSUMER.replace("accepted = []", "accepted = []\n        f0(self._lock)")
    return "\n".join(functions) + "\n" + consumer


def test_a_call_chain_is_searched_for_bumps_once_per_function(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each function of the chain searched everything below it for a bump (EPL004 asks of every
    # function): length * length / 2 functions looked at, 137 s and 20 GB at 2,500 functions.
    length = 400
    looked_at: Counter[str] = Counter()
    bumps_in = LockOrder.bumps_in

    def counted(order: LockOrder, fid: str) -> object:
        looked_at[fid] += 1
        return bumps_in(order, fid)

    monkeypatch.setattr(LockOrder, "bumps_in", counted)
    root = write_tree({"calls.py": call_chain(length)})
    result = run_check(root)
    assert [code for _, _, code in actual_marks(result)] == ["EPL001"]
    assert max(looked_at.values()) <= 3
    assert sum(looked_at.values()) <= 3 * (length + 10)
