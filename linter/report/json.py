"""Machine-readable report; the schema is documented in docs/json-output.md (version 1)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, TextIO

from epochlint.findings import ChainStep, Finding, Location, RelatedLocation
from epochlint.report import RunResult

SCHEMA_VERSION = 1
TOOL_NAME = "epochlint"


def render(result: RunResult, stream: TextIO) -> None:
    stream.write(json.dumps(document(result), indent=2, sort_keys=True) + "\n")


def document(result: RunResult) -> dict[str, Any]:
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": result.tool_version},
        "summary": summary(result),
        "findings": [finding_object(finding) for finding in result.findings],
    }


def summary(result: RunResult) -> dict[str, Any]:
    return {
        "files": result.files_analysed,
        "files_not_relevant": result.files_not_relevant,
        "findings": len(result.findings),
        "by_code": dict(Counter(finding.code for finding in result.findings)),
        "stale_baseline": result.stale_baseline,
        "baseline_hidden": result.baseline_hidden,
    }


def location_fields(location: Location) -> dict[str, Any]:
    return {
        "path": location.path,
        "line": location.line,
        "column": location.column,
        "end_line": location.end_line,
        "end_column": location.end_column,
    }


def finding_object(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        **location_fields(finding.location),
        "function": finding.function,
        "fingerprint": finding.fingerprint,
        "related": [related_object(related) for related in finding.related],
        "chain": [chain_object(step) for step in finding.chain],
    }


def related_object(related: RelatedLocation) -> dict[str, Any]:
    return {**location_fields(related.location), "message": related.message}


def chain_object(step: ChainStep) -> dict[str, Any]:
    return {**location_fields(step.location), "function": step.function, "message": step.message}
