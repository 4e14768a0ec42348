"""A file's facts apart from their layout: what an edit that only moves code (a comment, a blank
line, a line added above) leaves unchanged.

The analysis reads positions only to order them and to tell lines apart (is a read inside a
region, which of two events comes first, is a `guarded-by` comment on a write's line), each within
one file. Two versions of a file whose facts are equal but for positions, and whose positions are
in the same order with the same lines shared, are therefore analysed alike: each finding of one is
the other's, moved point by point. `relayout` finds that correspondence, or says there is none.

A lambda is named by its place (`<lambda:LINE:COLUMN>`): its name holds a point like any position,
and findings that name it are renamed where it moves, as long as the file's functions keep their
order by name (the analysis visits functions sorted by name). A syntax error's message says where
it is: moving it is a change.

Suppressions and the line count are left out: the engine applies suppressions after the analysis,
and the analysis never reads the line count.

An edit of blank lines and comments alone moves code without changing it, and `relocated` gives
the new version's facts without parsing it: the earlier facts with every place moved to its new
line, when the two versions' layouts (`epochlint.frontend.facts.Layout`) have the same digest.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, cast

from epochlint.findings import ChainStep, Finding, FixHint, Location, RelatedLocation, function_display_name
from epochlint.frontend import facts as facts_module
from epochlint.frontend import decoded, line_count
from epochlint.frontend.codec import record_classes_of
from epochlint.frontend.comments import read_comments
from epochlint.frontend.facts import FileFacts, FunctionFacts, Layout, Region
from epochlint.frontend.nesting import nesting_and_layout

__all__ = ["Relayout", "relayout", "relocated"]

# (line, column) of a position's start or end; a line alone (a region's last line, a comment's
# line) has no column.
Point = tuple[int, int]
_NO_COLUMN = -1

_SKIPPED_FILE_FIELDS = frozenset({"lines", "suppressions", "ignore_file", "layout"})

_LAMBDA_PLACE = re.compile(r"<lambda:(\d+):(\d+)>")
# The position of a module's own code (Python), and of a file's error when it has none: a
# constant standing for no place, which no edit moves.
_NO_PLACE = (1, 1, 1, 1)


@dataclass(frozen=True)
class Relayout:
    """Where each point of the old version of a file is in the new one."""

    # A point of the old version -> where it is now (KeyError: not a known point).
    moved: Callable[[Point], Point]
    # How findings name the file's moved lambdas: earlier name -> name now.
    renamed: dict[str, str]

    def finding(self, finding: Finding, path: str) -> Finding | None:
        """`finding` with its places in `path` moved and the lambdas it names renamed; None when
        one of its places is no known point."""
        try:
            return replace(
                finding,
                message=self._named(finding.message),
                location=self._location(finding.location, path),
                function=self._named(finding.function),
                related=tuple(self._related(r, path) for r in finding.related),
                chain=tuple(self._step(s, path) for s in finding.chain),
                fingerprint_key=self._named(finding.fingerprint_key),
                fix=None if finding.fix is None else self._fix(finding.fix, path),
            )
        except KeyError:
            return None

    def _related(self, related: RelatedLocation, path: str) -> RelatedLocation:
        return RelatedLocation(self._location(related.location, path), self._named(related.message))

    def _step(self, step: ChainStep, path: str) -> ChainStep:
        return ChainStep(self._location(step.location, path), self._named(step.function), self._named(step.message))

    def _fix(self, fix: FixHint, path: str) -> FixHint:
        location = None if fix.location is None else self._location(fix.location, path)
        return FixHint(self._named(fix.text), location)

    def _named(self, text: str) -> str:
        if self._names is None or "<lambda:" not in text:
            return text
        return self._names.sub(lambda found: self.renamed[found.group()], text)

    @cached_property
    def _names(self) -> re.Pattern[str] | None:
        """The earlier names, longest first (a lambda's name begins its nested lambdas' names),
        each preceded by what cannot continue a name."""
        if not self.renamed:
            return None
        names = sorted(self.renamed, key=len, reverse=True)
        return re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, names)) + ")")

    def _location(self, location: Location, path: str) -> Location:
        if location.path != path:
            return location
        line, column = self.moved((location.line, location.column))
        end_line, end_column = self.moved((location.end_line, location.end_column))
        return Location(path, line, column, end_line, end_column)


def relayout(old: FileFacts, new: FileFacts, module: str) -> Relayout | None:
    """How `new` lays out `old`'s facts (those of `module`); None when they differ in more than
    layout."""
    if old.layout.digest and old.layout.digest == new.layout.digest:
        # Only blank lines and comments changed: every code line moved whole (see `relocated`).
        lines = _new_lines(old.layout, new.layout)
        renamed = _renamed(old, new, module)
        if renamed is None or not _declarations_moved(old, new, lines):
            return None
        return Relayout(lambda point: (lines[point[0]], point[1]), renamed)
    old_points: list[Point] = []
    new_points: list[Point] = []
    if _shape(old, old_points) != _shape(new, new_points):
        return None
    if _ranks(old_points) != _ranks(new_points):
        return None
    renamed = _renamed(old, new, module)
    return None if renamed is None else Relayout(dict(zip(old_points, new_points)).__getitem__, renamed)


def _declarations_moved(old: FileFacts, new: FileFacts, lines: Mapping[int, int]) -> bool:
    """Whether the `guarded-by` comments of `new` are those of `old`, moved with their lines: they
    are comments, yet the analysis reads them (a changed one is a change)."""
    moved = tuple((lines.get(line, 0), lock) for line, lock in old.guard_declarations)
    return moved == new.guard_declarations


def _renamed(old: FileFacts, new: FileFacts, module: str) -> dict[str, str] | None:
    """How findings name the functions whose names changed (lambdas, named by their place); None
    when the file's functions are no longer in the same order by name."""
    old_names = [f.qualname for f in old.functions]
    new_names = [f.qualname for f in new.functions]
    if _order(old_names) != _order(new_names):
        return None
    return {
        function_display_name(module, old.package, before): function_display_name(module, new.package, after)
        for before, after in zip(old_names, new_names)
        if before != after
    }


