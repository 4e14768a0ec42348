"""What the audit's tasks do, as plain functions over plain rows: list, read and hash, parse, analyse.

The Spark job only moves these rows around; keeping the work here makes it testable without a
JVM, and keeps each unit's analysis the very code `check` runs.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from epochlint.audit.isolation import IsolatedParser
from epochlint.audit.tables import (
    STATUS_CONFIG_ERROR,
    STATUS_NO_FRONTEND,
    STATUS_OK,
    STATUS_PENDING,
    STATUS_TOO_LARGE,
    STATUS_UNREADABLE,
    FactsRow,
    FileRecord,
    FileRow,
    ListedFile,
    ListingRow,
    UnitRow,
    finding_row,
)
from epochlint.audit.units import Unit
from epochlint.collect import read_source
from epochlint.config import Config
from epochlint.discovery import SourceFile, UsageError, discover
from epochlint.engine import FileResult, analyse, unit_module_names
from epochlint.frontend.codec import FactsDecodeError, decode
from epochlint.frontend.facts import FACTS_FORMAT, FileFacts
from epochlint.frontend.java import MISSING_REASON as JAVA_MISSING_REASON, is_java
from epochlint.frontend.java import available as java_frontend_available
from epochlint.prefilter import TextFacts, Vocabulary, read_text_facts, relevant_files
from epochlint.text import escaped_name

# Tags of the rows a unit's analysis emits.
FINDING = "finding"
FILE = "file"
UNIT = "unit"

AnalysisRow = tuple[str, tuple[object, ...]]


def list_unit(unit: Unit) -> Iterator[ListedFile]:
    """The unit's files as `check` discovers them: sources first, then what could not be read.
    A unit whose settings are invalid lists its files as the default settings find them, each
    with the unit's error: what it holds is accounted for, though none of it is analysed."""
    if unit.config is None:
        if os.path.isdir(unit.root):
            yield from _listed(unit, Config(root=Path(unit.root)), unit.error, STATUS_CONFIG_ERROR)
        return
    yield from _listed(unit, unit.config, None, STATUS_UNREADABLE)


def _listed(unit: Unit, config: Config, problem: str | None, problem_status: str) -> Iterator[ListedFile]:
    # `check` says in warnings and notices what it leaves out; here they would reach only a worker's
    # log. The driver names the units left out whole (`units_left_out`); Java files get rows.
    try:
        sources, problems = discover([Path(unit.root)], config, keep_all_java=True, warn_left_out=False)
    except (UsageError, OSError) as error:
        yield ListedFile(unit.id, 0, ".", os.fsencode(unit.root), f"cannot list the unit: {error}")
        return
    java_frontend = java_frontend_available()
    for index, source in enumerate(sources):
        path = os.fsencode(source.path)
        rel = escaped_rel(path, unit.root)
        if problem is None and not java_frontend and is_java(source.rel):
            yield ListedFile(unit.id, index, rel, path, JAVA_MISSING_REASON, STATUS_NO_FRONTEND)
        else:
            yield ListedFile(unit.id, index, rel, path, problem, problem_status)
    for index, found in enumerate(problems, start=len(sources)):
        path = os.fsencode(os.path.join(unit.root, found.rel))
        yield ListedFile(unit.id, index, found.rel, path, problem or found.reason, problem_status)


def escaped_rel(path: bytes, root: str) -> str:
    """`path` relative to `root`, one printable line, and as distinct as the names themselves (see
    `escaped_name`): two files never share a name in the tables, however they are called."""
    relative = os.path.relpath(path, os.fsencode(root)).decode("utf-8", "surrogateescape")
    return escaped_name(relative.replace(os.sep, "/"))


class ReadFile(NamedTuple):
    """A listed file after reading: its row, and what the prefilter's text pass found in it."""

    row: ListingRow
    text: TextFacts | None


_vocabularies: dict[Config, Vocabulary] = {}


def _vocabulary(config: Config) -> Vocabulary:
    vocabulary = _vocabularies.get(config)
    if vocabulary is None:
        vocabulary = _vocabularies[config] = Vocabulary(config)
    return vocabulary


