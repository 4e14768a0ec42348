"""EPL004 fix: move the epoch bump before the queue clear (PIP-84: bump first, then clear)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import libcst as cst

from epochlint.findings import Finding, Location
from epochlint.fix.edits import Block, Edit, SourceTree, any_node

_LEAVES_EARLY = (cst.Return, cst.Raise, cst.Break, cst.Continue, cst.Yield, cst.Await)
# What holds the statements a fix reorders: a block, or one line of statements split by `;`.
Container: TypeAlias = Block | cst.SimpleStatementLine


def edits(tree: SourceTree, findings: Sequence[Finding]) -> list[Edit]:
    """One edit per block (or line): each bump moved before the first clear that precedes it."""
    by_block: dict[int, tuple[Container, dict[int, int], list[Finding]]] = {}
    for finding in findings:
        found = _move(tree, finding)
        if found is None:
            continue
        block, bump, clear = found
        _, firsts, served = by_block.setdefault(id(block), (block, {}, []))
        firsts[bump] = min(firsts.get(bump, clear), clear)
        served.append(finding)
    return [
        Edit(block, _reordered(firsts), tuple(served)) for block, firsts, served in by_block.values()
    ]


def _move(tree: SourceTree, finding: Finding) -> tuple[Container, int, int] | None:
    """The block (or line), and the indexes there of the bump statement and of the clear it must
    precede."""
    fix = finding.fix
    assert fix is not None and fix.location is not None
    clear = tree.statement_at(finding.location)
    bump = tree.statement_at(fix.location)
    if not isinstance(clear, cst.SimpleStatementLine) or not isinstance(bump, cst.SimpleStatementLine):
        return None
    found: tuple[Container, int, int] | None
    if clear is bump:
        found = _places_in_line(tree, clear, finding.location, fix.location)
    else:
        found = _places_in_block(tree, clear, bump)
    if found is None:
        return None
    container, first, last = found
    # The field, and the bump's own names but the receiver every field write has: a local it reads
    # must not be one that a statement it moves past assigns (or reads: kept simple, and safe).
    watched = (_names(container.body[last]) - {"self", "cls"}) | {fix.text}
    if first >= last or any(_unsafe_to_pass(statement, watched) for statement in container.body[first:last]):
        return None
    return container, last, first


def _places_in_block(
    tree: SourceTree, clear: cst.SimpleStatementLine, bump: cst.SimpleStatementLine
) -> tuple[Block, int, int] | None:
    """The block of two lines, and their indexes there; the bump must be alone on its line."""
    clear_at, bump_at = tree.block_of(clear), tree.block_of(bump)
    if clear_at is None or bump_at is None or clear_at[0] is not bump_at[0] or len(bump.body) != 1:
        return None
    return clear_at[0], clear_at[1], bump_at[1]


def _places_in_line(
    tree: SourceTree, line: cst.SimpleStatementLine, clear: Location, bump: Location
) -> tuple[cst.SimpleStatementLine, int, int] | None:
    """`self._incoming.clear(); self._epoch += 1`: the line, and the indexes there of the two."""
    first, last = tree.index_in_line(line, clear), tree.index_in_line(line, bump)
    return None if first is None or last is None else (line, first, last)


def _names(node: cst.CSTNode) -> set[str]:
    """Every name in `node`: locals, globals, attributes and keywords alike."""

    class _Names(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: set[str] = set()

        def visit_Name(self, name: cst.Name) -> None:
            self.found.add(name.value)

    names = _Names()
    node.visit(names)
    return names.found


def _unsafe_to_pass(statement: cst.CSTNode, watched: set[str]) -> bool:
    return any_node(statement, lambda node: isinstance(node, _LEAVES_EARLY) or _mentions(node, watched))


def _mentions(node: cst.CSTNode, watched: set[str]) -> bool:
    """A watched name, written out or as a string (`getattr(self, "_epoch")` reads the field)."""
    if isinstance(node, cst.Name):
        return node.value in watched
    return isinstance(node, cst.SimpleString) and node.evaluated_value in watched


def _reordered(firsts: dict[int, int]) -> Callable[[cst.CSTNode], cst.CSTNode]:
    """Each statement `bump` (a key) placed before statement `firsts[bump]`, the rest in order."""

    def change(container: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(container, Container)
        order: list[int] = []
        for index in range(len(container.body)):
            order.extend(sorted(b for b, clear in firsts.items() if clear == index))
            if index not in firsts:
                order.append(index)
        body = [container.body[i] for i in order]
        if isinstance(container, cst.SimpleStatementLine):
            # The `;` separators stay where they were: after the last statement, only if one was.
            body = [moved.with_changes(semicolon=kept.semicolon) for moved, kept in zip(body, container.body)]
        return container.with_changes(body=body)

    return change
