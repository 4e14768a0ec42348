"""Suppression and declaration comments: `# epochlint: ignore[...]`, `ignore-file`, `guarded-by=`,
and flake8's and ruff's `# noqa: EPL001` (a bare `# noqa` is theirs, never epochlint's)."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

from epochlint.frontend.facts import Suppression

# `#` in Python, `//` (or a `/* */` block) in Java. A directive runs to the end of the comment, or
# to a further `#` (`# epochlint: ignore  # why`).
_DIRECTIVE = re.compile(r"(?:#|//|/\*)\s*epochlint:\s*(?P<body>(?:(?!\*/)[^#])*)")
# Text after the codes' closing bracket is a reason, as after a `noqa` list.
_IGNORE = re.compile(r"^ignore(?:\[(?P<codes>[^\]]*)\].*)?$")
# `# noqa: E501,EPL001`: the codes after the colon, up to the first word that is not a code.
_NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
# Of a `noqa` list, the codes that are epochlint's (the others belong to other linters).
_OUR_CODE = re.compile(r"^EPL\w*$", re.IGNORECASE)
_GUARDED_BY = re.compile(r"^guarded-by\s*=\s*(?P<lock>[A-Za-z_][\w.]*)\s*$")
# `ignore-file` counts only near the top of a file, where a reader sees it.
IGNORE_FILE_LINES = 20


@dataclass(frozen=True)
class Comments:
    suppressions: tuple[Suppression, ...] = ()
    ignore_file: bool = False
    guard_declarations: tuple[tuple[int, str], ...] = ()


def read_comments(text: str) -> Comments:
    """Find epochlint directives in real comments (never inside strings)."""
    if "epochlint:" not in text and "noqa" not in text.lower():
        return Comments()
    return directives_in(_comment_tokens(text))


def directives_in(comments: Iterable[tuple[int, int, str]]) -> Comments:
    """The epochlint directives among comments given as (line, 1-based column, comment text)."""
    suppressions: list[Suppression] = []
    guards: list[tuple[int, str]] = []
    ignore_file = False
    for line, column, comment in comments:
        end_column = column + len(comment)
        if noqa := _noqa_codes(comment):
            suppressions.append(Suppression(line, noqa, column, end_column))
        match = _DIRECTIVE.search(comment)
        if match is None:
            continue
        for directive in match.group("body").split(";"):
            directive = directive.strip()
            if not directive:
                continue
            if directive == "ignore-file":
                ignore_file = ignore_file or line <= IGNORE_FILE_LINES
            elif ignore := _IGNORE.match(directive):
                codes = ignore.group("codes") or ""
                parsed = tuple(sorted({c.strip().upper() for c in codes.split(",") if c.strip()}))
                suppressions.append(Suppression(line, parsed, column, end_column))
            elif guard := _GUARDED_BY.match(directive):
                guards.append((line, guard.group("lock")))
            else:
                suppressions.append(Suppression(line, (), column, end_column, unread=directive))
    return Comments(tuple(suppressions), ignore_file, tuple(guards))


def _noqa_codes(comment: str) -> tuple[str, ...]:
    """epochlint's codes in a `# noqa: ...` comment; none for a bare `# noqa` or other tools' codes."""
    match = _NOQA.search(comment)
    if match is None:
        return ()
    codes = re.split(r"[\s,]+", match.group("codes").strip())
    return tuple(sorted({code.upper() for code in codes if _OUR_CODE.match(code)}))


def _comment_tokens(text: str) -> list[tuple[int, int, str]]:
    """(line, 1-based column, text) of every comment."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start[0], token.start[1] + 1, token.string))
    except (tokenize.TokenError, SyntaxError):
        # The parser accepted the file; a tokenizer quirk must not cost the other comments.
        pass
    return found
