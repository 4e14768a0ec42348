"""A file's facts apart from their layout: what an edit that only moves code (a comment, a blank
line, a line added above) leaves unchanged.

The analysis reads positions only to order them and to tell lines apart (is a read inside a
region, which of two events comes first, is a `guarded-by` comment on a write's line), each within
one file. Two versions of a file whose facts are equal but for positions, and whose positions are
in the same order with the same lines shared, are therefore analysed alike: each finding of one is
the other's, moved point by point. `relayout` finds that correspondence, or says there is none.

What names a place (a lambda is called `<lambda:LINE:COLUMN>`, a syntax error says where it is) is
not a position but part of the facts: moving it is a change.

Suppressions and the line count are left out: the engine applies suppressions after the analysis,
and the analysis never reads the line count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from epochlint.findings import Finding, Location
from epochlint.frontend import facts as facts_module
from epochlint.frontend.facts import FileFacts, Region

__all__ = ["Relayout", "relayout"]

# (line, column) of a position's start or end; a line alone (a region's last line, a comment's
# line) has no column.
Point = tuple[int, int]
_NO_COLUMN = -1

_SKIPPED_FILE_FIELDS = frozenset({"lines", "suppressions", "ignore_file"})


@dataclass(frozen=True)
class Relayout:
    """Where each point of the old version of a file is in the new one."""

    points: dict[Point, Point]

    def finding(self, finding: Finding, path: str) -> Finding | None:
        """`finding` with its places in `path` moved; None when one of them is no known point."""
        try:
            return replace(
                finding,
                location=self._location(finding.location, path),
                related=tuple(replace(r, location=self._location(r.location, path)) for r in finding.related),
                chain=tuple(replace(s, location=self._location(s.location, path)) for s in finding.chain),
                fix=finding.fix
                if finding.fix is None or finding.fix.location is None
                else replace(finding.fix, location=self._location(finding.fix.location, path)),
            )
        except KeyError:
            return None

    def _location(self, location: Location, path: str) -> Location:
        if location.path != path:
            return location
        line, column = self.points[(location.line, location.column)]
        end_line, end_column = self.points[(location.end_line, location.end_column)]
        return Location(path, line, column, end_line, end_column)


def relayout(old: FileFacts, new: FileFacts) -> Relayout | None:
    """How `new` lays out `old`'s facts; None when they differ in more than layout."""
    old_points: list[Point] = []
    new_points: list[Point] = []
    if _shape(old, old_points) != _shape(new, new_points):
        return None
    if _ranks(old_points) != _ranks(new_points):
        return None
    return Relayout(dict(zip(old_points, new_points)))


def _shape(value: Any, points: list[Point]) -> Any:
    """`value` as nested tuples with every position taken out into `points`, in order."""
    if isinstance(value, tuple):
        return tuple(_shape(item, points) for item in value)
    if not dataclasses.is_dataclass(value):
        return value
    shaped: list[Any] = [type(value).__name__]
    for name, kind in _FIELDS[type(value)]:
        field_value = getattr(value, name)
        if kind == "pos":
            points.extend(_pos_points(field_value))
        elif kind == "positions":
            for pos in field_value:
                points.extend(_pos_points(pos))
        elif kind == "line":
            points.append((field_value, _NO_COLUMN))
        elif kind == "line_pairs":
            for line, rest in field_value:
                points.append((line, _NO_COLUMN))
                shaped.append(rest)
        else:
            shaped.append(_shape(field_value, points))
    return tuple(shaped)


def _pos_points(pos: tuple[int, int, int, int]) -> Iterator[Point]:
    yield (pos[0], pos[1])
    yield (pos[2], pos[3])


def _ranks(points: list[Point]) -> list[Point]:
    """Each point as (rank of its line, rank of its column on that line): equal for two lists of
    points exactly when they are in the same order and share lines alike."""
    lines = {line: rank for rank, line in enumerate(sorted({line for line, _ in points}))}
    columns: dict[int, set[int]] = {}
    for line, column in points:
        columns.setdefault(line, set()).add(column)
    column_ranks = {
        line: {column: rank for rank, column in enumerate(sorted(found))} for line, found in columns.items()
    }
    return [(lines[line], column_ranks[line][column]) for line, column in points]


def _field_kinds(cls: type) -> tuple[tuple[str, str], ...]:
    """How each field of a facts class holds positions (by its declared type), or "value"."""
    kinds = []
    for field in dataclasses.fields(cls):
        annotation = str(field.type)
        if cls is FileFacts and field.name in _SKIPPED_FILE_FIELDS:
            continue
        if annotation == "Pos":
            kind = "pos"
        elif annotation == "tuple[Pos, ...]":
            kind = "positions"
        elif cls is Region and field.name == "end_line":
            kind = "line"
        elif cls is FileFacts and field.name == "guard_declarations":
            kind = "line_pairs"
        else:
            kind = "value"
        kinds.append((field.name, kind))
    return tuple(kinds)


_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {
    value: _field_kinds(value)
    for value in vars(facts_module).values()
    if isinstance(value, type) and dataclasses.is_dataclass(value)
}
