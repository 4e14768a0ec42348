"""An edit of blank lines and comments alone gives the new version's facts without a parse: the
earlier facts moved to the new lines (`epochlint.layout.relocated`) are exactly the parse's own;
any other edit is parsed."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable
from pathlib import Path

import pytest

from epochlint.frontend import facts_from_source
from epochlint.layout import relocated
from tests.test_incremental import comment_added, comment_on_top, lines_added_above
from tests.test_speed_design import ALL_FIXTURES, REAL_FILES

Edit = Callable[[str], str]
BOM = b"\xef\xbb\xbf"


def _statement_starts(text: str) -> list[int]:
    """Offsets of the lines where a statement starts after another ended (a NEWLINE token)."""
    starts: list[int] = []
    line_offsets = [0]
    for line in io.StringIO(text):
        line_offsets.append(line_offsets[-1] + len(line))
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NEWLINE and token.end[0] < len(line_offsets) - 1:
                starts.append(line_offsets[token.end[0]])
    except (tokenize.TokenError, SyntaxError):
        pass
    return starts


def comment_in_the_middle(text: str) -> str:
    """A comment line, at the next statement's indentation, between two statements halfway down."""
    starts = _statement_starts(text)
    if not starts:
        return text
    at = starts[len(starts) // 2]
    following = text[at:].split("\n", 1)[0]
    indent = following[: len(following) - len(following.lstrip())]
    return f"{text[:at]}{indent}# a note between statements\n\n{text[at:]}"


def blank_line_removed(text: str) -> str:
    """The first blank line after a statement, taken out (every later line moves up)."""
    for at in _statement_starts(text):
        end = text.find("\n", at)
        if end != -1 and not text[at:end].strip():
            return text[:at] + text[end + 1 :]
    return text


def trailing_comment_changed(text: str) -> str:
    """The first comment that ends a line of code outside brackets, rewritten."""
    lines = text.splitlines(keepends=True)
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            elif token.type == tokenize.COMMENT and depth == 0 and token.line[: token.start[1]].strip():
                row, column = token.start
                line = lines[row - 1]
                lines[row - 1] = line[:column] + "# rewritten" + line[column + len(token.string) :]
                return "".join(lines)
    except (tokenize.TokenError, SyntaxError):
        pass
    return text


LAYOUT_EDITS: dict[str, Edit] = {
    "lines added above the first definition": lines_added_above,
    "a comment on top": comment_on_top,
    "a comment between two statements": comment_in_the_middle,
    "a blank line removed": blank_line_removed,
    "a trailing comment rewritten": trailing_comment_changed,
}


def _edited(data: bytes, edit: Edit) -> bytes:
    # Latin-1 maps every byte to one character: files in any encoding keep their other bytes.
    return edit(data.decode("latin-1")).encode("latin-1")


@pytest.mark.parametrize("path", [*ALL_FIXTURES, *REAL_FILES], ids=lambda p: p.name)
def test_facts_moved_to_new_lines_are_the_parse_own(path: Path) -> None:
    data = path.read_bytes()
    earlier = facts_from_source(data)
    if earlier.error or not data.strip():
        pytest.skip("no facts to move")
    for name, edit in LAYOUT_EDITS.items():
        new = _edited(data, edit)
        if new == data or (edit is comment_on_top and data.startswith(BOM)):
            continue
        moved = relocated(earlier, new)
        assert moved is not None, f"{name}: not seen as an edit of blank lines and comments"
        assert moved == facts_from_source(new), name
    # On the first definition's line, which may open brackets (`def f(  # why`): parsed then.
    new = _edited(data, comment_added)
    moved = relocated(earlier, new)
    assert moved is None or moved == facts_from_source(new)


CODE = """import threading


class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0  # guarded by the lock
        self._help = '''
# not a comment: a line of a string

'''

    def on_batch(self, batch):
        handle(batch, key=lambda m: (
            m.epoch,  # inside brackets, quoted by the facts as written
            m.offset,
        ))
"""


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: text.replace("self._epoch = 0", "self._epoch = 1"),
        lambda text: text.replace("# not a comment", "# still not a comment"),
        lambda text: text.replace("'''\n# not", "'''\n\n# not"),
        lambda text: text.replace("  # inside brackets", "  # inside brackets, changed"),
        lambda text: text.replace("            m.offset,", "\n            m.offset,"),
        lambda text: text.replace("    def on_batch", "  # dedented comment\n    def on_batch").replace(
            "import threading", "# -*- coding: latin-1 -*-\nimport threading"
        ),
    ],
    ids=[
        "code",
        "a string's line",
        "a string's blank line",
        "a comment in brackets",
        "a blank line in brackets",
        "the encoding",
    ],
)
def test_any_other_edit_is_parsed(edit: Edit) -> None:
    earlier = facts_from_source(CODE.encode())
    assert relocated(earlier, _edited(CODE.encode(), edit)) is None


def test_comments_and_line_count_are_read_from_the_new_version() -> None:
    earlier = facts_from_source(CODE.encode())
    new = CODE.replace("    def on_batch(self, batch):", "    def on_batch(self, batch):  # epochlint: ignore[EPL001]")
    moved = relocated(earlier, (new + "\n# the end\n").encode())
    assert moved is not None
    assert [(s.line, s.codes) for s in moved.suppressions] == [(13, ("EPL001",))]
    assert moved.lines == earlier.lines + 2


def test_a_comment_that_cannot_be_decoded_is_left_to_the_parse() -> None:
    earlier = facts_from_source(CODE.encode())
    new = CODE.encode().replace(b"\n\nclass Consumer", b"\n# \xff not UTF-8\nclass Consumer")
    assert relocated(earlier, new) is None
    assert facts_from_source(new).error.startswith("cannot decode line 3 as utf-8")
