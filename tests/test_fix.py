"""`check --fix` and `--diff`: mechanical, verified fixes that keep formatting and comments."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from epochlint.config import load_config
import epochlint.fix.run as fix_run
from epochlint.cli import main
from epochlint.fix.run import plan_fixes
from tests.conftest import FIXTURES, KNOWN_CODES, run_check
from tests.test_cli import CONSUMER, ENV, FIXED_CONSUMER, RACY_CONSUMER, epochlint, replaced

WriteTree = Callable[..., Path]

# Formatting the fix must keep: odd spacing, comments in and around the loop, a string block.
STYLED_CONSUMER = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()   # reentrant: delivering takes it again
        self._epoch = 0

    def seek(self, offset):
        with self._lock:
            self._epoch += 1

    def on_batch(self, batch):
        # Deliver what is current.
        for message in batch:  # one batch
            # Compare the tags.
            if message.epoch >= self._epoch :
                self.deliver( message )
        return '''done
'''

    def deliver(self, message):
        with self._lock:
            pass
"""
STYLED_FIXED = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()   # reentrant: delivering takes it again
        self._epoch = 0

    def seek(self, offset):
        with self._lock:
            self._epoch += 1

    def on_batch(self, batch):
        # Deliver what is current.
        with self._lock:
            for message in batch:  # one batch
                # Compare the tags.
                if message.epoch >= self._epoch :
                    self.deliver( message )
        return '''done
'''

    def deliver(self, message):
        with self._lock:
            pass
"""
PLAIN_LOCK_CONSUMER = replaced(RACY_CONSUMER, "threading.RLock()", "threading.Lock()")
ASYNC_CONSUMER = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._epoch = 0

    def seek(self, offset):
        with self._lock:
            self._epoch += 1

    async def on_batch(self, batch):
        for message in batch:
            if message.epoch >= self._epoch:
                await self.deliver(message)

    async def deliver(self, message):
        pass
"""
COMPREHENSION_CONSUMER = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._epoch = 0

    def seek(self, offset):
        with self._lock:
            self._epoch += 1

    def current(self, batch):
        return [message for message in batch if message.epoch >= self._epoch]
"""
# Holding `_lock` around the loop would take `_stats_lock` under it, while `report` takes them in
# the other order: the fix would bring in a lock-order cycle (EPL009), so it is not made.
CYCLE_CONSUMER = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._stats_lock = threading.Lock()
        self._epoch = 0
        self._count = 0

    def seek(self, offset):
        with self._lock:
            self._epoch += 1

    def report(self):
        with self._stats_lock:
            with self._lock:
                return self._count

    def _count_one(self):
        with self._stats_lock:
            self._count += 1

    def on_batch(self, batch):
        for message in batch:
            if message.epoch >= self._epoch:
                self._count_one()
"""
REDELIVER = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self.consumer_epoch = 0
        self.incoming_messages = []
        self.pending_acks = set()

    def redeliver_unacknowledged_messages(self):
        with self._lock:
            # Drop what was received before the redeliver.
            self.incoming_messages.clear()
            self.pending_acks.clear()
            self.consumer_epoch += 1  # the new epoch
            self.send_redeliver_command(self.consumer_epoch)

    def send_redeliver_command(self, epoch):
        pass
"""
REDELIVER_FIXED = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self.consumer_epoch = 0
        self.incoming_messages = []
        self.pending_acks = set()

    def redeliver_unacknowledged_messages(self):
        with self._lock:
            self.consumer_epoch += 1  # the new epoch
            # Drop what was received before the redeliver.
            self.incoming_messages.clear()
            self.pending_acks.clear()
            self.send_redeliver_command(self.consumer_epoch)

    def send_redeliver_command(self, epoch):
        pass
"""


def fix(root: Path) -> str:
    result = epochlint(root, "check", "--fix")
    assert result.returncode in (0, 1), result.stderr
    return (root / CONSUMER).read_text(encoding="utf-8")


def diff(root: Path) -> tuple[int, str]:
    result = epochlint(root, "check", "--fix", "--diff")
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, result.stdout


def codes(root: Path) -> list[str]:
    return [finding.code for finding in run_check(root).findings]


