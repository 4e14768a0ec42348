"""Positions of every node of a libcst module, the same as libcst's PositionProvider gives.

PositionProvider regenerates the module's code while it records a CodeRange dataclass per node;
those objects, and the generic metadata machinery around them, cost more than the parse itself.
This is the same code generation with plain tuples, and it returns the code text on the way, so
one pass gives the text (for comments) and every position.
"""

from __future__ import annotations

import re
from types import TracebackType

import libcst as cst
from libcst._nodes.internal import CodegenState

from epochlint.frontend.facts import Pos

_NEWLINE = re.compile(r"\r\n?|\n")

Point = tuple[int, int]


class _SyntacticRange:
    """`record_syntactic_position` as PositionProvider does it: the range of the code generated
    inside the block, or hoisted from the start or end child it names."""

    __slots__ = ("_state", "_node", "_start_node", "_end_node", "_start")

    def __init__(
        self,
        state: _PositionState,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self._state = state
        self._node = node
        self._start_node = start_node
        self._end_node = end_node
        self._start: Point = (0, 0)

    def __enter__(self) -> None:
        self._start = (self._state.line, self._state.column + 1)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is not None:
            # Unwinding (a RecursionError on deep nesting): the children's ranges may be missing;
            # recording nothing lets the real error through instead of a KeyError that hides it.
            return
        state = self._state
        ranges = state.ranges
        start = ranges[id(self._start_node)][:2] if self._start_node is not None else self._start
        end = ranges[id(self._end_node)][2:] if self._end_node is not None else (state.line, state.column + 1)
        ranges[id(self._node)] = start + end


class _PositionState(CodegenState):
    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = 1
        self.column = 0
        self.starts: list[Point] = []
        # Node id -> its position, recorded in its final form (no second pass over a million nodes).
        self.ranges: dict[int, Pos] = {}

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.starts.pop()
        key = id(node)
        # A syntactic range recorded inside the node's own code generation wins.
        if key not in self.ranges:
            self.ranges[key] = (start[0], start[1] + 1, self.line, self.column + 1)

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _SyntacticRange:
        return _SyntacticRange(self, node, start_node, end_node)


def code_and_positions(module: cst.Module) -> tuple[str, dict[int, Pos]]:
    """The module's code and, by node id, each node's `(line, column, end_line, end_column)`
    (1-based columns, end exclusive). Ids are valid while `module` is alive."""
    state = _PositionState(module)
    module._codegen(state)
    return "".join(state.tokens), state.ranges
