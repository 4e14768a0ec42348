"""EPL900 lands at the syntax error's line and column in every output format (line 1, column 1 only
for a file that could not be read or decoded)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from epochlint.report import RunResult
from epochlint.report.formats import FORMATS
from tests.conftest import run_check

# A missing colon on line 7; Python places the error at the end of that line's header.
BROKEN = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
    def seek(self, offset)
        self._epoch += 1
"""
ERROR_LINE, ERROR_COLUMN = 7, len("    def seek(self, offset)") + 1


def rendered(result: RunResult, name: str) -> str:
    stream = io.StringIO()
    FORMATS[name](result, stream)
    return stream.getvalue()


def test_syntax_error_is_reported_where_it_is(write_tree) -> None:  # type: ignore[no-untyped-def]
    result = run_check(write_tree({"consumer.py": BROKEN}))
    (finding,) = result.findings
    assert (finding.code, finding.location.line, finding.location.column) == ("EPL900", ERROR_LINE, ERROR_COLUMN)
    assert f"line {ERROR_LINE}, column {ERROR_COLUMN}" in finding.message


@pytest.mark.parametrize(
    ("line", "column"), [('    x = "\u00e9\u00e9" + (', 16), ('    return "\U0001f600\U0001f600" $ 1', 17)]
)
def test_a_syntax_error_after_non_ascii_text_is_placed_in_code_points(  # type: ignore[no-untyped-def]
    write_tree, line: str, column: int
) -> None:
    # Python counts the columns of a file it compiles as bytes in UTF-8 bytes; every other column
    # epochlint reports counts code points (as SARIF and the JSON output say).
    (finding,) = run_check(write_tree({"consumer.py": f"def f():\n{line}\n"})).findings
    assert (finding.location.line, finding.location.column) == (2, column)
    assert finding.location.end_column > column
    assert f"line 2, column {column}:" in finding.message


def test_every_format_follows_the_syntax_error(write_tree) -> None:  # type: ignore[no-untyped-def]
    result = run_check(write_tree({"consumer.py": BROKEN}))
    console = rendered(result, "console").splitlines()
    assert console[0].startswith(f"consumer.py:{ERROR_LINE}:{ERROR_COLUMN}: EPL900 ")
    assert console[2] == f"{ERROR_LINE} |     def seek(self, offset)"
    assert console[3] == "  | " + " " * (ERROR_COLUMN - 1) + "^"
    region = json.loads(rendered(result, "sarif"))["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "region"
    ]
    assert (region["startLine"], region["startColumn"]) == (ERROR_LINE, ERROR_COLUMN)
    assert rendered(result, "github").startswith(
        f"::warning file=consumer.py,line={ERROR_LINE},col={ERROR_COLUMN},"
    )


def test_undecodable_file_is_reported_at_its_start(write_tree) -> None:  # type: ignore[no-untyped-def]
    root: Path = write_tree({"latin.py": b"# first line\nGROUP = 'caf\xe9'\n"})
    (finding,) = run_check(root).findings
    assert (finding.code, finding.location.line, finding.location.column) == ("EPL900", 1, 1)
