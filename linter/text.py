"""Text from analysed files and their names, made safe to show: on a terminal, in a CI log.

Control characters (ESC starts terminal escapes), line and paragraph separators (U+2028, U+2029),
and the characters that reorder text (bidirectional overrides and isolates, U+202E among them:
"Trojan Source") never reach the output as they are.
"""

from __future__ import annotations

import re

__all__ = ["UNSAFE", "UNSAFE_IN_SOURCE", "escaped", "escaped_name", "unescaped_name"]

# Line and paragraph separators, and the bidirectional marks, embeddings, overrides and isolates.
_MOVING = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
# Undecodable bytes of a file name are lone surrogates (surrogateescape): unsafe too.
UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_MOVING}\ud800-\udfff]")
# The escapes `escaped_name` writes: a doubled backslash, `\xe8`, `\u0085` and `\U0001d173`.
_NAME_ESCAPE = re.compile(r"\\(?:(\\)|x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))")
# In a line of source as a frame shows it, tabs are expanded: all else unsafe above is not shown.
UNSAFE_IN_SOURCE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_MOVING}]")


def escaped(text: str) -> str:
    """`text` with each unsafe character written as its escape (`\\x1b`, `\\u202e`), and each
    undecodable byte of a file name as `\\xe8`: distinct names stay distinct, and readable."""
    return UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped_name(name: str) -> str:
    """A file name (as `os.fsdecode` gives it) as one printable line that no other name shares: an
    undecodable byte as `\\xe8`, any other character that is not printable as `\\x1b` (ASCII),
    `\\u0085` or `\\U0001d173`, and a backslash doubled, so that a name holding the text `\\xe8`
    is never taken for one holding the byte. Names key findings, baselines and caches: they must
    stay distinct."""
    if name.isprintable() and "\\" not in name:
        return name  # the usual name, as it is: no character-by-character pass over every file
    return "".join(_name_character(ch) for ch in name)


def _name_character(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as surrogateescape keeps it
        return f"\\x{code - 0xDC00:02x}"
    if ch == "\\":
        return "\\\\"
    if ch.isprintable():  # never one of UNSAFE: those are all controls, separators or formats
        return ch
    if code < 0x80:  # as `escaped` writes it (`\\x1b`); an undecodable byte is never below 0x80
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def unescaped_name(name: str) -> str:
    """The file name (as `os.fsdecode` gives it) that `escaped_name` wrote as `name`."""
    if "\\" not in name:
        return name
    return _NAME_ESCAPE.sub(_name_unescaped, name)


def _name_unescaped(match: re.Match[str]) -> str:
    backslash, byte, short, long = match.groups()
    if backslash:
        return "\\"
    if byte:
        code = int(byte, 16)
        # Above ASCII, `\xe8` is an undecodable byte; a character there is written `\u00e8`.
        return chr(0xDC00 + code) if code >= 0x80 else chr(code)
    return chr(int(short or long, 16))
