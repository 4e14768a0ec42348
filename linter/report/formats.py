"""The output formats by the name `--output-format` accepts."""

from __future__ import annotations

from functools import partial
from typing import Callable, TextIO

from epochlint.report import RunResult, concise, console, github, gitlab, sarif
from epochlint.report import json as json_format

Renderer = Callable[[RunResult, TextIO], None]

FORMATS: dict[str, Renderer] = {
    "console": console.render,
    "concise": concise.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
}

# With `--quiet`, the formats people read print the findings and nothing else; the others are
# unchanged (a tool reads them whole).
QUIET_FORMATS: dict[str, Renderer] = {
    "console": partial(console.write_report, summary=False),
    "concise": partial(console.write_report, lines_of=concise.header_line, summary=False),
}
