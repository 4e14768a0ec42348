"""Positions of the nodes of a libcst module (all but whitespace and punctuation), the same as
libcst's PositionProvider gives.

PositionProvider regenerates the module's code while it records a CodeRange dataclass per node;
those objects, and the generic metadata machinery around them, cost more than the parse itself.
This is the same code generation recording each node's span as two character offsets, and it
returns the code text on the way, so one pass gives the text (for comments) and every position.
Offsets become lines and columns only for the nodes whose position is asked for: a few of the
hundreds of thousands a module's code generation passes.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

import libcst as cst
from libcst._nodes.internal import CodegenState

from epochlint.frontend.facts import Pos

_NEWLINE = re.compile(r"\r\n?|\n")

# A node's code, as offsets into the module's code: start inclusive, end exclusive.
Span = tuple[int, int]


class _SyntacticRange:
    """`record_syntactic_position` as PositionProvider does it: the span of the code generated
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
        self._start = 0

    def __enter__(self) -> None:
        self._start = self._state.offset

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is not None:
            # Unwinding (a RecursionError on deep nesting): the children's spans may be missing;
            # recording nothing lets the real error through instead of a KeyError that hides it.
            return
        state = self._state
        spans = state.spans
        start = spans[id(self._start_node)][0] if self._start_node is not None else self._start
        end = spans[id(self._end_node)][1] if self._end_node is not None else state.offset
        spans[id(self._node)] = (start, end)


class _PositionState(CodegenState):
    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.offset = 0
        self.starts: list[int] = []
        # Node id -> its span (no second pass over a million nodes).
        self.spans: dict[int, Span] = {}
        # The module's last newline, which its code generation drops after every span is recorded.
        self.dropped = ""
        # Where the indentation of blocks was added (before a statement, or after a line break inside
        # brackets): the code an expression generates alone has none.
        self.indent_starts: list[int] = []
        self.indent_ends: list[int] = []

    def add_indent_tokens(self) -> None:
        if not self.indent_tokens:
            return
        self.indent_starts.append(self.offset)
        for token in self.indent_tokens:
            self.add_token(token)
        self.indent_ends.append(self.offset)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.offset += len(value)

    def pop_trailing_newline(self) -> None:
        if self.tokens:
            self.dropped = self.tokens[-1]
        super().pop_trailing_newline()

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.starts.append(self.offset)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.starts.pop()
        key = id(node)
        # A syntactic span recorded inside the node's own code generation wins.
        if key not in self.spans:
            self.spans[key] = (start, self.offset)

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _SyntacticRange:
        return _SyntacticRange(self, node, start_node, end_node)


class Positions:
    """Each node's `(line, column, end_line, end_column)` (1-based columns, end exclusive), by
    node id; ids are valid while the module is alive."""

    __slots__ = ("_spans", "_code", "_line_starts", "_indents", "_newline_is_default")

    def __init__(self, spans: dict[int, Span], code: str, indents: tuple[list[int], list[int]], newline: str) -> None:
        self._spans = spans
        self._code = code
        # The starts and the ends of the indentation added to the module's code, in order.
        self._indents = indents
        # Whether a line break written as the module's default one is the "\n" of code generated alone.
        self._newline_is_default = newline == "\n"
        # Lines end as libcst counts them: at `\r\n`, `\r` or `\n`.
        self._line_starts = [0, *(match.end() for match in _NEWLINE.finditer(code))]

    def __len__(self) -> int:
        return len(self._spans)

    def __getitem__(self, node_id: int) -> Pos:
        # Each point's line found by bisection, written out here: the facts ask this of most nodes.
        start, end = self._spans[node_id]
        line_starts = self._line_starts
        line, end_line = bisect_right(line_starts, start), bisect_right(line_starts, end)
        return line, start - line_starts[line - 1] + 1, end_line, end - line_starts[end_line - 1] + 1

    def code(self, node: cst.BaseExpression) -> str | None:
        """The expression's code as libcst generates it on its own, cut from the module's code
        instead of generated again: over several lines, without the indentation of its block that
        the module's code holds there. None where its line breaks may differ (a module whose
        default one is not `\\n`)."""
        start, end = self._spans[id(node)]
        # The span of an expression in parentheses is inside them; theirs are recorded apart.
        if node.lpar:
            start = self._spans[id(node.lpar[0])][0]
        if node.rpar:
            end = self._spans[id(node.rpar[-1])][1]
        code = self._code[start:end]
        if "\n" not in code and "\r" not in code:
            return code
        return self._unindented(start, end) if self._newline_is_default else None

    def _unindented(self, start: int, end: int) -> str:
        """The module's code from `start` to `end` without the indentation added in it (an
        expression's span holds each such indentation whole, or none of it)."""
        starts, ends = self._indents
        pieces: list[str] = []
        kept_from = start
        for index in range(bisect_left(starts, start), bisect_left(starts, end)):
            pieces.append(self._code[kept_from : starts[index]])
            kept_from = ends[index]
        pieces.append(self._code[kept_from:end])
        return "".join(pieces)


