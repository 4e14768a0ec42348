"""GitLab's Code Quality report (`artifacts: reports: codequality:` in `.gitlab-ci.yml`): a JSON
array with one issue per finding, which the merge request's Code Quality widget shows on its diff.

GitLab keeps only the first of several issues with one fingerprint, so a fingerprint repeated in
one report (one mistake found in two places) is made unique by its count. Paths are relative to
the repository, which GitLab CI names in `CI_PROJECT_DIR`; elsewhere, relative to the project root
as in every other format.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import TextIO

from epochlint.findings import WARNING_CODES, Finding
from epochlint.report import RunResult
from epochlint.report.github import one_line_message, path_in_repository


def render(result: RunResult, stream: TextIO) -> None:
    repository = os.environ.get("CI_PROJECT_DIR")
    seen: Counter[str] = Counter()
    issues = []
    for finding in result.findings:
        seen[finding.fingerprint] += 1
        path = path_in_repository(finding.location.path, result.root, repository)
        issues.append(_issue(finding, path, _unique(finding.fingerprint, seen)))
    json.dump(issues, stream, indent=2)  # ASCII, as the json format: any locale prints it
    stream.write("\n")


def _issue(finding: Finding, path: str, fingerprint: str) -> dict[str, object]:
    location = finding.location
    return {
        "description": f"{finding.code} {one_line_message(finding)}",
        "check_name": finding.code,
        "fingerprint": fingerprint,
        "severity": "minor" if finding.code in WARNING_CODES else "major",
        "location": {
            "path": path,
            "positions": {
                "begin": {"line": location.line, "column": location.column},
                "end": {"line": location.end_line, "column": location.end_column},
            },
        },
    }


def _unique(fingerprint: str, seen: Counter[str]) -> str:
    count = seen[fingerprint]
    return fingerprint if count == 1 else hashlib.sha256(f"{fingerprint}\0{count}".encode()).hexdigest()