# --- EPL001: hold the guard around the whole batch ---------------------------------------------------


def test_epl001_fix_holds_a_reentrant_guard_around_the_loop(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    assert codes(root) == ["EPL001"]
    assert fix(root) == FIXED_CONSUMER
    assert codes(root) == []


def test_fix_keeps_formatting_and_comments(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: STYLED_CONSUMER})
    assert fix(root) == STYLED_FIXED


def test_fix_is_idempotent(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    fix(root)
    assert diff(root) == (0, "")
    assert fix(root) == FIXED_CONSUMER


def test_a_file_named_through_a_symbolic_link_is_fixed_where_it_is(write_tree: WriteTree) -> None:
    # The fixed text was renamed over the link: the link became a copy, its target stayed racy.
    root = write_tree({"real/consumer.py": RACY_CONSUMER})
    (root / "link.py").symlink_to(root / "real" / "consumer.py")
    result = epochlint(root, "check", "--fix", "link.py")
    assert result.returncode == 0, result.stderr
    assert (root / "link.py").is_symlink()
    assert (root / "real" / "consumer.py").read_text(encoding="utf-8") == FIXED_CONSUMER


def test_a_file_with_another_hard_link_is_fixed_through_both(write_tree: WriteTree) -> None:
    # The fixed text was renamed over one name: the other link kept the racy text.
    root = write_tree({"consumer.py": RACY_CONSUMER})
    os.link(root / "consumer.py", root / "vendored_copy.txt")
    result = epochlint(root, "check", "--fix", "consumer.py")
    assert result.returncode == 0, result.stderr
    assert (root / "vendored_copy.txt").read_text(encoding="utf-8") == FIXED_CONSUMER
    assert (root / "consumer.py").stat().st_ino == (root / "vendored_copy.txt").stat().st_ino


@pytest.mark.skipif(getattr(os, "geteuid", lambda: 1)() != 0, reason="giving a file away needs root")
def test_a_file_of_another_owner_keeps_its_owner_when_fixed(write_tree: WriteTree) -> None:
    # Run as root, the replace made root the owner of another user's file.
    root = write_tree({"consumer.py": RACY_CONSUMER})
    os.chown(root / "consumer.py", 4321, 4321)
    result = epochlint(root, "check", "--fix", "consumer.py")
    assert result.returncode == 0, result.stderr
    assert (root / "consumer.py").read_text(encoding="utf-8") == FIXED_CONSUMER
    assert ((root / "consumer.py").stat().st_uid, (root / "consumer.py").stat().st_gid) == (4321, 4321)


def test_a_file_changed_while_the_run_read_it_is_left_alone_and_said_so(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its finding was said to have no fix that is safe there.
    root = write_tree({"edited.py": RACY_CONSUMER, "other.py": RACY_CONSUMER.replace("class Consumer", "class Other")})
    planned = fix_run.plan_fixes

    def planned_then_edited(*args: object, **keywords: object) -> list[fix_run.FileFix]:
        fixes = planned(*args, **keywords)  # type: ignore[arg-type]
        with (root / "edited.py").open("a", encoding="utf-8") as edited:
            edited.write("# typed meanwhile\n")
        return fixes

    monkeypatch.setattr(fix_run, "plan_fixes", planned_then_edited)
    monkeypatch.chdir(root)
    assert main(["check", "--no-cache", "--fix", "--output-format", "concise"]) == 1
    assert (root / "edited.py").read_text(encoding="utf-8") == RACY_CONSUMER + "# typed meanwhile\n"
    assert "note: fixes applied: 1 (files changed: 1); not written, as they changed while the run read them:" \
        " edited.py (run again)\n" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
def test_a_diff_of_a_file_with_a_space_in_its_name_applies_with_patch(write_tree: WriteTree) -> None:
    # Its header named the file up to the first space, for `patch` (git ends such a name in a tab).
    root = write_tree({"my consumer.py": RACY_CONSUMER})
    result = epochlint(root, "check", "--fix", "--diff")
    assert result.returncode == 1, result.stderr
    subprocess.run(["patch", "-p1", "--batch"], cwd=root, input=result.stdout, text=True, check=True)
    assert (root / "my consumer.py").read_text(encoding="utf-8") == FIXED_CONSUMER


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
def test_a_diff_of_a_latin_1_file_applies_with_patch_as_the_fix_writes_it(tmp_path: Path) -> None:
    # Its lines were printed as UTF-8, so that `patch` found no line of the file they named.
    source = "# -*- coding: latin-1 -*-\n" + replaced(RACY_CONSUMER, "(message)\n", "(message)  # \u00e9t\u00e9\n")
    shown, written = tmp_path / "shown", tmp_path / "written"
    for root in (shown, written):
        (root / CONSUMER).parent.mkdir(parents=True)
        (root / "pyproject.toml").write_text("[project]\nname = 'sample'\n")
        (root / CONSUMER).write_bytes(source.encode("latin-1"))
    command = [sys.executable, "-m", "epochlint", "check", "--fix", "--diff"]
    result = subprocess.run(command, cwd=shown, capture_output=True, env=ENV, timeout=120)
    assert result.returncode == 1, result.stderr
    subprocess.run(["patch", "-p1", "--batch"], cwd=shown, input=result.stdout, check=True, capture_output=True)
    assert epochlint(written, "check", "--fix").returncode == 0
    assert (shown / CONSUMER).read_bytes() == (written / CONSUMER).read_bytes() != source.encode("latin-1")


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
@pytest.mark.parametrize("line_end", ["\r\n", "\r"])
def test_a_diff_keeps_line_endings_and_applies_with_patch(write_tree: WriteTree, line_end: str) -> None:
    # `patch` reads lines up to LF alone: a file of lone-CR line ends is one line to it.
    root = write_tree({CONSUMER: RACY_CONSUMER.replace("\n", line_end).encode()})
    result = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", "--fix", "--diff"], cwd=root, capture_output=True, env=ENV
    )
    assert result.returncode == 1, result.stderr
    subprocess.run(["patch", "-p1", "--batch"], cwd=root, input=result.stdout, check=True, capture_output=True)
    assert (root / CONSUMER).read_bytes() == FIXED_CONSUMER.replace("\n", line_end).encode()


def test_fix_reports_what_it_fixed_and_what_remains(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER, "pkg/plain.py": PLAIN_LOCK_CONSUMER})
    result = epochlint(root, "check", "--fix")
    assert result.returncode == 1, result.stdout + result.stderr
    applied = "fixes applied: 1 (files changed: 1); the others have no fix that is safe there"
    assert f"{applied} ('epochlint rule CODE' says when one is)" in result.stdout
    assert "pkg/plain.py:17:9: EPL001" in result.stdout and f"{CONSUMER}:" not in result.stdout


