"""GitHub Actions workflow commands: one annotation per finding on the pull request's diff."""

from __future__ import annotations

from typing import TextIO

from epochlint.findings import ChainStep, Finding
from epochlint.report import RunResult
from epochlint.text import escaped

WARNING_CODES = frozenset({"EPL900"})


def render(result: RunResult, stream: TextIO) -> None:
    for finding in result.findings:
        stream.write(command(finding) + "\n")


def escape_data(value: str) -> str:
    # `%` first, or the escapes added below would themselves be escaped; then what else must not
    # reach the log as it is (ESC, U+2028, U+202E...) as its escape.
    return escaped(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def one_line_message(finding: Finding) -> str:
    """The message, and the functions its chain passes through where the message does not already
    name them (` (via a -> b)`, as the rules that follow calls write it): a one-line format has
    no room for the chain itself."""
    if _VIA in finding.message:
        return finding.message
    return finding.message + _chain_suffix(finding.chain)


_VIA = " (via "


def _chain_suffix(chain: tuple[ChainStep, ...]) -> str:
    """The functions the chain passes through, each once per stay (a loop and its call are one)."""
    functions: list[str] = []
    for step in chain:
        if step.function and (not functions or functions[-1] != step.function):
            functions.append(step.function)
    return f"{_VIA}{' -> '.join(functions)})" if len(functions) > 1 else ""


def command(finding: Finding) -> str:
    level = "warning" if finding.code in WARNING_CODES else "error"
    loc = finding.location
    properties = {
        "file": loc.path,
        "line": str(loc.line),
        "col": str(loc.column),
        "endLine": str(loc.end_line),
        "endColumn": str(loc.end_column),
        "title": f"{finding.code} {finding.name}",
    }
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    message = escape_data(one_line_message(finding))
    return f"::{level} {joined}::{message}"
