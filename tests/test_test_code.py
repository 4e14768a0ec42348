"""Test code is reported like any code, but it never shapes the model of the rest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Mark, actual_marks, run_check

WriteTree = Callable[..., Path]

STATE = """\
import threading


class PartitionState:
    def __init__(self):
        self._lock = threading.Lock()
        self._leader_epoch = -1

    def _set_leader_epoch(self, epoch):
        self._leader_epoch = epoch

    def update(self, epoch):
        with self._lock:
            self._set_leader_epoch(epoch)

    def bump(self):
        with self._lock:
            self._leader_epoch += 1

    def assign(self, epoch):
        self._leader_epoch = epoch
"""

CALLS_INTERNALS = """\
from partitions.state import PartitionState


def test_set_leader_epoch():
    state = PartitionState()
    state._set_leader_epoch(3)
    state._set_leader_epoch(4)
    state._set_leader_epoch(5)
"""

WRITES_FIELDS = """\
from partitions.state import PartitionState


def poke():
    state = PartitionState()
    state._leader_epoch = 3
    state._leader_epoch = 4
    state._leader_epoch = 5
"""

UNGUARDED_WRITE_IN_ASSIGN: Mark = ("partitions/state.py", 21, "EPL006")


def _package(write_tree: WriteTree, extra: dict[str, str], pyproject: str = "") -> Path:
    return write_tree({"partitions/__init__.py": "", "partitions/state.py": STATE, **extra}, pyproject)


def test_checking_the_tree_with_its_tests_reports_what_checking_the_package_reports(
    write_tree: WriteTree,
) -> None:
    root = _package(write_tree, {"tests/test_state.py": CALLS_INTERNALS})
    with_tests = actual_marks(run_check(root))
    package_only = actual_marks(run_check(root / "partitions"))
    assert with_tests == package_only
    assert UNGUARDED_WRITE_IN_ASSIGN in with_tests


def test_writes_in_tests_do_not_vote_for_the_guard_but_are_still_reported(write_tree: WriteTree) -> None:
    root = _package(write_tree, {"tests/test_poke.py": WRITES_FIELDS})
    marks = actual_marks(run_check(root))
    assert UNGUARDED_WRITE_IN_ASSIGN in marks
    assert {line for (path, line, code) in marks if path == "tests/test_poke.py"} == {6, 7, 8}


def test_test_paths_decide_what_is_test_code(write_tree: WriteTree) -> None:
    """`checks/poke.py` is product code by default (its three unlocked writes leave no guard)
    and test code once `test-paths` names its folder."""
    extra = {"checks/poke.py": WRITES_FIELDS}
    default_root = _package(write_tree, extra)
    assert UNGUARDED_WRITE_IN_ASSIGN not in actual_marks(run_check(default_root))
    configured = _package(
        write_tree, extra, "[project]\nname = 'sample'\n\n[tool.epochlint]\ntest-paths = [\"checks/\"]\n"
    )
    assert UNGUARDED_WRITE_IN_ASSIGN in actual_marks(run_check(configured))


RESET_HELPER = STATE + """

def reset(state):
    state._leader_epoch = -1


def restart(state: PartitionState):
    reset(state)


def rejoin(state: PartitionState):
    with state._lock:
        state._leader_epoch = 0


def resume(state: PartitionState):
    with state._lock:
        state._leader_epoch = 0
"""

CALLS_WITH_A_FAKE = """\
from partitions.state import reset


class FakeState:
    _leader_epoch = 0


def test_reset():
    fake = FakeState()
    reset(fake)
"""


def test_arguments_in_tests_do_not_type_the_package_parameters(write_tree: WriteTree) -> None:
    """`reset(state)` is called with a `PartitionState` by the package and with a fake by a test:
    the parameter stays a `PartitionState`, and its unlocked write is still found."""
    root = write_tree(
        {"partitions/__init__.py": "", "partitions/state.py": RESET_HELPER, "tests/test_reset.py": CALLS_WITH_A_FAKE}
    )
    marks = actual_marks(run_check(root))
    assert ("partitions/state.py", 25, "EPL006") in marks
    assert marks == actual_marks(run_check(root / "partitions"))


DISPATCHER = """\
import threading


class Dispatcher:
    def __init__(self):
        self.on_message = print

    def dispatch(self, batch):
        for message in batch:
            self.on_message(message)


class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0
        self.accepted = []

    def seek(self):
        with self._lock:
            self._epoch += 1

    def on_message(self, message):
        if message.epoch == self._epoch:
            self.accepted.append(message)
"""

SETS_THE_CALLBACK = """\
from partitions.dispatch import Consumer, Dispatcher


class FakeDispatcher(Dispatcher):
    pass


def test_dispatch():
    consumer = Consumer()
    dispatcher, fake = Dispatcher(), FakeDispatcher()
    dispatcher.on_message = consumer.on_message
    fake.on_message = consumer.on_message
    dispatcher.dispatch([])
"""


def test_callbacks_that_tests_set_on_package_objects_do_not_run_in_the_package(write_tree: WriteTree) -> None:
    """A test sets the consumer's handler on a dispatcher, and on a test subclass of it: neither
    store is what the package's dispatcher holds, so its loop runs no epoch read. Set by the
    package itself, it would (fixtures/EPL001/callback_set_on_another_object.py)."""
    root = write_tree(
        {
            "partitions/__init__.py": "",
            "partitions/dispatch.py": DISPATCHER,
            "tests/test_dispatch.py": SETS_THE_CALLBACK,
        }
    )
    assert actual_marks(run_check(root)) == actual_marks(run_check(root / "partitions")) == {}
