"""Concise report: one line a finding (`path:line:col: CODE message`), then the summary."""

from __future__ import annotations

from typing import TextIO

from rich.text import Text

from epochlint.findings import Finding
from epochlint.report import RunResult
from epochlint.report.console import SourceCache, header, write_report


def header_line(finding: Finding, _sources: SourceCache, _arrow: str) -> list[Text]:
    return [header(finding)]


def render(result: RunResult, stream: TextIO) -> None:
    write_report(result, stream, lines_of=header_line)
