"""How deeply a file's code nests, measured before it is parsed.

libcst's parser and its tree walks recurse once per level of nesting. A few thousand levels
overflow the C stack inside the native parser (the process dies; no exception can be caught), and
well before that, parse time grows faster than linearly. This scan bounds the depth in one linear
pass over the bytes, so such a file becomes one EPL900 line in milliseconds.

The measure is an estimate of the syntax tree's depth, on the high side: each open bracket, and
each operator, keyword, attribute dot, call, subscript or adjacent string that nests its operand
one level further inside the current expression. Commas, semicolons, `=` and the end of a logical
line start a new expression. A chain of `elif` branches is one level per branch (libcst nests each
in the one before). Comparisons are flat in libcst and do not count.
"""

from __future__ import annotations

import re

__all__ = ["MAX_BRACKETS", "MAX_DEPTH", "too_deeply_nested"]

# Python's own tokenizer refuses more than 200 nested brackets ("too many nested parentheses"),
# so nothing Python accepts is refused for this.
MAX_BRACKETS = 200
# libcst's tree walks fail with RecursionError a little under 500 levels at Python's default
# recursion limit; beyond this, parsing alone can take many seconds or crash.
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
    b"lambda": _LAMBDA, b"yield": _LAMBDA, b"if": _TERNARY, b"or": _OR, b"and": _AND, b"not": _NOT,
    b"await": _AWAIT,
}
_OPERATORS: dict[bytes, int] = {
    b":=": _LAMBDA, b"|": _BIT_OR, b"^": _BIT_XOR, b"&": _BIT_AND, b"<<": _SHIFT, b">>": _SHIFT,
    b"+": _SUM, b"-": _SUM, b"*": _PRODUCT, b"/": _PRODUCT, b"//": _PRODUCT, b"%": _PRODUCT,
    b"@": _PRODUCT, b"~": _UNARY, b"**": _POWER, b".": _POSTFIX,
}
# After these, an opening bracket is a call or a subscript of what came before: one level more.
_OPERAND_END = frozenset({"word", "close", "string"})


def too_deeply_nested(data: bytes, max_depth: int = MAX_DEPTH, max_brackets: int = MAX_BRACKETS) -> str | None:
    """Why `data` nests too deeply to parse ("... at line N"), or None when it does not."""
    found = _first_excess(data, max_depth, max_brackets)
    if found is None:
        return None
    reason, offset = found
    return f"{reason} at line {_line_of(data, offset)}"


def _first_excess(data: bytes, max_depth: int, max_brackets: int) -> tuple[str, int] | None:
    """What limit the code first goes past, and the offset of the token where it does."""
    # Per enclosing bracket: the depth outside it and the counts there, restored at its close.
    stack: list[tuple[int, list[int]]] = []
    base, counts = 0, [0] * _STRENGTHS
    previous, line_start, at_line_start = "", 0, True
    elif_chains: dict[int, int] = {}
    for match in _TOKEN.finditer(data):
        kind = match.lastgroup or ""
        if kind == "newline":
            if not stack:
                counts[:] = _NOTHING
                at_line_start = True
            line_start = match.end()
            continue
        if kind in _SKIPPED:
            continue
        text = match.group(kind)
        if at_line_start:
            at_line_start = False
            _statement_start(elif_chains, match.start(kind) - line_start, text, counts)
        if kind == "open":
            if previous in _OPERAND_END:
                _nest(counts, _POSTFIX)
            stack.append((base, counts))
            base, counts = base + sum(counts) + 1, [0] * _STRENGTHS
            if len(stack) > max_brackets:
                return f"brackets nested more than {max_brackets} deep", match.start(kind)
        elif kind == "close":
            if stack:
                base, counts = stack.pop()
        elif kind == "separator":
            counts[:] = _NOTHING
        else:
            strength = _strength(kind, text, previous)
            if strength >= 0:
                _nest(counts, strength)
        previous = kind
        if base + sum(counts) > max_depth:
            return f"more than {max_depth} levels", match.start(kind)
    return None


_SKIPPED = frozenset({"comment", "continuation", "number"})
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


def _line_of(data: bytes, offset: int) -> int:
    """1-based line of `offset`, with `\\n`, `\\r\\n` and a lone `\\r` each ending a line."""
    before = data[:offset]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1
