"""Baselines: today's findings recorded, so that `check --baseline FILE` reports only new ones.

A baseline is JSON, keyed by the findings' fingerprints (which hold no line numbers: they survive
unrelated edits and moved code), with each entry's code, path and message for the people who read
it. It is written sorted and byte-stable, so that it diffs well in review.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from epochlint.discovery import UsageError
from epochlint.fileio import write_named_file
from epochlint.findings import Finding
from epochlint.report import RunResult

BASELINE_VERSION = 1
TOOL_NAME = "epochlint"


@dataclass(frozen=True)
class BaselineEntry:
    fingerprint: str
    code: str
    path: str
    message: str


def write_baseline(path: Path, findings: Iterable[Finding], kept: Iterable[BaselineEntry] = ()) -> None:
    """Record `findings`, beside the `kept` entries of an earlier baseline (those of files and
    rules the run did not check)."""
    entries = {entry.fingerprint: {"code": entry.code, "path": entry.path, "message": entry.message} for entry in kept}
    entries.update(
        (finding.fingerprint, {"code": finding.code, "path": finding.location.path, "message": finding.message})
        for finding in findings
    )
    document = {"version": BASELINE_VERSION, "tool": TOOL_NAME, "findings": entries}
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    try:
        write_named_file(path, text.encode("utf-8"))
    except OSError as error:
        raise UsageError(f"epochlint: cannot write baseline {path}: {error.strerror}") from None


def read_baseline(path: Path) -> tuple[BaselineEntry, ...]:
    """The entries of a baseline file; a missing or malformed file is a usage error."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"epochlint: cannot read baseline {path}: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"epochlint: baseline {path} is not valid JSON: {error}") from None
    except RecursionError:
        raise UsageError(f"epochlint: baseline {path} is not a baseline: nested too deeply to read") from None
    if not _is_baseline(document):
        raise UsageError(f"epochlint: {path} is not an epochlint baseline of version {BASELINE_VERSION}")
    entries = document["findings"]
    return tuple(_entry(path, fingerprint, fields) for fingerprint, fields in sorted(entries.items()))


def _is_baseline(document: object) -> bool:
    return (
        isinstance(document, dict)
        and document.get("tool") == TOOL_NAME
        and document.get("version") == BASELINE_VERSION
        and isinstance(document.get("findings"), dict)
    )


def _entry(path: Path, fingerprint: str, fields: object) -> BaselineEntry:
    if not isinstance(fields, dict) or not all(isinstance(fields.get(k), str) for k in ("code", "path", "message")):
        raise UsageError(f"epochlint: baseline {path}: entry {fingerprint!r} needs a code, a path and a message")
    return BaselineEntry(fingerprint, fields["code"], fields["path"], fields["message"])


def without_baseline(
    result: RunResult,
    entries: Sequence[BaselineEntry],
    analysed: frozenset[str],
    reported: Callable[[str, str], bool],
    vanished: Callable[[str], bool],
) -> RunResult:
    """`result` less the findings in the baseline, counting the entries that match nothing any more.

    Only entries of files this run analysed, for rules it ran there (`reported(code, path)`), can be
    stale: a run over part of the project, or with some rules (`--select`), says nothing about the
    rest of the baseline; and entries of files deleted from where the run looked (`vanished(path)`).
    """
    recorded = {entry.fingerprint for entry in entries}
    found = {finding.fingerprint for finding in result.findings}
    stale = sum(
        1
        for entry in entries
        if (entry.path in analysed or vanished(entry.path))
        and reported(entry.code, entry.path)
        and entry.fingerprint not in found
    )
    kept = tuple(finding for finding in result.findings if finding.fingerprint not in recorded)
    return replace(result, findings=kept, stale_baseline=stale, baseline_hidden=len(result.findings) - len(kept))
