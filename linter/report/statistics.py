"""`check --statistics`: how many findings each rule reported, most first, instead of the findings."""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from epochlint.report import RunResult


def counts(result: RunResult) -> list[tuple[int, str, str]]:
    """(count, code, name) for every code with findings, most first, then by code."""
    by_code = Counter(finding.code for finding in result.findings)
    names = {finding.code: finding.name for finding in result.findings}
    return sorted(((n, code, names[code]) for code, n in by_code.items()), key=lambda row: (-row[0], row[1]))


def render(result: RunResult, stream: TextIO) -> None:
    rows = counts(result)
    width = len(str(rows[0][0])) if rows else 1
    for count, code, name in rows:
        stream.write(f"{count:>{width}}  {code}  {name}\n")


def render_json(result: RunResult, stream: TextIO) -> None:
    rows = [{"code": code, "name": name, "count": count} for count, code, name in counts(result)]
    stream.write(json.dumps(rows, indent=2) + "\n")
