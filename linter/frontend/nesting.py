"""How deeply a file's code nests, measured before it is parsed; and, from the same pass, its layout.

libcst's parser and its tree walks recurse once per level of nesting. A few thousand levels
overflow the C stack inside the native parser (the process dies; no exception can be caught), and
well before that, parse time grows faster than linearly. This scan bounds the depth in one linear
pass over the bytes, so such a file becomes one EPL900 line in milliseconds.

The measure is an estimate of the syntax tree's depth, on the high side: each open bracket, and
each operator, keyword, attribute dot, call, subscript or adjacent string that nests its operand
one level further inside the current expression. Commas, semicolons, `=` and the end of a logical
line start a new expression, except in a lambda's parameter list, which nests like a bracket. A
chain of `elif` branches is one level per branch (libcst nests each in the one before).
Comparisons are flat in libcst and do not count. An f-string is one level, plus the depth of the
deepest expression in its replacement fields (libcst parses those too, just as deep).

The layout (`Layout`) is what an edit that only adds or removes blank lines and comments leaves
unchanged: the lines that hold no code (blank, or only a comment, outside brackets) are set apart,
and the rest is digested without the comments that end its lines outside brackets. Code inside
brackets is digested whole, comments and blank lines too: the facts quote such code as written.
"""

from __future__ import annotations

import hashlib
import io
import re
import tokenize
from collections.abc import Iterator
from typing import NamedTuple

from epochlint.frontend.facts import Layout

__all__ = ["MAX_BRACKETS", "MAX_DEPTH", "Excess", "nesting_and_layout", "too_deeply_nested"]

# Python's own tokenizer refuses more than 200 nested brackets ("too many nested parentheses"),
# so nothing Python accepts is refused for this.
MAX_BRACKETS = 200
# Deeper than code people write, generated code included. Up to this, libcst parses in a second or
# two and its tree walks fit the frontend's recursion budget; beyond it, parse time grows faster
# than linearly, and a few thousand levels crash the native parser.
MAX_DEPTH = 500

# Each token with the blanks before it, so that blanks cost no step of the loop.
_TOKEN = re.compile(
    rb"""
    [ \t\f]*+(?:
    (?P<string>[rRbBuUfF]{0,2}(?:
        '''(?:[^'\\]++|\\.|'(?!''))*+'''
      | \"\"\"(?:[^"\\]++|\\.|"(?!""))*+\"\"\"
      | '(?:[^'\\\r\n]++|\\.)*+'
      | "(?:[^"\\\r\n]++|\\.)*+"
    ))
  | (?P<comment>\#[^\r\n]*+)
  | (?P<continuation>\\(?:\r\n?|\n))
  | (?P<newline>\r\n?|\n)
  | (?P<number>\.?[0-9][\w.]*+)
  | (?P<word>[A-Za-z_]\w*+)
  | (?P<open>[(\[{])
  | (?P<close>[)\]}])
  | (?P<operator>\*\*|//|<<|>>|:=|[-+*/%@&|^~.])
  | (?P<separator>[,;=])
  | (?P<colon>:)
    )""",
    re.VERBOSE | re.DOTALL,
)

# Binding strength of what nests its operand, loosest first. A binary operator of one strength
# ends the operands of every tighter one, so `a*b + c*d` is two levels deep, not three, while
# `a + b + c` (each `+` inside the one after it) is as deep as it is long.
_LAMBDA, _TERNARY, _OR, _AND, _NOT, _BIT_OR, _BIT_XOR, _BIT_AND, _SHIFT, _SUM, _PRODUCT = range(11)
_UNARY, _POWER, _AWAIT, _POSTFIX, _STRINGS = range(11, 16)
_STRENGTHS = 16

_WORDS: dict[bytes, int] = {
    b"yield": _LAMBDA, b"if": _TERNARY, b"or": _OR, b"and": _AND, b"not": _NOT,
    b"await": _AWAIT,
}
_OPERATORS: dict[bytes, int] = {
    b":=": _LAMBDA, b"|": _BIT_OR, b"^": _BIT_XOR, b"&": _BIT_AND, b"<<": _SHIFT, b">>": _SHIFT,
    b"+": _SUM, b"-": _SUM, b"*": _PRODUCT, b"/": _PRODUCT, b"//": _PRODUCT, b"%": _PRODUCT,
    b"@": _PRODUCT, b"~": _UNARY, b"**": _POWER, b".": _POSTFIX,
}
# The words that nest what follows them (a lambda, its parameter list too); other names nest nothing.
_NESTING_WORDS = frozenset({*_WORDS, b"lambda"})
# After these, an opening bracket is a call or a subscript of what came before: one level more.
_OPERAND_END = frozenset({"word", "close", "string"})


class Excess(NamedTuple):
    """Where code first nests deeper than a limit: why, and the 1-based line and column (in code
    points of UTF-8 text) of the token that goes past it."""

    reason: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.reason} at line {self.line}, column {self.column}"


