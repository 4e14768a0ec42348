"""Room to recurse for libcst, whose native parser and tree walks use more of the C stack, and
more Python frames, the deeper a file's code is nested.

At the deepest nesting the frontend lets through (`nesting.py`), threads with a stack of 2 MB
crashed (a segmentation fault, no error to report) and 4 MB was enough. A main thread gets what the
stack limit allows (`ulimit -s`: 8 MB by default on Linux and macOS, but it can be set lower);
other threads get a fixed size (512 KB on macOS), and on Windows the main thread gets the size the
executable was linked with. Where that may be too little, the work runs on a thread of its own with
a stack of a known size.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar

_Result = TypeVar("_Result")

# The stack a thread started here gets: several times what was measured to be needed.
LARGE_STACK_BYTES = 32 * 2**20
# A main thread whose stack may grow this far has room: twice what was measured to be needed.
_MAIN_STACK_BYTES_ENOUGH = 8 * 2**20
# `threading.stack_size` is one setting for the whole process: set, used and restored under this
# lock, so that two threads starting threads never give one of them the other's size.
_stack_size_set = threading.Lock()
# Python frames the parse, the extraction and the fixer's tree walks may use beyond their caller's:
# libcst's tree walks take up to about five per level of nesting, and the scan lets at most
# MAX_DEPTH levels through (plus 100 of indentation). A fixed budget, rather than whatever the
# caller left of the limit, makes whether a file can be analysed independent of where it is
# analysed (this process, a worker, a thread).
RECURSION_BUDGET = 4000


def with_room_to_recurse(work: Callable[[], _Result]) -> _Result:
    """`work()` with room on the C stack (see `with_room_on_the_stack`) and `RECURSION_BUDGET`
    Python frames beyond its own."""
    return with_room_on_the_stack(lambda: _within_recursion_budget(work))


def _within_recursion_budget(work: Callable[[], _Result]) -> _Result:
    with _recursion_budget():
        return work()


@contextmanager
def _recursion_budget() -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + RECURSION_BUDGET)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _stack_depth() -> int:
    frame: FrameType | None = sys._getframe()
    depth = 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def start_on_a_large_stack(target: Callable[[], None], name: str) -> threading.Thread:
    """Start `target` on a daemon thread with a stack of `LARGE_STACK_BYTES`."""
    with _stack_size_set:
        previous = threading.stack_size(LARGE_STACK_BYTES)
        try:
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
    return thread


def with_room_on_the_stack(work: Callable[[], _Result]) -> _Result:
    """`work()`, here when this thread's stack has room enough, else on a thread with a large stack
    (the caller waits; what `work` raises is raised here)."""
    if _main_stack_has_room():
        return work()
    results: list[_Result] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            results.append(work())
        except BaseException as failure:  # raised again in the caller, never lost
            failures.append(failure)

    start_on_a_large_stack(run, "epochlint-parse").join()
    if failures:
        raise failures[0]
    return results[0]


def _main_stack_has_room() -> bool:
    if threading.current_thread() is not threading.main_thread():
        return False
    try:
        import resource
    except ImportError:  # Windows
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    return soft == resource.RLIM_INFINITY or soft >= _MAIN_STACK_BYTES_ENOUGH
