"""Human-readable report: one header per finding, a code frame, the chain, related notes, a summary."""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from epochlint.collect import read_source
from epochlint.discovery import SourceFile, named_path
from epochlint.findings import WARNING_CODES, ChainStep, Finding, Location, RelatedLocation
from epochlint.report import RunResult
from epochlint.text import UNSAFE_IN_SOURCE, escaped

MAX_FRAME_LINES = 4
# A frame shows at most this many characters of a line (a minified or generated line can be megabytes).
MAX_FRAME_WIDTH = 200
# Bigger files are what EPL900 reports as over the size limit; reading them only for a frame is waste.
MAX_SOURCE_BYTES = 10 * 1024 * 1024
TAB_SIZE = 4
# Python's own line endings: str.splitlines() would also split on \f, \v and \x1c.., shifting lines.
LINE_BREAK = re.compile(r"\r\n|\r|\n")

# What a run that checked no file says (it passed nothing: a file named but excluded counts too).
NO_FILES_CHECKED = "no source file found under the given paths, or every one is excluded (see --show-files)"


class SourceCache:
    """Source lines per relative path, read at most once; None when the file can't be shown."""

    def __init__(
        self, root: Path, in_memory: Mapping[str, bytes] | None = None, not_read: frozenset[str] = frozenset()
    ) -> None:
        self._root = root
        self._in_memory = in_memory or {}
        self._not_read = not_read
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._read(path)
        return self._lines[path]

    def _read(self, path: str) -> list[str] | None:
        # An unsaved buffer or stdin first; else read as the analysis read it: without blocking (a
        # FIFO put there), never more than the file's size and the limit (a link to /dev/zero), a
        # regular file only; and never what the analysis did not read (a link leading outside).
        if path in self._not_read:
            return None
        source = SourceFile(named_path(self._root, path), path)
        data = self._in_memory.get(path) or read_source(source, MAX_SOURCE_BYTES)
        if isinstance(data, str):
            return None
        try:
            # Honour BOMs and coding cookies, so columns match what the parser saw.
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            return LINE_BREAK.split(data.decode(encoding))
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError, ValueError):
            return None


def render(result: RunResult, stream: TextIO) -> None:
    write_report(result, stream)


def write_report(
    result: RunResult, stream: TextIO, *, lines_of: FindingLines | None = None, summary: bool = True
) -> None:
    """Each finding as `lines_of` shows it (default: header, frame, chain, notes), then, with
    `summary`, the run's notes and summary (`--quiet` leaves them out)."""
    console = make_console(stream)
    sources = SourceCache(result.root, dict(result.in_memory), result.not_read)
    arrow = "↳" if _is_unicode(console) else "->"
    line_break = Text("\n")
    for finding in result.findings:
        # One print a finding: rich's cost is per print, and a long chain is thousands of lines.
        console.print(line_break.join((lines_of or finding_lines)(finding, sources, arrow)))
    if not summary:
        return
    for note in result.notes:
        console.print(Text.assemble(("note: ", "dim"), escaped(note)))
    for line in summary_lines(result):
        console.print(line)


# How one finding is shown: (finding, the source lines, the chain's arrow) -> lines of text.
FindingLines = Callable[[Finding, "SourceCache", str], list[Text]]


class StreamConsole(Console):
    """rich's console, but a reader that closed the output early (`| head`) ends the run as it ends
    every other command (rich's own choice is exit status 1, which says "findings"); and with no
    styles at all where NO_COLOR is set (rich's leaves bold), nor in a report kept to be written to
    a file (`--output-file`), whatever FORCE_COLOR says."""

    def __init__(self, **options: Any) -> None:
        if isinstance(options.get("file"), io.StringIO):
            options.setdefault("force_terminal", False)
        if os.environ.get("NO_COLOR", ""):
            options.setdefault("color_system", None)
        super().__init__(**options)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def make_console(stream: TextIO) -> Console:
    # soft_wrap: never break a `path:line:col` line at the terminal width; highlight/emoji off so
    # messages are printed exactly as the rule wrote them.
    return StreamConsole(file=stream, soft_wrap=True, highlight=False, emoji=False)


def _is_unicode(console: Console) -> bool:
    return console.encoding.lower().replace("-", "").startswith("utf")


def finding_lines(finding: Finding, sources: SourceCache, arrow: str) -> list[Text]:
    lines = [header(finding)]
    lines.extend(frame(finding.location, sources.lines(finding.location.path), _code_style(finding)))
    lines.extend(chain_line(step, arrow) for step in finding.chain)
    lines.extend(related_line(related) for related in finding.related)
    return lines