def relocated(old: FileFacts, data: bytes) -> FileFacts | None:
    """The facts of `data`, a new version of the file whose facts are `old`, without parsing it:
    `old`'s, each place moved to its new line, when the two versions differ only in lines that
    hold no code and in the comments that end lines (their layouts' digests are equal); their
    comments and line count are read from `data`. None when they differ in more."""
    if not old.layout.digest:
        return None
    _, layout = nesting_and_layout(data)
    if layout is None or layout.digest != old.layout.digest:
        return None
    lines = _new_lines(old.layout, layout)
    try:
        moved = old if all(before == after for before, after in lines.items()) else _at_new_lines(old, lines)
    except KeyError:  # a place on a line without code: facts of another frontend
        return None
    try:
        text = decoded(data)
    except (SyntaxError, ValueError):  # a comment that cannot be decoded: the parse words the error
        return None
    comments = read_comments(text)
    return replace(
        moved,
        lines=line_count(text),
        suppressions=comments.suppressions,
        ignore_file=comments.ignore_file,
        guard_declarations=comments.guard_declarations,
        layout=layout,
    )


def _new_lines(old: Layout, new: Layout) -> dict[int, int]:
    """Each line of code's number in the old layout -> in the new one (the same code, in order)."""
    return dict(zip(_code_lines(old), _code_lines(new)))


def _code_lines(layout: Layout) -> Iterator[int]:
    codeless = set(layout.codeless)
    return (line for line in range(1, layout.lines + 1) if line not in codeless)