def test_diff_shows_the_fix_without_writing(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    status, shown = diff(root)
    assert status == 1
    assert shown.startswith(f"--- a/{CONSUMER}\n+++ b/{CONSUMER}\n@@ ")
    assert (
        "-                self.deliver(message)\n+        with self._lock:\n"
        "+            for message in batch:\n" in shown
    )
    assert (root / CONSUMER).read_text(encoding="utf-8") == RACY_CONSUMER


def test_diff_says_how_many_findings_it_fixes_on_stderr(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER, "pkg/plain.py": PLAIN_LOCK_CONSUMER})
    result = epochlint(root, "check", "--fix", "--diff")
    assert result.stderr == (
        "note: fixes shown: 1 of 2 findings (files: 1); the others have no fix that is safe there "
        "('epochlint rule CODE' says when one is)\n"
    )
    assert result.stdout.startswith(f"--- a/{CONSUMER}\n")


def test_diff_of_no_fix_still_counts_the_findings(write_tree: WriteTree) -> None:
    # An empty diff is not mistaken for no finding at all.
    root = write_tree({CONSUMER: PLAIN_LOCK_CONSUMER})
    result = epochlint(root, "check", "--fix", "--diff")
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr.startswith("note: fixes shown: 0 of 1 findings (files: 0); none has a fix that is safe there")
    assert epochlint(root, "check", "--fix", "--diff", "--quiet").stderr == ""


