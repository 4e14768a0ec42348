"""SARIF 2.1.0 report, for code-scanning services (GitHub, Azure DevOps, IDE viewers)."""

from __future__ import annotations

import json
import os
from typing import Any, TextIO
from urllib.parse import quote

from epochlint.findings import WARNING_CODES, ChainStep, Finding, Location, RelatedLocation
from epochlint.report import RuleInfo, RunResult
from epochlint.report.github import path_in_repository
from epochlint.text import unescaped_name

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://pypi.org/project/epochlint/"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "epochlint/v1"

# Deliberately no `uri` for %SRCROOT%: the analysis root is a machine path that must not leak.
# In a GitHub workflow it is the repository's top (`GITHUB_WORKSPACE`), from which code scanning
# places a file, also where the project's configuration is in a subfolder.
SRCROOT_DESCRIPTION = (
    "The directory epochlint analysed (in a GitHub workflow, the repository's top); every artifact URI"
    " is relative to it."
)

# Each artifact's place in the run's list, and its name from %SRCROOT%, by its name in the report.
Artifacts = dict[str, tuple[int, str]]


def render(result: RunResult, stream: TextIO) -> None:
    stream.write(json.dumps(document(result), indent=2, sort_keys=True) + "\n")


def document(result: RunResult) -> dict[str, Any]:
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run(result)]}


def run(result: RunResult) -> dict[str, Any]:
    paths = artifact_paths(result.findings)
    repository = os.environ.get("GITHUB_WORKSPACE")
    artifacts = {path: (index, path_in_repository(path, result.root, repository)) for index, path in enumerate(paths)}
    rule_index = {rule.code: index for index, rule in enumerate(result.rules)}
    return {
        "tool": {"driver": driver(result)},
        "originalUriBaseIds": {SRCROOT: {"description": {"text": SRCROOT_DESCRIPTION}}},
        "artifacts": [{"location": artifact_uri(artifacts[path][1])} for path in paths],
        "columnKind": "unicodeCodePoints",
        "results": [
            result_object(finding, rule_index, artifacts) for finding in result.findings
        ],
    }


def driver(result: RunResult) -> dict[str, Any]:
    return {
        "name": "epochlint",
        "version": result.tool_version,
        "informationUri": INFORMATION_URI,
        "rules": [reporting_descriptor(rule) for rule in result.rules],
    }


def level(code: str) -> str:
    return "warning" if code in WARNING_CODES else "error"


def reporting_descriptor(rule: RuleInfo) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.documentation},
        "help": {"text": rule.documentation, "markdown": rule.documentation},
        "defaultConfiguration": {"level": level(rule.code)},
    }


def artifact_paths(findings: tuple[Finding, ...]) -> list[str]:
    paths: set[str] = set()
    for finding in findings:
        paths.add(finding.location.path)
        paths.update(related.location.path for related in finding.related)
        paths.update(step.location.path for step in finding.chain)
    return sorted(paths)


def artifact_uri(name: str) -> dict[str, Any]:
    # Percent-encode so that spaces or a `:` in a file name still make a valid relative URI; the
    # name's own bytes, not the escapes the report writes for a byte no encoding decodes.
    return {"uri": quote(os.fsencode(unescaped_name(name)), safe="/"), "uriBaseId": SRCROOT}


def artifact_location(path: str, artifacts: Artifacts) -> dict[str, Any]:
    index, name = artifacts[path]
    return {**artifact_uri(name), "index": index}


def region(location: Location) -> dict[str, int]:
    # SARIF requires an end at or after the start; clamp rather than emit an invalid log.
    start_line = max(location.line, 1)
    start_column = max(location.column, 1)
    end_line = max(location.end_line, start_line)
    end_column = max(location.end_column, 1)
    if end_line == start_line:
        end_column = max(end_column, start_column)
    return {
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    }


def physical_location(location: Location, artifacts: Artifacts) -> dict[str, Any]:
    return {
        "artifactLocation": artifact_location(location.path, artifacts),
        "region": region(location),
    }


def related_location(
    number: int, related: RelatedLocation, artifacts: Artifacts
) -> dict[str, Any]:
    return {
        "id": number,
        "message": {"text": related.message},
        "physicalLocation": physical_location(related.location, artifacts),
    }


def logical_locations(function: str) -> list[dict[str, str]]:
    return [{"name": function, "kind": "function"}] if function else []


def thread_flow_location(step: ChainStep, artifacts: Artifacts) -> dict[str, Any]:
    location: dict[str, Any] = {
        "message": {"text": step.message},
        "physicalLocation": physical_location(step.location, artifacts),
    }
    if step.function:
        location["logicalLocations"] = logical_locations(step.function)
    return {"location": location}


def code_flows(chain: tuple[ChainStep, ...], artifacts: Artifacts) -> list[dict[str, Any]]:
    steps = [thread_flow_location(step, artifacts) for step in chain]
    return [{"threadFlows": [{"locations": steps}]}]


def primary_location(finding: Finding, artifacts: Artifacts) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": physical_location(finding.location, artifacts)
    }
    if finding.function:
        location["logicalLocations"] = logical_locations(finding.function)
    return location


def result_object(
    finding: Finding, rule_index: dict[str, int], artifacts: Artifacts
) -> dict[str, Any]:
    sarif_result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": level(finding.code),
        "message": {"text": finding.message},
        "locations": [primary_location(finding, artifacts)],
    }
    # ruleIndex must point into driver.rules; a code without a RuleInfo gets only its ruleId.
    if finding.code in rule_index:
        sarif_result["ruleIndex"] = rule_index[finding.code]
    if finding.related:
        sarif_result["relatedLocations"] = [
            related_location(number, related, artifacts)
            for number, related in enumerate(finding.related, start=1)
        ]
    if finding.chain:
        sarif_result["codeFlows"] = code_flows(finding.chain, artifacts)
    if finding.fingerprint:
        sarif_result["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    return sarif_result
