"""The child process that parses files for an audit task: `python -m epochlint.audit.parser_process`.

Once its imports are done it writes READY; then it reads requests from stdin and answers on
stdout, one at a time. A request is a 4-byte big-endian length, a kind (a Java file, for the Java
frontend; or whether the prefilter found a Python file relevant: parse it with libcst, or only check
it with Python's parser) and a file's bytes; an answer is a
header (total length, the facts' line count, the length of their error text), the error text in
UTF-8 and the encoded FileFacts. The parent kills it when a file takes too long, and sees a crash
(a stack overflow in the native parser kills the process) as the end of its stdout; either way
only that one file is lost, as a status, never the task.
"""

from __future__ import annotations

import struct
import sys
from typing import BinaryIO

from epochlint import collect
from epochlint.collect import collector_paused, source_facts
from epochlint.frontend.codec import encode
from epochlint.frontend.facts import FileFacts

LENGTH = struct.Struct(">I")
RELEVANT = b"P"
NOT_RELEVANT = b"N"
JAVA = b"J"
# How `check` names the same three ways of reading a file.
_KINDS = {RELEVANT: collect.PARSED, NOT_RELEVANT: collect.NOT_RELEVANT, JAVA: collect.JAVA}
ANSWER = struct.Struct(">III")
READY = b"R"


def read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    """`size` bytes from `stream`, or None at end of stream."""
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def answer(request: bytes) -> bytes:
    kind, data = request[:1], request[1:]
    try:
        with collector_paused():
            facts = source_facts(_KINDS.get(kind, collect.NOT_RELEVANT), data)
    except Exception as error:  # the parent needs an answer for this file, whatever went wrong
        facts = FileFacts(lines=0, error=f"internal error while parsing: {type(error).__name__}: {error}")
    reason = facts.error.encode("utf-8", "replace")
    body = reason + encode(facts)
    return ANSWER.pack(len(body), facts.lines, len(reason)) + body


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    answers.write(READY)
    answers.flush()
    while True:
        header = read_exactly(requests, LENGTH.size)
        if header is None:
            return
        request = read_exactly(requests, LENGTH.unpack(header)[0])
        if request is None:
            return
        answers.write(answer(request))
        answers.flush()


def main() -> None:
    answers = sys.stdout.buffer
    # Anything else that prints must not corrupt the answers.
    sys.stdout = sys.stderr
    serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