def too_deeply_nested(data: bytes, max_depth: int = MAX_DEPTH, max_brackets: int = MAX_BRACKETS) -> Excess | None:
    """Why and where `data` nests too deeply to parse, or None when it does not."""
    found = _first_excess(data, max_depth, max_brackets, None)
    return None if found is None else _placed(data, found)


def nesting_and_layout(data: bytes) -> tuple[Excess | None, Layout | None]:
    """`too_deeply_nested(data)`, and the file's layout from the same pass (None when it nests too
    deeply, or its encoding cannot be told)."""
    layout = _LayoutScan(data)
    found = _first_excess(data, MAX_DEPTH, MAX_BRACKETS, layout)
    if found is not None:
        return _placed(data, found), None
    return None, layout.result()


def _placed(data: bytes, found: tuple[str, int]) -> Excess:
    reason, offset = found
    line_start = max(data.rfind(b"\n", 0, offset), data.rfind(b"\r", 0, offset)) + 1
    return Excess(reason, _line_of(data, offset), len(data[line_start:offset].decode("utf-8", "ignore")) + 1)


def _first_excess(
    data: bytes, max_depth: int, max_brackets: int, layout: _LayoutScan | None
) -> tuple[str, int] | None:
    """What limit the code first goes past, and the offset of the token where it does; the lines
    go to `layout` as they end."""
    nesting = _Nesting()
    previous, line_start, at_line_start = "", 0, True
    code_on_line, trailing_comment = False, (0, 0)
    elif_chains: dict[int, int] = {}
    for match in _TOKEN.finditer(data):
        kind = match.lastgroup or ""
        if kind == "newline":
            if layout is not None and not nesting.stack:
                if not code_on_line:
                    layout.codeless_line(line_start, match.end())
                elif trailing_comment[1] == match.start():
                    layout.leave_out(*trailing_comment)
            code_on_line = False
            if not nesting.stack:
                nesting.counts[:] = _NOTHING
                nesting.nested = 0
                at_line_start = True
            line_start = match.end()
            continue
        if kind == "comment":
            trailing_comment = match.span()
            continue
        code_on_line = True
        if kind in _SKIPPED:
            continue
        text = match.group(kind)
        if at_line_start:
            at_line_start = False
            _statement_start(elif_chains, match.start(kind) - line_start, text, nesting.counts)
            nesting.recount()
        elif kind == "word" and text not in _NESTING_WORDS:
            previous = kind  # most tokens: a name that nests nothing, and no limit to check
            continue
        nesting.token(kind, text, previous)
        previous = kind
        if nesting.brackets > max_brackets:
            return f"brackets nested more than {max_brackets} deep", match.start(kind)
        # `nested` bounds the counts' sum: the exact depth is summed only near the limit.
        if nesting.base + nesting.nested > max_depth and nesting.depth() > max_depth:
            return f"more than {max_depth} levels", match.start(kind)
        if kind == "string" and b"f" in text[:2].lower():
            brackets_left = max_brackets - nesting.brackets
            inside = _fstring_excess(text, max_depth - nesting.depth() - 1, brackets_left)
            if inside is not None:
                brackets = inside.startswith("brackets")
                limit = (
                    f"brackets nested more than {max_brackets} deep" if brackets else f"more than {max_depth} levels"
                )
                return f"{limit} (in an f-string)", match.start(kind)
    return None


def _fstring_excess(literal: bytes, depth_left: int, brackets_left: int) -> str | None:
    """What limit the replacement fields of an f-string `literal` go past, given what is left of
    each limit where the f-string stands."""
    for expression in _replacement_fields(literal):
        found = _first_excess(expression, max(depth_left, 0), max(brackets_left, 0), None)
        if found is not None:
            return found[0]
    return None


def _replacement_fields(literal: bytes) -> Iterator[bytes]:
    """The text of each outermost `{...}` of an f-string literal (`{{` is a literal brace), format
    specifications included: an overestimate of the code inside is all the scan needs."""
    body = literal[literal.index(literal[-1:]) :]
    depth, start, index = 0, 0, 0
    while index < len(body):
        char = body[index : index + 1]
        if depth == 0 and char == b"{" and body[index + 1 : index + 2] == b"{":
            index += 2
            continue
        if char == b"{" or (depth > 0 and char in b"[("):
            depth += 1
            if depth == 1:
                start = index + 1
        elif char in b"}])" and depth > 0:
            depth -= 1
            if depth == 0:
                yield body[start:index]
        index += 1
    if depth > 0:
        yield body[start:]


