"""GitHub Actions workflow commands: one annotation per finding on the pull request's diff.

GitHub places an annotation by the file's path from the repository's top, which a workflow names
in `GITHUB_WORKSPACE`: paths are relative to it there (a project in a subfolder of the repository
included), elsewhere relative to the project root as in every other format.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from epochlint.discovery import PARENT
from epochlint.findings import WARNING_CODES, ChainStep, Finding
from epochlint.report import RunResult
from epochlint.text import escaped


def render(result: RunResult, stream: TextIO) -> None:
    repository = os.environ.get("GITHUB_WORKSPACE")
    for finding in result.findings:
        stream.write(command(finding, path_in_repository(finding.location.path, result.root, repository)) + "\n")


def path_in_repository(name: str, root: Path, repository: str | None) -> str:
    """The path of the file named `name` in the report from the `repository`'s top, where a CI
    names it, else `name` (also for a file outside it)."""
    if repository is None or name.split("/", 1)[0] == PARENT:
        return name
    # Both as the file system has them: a workspace named through a symbolic link holds the root.
    relative = os.path.relpath(os.path.join(os.path.realpath(root), name), os.path.realpath(repository))
    return name if relative.startswith(os.pardir) else relative.replace(os.sep, "/")


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


def command(finding: Finding, path: str) -> str:
    """The annotation of `finding`, on the file at `path` from the repository's top."""
    level = "warning" if finding.code in WARNING_CODES else "error"
    loc = finding.location
    properties = {
        "file": path,
        "line": str(loc.line),
        "col": str(loc.column),
        "endLine": str(loc.end_line),
        "endColumn": str(loc.end_column),
        "title": f"{finding.code} {finding.name}",
    }
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    message = escape_data(one_line_message(finding))
    return f"::{level} {joined}::{message}"
