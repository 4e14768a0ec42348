"""Suppression and declaration comments: `# epochlint: ignore[...]`, `ignore-file`, `guarded-by=`."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

from epochlint.frontend.facts import Suppression

# `#` in Python, `//` (or a `/* */` block) in Java.
_DIRECTIVE = re.compile(r"(?:#|//|/\*)\s*epochlint:\s*(?P<body>.*?)\s*(?:\*/)?$")
_IGNORE = re.compile(r"^ignore(?:\[(?P<codes>[^\]]*)\])?\s*$")
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
    if "epochlint:" not in text:
        return Comments()
    return directives_in(_comment_tokens(text))


def directives_in(comments: Iterable[tuple[int, str]]) -> Comments:
    """The epochlint directives among comments given as (line, comment text)."""
    suppressions: list[Suppression] = []
    guards: list[tuple[int, str]] = []
    ignore_file = False
    for line, comment in comments:
        match = _DIRECTIVE.search(comment)
        if match is None:
            continue
        for directive in match.group("body").split(";"):
            directive = directive.strip()
            if directive == "ignore-file":
                ignore_file = ignore_file or line <= IGNORE_FILE_LINES
            elif ignore := _IGNORE.match(directive):
                codes = ignore.group("codes") or ""
                parsed = tuple(sorted({c.strip() for c in codes.split(",") if c.strip()}))
                suppressions.append(Suppression(line, parsed))
            elif guard := _GUARDED_BY.match(directive):
                guards.append((line, guard.group("lock")))
    return Comments(tuple(suppressions), ignore_file, tuple(guards))


def _comment_tokens(text: str) -> list[tuple[int, str]]:
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start[0], token.string))
    except (tokenize.TokenError, SyntaxError):
        # The parser accepted the file; a tokenizer quirk must not cost the other comments.
        pass
    return found