@pytest.mark.parametrize(
    "option",
    [["--output-format", "json"], ["--output-file", "report.txt"], ["--statistics"], ["--write-baseline", "b.json"]],
    ids=lambda option: option[0],
)
def test_diff_refuses_what_it_would_ignore(write_tree: WriteTree, option: list[str]) -> None:
    # --diff prints a patch and nothing else: a report or a file asked for would silently not come.
    root = write_tree({CONSUMER: RACY_CONSUMER})
    result = epochlint(root, "check", "--fix", "--diff", *option)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("epochlint: error: --diff ") and result.stderr.count("\n") == 1
    assert option[0] in result.stderr
    assert not (root / "report.txt").exists() and not (root / "b.json").exists()


def test_no_fix_with_a_plain_lock_the_loop_body_could_take_again(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: PLAIN_LOCK_CONSUMER})
    assert diff(root) == (0, "")


def test_no_fix_with_a_private_guard_of_a_base_class(write_tree: WriteTree) -> None:
    # `self.__lock` in the subclass would be `self._Replay__lock`: AttributeError at run time.
    private = RACY_CONSUMER.replace("self._lock", "self.__lock")
    loop = private[private.index("    def on_batch") : private.index("    def deliver")]
    subclass = private.replace(loop, "") + "\n\nclass Replay(Consumer):\n" + loop
    root = write_tree({CONSUMER: subclass})
    assert codes(root) == ["EPL001"]
    assert diff(root) == (0, "")
    # In the class that writes it, the name is the guard's.
    root = write_tree({CONSUMER: private})
    assert "with self.__lock:" in fix(root)


@pytest.mark.parametrize(
    ("written", "handing_off"),
    [
        (
            "                self.deliver(message)\n",
            "                self._pool.submit(self._track, message).result()\n",
        ),
        ("                self.deliver(message)\n", "                self._dispatch(message)\n"),
        ("for message in batch:", "for message in self._pool.map(self._track, batch):"),
    ],
)
def test_no_fix_where_the_loop_hands_work_that_takes_the_guard_to_another_thread(
    write_tree: WriteTree, written: str, handing_off: str
) -> None:
    # Held around the loop, the guard keeps the pool's thread waiting for it, and the loop waits
    # for that thread: the fixed consumer would hang at its first message (or before it, where the
    # loop's iterable is what the pool computes).
    pooled = replaced(RACY_CONSUMER, "import threading\n", "import threading\nfrom concurrent import futures\n")
    pooled = replaced(pooled, "self._epoch = 0\n", "self._epoch = 0\n        self._pool = futures.Executor()\n")
    pooled = replaced(pooled, written, handing_off)
    helpers = (
        "    def _dispatch(self, message):\n        self._pool.submit(self._track, message).result()\n\n"
        "    def _track(self, message):\n        with self._lock:\n            return message\n"
    )
    root = write_tree({CONSUMER: pooled + "\n" + helpers})
    assert codes(root) == ["EPL001"]
    assert diff(root) == (0, "")
    # Work handed off that does not take the guard keeps the fix.
    root = write_tree({CONSUMER: pooled + "\n" + helpers.replace("with self._lock:", "if message:")})
    assert "with self._lock:\n            for message in " in fix(root)


def test_no_fix_where_the_guard_is_the_elements_of_a_container_of_locks(write_tree: WriteTree) -> None:
    # `with self._locks:` around the loop would raise TypeError: a dict is no context manager.
    per_partition = replaced(RACY_CONSUMER, "import threading\n", "import collections\nimport threading\n")
    per_partition = replaced(
        per_partition, "self._lock = threading.RLock()", "self._locks = collections.defaultdict(threading.RLock)"
    )
    root = write_tree({CONSUMER: replaced(per_partition, "with self._lock:", "with self._locks[offset]:")})
    assert codes(root) == ["EPL001"]
    assert diff(root) == (0, "")


def test_no_fix_in_a_coroutine(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: ASYNC_CONSUMER})
    assert codes(root) == ["EPL001"]
    assert diff(root) == (0, "")