def code_and_positions(module: cst.Module) -> tuple[str, Positions]:
    """The module's code and the position of each of its nodes but whitespace and punctuation."""
    state = _PositionState(module)
    with _whitespace_and_punctuation_unrecorded(), _parentheses_without_generators():
        module._codegen(state)
    code = "".join(state.tokens)
    indents = (state.indent_starts, state.indent_ends)
    return code, Positions(state.spans, code + state.dropped, indents, module.default_newline)


# Nodes whose position nothing asks: neither the facts nor libcst's own syntactic spans (which
# start or end at a statement, an import name, a parenthesis or `*`). They are three in five of a
# module's nodes; generated without the two recording calls around each, the frontend costs 6-8%
# less CPU (kafka-python's files). Some (`,` `.` `:` `=`) still record a span of their own.
UNRECORDED: tuple[type[cst.CSTNode], ...] = (
    cst.SimpleWhitespace,
    cst.ParenthesizedWhitespace,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.EmptyLine,
    cst.Comment,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
)


@contextmanager
def _whitespace_and_punctuation_unrecorded() -> Iterator[None]:
    """Code generation of the `UNRECORDED` nodes without `before_codegen`/`after_codegen`.

    A node's `_codegen` is those two calls around its `_codegen_impl`; each of these classes gets
    its `_codegen_impl` as its `_codegen` meanwhile. Nothing else generates code meanwhile: the
    frontend runs in one thread (the editor server's analyses and fixes run one at a time)."""
    own = {kind: kind.__dict__.get("_codegen") for kind in UNRECORDED}
    for kind in UNRECORDED:
        kind._codegen = kind._codegen_impl  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        for kind, codegen in own.items():
            if codegen is None:
                del kind._codegen
            else:
                kind._codegen = codegen  # type: ignore[method-assign]


class _Parenthesized:
    """`_BaseParenthesizedNode._parenthesize` as a plain context manager: the expression's left
    parentheses, its span recorded, its right parentheses. libcst's is a generator-based one, whose
    machinery was a fifth of this pass's time (270k expressions on kafka-python's files); and
    `_SyntacticRange`, whose general case this is not, would cost a third of the gain."""

    __slots__ = ("_state", "_node", "_start")

    def __init__(self, node: cst.BaseExpression, state: _PositionState) -> None:
        self._state = state
        self._node = node
        self._start = 0

    def __enter__(self) -> None:
        state = self._state
        for paren in self._node.lpar:
            paren._codegen(state)
        self._start = state.offset

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is not None:
            return  # as `_SyntacticRange`: nothing recorded while unwinding
        state = self._state
        state.spans[id(self._node)] = (self._start, state.offset)
        for paren in self._node.rpar:
            paren._codegen(state)


def _parenthesized(node: cst.BaseExpression, state: _PositionState) -> _Parenthesized:
    # A function, not the class itself: a function in a class binds the node it is called on.
    return _Parenthesized(node, state)


@contextmanager
def _parentheses_without_generators() -> Iterator[None]:
    """Every parenthesized node's `_parenthesize` is `_Parenthesized` meanwhile (one thread runs the
    frontend, as for `_whitespace_and_punctuation_unrecorded`)."""
    from libcst._nodes.expression import _BaseParenthesizedNode

    own = _BaseParenthesizedNode.__dict__["_parenthesize"]
    _BaseParenthesizedNode._parenthesize = _parenthesized  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        _BaseParenthesizedNode._parenthesize = own  # type: ignore[method-assign]