def _code_style(finding: Finding) -> str:
    return "bold yellow" if finding.code in WARNING_CODES else "bold red"


def position(location: Location) -> str:
    return f"{location.path}:{location.line}:{location.column}"


def header(finding: Finding) -> Text:
    return Text.assemble(
        (position(finding.location), "bold"),
        ": ",
        (finding.code, _code_style(finding)),
        " ",
        escaped(finding.message),
    )


def chain_line(step: ChainStep, arrow: str) -> Text:
    where = f"{step.function}: " if step.function else ""
    return Text.assemble(f"  {arrow} ", (position(step.location), "cyan"), escaped(f"  {where}{step.message}"))


def related_line(related: RelatedLocation) -> Text:
    return Text.assemble(
        ("  note: ", "dim"), (position(related.location), "cyan"), escaped(f" {related.message}")
    )


def frame(location: Location, source: list[str] | None, style: str) -> list[Text]:
    """The reported lines with a caret underline, or nothing when the source can't be shown."""
    if source is None or not 1 <= location.line <= len(source):
        return []
    last = min(max(location.end_line, location.line), len(source))
    shown = range(location.line, min(last, location.line + MAX_FRAME_LINES - 1) + 1)
    width = len(str(shown[-1]))
    lines = [Text(f"{'':>{width}} |", style="blue")]
    for number in shown:
        text = _displayable(source[number - 1])
        lines.append(Text.assemble((f"{number:>{width}} | ", "blue"), text.expandtabs(TAB_SIZE)))
        indent, length = underline(text, *_span_on_line(location, number, text))
        lines.append(Text.assemble((f"{'':>{width}} | ", "blue"), " " * indent, ("^" * length, style)))
    if shown[-1] < last:
        lines.append(Text(f"{'':>{width}} | ...", style="blue"))
    return lines


def _displayable(line: str) -> str:
    """`line` as a frame shows it: control characters and those that move or reorder text as U+FFFD
    (columns unchanged), long lines cut."""
    shown = UNSAFE_IN_SOURCE.sub("\ufffd", line)
    return shown if len(shown) <= MAX_FRAME_WIDTH else shown[:MAX_FRAME_WIDTH] + "..."


def _span_on_line(location: Location, number: int, text: str) -> tuple[int, int]:
    """1-based [start, end) columns of the reported span on one of its lines."""
    first_code = len(text) - len(text.lstrip()) + 1
    start = location.column if number == location.line else first_code
    end = location.end_column if number == location.end_line else len(text) + 1
    return start, end


def underline(text: str, start: int, end: int) -> tuple[int, int]:
    """Display offset and width of columns [start, end) of `text`, at least one cell wide."""
    start = min(max(start, 1), len(text) + 1)
    end = min(max(end, start), len(text) + 1)
    indent = cell_len(text[: start - 1].expandtabs(TAB_SIZE))
    length = cell_len(text[: end - 1].expandtabs(TAB_SIZE)) - indent
    return indent, max(length, 1)


def plural(count: int, word: str) -> str:
    """`1 file`, `2 files`."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary_lines(result: RunResult) -> list[Text]:
    files = plural(result.files_analysed, "file")
    if result.files_not_relevant:
        files += f" ({result.files_not_relevant} not relevant: read, not parsed)"
    hidden = f" ({result.baseline_hidden} hidden by the baseline)" if result.baseline_hidden else ""
    if result.baseline_recorded is not None:
        recorded = plural(result.baseline_recorded, "finding")
        lines = [Text(f"Recorded {recorded} of {files} in the baseline; none reported.", style="bold")]
    elif result.findings:
        counts = Counter(finding.code for finding in result.findings)
        by_code = ", ".join(f"{code}: {counts[code]}" for code in sorted(counts))
        found = plural(len(result.findings), "finding")
        lines = [Text(f"Found {found} ({by_code}) in {files}{hidden}.", style="bold")]
    elif result.files_analysed == 0:
        # Nothing passed: nothing was checked (no source file there, or all of them excluded).
        lines = [Text(f"No files checked: {NO_FILES_CHECKED}.", style="bold yellow")]
    else:
        lines = [Text(f"All checks passed: {files}, no findings{hidden}.", style="bold green")]
    if result.stale_baseline > 0:
        lines.append(Text(stale_baseline_message(result.stale_baseline), style="yellow"))
    return lines


def stale_baseline_message(count: int) -> str:
    entries = "1 baseline entry no longer matches" if count == 1 else (
        f"{count} baseline entries no longer match"
    )
    return f"{entries} any finding (fixed, or suppressed, since the baseline was written); re-write the baseline."