def _at_new_lines(value: Any, lines: Mapping[int, int]) -> Any:
    """`value` with the line of every place in it (positions, a region's last line, a lambda's
    name) replaced by `lines`; KeyError for a line `lines` does not have. Line 0 stands for no
    line, and the places that stand for none stay."""
    if isinstance(value, str):
        return _LAMBDA_PLACE.sub(lambda found: f"<lambda:{lines[int(found.group(1))]}:{found.group(2)}>", value)
    fields = _FIELDS.get(type(value))
    if fields is None:
        return tuple(_at_new_lines(item, lines) for item in value) if isinstance(value, tuple) else value
    changes: dict[str, Any] = {}
    for name, kind in fields:
        field_value = getattr(value, name)
        if kind == "pos" and not _stands_for_no_place(value, name):
            changes[name] = _pos_at(field_value, lines)
        elif kind == "pos_or_none" and field_value is not None:
            changes[name] = _pos_at(field_value, lines)
        elif kind == "positions":
            changes[name] = tuple(_pos_at(pos, lines) for pos in field_value)
        elif kind == "line":
            changes[name] = _line_at(field_value, lines)
        elif kind == "value":
            changes[name] = _at_new_lines(field_value, lines)
    if isinstance(value, tuple):  # a named tuple (a name path, a site...) stays one
        return cast(Any, value)._replace(**changes)
    return replace(value, **changes)


def _pos_at(pos: tuple[int, int, int, int], lines: Mapping[int, int]) -> tuple[int, int, int, int]:
    return (_line_at(pos[0], lines), pos[1], _line_at(pos[2], lines), pos[3])


def _line_at(line: int, lines: Mapping[int, int]) -> int:
    return lines[line] if line else line


def _order(names: list[str]) -> list[int]:
    return sorted(range(len(names)), key=names.__getitem__)


def _shape(value: Any, points: list[Point]) -> Any:
    """`value` as nested tuples with every position taken out into `points`, in order."""
    if isinstance(value, str):
        return _placeless(value, points) if "<lambda:" in value else value
    fields = _FIELDS.get(type(value))
    if fields is None:
        return tuple(_shape(item, points) for item in value) if isinstance(value, tuple) else value
    shaped: list[Any] = [type(value).__name__]
    for name, kind in fields:
        field_value = getattr(value, name)
        if kind == "pos" and _stands_for_no_place(value, name):
            shaped.append(field_value)
        elif kind == "pos" or kind == "pos_or_none" and field_value is not None:
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


def _stands_for_no_place(value: Any, name: str) -> bool:
    if isinstance(value, FunctionFacts):
        return name == "pos" and value.kind == "module" and value.pos == _NO_PLACE
    return isinstance(value, FileFacts) and name == "error_pos" and not value.error


def _placeless(text: str, points: list[Point]) -> str:
    """`text` with the place in each lambda's name taken out into `points`."""

    def taken_out(found: re.Match[str]) -> str:
        points.append((int(found.group(1)), int(found.group(2))))
        return "<lambda>"

    return _LAMBDA_PLACE.sub(taken_out, text)


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
    for name, annotation in _declared_fields(cls):
        if cls is FileFacts and name in _SKIPPED_FILE_FIELDS:
            continue
        if annotation == "Pos":
            kind = "pos"
        elif annotation == "Pos | None":
            kind = "pos_or_none"
        elif annotation == "tuple[Pos, ...]":
            kind = "positions"
        elif cls is Region and name == "end_line":
            kind = "line"
        elif cls is FileFacts and name == "guard_declarations":
            kind = "line_pairs"
        else:
            kind = "value"
        kinds.append((name, kind))
    return tuple(kinds)


def _declared_fields(cls: type) -> list[tuple[str, str]]:
    """(name, declared type) of each field of a facts class: a dataclass or a named tuple."""
    if dataclasses.is_dataclass(cls):
        return [(field.name, str(field.type)) for field in dataclasses.fields(cls)]
    # A named tuple's annotations are forward references (`from __future__ import annotations`).
    annotations = {name: getattr(kind, "__forward_arg__", kind) for name, kind in cls.__annotations__.items()}
    return [(name, str(annotations[name])) for name in getattr(cls, "_fields", ())]


_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {
    getattr(facts_module, name): _field_kinds(getattr(facts_module, name))
    for name in record_classes_of(facts_module)
}
