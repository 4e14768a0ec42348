"""Frontend: reads one file with libcst and returns its FileFacts.

libcst is imported on first use: a run whose facts all come from the cache never loads it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from epochlint.frontend.facts import FileFacts, Pos
from epochlint.frontend.nesting import nesting_and_layout, too_deeply_nested
from epochlint.frontend.stack import with_room_to_recurse

# An encoding declaration, as Python looks for one in a file's first two lines (PEP 263).
_ENCODING_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", re.MULTILINE)

if TYPE_CHECKING:
    import libcst as cst


def facts_from_source(data: bytes) -> FileFacts:
    """Parse `data` (the bytes of a file) and extract its facts; errors become `FileFacts.error`."""
    if not data.strip():
        return FileFacts(lines=0)
    nesting, layout = nesting_and_layout(data)
    if nesting is not None:
        # Never handed to libcst: its native parser would overflow the C stack, or take minutes.
        return _python_syntax_error(data) or FileFacts(
            lines=0,
            error=f"too deeply nested to parse: {nesting}",
            error_pos=(nesting.line, nesting.column, nesting.line, nesting.column + 1),
        )
    facts = with_room_to_recurse(partial(_parsed_facts, data))
    return replace(facts, layout=layout) if layout is not None and not facts.error else facts


def _parsed_facts(data: bytes) -> FileFacts:
    import libcst as cst

    from epochlint.frontend.extract import TooManyBlocks, extract

    try:
        with _parser_nodes_unvalidated():
            module = cst.parse_module(data)
    except cst.ParserSyntaxError as error:
        return _syntax_error(data, error)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return FileFacts(
            lines=0,
            error=f"cannot decode line {line} as {error.encoding}: {error.reason} (byte {error.start} of the file)",
        )
    except LookupError as error:
        return FileFacts(lines=0, error=f"unknown encoding declared: {error}")
    except SyntaxError as error:
        # Raised while detecting the encoding: undecodable bytes or a bad cookie in lines 1-2.
        return FileFacts(lines=0, error=f"cannot determine the file's encoding: {_encoding_problem(data, error)}")
    except RecursionError:
        return FileFacts(lines=0, error="too deeply nested to parse")
    if b"\0" in data and (refused := _python_syntax_error(data)) is not None:
        # libcst reads a NUL in a comment or a string; Python refuses the whole file.
        return refused
    try:
        return extract(module)
    except RecursionError:
        return FileFacts(lines=0, error="too deeply nested to analyse")
    except TooManyBlocks as refused:
        # Python's own words: `python` refuses to compile the file with this message.
        return FileFacts(lines=0, error=f"syntax error at line {refused.line}: too many statically nested blocks")


def _encoding_problem(data: bytes, error: SyntaxError) -> str:
    """Why Python cannot tell the encoding: where no encoding is declared, which of the first two
    lines is not UTF-8 (Python says only "invalid or missing encoding declaration"); else its words."""
    first_lines = b"\n".join(data.split(b"\n", 2)[:2])
    if not _ENCODING_COOKIE.search(first_lines):
        try:
            first_lines.decode("utf-8")
        except UnicodeDecodeError as undecodable:
            line = first_lines.count(b"\n", 0, undecodable.start) + 1
            return (
                f"line {line} is not utf-8 ({undecodable.reason}, byte {undecodable.start})"
                " and no encoding is declared"
            )
    return str(error.msg)


@contextmanager
def _parser_nodes_unvalidated() -> Iterator[None]:
    """libcst validates every node as it is constructed (`CSTNode.__post_init__`), which guards
    trees built by hand; the nodes its parser builds are valid by construction, and validating them
    again is a fifth of the parse. Nothing else builds nodes meanwhile: the frontend runs in one
    thread (the editor server's analyses run one at a time)."""
    from libcst._nodes.base import CSTNode

    validate = CSTNode.__dict__.get("__post_init__")
    if validate is None:  # a libcst that no longer validates on construction
        yield
        return
    CSTNode.__post_init__ = _unvalidated  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        CSTNode.__post_init__ = validate  # type: ignore[method-assign]


def _unvalidated(node: object) -> None:
    """A parsed node's construction, without the validation its parser already guarantees."""


def _syntax_error(data: bytes, error: cst.ParserSyntaxError) -> FileFacts:
    """Python's own wording and place of the error where it has them: its message is the one
    people know, and its place is precise where libcst's tokenizer errors are not."""
    python_error = _python_syntax_error(data)
    if python_error is not None:
        return python_error
    line, column = error.raw_line, error.raw_column + 1
    # Python reports no syntax error: the code is beyond what libcst's parser handles (a
    # comprehension of 5,000 `for` clauses), not wrong.
    return FileFacts(
        lines=0,
        error=(
            f"beyond the limits of the parser epochlint uses (libcst), which stops at line {line},"
            f" column {column}; Python itself reports no syntax error"
        ),
        error_pos=(line, column, line, column + 1),
    )


def _python_syntax_error(data: bytes) -> FileFacts | None:
    """The facts of a file Python's compiler rejects: its message and place; None when it finds no
    error (or only nesting deeper than its limits, which the caller words itself)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(as_python_reads_it(data))
    except SyntaxError as python_error:
        if python_error.msg == "too many nested parentheses":
            return None
        line, column = python_error.lineno, _in_code_points(python_error.text, python_error.offset)
        if line is None and b"\0" in data:
            # Python names no place for "source code string cannot contain null bytes".
            line, column = _line_and_column(data, data.index(b"\0"))
        where = f" at line {line}" if line else ""
        if line and column:
            where += f", column {column}"
        return FileFacts(
            lines=0,
            error=f"syntax error{where}: {python_error.msg}",
            error_pos=_error_pos(python_error, data, line, column),
        )
    except (ValueError, RecursionError, MemoryError):
        pass
    return None


def _error_pos(error: SyntaxError, data: bytes, line: int | None, column: int | None) -> Pos:
    """The span Python marks for a syntax error (one column at least), or line 1, column 1."""
    if not line:
        return (1, 1, 1, 1)
    start = max(column or 1, 1)
    end_line = error.end_lineno if error.end_lineno and error.end_lineno >= line else line
    end_text = error.text if end_line == line else _line_text(data, end_line)
    end_offset = _in_code_points(end_text, error.end_offset) or 0
    if end_offset < 1 or (end_line == line and end_offset <= start):
        return (line, start, line, start + 1)
    return (line, start, end_line, end_offset)


def _line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in code points of UTF-8 text) of `offset`."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, len(data[line_start:offset].decode("utf-8", "ignore")) + 1


def _in_code_points(text: str | None, offset: int | None) -> int | None:
    """A column Python counts in UTF-8 bytes of a line it compiled from bytes (`text`, the line),
    counted in code points, as every column epochlint reports."""
    if not text or not offset or offset < 1:
        return offset
    return len(text.encode("utf-8", "surrogatepass")[: offset - 1].decode("utf-8", "ignore")) + 1


def _line_text(data: bytes, line: int) -> str | None:
    """Line `line` (1-based) of the source, as Python reads it; None where it cannot be decoded."""
    try:
        lines = decoded(as_python_reads_it(data)).split("\n")
    except (SyntaxError, ValueError):
        return None
    return lines[line - 1] if line <= len(lines) else None


def facts_without_parse(data: bytes) -> FileFacts:
    """The facts of a file no rule can need: its line count, once Python's own compiler (many
    times faster than libcst) accepts it. A file it rejects gets the full frontend, so that its
    EPL900 finding is the one a parse would give. Compiled to bytecode, not to a tree only: some
    limits are the code generator's (`with` of 21 items: "too many statically nested blocks")."""
    if not data.strip():
        return FileFacts(lines=0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(as_python_reads_it(data), "<file>", "exec", dont_inherit=True)
        text = decoded(data)
    except (SyntaxError, ValueError, LookupError, RecursionError, MemoryError):
        return facts_from_source(data)
    if too_deeply_nested(data) is not None:
        # Python accepts chains libcst nests ever deeper (`a and b and ...`): the same EPL900 as a
        # parse would give, whether or not a rule needs the file.
        return facts_from_source(data)
    return FileFacts(lines=line_count(text))


def as_python_reads_it(data: bytes) -> bytes:
    """The source as Python reads a file to run it, its CRLF line ends read as LF: compiled as
    bytes, a backslash before the file's last CRLF passes, where running the file is a syntax
    error (and libcst's parse one too)."""
    return data.replace(b"\r\n", b"\n")


def decoded(data: bytes) -> str:
    """`data` decoded as Python reads a source file: by its encoding declaration, else UTF-8 (a
    byte order mark dropped). SyntaxError or ValueError (UnicodeDecodeError is one) where it
    cannot be."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)
