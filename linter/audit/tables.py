"""The audit's tables: their Spark schemas (as DDL, so this module needs no PySpark) and their rows.

Output tables, one folder each under `--out`:
- `findings`: one row per finding, with the unit, the position, the fingerprint and the chain;
- `files`: one row per discovered file, with its status (FILE_STATUSES) and its finding count;
- `units`: one row per unit, with its totals and its findings per rule.
Internal tables: `facts` (FileFacts by content hash, what `--resume` reuses) and `.work/listing`
(the files of this run, hashed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from epochlint.findings import ChainStep, Finding, Location, RelatedLocation

STATUS_OK = "ok"
STATUS_PARSE_ERROR = "parse_error"
STATUS_TOO_LARGE = "too_large"
STATUS_UNREADABLE = "unreadable"
STATUS_TIMED_OUT = "timed_out"
# The file's unit has settings that could not be read: nothing of it was analysed.
STATUS_CONFIG_ERROR = "config_error"
# A file in a language whose frontend (an optional extra) is not installed where it was listed.
STATUS_NO_FRONTEND = "no_frontend"
FILE_STATUSES = (
    STATUS_OK, STATUS_PARSE_ERROR, STATUS_TOO_LARGE, STATUS_UNREADABLE, STATUS_TIMED_OUT, STATUS_CONFIG_ERROR,
    STATUS_NO_FRONTEND,
)
# A listed file that was read and hashed and waits for its facts.
STATUS_PENDING = "pending"

_SPAN = "path string, line int, column int, end_line int, end_column int"

FINDINGS_SCHEMA = (
    f"unit string, {_SPAN}, code string, name string, message string, function string, "
    f"fingerprint string, chain array<struct<{_SPAN}, function string, message string>>, "
    f"related array<struct<{_SPAN}, message string>>"
)
FILES_SCHEMA = (
    "unit string, path string, size long, sha256 string, status string, error string, lines int, "
    "relevant boolean, parse_seconds double, findings int, cached boolean"
)
UNITS_SCHEMA = (
    "unit string, root string, files int, analysed int, errored int, not_relevant int, lines long, "
    "findings int, findings_by_rule map<string,int>, parse_seconds double, analysis_seconds double, error string"
)
LISTING_SCHEMA = (
    "unit_id int, file_index int, rel string, path binary, size long, sha256 string, status string, "
    "error string, relevant boolean"
)
FACTS_SCHEMA = (
    "sha256 string, relevant boolean, facts_format int, status string, error string, lines int, "
    "parse_seconds double, facts binary, cacheable boolean, run string"
)


class ListedFile(NamedTuple):
    """A file found in a unit, in `check`'s order (`file_index`); `problem` when it cannot be
    analysed, with the status that says why."""

    unit_id: int
    file_index: int
    rel: str
    path: bytes  # os.fsencode: the name's real bytes, whatever they are
    problem: str | None
    problem_status: str = STATUS_UNREADABLE


class ListingRow(NamedTuple):
    """A listed file, read and hashed; `relevant` (the prefilter's verdict) once its unit is known."""

    unit_id: int
    file_index: int
    rel: str
    path: bytes
    size: int | None
    sha256: str | None
    status: str
    error: str | None
    relevant: bool | None = None


class FactsRow(NamedTuple):
    """Facts by content hash and prefilter verdict: a file that no rule can need has facts without
    a parse."""

    sha256: str
    relevant: bool
    facts_format: int
    status: str
    error: str | None
    lines: int
    parse_seconds: float
    facts: bytes
    cacheable: bool
    run: str


class FileRecord(NamedTuple):
    """A listed file with the facts found for it, if any: what a unit's analysis starts from."""

    listing: ListingRow
    facts: FactsRow | None


class FileRow(NamedTuple):
    unit: str
    path: str
    size: int | None
    sha256: str | None
    status: str
    error: str | None
    lines: int
    relevant: bool | None
    parse_seconds: float
    findings: int
    cached: bool


class UnitRow(NamedTuple):
    unit: str
    root: str
    files: int
    analysed: int
    errored: int
    not_relevant: int
    lines: int
    findings: int
    findings_by_rule: Mapping[str, int]
    parse_seconds: float
    analysis_seconds: float
    error: str | None


def _span(location: Location) -> tuple[str, int, int, int, int]:
    return (location.path, location.line, location.column, location.end_line, location.end_column)


def _chain_step(step: ChainStep) -> tuple[object, ...]:
    return (*_span(step.location), step.function, step.message)


def _related(related: RelatedLocation) -> tuple[object, ...]:
    return (*_span(related.location), related.message)


def finding_row(unit: str, finding: Finding) -> tuple[object, ...]:
    return (
        unit,
        *_span(finding.location),
        finding.code,
        finding.name,
        finding.message,
        finding.function,
        finding.fingerprint,
        [_chain_step(step) for step in finding.chain],
        [_related(related) for related in finding.related],
    )