def read_and_hash(listed: ListedFile, config: Config | None) -> ReadFile:
    """Read one file as `check` reads it, hash it and run the prefilter's text pass on it; a file
    that cannot be read gets its status and `check`'s reason. `config` is None only for the
    files of a unit whose settings are invalid, which are listed with their problem."""
    def failed(status: str, error: str, size: int | None = None) -> ReadFile:
        row = ListingRow(listed.unit_id, listed.file_index, listed.rel, listed.path, size, None, status, error)
        return ReadFile(row, None)

    if listed.problem is not None:
        return failed(listed.problem_status, listed.problem)
    assert config is not None, "only a unit with settings lists files to read"
    data = read_source(SourceFile(Path(os.fsdecode(listed.path)), listed.rel), config.max_file_size)
    if isinstance(data, str):
        if "size limit" in data:
            return failed(STATUS_TOO_LARGE, data, _size(listed.path))
        return failed(STATUS_UNREADABLE, data)
    digest = hashlib.sha256(data).hexdigest()
    row = ListingRow(
        listed.unit_id, listed.file_index, listed.rel, listed.path, len(data), digest, STATUS_PENDING, None
    )
    return ReadFile(row, read_text_facts(data, _vocabulary(config)))


def _size(path: bytes) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def mark_relevant(unit: Unit, files: Iterable[ReadFile]) -> Iterator[ListingRow]:
    """The unit's rows with the prefilter's verdict on each readable file, decided over the whole
    unit as `check` decides it (a file is relevant through what it imports or is imported by)."""
    read = list(files)
    sources = [SourceFile(Path(os.fsdecode(item.row.path)), item.row.rel) for item in read]
    names = unit_module_names(sources, Path(unit.root))
    texts = {item.row.rel: item.text for item in read if item.text is not None}
    # Java files are always parsed, as by `check` (the text pass reads Python).
    relevant = relevant_files(texts, names) | {item.row.rel for item in read if is_java(item.row.rel)}
    for item in read:
        yield item.row if item.text is None else item.row._replace(relevant=item.row.rel in relevant)


_parsers: dict[float, IsolatedParser] = {}


def _parser(time_limit: float) -> IsolatedParser:
    # One child per Python worker and limit: Spark reuses workers, so the child outlives a task.
    parser = _parsers.get(time_limit)
    if parser is None:
        parser = _parsers[time_limit] = IsolatedParser(time_limit)
    return parser


def parse_files(files: Iterable[tuple[str, bool, list[bytes]]], time_limit: float, run: str) -> Iterator[FactsRow]:
    """Facts for each (sha256, relevant, paths of that content): a file is read again and must
    still have that content; when one copy cannot be read (or changed), the next one is tried."""
    parser = _parser(time_limit)
    for digest, relevant, paths in files:
        data = _content(digest, paths)
        if isinstance(data, str):
            yield _unreadable_facts(digest, relevant, data, run)
            continue
        # Copies share one content, so one name tells the language of all.
        outcome = parser.parse(data, relevant, java=is_java(os.fsdecode(paths[0])))
        yield FactsRow(
            digest, relevant, FACTS_FORMAT, outcome.status, outcome.error or None, outcome.lines, outcome.seconds,
            outcome.facts, outcome.lasting, run,
        )


def _content(digest: str, paths: Iterable[bytes]) -> bytes | str:
    """The bytes of the first of `paths` that still holds the content `digest`, else why not."""
    error = "no file holds this content"
    for path in paths:
        name = os.fsdecode(path)
        data = read_source(SourceFile(Path(name), name), sys.maxsize)
        if isinstance(data, bytes) and hashlib.sha256(data).hexdigest() == digest:
            return data
        error = data if isinstance(data, str) else "the file changed while it was audited"
    return error


def _unreadable_facts(digest: str, relevant: bool, error: str, run: str) -> FactsRow:
    return FactsRow(digest, relevant, FACTS_FORMAT, STATUS_UNREADABLE, error, 0, 0.0, b"", False, run)


