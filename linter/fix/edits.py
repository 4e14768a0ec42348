"""Edits of one file's syntax tree, found by the positions findings carry and applied in one pass."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from epochlint.findings import Finding, Location

Block = cst.IndentedBlock | cst.Module
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


@dataclass(frozen=True, eq=False)
class Edit:
    """A change of one node of the original tree, made for `findings`.

    `change` gets the node as rewritten so far (its children may already be edited) and must keep
    the number of statements in every block it does not own, so that edits of the same file compose.
    """

    node: cst.CSTNode
    change: Callable[[cst.CSTNode], cst.CSTNode]
    findings: tuple[Finding, ...]


class SourceTree:
    """One file parsed for fixing, with where each node is and what holds it."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        wrapper = MetadataWrapper(cst.parse_module(data))
        self.module = wrapper.module
        self._positions = wrapper.resolve(PositionProvider)
        self._parents = wrapper.resolve(ParentNodeProvider)

    def statement_at(self, location: Location) -> Statement | None:
        """The innermost statement that contains where `location` starts."""
        point = (location.line, location.column - 1)
        best: Statement | None = None
        for node, span in self._positions.items():
            if isinstance(node, Statement) and _contains(span, point):
                if best is None or _start(span) >= _start(self._positions[best]):
                    best = node
        return best

    def index_in_line(self, line: cst.SimpleStatementLine, location: Location) -> int | None:
        """The index in `line` of the statement (`a; b` holds two) that contains where `location`
        starts."""
        point = (location.line, location.column - 1)
        return next((i for i, small in enumerate(line.body) if _contains(self._positions[small], point)), None)

    def expression_at(self, location: Location) -> cst.BaseExpression | None:
        """The expression that spans exactly `location`."""
        span = ((location.line, location.column - 1), (location.end_line, location.end_column - 1))
        for node, found in self._positions.items():
            if isinstance(node, cst.BaseExpression) and (_start(found), _end(found)) == span:
                return node
        return None

    def starts_at(self, node: cst.CSTNode, location: Location) -> bool:
        return _start(self._positions[node]) == (location.line, location.column - 1)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def block_of(self, statement: cst.CSTNode) -> tuple[Block, int] | None:
        """The block whose body holds `statement`, and its index there."""
        parent = self._parents.get(statement)
        if not isinstance(parent, Block):
            return None
        for index, child in enumerate(parent.body):
            if child is statement:
                return parent, index
        return None


def _start(span: CodeRange) -> tuple[int, int]:
    return (span.start.line, span.start.column)


def _end(span: CodeRange) -> tuple[int, int]:
    return (span.end.line, span.end.column)


def _contains(span: CodeRange, point: tuple[int, int]) -> bool:
    return _start(span) <= point < _end(span)


class _Apply(cst.CSTTransformer):
    def __init__(self, edits: Sequence[Edit]) -> None:
        super().__init__()
        self._edits: dict[int, list[Edit]] = {}
        for edit in edits:
            self._edits.setdefault(id(edit.node), []).append(edit)

    def on_leave(
        self, original_node: cst.CSTNodeT, updated_node: cst.CSTNodeT
    ) -> cst.CSTNodeT | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNodeT]:
        node: cst.CSTNode = updated_node
        for edit in self._edits.get(id(original_node), ()):
            node = edit.change(node)
        # An edit may change a node's kind (a `for` into a `with`): libcst takes any statement
        # where a statement stands, which the type variable cannot say.
        return cast(cst.CSTNodeT, node)


def apply_edits(tree: SourceTree, edits: Sequence[Edit]) -> bytes:
    """The file's bytes with every edit made, in its own encoding, formatting and comments kept."""
    fixed = tree.module.visit(_Apply(edits)).bytes
    # libcst's code of a file whose lines end with a lone CR leaves the last line end out.
    if tree.data.endswith(b"\r") and not fixed.endswith(b"\r"):
        fixed += b"\r"
    return fixed


def any_node(node: cst.CSTNode, test: Callable[[cst.CSTNode], bool]) -> bool:
    """Whether `node` or one of its descendants passes `test`."""

    class _Search(cst.CSTVisitor):
        found = False

        def on_visit(self, child: cst.CSTNode) -> bool:
            self.found = self.found or test(child)
            return not self.found

    search = _Search()
    node.visit(search)
    return search.found
