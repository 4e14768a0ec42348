"""EPL004 fix: move the epoch bump before the queue clear (PIP-84: bump first, then clear)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from epochlint.findings import Finding
from epochlint.fix.edits import Block, Edit, SourceTree, any_node

_LEAVES_EARLY = (cst.Return, cst.Raise, cst.Break, cst.Continue, cst.Yield, cst.Await)


def edits(tree: SourceTree, findings: Sequence[Finding]) -> list[Edit]:
    """One edit per block: each bump moved before the first clear that precedes it."""
    by_block: dict[int, tuple[Block, dict[int, int], list[Finding]]] = {}
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


def _move(tree: SourceTree, finding: Finding) -> tuple[Block, int, int] | None:
    """The block, and the indexes there of the bump statement and of the clear it must precede."""
    fix = finding.fix
    assert fix is not None and fix.location is not None
    clear = tree.statement_at(finding.location)
    bump = tree.statement_at(fix.location)
    if not isinstance(clear, cst.SimpleStatementLine) or not isinstance(bump, cst.SimpleStatementLine):
        return None
    clear_at, bump_at = tree.block_of(clear), tree.block_of(bump)
    if clear_at is None or bump_at is None or clear_at[0] is not bump_at[0] or len(bump.body) != 1:
        return None
    block, first = clear_at
    last = bump_at[1]
    between = block.body[first:last]
    # The field, and the bump's own names but the receiver every field write has: a local it reads
    # must not be one that a statement it moves past assigns (or reads: kept simple, and safe).
    watched = (_names(bump) - {"self", "cls"}) | {fix.text}
    if first >= last or any(_unsafe_to_pass(statement, watched) for statement in between):
        return None
    return block, last, first


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

    def change(block: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(block, Block)
        order: list[int] = []
        for index in range(len(block.body)):
            order.extend(sorted(b for b, clear in firsts.items() if clear == index))
            if index not in firsts:
                order.append(index)
        return block.with_changes(body=[block.body[i] for i in order])

    return change
