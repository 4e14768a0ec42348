"""Resolutions kept across the value flow's rounds give what a fresh resolution gives."""

from __future__ import annotations

from pathlib import Path

from epochlint.config import load_config
from epochlint.discovery import discover
from epochlint.engine import FileResult, build_program, read_file
from epochlint.program.model import Program
from tests.conftest import KNOWN_CODES

_HIERARCHY = (
    "class Base:\n    def poll(self):\n        pass\n\n    def close(self):\n        pass\n\n    shut = close\n\n\n"
    "class Child(Base):\n    def poll(self):\n        super().poll()\n"
)


def _program(write_tree, files: dict[str, str]) -> Program:  # type: ignore[no-untyped-def]
    root: Path = write_tree(files)
    config = load_config([root], None, KNOWN_CODES)
    sources, _ = discover([root], config)
    return build_program([FileResult(s, read_file(s, config.max_file_size)) for s in sources], config)


def test_method_lookups_are_kept_apart_by_class_name_and_super(write_tree) -> None:  # type: ignore[no-untyped-def]
    symbols = _program(write_tree, {"m.py": _HIERARCHY}).symbols
    asked = [("m:Child", "poll", ""), ("m:Child", "poll", "m:Child"), ("m:Base", "poll", ""), ("m:Child", "shut", "")]
    expected = ["m:Child.poll", "m:Base.poll", "m:Base.poll", "m:Base.close"]
    # Asked twice in each order: a lookup answered from memory equals the first answer.
    for order in (asked, asked[::-1], asked):
        assert {q: symbols.lookup_method(*q) for q in order} == dict(zip(asked, expected))