def test_comprehension_fix_holds_the_guard_around_its_statement(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: COMPREHENSION_CONSUMER})
    expected = replaced(
        COMPREHENSION_CONSUMER,
        "        return [",
        "        with self._lock:\n            return [",
    )
    assert fix(root) == expected
    assert codes(root) == []


def test_fix_that_would_bring_in_a_new_finding_is_not_made(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: CYCLE_CONSUMER})
    assert codes(root) == ["EPL001"]
    assert diff(root) == (0, "")


def test_fix_is_verified_on_the_whole_project_with_every_rule(write_tree: WriteTree) -> None:
    # The opposite lock order in another file, or EPL009 left out of the run's selection: the fix
    # that closes the cycle was made, and the next full check reported it.
    report = CYCLE_CONSUMER[CYCLE_CONSUMER.index("    def report") : CYCLE_CONSUMER.index("    def _count_one")]
    elsewhere = "from pkg.consumer import Consumer\n\n\ndef report(self: Consumer):\n" + report.split("\n", 1)[1]
    root = write_tree({CONSUMER: replaced(CYCLE_CONSUMER, report, ""), "pkg/report.py": elsewhere})
    assert codes(root) == ["EPL001"]
    for partial_run in (["--select", "EPL001"], ["--ignore", "EPL009"], [CONSUMER]):
        result = epochlint(root, "check", "--fix", "--diff", *partial_run)
        assert (result.returncode, result.stdout) == (0, ""), partial_run
    assert codes(root) == ["EPL001"]


