"""Attacks on a run: hostile source files, trees and caches. Each must end in the right findings or a
clear one-line error, never a crash, a hang, a lost file or a silenced finding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

WriteTree = Callable[..., Path]

CONSUMER = (FIXTURES / "EPL900" / "consumer.py").read_text(encoding="utf-8")
REPOSITORY = Path(__file__).resolve().parent.parent
# A guard against a hang only: every run here takes a few seconds.
HANG_GUARD_SECONDS = 300


def epochlint(cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """`epochlint ARGUMENTS` in its own process (a crash there must not end the tests), from `cwd`."""
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    command = [sys.executable, "-c", "import sys; from epochlint.cli import main; sys.exit(main(sys.argv[1:]))"]
    return subprocess.run(
        [*command, *arguments], cwd=cwd, capture_output=True, text=True, env=environment, timeout=HANG_GUARD_SECONDS
    )


def json_findings(run: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str]]:
    """(path, code, message) of each finding of a `--output-format json` run that ended normally."""
    assert run.returncode in (0, 1) and "Traceback" not in run.stderr, (run.returncode, run.stderr[-2000:])
    return [(f["path"], f["code"], f["message"]) for f in json.loads(run.stdout)["findings"]]


def codes_by_path(findings: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path, code, _ in findings:
        found.setdefault(path, []).append(code)
    return found


# --- crashes with no output ------------------------------------------------------------------------

NESTED_FSTRINGS = {
    # Both crashed libcst's native parser (the process died, no finding printed): the nesting
    # scan took strings as opaque.
    "brackets_2000": b"x = f'{" + b"(" * 2000 + b"a" + b")" * 2000 + b"}'\n",
    "unary_plus_10000": b"x = f'{" + b"+" * 10000 + b"a}'\n",
    "in_a_nested_fstring": b"x = f'{f\"{" + b"-" * 5000 + b"a}\"}'\n",
}


@pytest.mark.parametrize("content", NESTED_FSTRINGS.values(), ids=NESTED_FSTRINGS.keys())
def test_a_deeply_nested_fstring_is_one_epl900_beside_the_other_findings(write_tree: WriteTree, content: bytes) -> None:
    root = write_tree({"consumer.py": CONSUMER, "deep.py": content})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"], "deep.py": ["EPL900"]}
    [message] = [message for path, _, message in findings if path == "deep.py"]
    assert "nested" in message, message


def test_fstrings_of_ordinary_depth_are_analysed(write_tree: WriteTree) -> None:
    consumer = CONSUMER.replace("accepted = []", "accepted = [f'{(((message)))!r:>{width}} {{(( [[' + f\"{x}\"]")
    root = write_tree({"consumer.py": consumer})
    assert codes_by_path(json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))) == {
        "consumer.py": ["EPL001"]
    }


def _consumer_inheriting(base: str, classes: list[str]) -> str:
    """Class definitions, then the racy consumer as a subclass of `base` calling an inherited method."""
    consumer = CONSUMER.replace("class BatchConsumer:", f"class BatchConsumer({base}):")
    consumer = consumer.replace("accepted = []", "accepted = [self.helper()]")
    return "\n".join(classes) + "\n\n" + consumer


def test_an_inheritance_chain_of_500_classes_is_analysed(write_tree: WriteTree) -> None:
    # Ended in RecursionError (one recursive call per class to linearize the hierarchy).
    chain = ["class C0:\n    def helper(self):\n        return 1"]
    chain += [f"class C{i}(C{i - 1}):\n    pass" for i in range(1, 500)]
    root = write_tree({"consumer.py": _consumer_inheriting("C499", chain)})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"]}


def test_a_ladder_of_22_diamonds_is_analysed(write_tree: WriteTree) -> None:
    # Each class's order was computed again for every path to it: 2**22 times for the last one
    # (past two minutes; it finishes in a second once each class is linearized once).
    ladder = ["class D0:\n    def helper(self):\n        return 1"]
    for i in range(22):
        ladder += [f"class L{i}(D{i}):\n    pass", f"class R{i}(D{i}):\n    pass", f"class D{i + 1}(L{i}, R{i}):\n    pass"]
    root = write_tree({"consumer.py": _consumer_inheriting("D22", ladder)})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"]}
