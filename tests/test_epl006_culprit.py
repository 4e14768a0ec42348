"""EPL006 through callers names the culprit: the caller that calls the writing helper without the
guard, with the chain from its call to the write (console and SARIF codeFlows)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from epochlint.report import console, sarif
from tests.conftest import FIXTURES, REPO, run_check

HELPER = FIXTURES / "EPL006" / "helper_and_its_callers.py"
HELPER_REL = HELPER.relative_to(REPO).as_posix()

# `reset` calls `_bump` through `_reset_position`; `seek` holds the lock around its call, and two
# more writes hold it, so it is the field's guard.
TWO_DEEP = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def _bump(self):
        self._epoch += 1

    def _reset_position(self):
        self._bump()

    def seek(self):
        with self._lock:
            self._bump()

    def rewind(self):
        with self._lock:
            self._epoch += 1

    def redeliver(self):
        with self._lock:
            self._epoch += 1

    def reset(self):
        self._reset_position()
"""


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_the_unlocked_caller_is_named_with_its_chain() -> None:
    (finding,) = [f for f in run_check(HELPER).findings if f.code == "EPL006"]
    assert (
        "because `helper_and_its_callers.Consumer.reset` "
        "calls `helper_and_its_callers.Consumer._bump`" in finding.message
    )
    assert [(step.location.line, step.message) for step in finding.chain] == [
        (_line_of(HELPER, "    def reset") + 1, "calls `helper_and_its_callers.Consumer._bump`"),
        (finding.location.line, "writes `Consumer._epoch`"),
    ]


def test_the_chain_reaches_sarif_and_the_console() -> None:
    result = run_check(HELPER)
    log = io.StringIO()
    sarif.render(result, log)
    (sarif_result,) = [r for r in json.loads(log.getvalue())["runs"][0]["results"] if r["ruleId"] == "EPL006"]
    steps = sarif_result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [s["location"]["physicalLocation"]["region"]["startLine"] for s in steps] == [
        _line_of(HELPER, "    def reset") + 1,
        _line_of(HELPER, "expect: EPL006"),
    ]
    text = io.StringIO()
    console.render(result, text)
    assert (
        f"{HELPER_REL}:{_line_of(HELPER, '    def reset') + 1}:9  "
        "helper_and_its_callers.Consumer.reset: calls" in text.getvalue()
    )


def test_the_chain_goes_up_to_the_caller_without_the_lock(write_tree) -> None:  # type: ignore[no-untyped-def]
    (finding,) = run_check(write_tree({"consumer.py": TWO_DEEP})).findings
    assert [step.function for step in finding.chain] == [
        "consumer.Consumer.reset",
        "consumer.Consumer._reset_position",
        "consumer.Consumer._bump",
    ]
    assert (
        "because `consumer.Consumer.reset` calls `consumer.Consumer._bump` without it "
        "(via consumer.Consumer._reset_position)" in finding.message
    )


# Two unlocked callers of `_bump`: `zap`, first in the file, and `apply`, first by name.
TWO_CALLERS = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def zap(self):
        self._bump()

    def _bump(self):
        self._epoch += 1

    def rewind(self):
        with self._lock:
            self._epoch += 1

    def redeliver(self):
        with self._lock:
            self._epoch += 1

    def apply(self):
        self._bump()
"""


def test_the_chain_starts_at_the_first_unlocked_caller_in_source(write_tree) -> None:  # type: ignore[no-untyped-def]
    (finding,) = run_check(write_tree({"consumer.py": TWO_CALLERS})).findings
    assert [step.function for step in finding.chain] == ["consumer.Consumer.zap", "consumer.Consumer._bump"]
    assert "because `consumer.Consumer.zap` calls `consumer.Consumer._bump` without it" in finding.message


def test_a_write_in_its_own_unlocked_function_carries_no_chain() -> None:
    findings = run_check(FIXTURES / "EPL006" / "handoff_from_held_region.py").findings
    assert [(f.code, f.chain) for f in findings] == [("EPL006", ())]