def test_file_that_no_longer_parses_is_never_fixed(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    found = run_check(root)
    (root / CONSUMER).write_text(RACY_CONSUMER + "def broken(:\n", encoding="utf-8")
    config = load_config([root], None, KNOWN_CODES)
    assert plan_fixes([root], config, found.findings, found.findings) == []


def test_fix_applies_only_to_reported_findings(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    assert epochlint(root, "check", "--write-baseline", "baseline.json").returncode == 0
    assert epochlint(root, "check", "--baseline", "baseline.json", "--fix").returncode == 0
    assert (root / CONSUMER).read_text(encoding="utf-8") == RACY_CONSUMER


@pytest.mark.parametrize("line_end", ["\r\n", "\r"])
def test_fix_keeps_line_endings(write_tree: WriteTree, line_end: str) -> None:
    # libcst's code of a file of lone-CR line ends leaves its last line end out.
    root = write_tree({CONSUMER: RACY_CONSUMER.replace("\n", line_end).encode()})
    epochlint(root, "check", "--fix")
    assert (root / CONSUMER).read_bytes() == FIXED_CONSUMER.replace("\n", line_end).encode()


# --- EPL004: bump first, then clear -------------------------------------------------------------------


def test_epl004_fix_moves_the_bump_before_the_first_clear(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: REDELIVER})
    assert codes(root) == ["EPL004", "EPL004"]
    assert fix(root) == REDELIVER_FIXED
    assert codes(root) == []


@pytest.mark.parametrize("use", ["print(self.consumer_epoch)", 'print(getattr(self, "consumer_epoch"))'])
def test_epl004_no_fix_when_a_statement_in_between_uses_the_epoch(write_tree: WriteTree, use: str) -> None:
    source = replaced(REDELIVER, "            self.pending_acks.clear()\n", f"            {use}\n")
    root = write_tree({CONSUMER: source})
    assert codes(root) == ["EPL004"]
    assert diff(root) == (0, "")


@pytest.mark.parametrize(
    ("helper", "call"),
    [
        # The command sends what the accessor returns: the old epoch, and after the move the new one.
        (
            "def current_epoch(self):\n        return self.consumer_epoch",
            "self.send_redeliver_command(self.current_epoch())",
        ),
        # Moved above the reset, the bump is undone by it.
        ("def reset_epoch(self):\n        self.consumer_epoch = 0", "self.reset_epoch()"),
    ],
)
def test_epl004_no_fix_when_a_call_in_between_uses_the_epoch(write_tree: WriteTree, helper: str, call: str) -> None:
    source = replaced(REDELIVER, "            self.pending_acks.clear()\n", f"            {call}\n")
    source = replaced(source, "    def send_redeliver_command", f"    {helper}\n\n    def send_redeliver_command")
    root = write_tree({CONSUMER: source})
    assert codes(root) == ["EPL004"]
    assert diff(root) == (0, "")


def test_epl004_no_fix_when_the_bump_reads_a_local_assigned_in_between(write_tree: WriteTree) -> None:
    # Moved above `step = ...`, the bump would raise UnboundLocalError.
    step = "            step = len(self.pending_acks) + 1\n"
    source = replaced(REDELIVER, "            self.pending_acks.clear()\n", step)
    root = write_tree({CONSUMER: replaced(source, "self.consumer_epoch += 1", "self.consumer_epoch += step")})
    assert codes(root) == ["EPL004"]
    assert diff(root) == (0, "")


def test_epl004_fix_moves_a_call_that_only_bumps_not_one_that_does_more(write_tree: WriteTree) -> None:
    bumping = "    def bump(self):\n        self.consumer_epoch += 1\n\n"
    source = replaced(REDELIVER, "self.consumer_epoch += 1  # the new epoch", "self.bump()")
    source = replaced(source, "    def send_redeliver_command", bumping + "    def send_redeliver_command")
    root = write_tree({CONSUMER: source})
    assert codes(root) == ["EPL004", "EPL004"]
    fixed = fix(root)
    assert fixed.index("self.bump()") < fixed.index("self.incoming_messages.clear()")
    assert codes(root) == []
    # A bump that also sends a command: moving it would send before the queue is cleared.
    also_sends = "        self.consumer_epoch += 1\n        print('sent')\n\n"
    root = write_tree({CONSUMER: replaced(source, "        self.consumer_epoch += 1\n\n", also_sends)})
    assert codes(root) == ["EPL004", "EPL004"]
    assert diff(root) == (0, "")


REDELIVER_LINES = (
    "            self.incoming_messages.clear()\n"
    "            self.pending_acks.clear()\n"
    "            self.consumer_epoch += 1  # the new epoch\n"
)


def test_epl004_fix_moves_the_bump_within_a_line_of_statements(write_tree: WriteTree) -> None:
    # Each statement keeps its place between the `;` separators, the line its trailing one.
    one_line = " " * 12 + "self.incoming_messages.clear(); self.pending_acks.clear() ;self.consumer_epoch += 1;\n"
    root = write_tree({CONSUMER: replaced(REDELIVER, REDELIVER_LINES, one_line)})
    assert codes(root) == ["EPL004", "EPL004"]
    bump_first = " " * 12 + "self.consumer_epoch += 1; self.incoming_messages.clear() ;self.pending_acks.clear();\n"
    assert fix(root) == replaced(REDELIVER, REDELIVER_LINES, bump_first)
    assert codes(root) == []


def test_epl004_no_fix_within_a_line_when_a_statement_in_between_uses_the_epoch(write_tree: WriteTree) -> None:
    one_line = "            self.incoming_messages.clear(); print(self.consumer_epoch); self.consumer_epoch += 1\n"
    root = write_tree({CONSUMER: replaced(REDELIVER, REDELIVER_LINES, one_line)})
    assert codes(root) == ["EPL004"]
    assert diff(root) == (0, "")


def test_epl004_no_fix_when_the_bump_is_in_another_block(write_tree: WriteTree) -> None:
    source = replaced(
        REDELIVER,
        "            self.consumer_epoch += 1  # the new epoch\n",
        "            if self.pending_acks is not None:\n                self.consumer_epoch += 1\n",
    )
    root = write_tree({CONSUMER: source})
    assert "EPL004" in codes(root)
    assert diff(root) == (0, "")


# --- the fixtures ------------------------------------------------------------------------------------


def test_fix_on_the_fixtures_repairs_what_it_offers_and_nothing_else(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, root)
    before = run_check(root).findings
    config = load_config([root], None, KNOWN_CODES)
    planned = {f.fingerprint: f.code for fix in plan_fixes([root], config, before, before) for f in fix.findings}
    assert {"EPL001", "EPL004"} <= set(planned.values())
    result = epochlint(root, "check", "--fix")
    assert f"fixes applied: {len(planned)} " in result.stdout, result.stdout
    after = run_check(root).findings
    assert sorted(f.fingerprint for f in after) == sorted(f.fingerprint for f in before if f.fingerprint not in planned)
    assert diff(root) == (0, "")


# --- EPL003: commit max(historical, current) ------------------------------------------------------------

COMMITTER = """\
from kafka.structs import OffsetAndMetadata


class Committer:
    def __init__(self, consumer):
        self._consumer = consumer

    def commit_record(self, tp, record, metadata):
        current = metadata.leader_epoch_for(tp)
        offsets = {tp: OffsetAndMetadata(record.offset + 1, "", record.leader_epoch)}
        self._consumer.commit(offsets)
"""
POSITIONS = """\
from kafka.structs import OffsetAndMetadata


class LeaderAndEpoch:
    def __init__(self, leader, epoch):
        self.leader = leader
        self.epoch = epoch


class FetchPosition:
    def __init__(self, offset, offset_epoch, current_leader):
        self.offset = offset
        self.offset_epoch = offset_epoch
        self.current_leader = current_leader


class SubscriptionState:
    def __init__(self):
        self.assignment = {}

    def all_consumed(self):
        consumed = {}
        for tp, state in self.assignment.items():
            consumed[tp] = OffsetAndMetadata(
                state.position.offset,
                "",
                state.position.offset_epoch,  # the epoch of the last record
            )
        return consumed

    def commit_all(self, coordinator):
        coordinator.commit_offsets_sync(self.all_consumed())
"""


def test_epl003_fix_takes_the_current_leader_epoch_in_scope(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: COMMITTER})
    assert codes(root) == ["EPL003"]
    expected = replaced(COMMITTER, '"", record.leader_epoch)', '"", max(record.leader_epoch, current))')
    assert fix(root) == expected
    assert codes(root) == []