@dataclass(frozen=True)
class _Resolved:
    """A listed file with what is known of it: its final status and the facts the program gets."""

    listing: ListingRow
    status: str
    error: str | None
    facts: FileFacts
    parse_seconds: float
    cached: bool


def _resolve(record: FileRecord, run: str) -> _Resolved:
    listing, stored = record.listing, record.facts
    if listing.status != STATUS_PENDING:
        return _Resolved(listing, listing.status, listing.error, _error_facts(listing.error), 0.0, False)
    if stored is None:
        error = "no facts were produced for this file"
        return _Resolved(listing, STATUS_UNREADABLE, error, _error_facts(error), 0.0, False)
    facts = _decoded(stored)
    if facts is None:
        error = "the stored facts of this file are unusable"
        return _Resolved(listing, STATUS_UNREADABLE, error, _error_facts(error), 0.0, False)
    cached = stored.run != run
    return _Resolved(listing, stored.status, stored.error, facts, 0.0 if cached else stored.parse_seconds, cached)


def _decoded(stored: FactsRow) -> FileFacts | None:
    if stored.status == STATUS_UNREADABLE:
        return _error_facts(stored.error)
    try:
        return decode(stored.facts)
    except FactsDecodeError:
        return None


def _error_facts(error: str | None) -> FileFacts:
    return FileFacts(lines=0, error=error or "unknown error")


def analyse_unit(unit: Unit, records: Iterable[FileRecord], run: str) -> Iterator[AnalysisRow]:
    """The unit's findings, one row per file, and the unit's own row: `check`'s analysis of it."""
    resolved = _in_check_order(_resolve(record, run) for record in records)
    if unit.config is None:
        yield from ((FILE, _file_row(unit, item, 0)) for item in resolved)
        yield UNIT, _unit_row(unit, resolved, [], 0.0, unit.error)
        return
    # A file no frontend here can read is left out of the program, as `check` leaves it (no EPL900).
    results = [
        FileResult(SourceFile(Path(os.fsdecode(r.listing.path)), r.listing.rel), r.facts)
        for r in resolved
        if r.status != STATUS_NO_FRONTEND
    ]
    start = time.monotonic()
    error = None
    try:
        findings, _, limits = analyse(results, unit.config)
    except Exception as failure:  # a bug the unit's code triggers costs this unit, not the audit
        findings, error = [], f"the analysis failed: {type(failure).__name__}: {failure}"
    else:
        # Rules left unchecked at a work limit leave the unit not wholly analysed (exit 3).
        error = "; ".join(f"the analysis stopped: {report}" for report in limits) or None
    seconds = time.monotonic() - start
    for finding in findings:
        yield FINDING, finding_row(unit.name, finding)
    per_file = Counter(finding.location.path for finding in findings)
    for item in resolved:
        yield FILE, _file_row(unit, item, per_file[item.listing.rel])
    yield UNIT, _unit_row(unit, resolved, [finding.code for finding in findings], seconds, error)


def _in_check_order(resolved: Iterable[_Resolved]) -> list[_Resolved]:
    """One entry per file (a content hash stored twice must not make a file count twice), in order."""
    by_index = {item.listing.file_index: item for item in resolved}
    return [by_index[index] for index in sorted(by_index)]


def _file_row(unit: Unit, item: _Resolved, findings: int) -> FileRow:
    listing = item.listing
    return FileRow(
        unit.name, listing.rel, listing.size, listing.sha256, item.status, item.error, item.facts.lines,
        listing.relevant, item.parse_seconds, findings, item.cached,
    )


def _unit_row(
    unit: Unit, resolved: list[_Resolved], codes: list[str], analysis_seconds: float, error: str | None
) -> UnitRow:
    analysed = sum(1 for item in resolved if item.status == STATUS_OK)
    return UnitRow(
        unit.name,
        unit.root,
        len(resolved),
        analysed,
        len(resolved) - analysed,
        sum(1 for item in resolved if item.listing.relevant is False),
        sum(item.facts.lines for item in resolved),
        len(codes),
        dict(Counter(codes)),
        sum((item.parse_seconds for item in resolved), 0.0),
        analysis_seconds,
        error,
    )
