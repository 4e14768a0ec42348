"""What the rules produce and the reports consume: findings with their locations and paths."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


# A Java overload is named apart by its number of parameters (`seek~0`) inside the program only.
_OVERLOAD_SUFFIX = re.compile(r"~\d+")
# Codes saying that code could not be checked (EPL900), not that it has a bug: every output shows
# them as warnings, the others as errors.
WARNING_CODES = frozenset({"EPL900"})


def function_display_name(module: str, package: str, qualname: str, java: bool = False) -> str:
    """How findings name a function: `module.qualname`; a Java class's file is named after the
    class, so its methods are `package.Class.method` (`Class.method` in the unnamed package), by
    the name Java gives them; a module's own code by the module."""
    if not qualname:
        return module
    qualname = _OVERLOAD_SUFFIX.sub("", qualname) if java else qualname
    if java and module.rsplit(".", 1)[-1] == qualname.split(".")[0]:
        return f"{package}.{qualname}" if package else qualname
    return f"{module}.{qualname}"


@dataclass(frozen=True, order=True)
class Location:
    """A span in a file. `path` is relative to the analysis root, with forward slashes.

    Lines and columns are 1-based; the end is exclusive in columns, as in SARIF.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class RelatedLocation:
    """A place that explains a finding: the guarded write, a read, the outer lock region."""

    location: Location
    message: str


@dataclass(frozen=True)
class ChainStep:
    """One step of the path that leads to a finding (loop -> calls -> read, source -> commit)."""

    location: Location
    function: str
    message: str


@dataclass(frozen=True)
class FixHint:
    """What an autofix needs that only the analysis knows; `linter/fix/` makes the edit from it.

    Its meaning is the fixing rule's: the guard to hold around the loop, as written in the loop's
    function (EPL001); the bump to move before the clear, with the field's name (EPL004).
    """

    text: str = ""
    location: Location | None = None


@dataclass(frozen=True)
class Finding:
    """One reported mistake, ready for every output format."""

    code: str
    name: str
    message: str
    location: Location
    function: str = ""
    related: tuple[RelatedLocation, ...] = ()
    chain: tuple[ChainStep, ...] = ()
    # What identifies this mistake independently of line numbers (field, lock, callee...).
    fingerprint_key: str = ""
    fingerprint: str = field(default="", compare=False)
    # Set when `--fix` can repair this finding mechanically.
    fix: FixHint | None = None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)
