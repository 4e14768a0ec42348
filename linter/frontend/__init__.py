"""Frontend: reads one file with libcst and returns its FileFacts."""

from __future__ import annotations

import libcst as cst

from linter.frontend.extract import extract
from linter.frontend.facts import FileFacts


def facts_from_source(data: bytes) -> FileFacts:
    """Parse `data` (the bytes of a file) and extract its facts; errors become `FileFacts.error`."""
    if not data.strip():
        return FileFacts(lines=0)
    try:
        module = cst.parse_module(data)
        text = module.code
    except cst.ParserSyntaxError as error:
        return FileFacts(lines=0, error=_syntax_error(error))
    except UnicodeDecodeError as error:
        return FileFacts(lines=0, error=f"cannot decode the file: {error.reason} at byte {error.start}")
    except LookupError as error:
        return FileFacts(lines=0, error=f"unknown encoding declared: {error}")
    except RecursionError:
        return FileFacts(lines=0, error="too deeply nested to parse")
    try:
        return extract(module, text)
    except RecursionError:
        return FileFacts(lines=0, error="too deeply nested to analyse")


def _syntax_error(error: cst.ParserSyntaxError) -> str:
    message = error.message.splitlines()[0] if error.message else "invalid syntax"
    return f"syntax error at line {error.raw_line}, column {error.raw_column + 1}: {message}"
