"""The output formats by the name `--output-format` accepts."""

from __future__ import annotations

from typing import Callable, TextIO

from epochlint.report import RunResult, console, github, sarif
from epochlint.report import json as json_format

Renderer = Callable[[RunResult, TextIO], None]

FORMATS: dict[str, Renderer] = {
    "console": console.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