def test_epl003_fix_takes_the_current_leader_of_the_position(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: POSITIONS})
    assert codes(root) == ["EPL003"]
    expected = replaced(
        POSITIONS,
        "state.position.offset_epoch,  #",
        "max(state.position.offset_epoch, state.position.current_leader.epoch),  #",
    )
    assert fix(root) == expected
    assert codes(root) == []


def test_epl003_no_fix_without_a_current_epoch_in_scope(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: replaced(COMMITTER, "        current = metadata.leader_epoch_for(tp)\n", "")})
    assert codes(root) == ["EPL003"]
    assert diff(root) == (0, "")


def test_epl003_no_fix_with_a_current_epoch_bound_on_some_paths_only(write_tree: WriteTree) -> None:
    source = replaced(
        COMMITTER,
        "        current = metadata.leader_epoch_for(tp)\n",
        "        if metadata is not None:\n            current = metadata.leader_epoch_for(tp)\n",
    )
    root = write_tree({CONSUMER: source})
    assert codes(root) == ["EPL003"]
    assert diff(root) == (0, "")


@pytest.mark.parametrize(
    "unbinding",
    ["        del current\n", "        try:\n            pass\n        except OSError as current:\n            pass\n"],
)
def test_epl003_no_fix_where_the_current_epoch_is_unbound_before_the_commit(
    write_tree: WriteTree, unbinding: str
) -> None:
    # `max(record.leader_epoch, current)` after `del current` (or after an `except ... as current`,
    # which unbinds the name at its end) raised UnboundLocalError when run.
    source = replaced(COMMITTER, "        offsets = {", unbinding + "        offsets = {")
    root = write_tree({CONSUMER: source})
    assert codes(root) == ["EPL003"]
    assert diff(root) == (0, "")


def test_epl003_no_fix_when_the_historical_epoch_is_read_into_a_local(write_tree: WriteTree) -> None:
    source = replaced(
        COMMITTER,
        '        offsets = {tp: OffsetAndMetadata(record.offset + 1, "", record.leader_epoch)}\n',
        '        epoch = record.leader_epoch\n'
        '        offsets = {tp: OffsetAndMetadata(record.offset + 1, "", epoch)}\n',
    )
    root = write_tree({CONSUMER: source})
    assert codes(root) == ["EPL003"]
    assert diff(root) == (0, "")
