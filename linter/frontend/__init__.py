"""Frontend: reads one file with libcst and returns its FileFacts."""

from __future__ import annotations

import ast
import warnings

import libcst as cst

from linter.frontend.extract import extract
from linter.frontend.facts import FileFacts


def facts_from_source(data: bytes) -> FileFacts:
    """Parse `data` (the bytes of a file) and extract its facts; errors become `FileFacts.error`."""
    if not data.strip():
        return FileFacts(lines=0)
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as error:
        return FileFacts(lines=0, error=_syntax_error(data, error))
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return FileFacts(
            lines=0,
            error=f"cannot decode line {line} as {error.encoding}: {error.reason} (byte {error.start})",
        )
    except LookupError as error:
        return FileFacts(lines=0, error=f"unknown encoding declared: {error}")
    except SyntaxError as error:
        # Raised while detecting the encoding: undecodable bytes or a bad cookie in lines 1-2.
        return FileFacts(lines=0, error=f"cannot determine the file's encoding: {error.msg}")
    except RecursionError:
        return FileFacts(lines=0, error="too deeply nested to parse")
    try:
        return extract(module)
    except RecursionError:
        return FileFacts(lines=0, error="too deeply nested to analyse")


def _syntax_error(data: bytes, error: cst.ParserSyntaxError) -> str:
    """Python's own wording of the error where it has one: it is the message people know."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data)
    except SyntaxError as python_error:
        where = f"line {python_error.lineno}"
        if python_error.offset:
            where += f", column {python_error.offset}"
        return f"syntax error at {where}: {python_error.msg}"
    except (ValueError, RecursionError, MemoryError):
        pass
    first_line = (error.message or "invalid syntax").splitlines()[0]
    return f"syntax error at line {error.raw_line}, column {error.raw_column + 1}: {first_line}"