class _Nesting:
    """Where the scan is: the enclosing brackets and lambda parameter lists, and the nesting of the
    current expression inside the innermost of them."""

    def __init__(self) -> None:
        # Per enclosing bracket or parameter list: the depth outside it, the counts there
        # (restored where it ends), and whether it is a lambda's parameter list.
        self.stack: list[tuple[int, list[int], bool]] = []
        self.brackets = 0
        self.base = 0
        self.counts = [0] * _STRENGTHS
        # At least the sum of `counts`: the levels added since they were last set.
        self.nested = 0

    def depth(self) -> int:
        return self.base + sum(self.counts)

    def recount(self) -> None:
        """`counts` were set from outside: `nested` is their sum again."""
        self.nested = sum(self.counts)

    def token(self, kind: str, text: bytes, previous: str) -> None:
        if kind == "open":
            if previous in _OPERAND_END:
                self._nest(_POSTFIX)
            self._enter(lambda_parameters=False)
        elif kind == "close":
            self._leave_bracket()
        elif kind == "separator":
            self.counts[:] = _NOTHING
            self.nested = 0
        elif kind == "colon":
            if self.stack and self.stack[-1][2]:
                self._leave()
        elif kind == "word" and text == b"lambda":
            # Its defaults (`lambda a=lambda b=...: ...`) nest as deep as its body: `=` and `,`
            # inside its parameter list start no new expression.
            self._nest(_LAMBDA)
            self._enter(lambda_parameters=True)
        else:
            strength = _strength(kind, text, previous)
            if strength >= 0:
                self._nest(strength)

    def _nest(self, strength: int) -> None:
        _nest(self.counts, strength)
        self.nested += 1

    def _enter(self, lambda_parameters: bool) -> None:
        self.stack.append((self.base, self.counts, lambda_parameters))
        self.base, self.counts = self.depth() + 1, [0] * _STRENGTHS
        self.nested = 0
        self.brackets += not lambda_parameters

    def _leave(self) -> None:
        self.base, self.counts, lambda_parameters = self.stack.pop()
        self.recount()
        self.brackets -= not lambda_parameters

    def _leave_bracket(self) -> None:
        # A parameter list still open at a closing bracket is a syntax error: it ends there too.
        while self.stack and self.stack[-1][2]:
            self._leave()
        if self.stack:
            self._leave()


_SKIPPED = frozenset({"continuation", "number"})
_NOTHING = [0] * _STRENGTHS


def _strength(kind: str, text: bytes, previous: str) -> int:
    """How tightly the token binds the operand it nests (-1: it nests nothing)."""
    if kind == "word":
        return _WORDS.get(text, -1)
    if kind == "operator":
        return _OPERATORS[text]
    if kind == "string" and previous == "string":
        return _STRINGS
    return -1


def _nest(counts: list[int], strength: int) -> None:
    """One level more at `strength`; the operands of every tighter strength have ended."""
    counts[strength] += 1
    counts[strength + 1 :] = _NOTHING[strength + 1 :]


def _statement_start(elif_chains: dict[int, int], column: int, text: bytes, counts: list[int]) -> None:
    """Each `elif` at a column continues the chain there, one level deeper than the branch before;
    any other statement ends the chains at its column and to its right."""
    if text == b"elif":
        elif_chains[column] = elif_chains.get(column, 0) + 1
        counts[_LAMBDA] = elif_chains[column]
    elif elif_chains:
        for started in [c for c in elif_chains if c >= column]:
            del elif_chains[started]


class _LayoutScan:
    """Collects a file's layout as the scan ends its lines."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._view = memoryview(data)  # digested in slices, never copied
        self._digest = hashlib.sha256()
        self._kept_from = 0
        self._line, self._counted = 1, 0
        self._codeless: list[int] = []

    def leave_out(self, start: int, end: int) -> None:
        """Leave `data[start:end]` out of the digest."""
        self._digest.update(self._view[self._kept_from : start])
        self._kept_from = end

    def codeless_line(self, start: int, end: int) -> None:
        """The line `data[start:end]` holds no code."""
        self._line += _newlines(self._data, self._counted, start)
        self._counted = start
        self._codeless.append(self._line)
        self.leave_out(start, end)

    def result(self) -> Layout | None:
        """The layout; None when the encoding cannot be told (a comment can declare it, so it is
        part of the digest)."""
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(self._data).readline)
        except SyntaxError:
            return None
        self._digest.update(self._view[self._kept_from :])
        self._digest.update(b"\0" + encoding.encode())
        return Layout(self._digest.hexdigest(), tuple(self._codeless), _line_of(self._data, len(self._data)))


def _newlines(data: bytes, start: int, end: int) -> int:
    """Line ends in `data[start:end]`: `\\n`, `\\r\\n` and a lone `\\r` each end a line."""
    return data.count(b"\n", start, end) + data.count(b"\r", start, end) - data.count(b"\r\n", start, end)


def _line_of(data: bytes, offset: int) -> int:
    """1-based line of `offset`."""
    return _newlines(data, 0, offset) + 1
