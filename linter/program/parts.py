"""The independent parts of an analysis unit: groups of files that no question of the analysis can
cross, analysed (and cached) one by one.

Everything the program model follows from one file into another goes through an import: a name
is resolved in its module, through that module's imports, star imports and the submodules of what
they import; a class's bases, a module-level value, a callee, a receiver's class and an argument
bound at a call site are all found that way (RULES.md, "Reading through calls": no guessing by
method name). Java's classes of the file's own package count as imports too (the frontend records
them). So an import links its file to the module it names and to every module below it
(`import kafka` reaches `kafka.errors` as `kafka.errors`), and to each Java file declaring a
top-level class of that full name besides the one the file is named after (`p.SlowDrain` in
`p/Drains.java`); the files of each connected group are a part, and a part's findings are those of
the whole unit on its files.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence

from epochlint.program.modules import ModuleLocator, absolute_module

__all__ = ["FileImports", "independent_parts"]

# One file of the unit: its root-relative path, its module name, whether it is a package's
# `__init__`, its imports as (level, module, name) triples (`from ..a import b`: (2, "a", "b")), and
# the full names of the Java top-level classes it declares.
FileImports = tuple[str, str, bool, Sequence[tuple[int, str, str]], Sequence[str]]


class _Groups:
    """Union-find over files, by index."""

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}

    def root(self, node: int) -> int:
        parent = self._parent
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def join(self, first: int, second: int) -> None:
        self._parent[self.root(first)] = self.root(second)


def independent_parts(files: Sequence[FileImports]) -> list[list[int]]:
    """The parts of the unit, as indexes into `files`: each part in file order, the parts in the
    order of their first file."""
    groups = _Groups()
    by_name = sorted((module, index) for index, (_, module, _, _, _) in enumerate(files))
    names = [module for module, _ in by_name]
    # An import that names no module may lead to one where Python finds it from the file.
    locator = ModuleLocator({rel: module for rel, module, _, _, _ in files})
    declaring: dict[str, list[int]] = {}
    for index, (_, _, _, _, classes) in enumerate(files):
        for full_name in classes:
            declaring.setdefault(full_name, []).append(index)
    # Each name imported: one of the files it reaches, once all it reaches are joined (None: none).
    reaches: dict[str, int | None] = {}
    for index, (rel, module, is_package, imports, _) in enumerate(files):
        for level, target, name in imports:
            # `from . import b` in a top-level module names `b` itself.
            absolute = absolute_module(module, is_package, level, target) or name
            if absolute not in reaches:
                reaches[absolute] = _join_subtree(groups, by_name, bisect.bisect_left(names, absolute), absolute)
            joined = [reaches[absolute]]
            if (located := locator.located(rel, level, target)) is not None and located != absolute:
                joined.append(_join_subtree(groups, by_name, bisect.bisect_left(names, located), located))
            for reached in [*joined, *declaring.get(absolute, ())]:
                if reached is not None:
                    groups.join(index, reached)
    parts: dict[int, list[int]] = {}
    for index in range(len(files)):
        parts.setdefault(groups.root(index), []).append(index)
    return list(parts.values())


def _join_subtree(groups: _Groups, by_name: Sequence[tuple[str, int]], start: int, name: str) -> int | None:
    """Join the files of module `name` and of every module below it (in `by_name`, sorted, from
    `start` on: the names that start with it are one run); one of them, or None when none."""
    first = None
    for module, index in itertools.islice(by_name, start, None):
        if not module.startswith(name):
            break
        if len(module) == len(name) or module[len(name)] == ".":
            if first is None:
                first = index
            groups.join(index, first)
    return first
