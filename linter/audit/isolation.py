"""Parse files in a child process, so that one file that hangs or crashes the parser costs one row.

A signal-based timeout could not stop libcst's native parser in the middle of a call, and nothing
in-process survives its stack overflows, so the parser runs in a child that is killed and replaced
when it overruns the time limit or dies.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from epochlint.audit.parser_process import ANSWER, JAVA, LENGTH, NOT_RELEVANT, READY, RELEVANT
from epochlint.audit.tables import STATUS_OK, STATUS_PARSE_ERROR, STATUS_TIMED_OUT
from epochlint.frontend.codec import encode
from epochlint.frontend.facts import FileFacts

# Starting the child imports libcst: slow on a loaded machine, and not the file's fault.
STARTUP_LIMIT = 120.0
# A child killed from outside (the OOM killer, an operator) is not the file's fault either: the
# file is parsed again by a new child, up to this many times in all, and only then is its crash
# recorded; a child that dies while starting is replaced as often.
ATTEMPTS = 3


@dataclass(frozen=True)
class ParseOutcome:
    """What became of one file: its status, its encoded facts (an error for a failure), the time taken."""

    status: str
    facts: bytes
    lines: int
    error: str
    seconds: float
    # Whether another run would give the same answer: not after a time-out or crashes, which a
    # quieter machine may not repeat (`--resume` parses such a file again).
    lasting: bool = True


class _TimedOut(Exception):
    pass


class _Ended(Exception):
    pass


class IsolatedParser:
    """A parser child process, restarted after each file that kills it or runs out of time."""

    def __init__(self, time_limit: float) -> None:
        self.time_limit = time_limit
        self._child: subprocess.Popen[bytes] | None = None

    def parse(self, data: bytes, relevant: bool = True, java: bool = False) -> ParseOutcome:
        """The facts of a file: from the Java frontend for a `java` file, from libcst when
        `relevant`, else only its line count once Python's parser accepts it (as `check` does for
        files the prefilter rules out)."""
        request = (JAVA if java else RELEVANT if relevant else NOT_RELEVANT) + data
        start = time.monotonic()
        reasons: list[str] = []
        while len(reasons) < ATTEMPTS:
            try:
                return self._answer(request, start)
            except _TimedOut:
                self.close()
                error = f"parsing took longer than {self.time_limit:g} s"
                return _failure(STATUS_TIMED_OUT, error, start)
            except _Ended:
                reasons.append(self._end_reason())
        times = "" if ATTEMPTS == 1 else f" {ATTEMPTS} times"
        return _failure(STATUS_PARSE_ERROR, f"the parser crashed{times} ({reasons[-1]})", start)

    def _answer(self, request: bytes, start: float) -> ParseOutcome:
        child = self._running_child()
        # Each attempt gets the whole time limit: the first may have been cut short from outside.
        deadline = time.monotonic() + self.time_limit
        self._send(child, request)
        size, lines, error_size = ANSWER.unpack(self._receive(child, ANSWER.size, deadline))
        body = self._receive(child, size, deadline)
        error = body[:error_size].decode("utf-8")
        status = STATUS_PARSE_ERROR if error else STATUS_OK
        return ParseOutcome(status, body[error_size:], lines, error, time.monotonic() - start)

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            _end(child)

    def _running_child(self) -> subprocess.Popen[bytes]:
        if self._child is None or self._child.poll() is not None:
            self.close()
            self._child = self._started_child()
        return self._child

    def _started_child(self) -> subprocess.Popen[bytes]:
        for _ in range(ATTEMPTS):
            child = self._start()
            if child is not None:
                return child
        raise RuntimeError(f"the parser process did not start ({ATTEMPTS} attempts)")

    def _start(self) -> subprocess.Popen[bytes] | None:
        """A child ready to parse, or None when it died or hung while starting."""
        # The child starts in a private, empty folder, so that nothing there can be imported; the
        # folder is removed once the child is ready (it needs no working directory after that), so
        # that a worker killed without running its finalizers leaves nothing behind.
        with tempfile.TemporaryDirectory(prefix="epochlint-parser-") as empty_folder:
            child = subprocess.Popen(
                [sys.executable, "-P", "-m", "epochlint.audit.parser_process"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=child_environment(),
                cwd=empty_folder,
                bufsize=0,
            )
            try:
                ready = self._receive(child, len(READY), time.monotonic() + STARTUP_LIMIT)
            except (_TimedOut, _Ended):
                _end(child)
                return None
        if ready != READY:
            _end(child)
            raise RuntimeError(f"the parser process answered {ready!r} instead of starting")
        return child

    def _send(self, child: subprocess.Popen[bytes], request: bytes) -> None:
        assert child.stdin is not None
        message = memoryview(LENGTH.pack(len(request)) + request)
        try:
            while message:
                message = message[os.write(child.stdin.fileno(), message) :]
        except BrokenPipeError:
            raise _Ended() from None

    def _receive(self, child: subprocess.Popen[bytes], size: int, deadline: float) -> bytes:
        assert child.stdout is not None
        descriptor = child.stdout.fileno()
        received = bytearray()
        while len(received) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                raise _TimedOut()
            chunk = os.read(descriptor, size - len(received))
            if not chunk:
                raise _Ended()
            received += chunk
        return bytes(received)

    def _end_reason(self) -> str:
        child = self._child
        assert child is not None
        code = child.wait()
        self.close()
        if code >= 0:
            return f"exit status {code}"
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"


def _failure(status: str, error: str, start: float) -> ParseOutcome:
    facts = FileFacts(lines=0, error=error)
    return ParseOutcome(status, encode(facts), 0, error, time.monotonic() - start, lasting=False)


def _end(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.kill()
    child.wait()
    for stream in (child.stdin, child.stdout):
        if stream is not None:
            stream.close()


def child_environment() -> dict[str, str]:
    """The child sees the modules this process sees (Spark may have added paths to sys.path), and
    nothing relative to a working directory: no empty or relative entry, no current folder."""
    here = os.getcwd()
    paths = [path for path in sys.path if path and os.path.isabs(path) and path != here]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONSAFEPATH": "1"}
