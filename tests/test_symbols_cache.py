"""Resolutions kept across the value flow's rounds give what a fresh resolution gives."""

from __future__ import annotations


import pytest

from epochlint.config import load_config
from epochlint.discovery import discover
from epochlint.program.callgraph import call_targets
from epochlint.program.model import Program
from epochlint.program.resolutions import Resolutions
from epochlint.program.symbols import Symbols
from tests.conftest import FIXTURES, KNOWN_CODES, program_of, program_of_folder

_HIERARCHY = (
    "class Base:\n    def poll(self):\n        pass\n\n    def close(self):\n        pass\n\n    shut = close\n\n\n"
    "class Child(Base):\n    def poll(self):\n        super().poll()\n"
)


def _program(write_tree, files: dict[str, str]) -> Program:  # type: ignore[no-untyped-def]
    return program_of_folder(write_tree(files))


def test_method_lookups_are_kept_apart_by_class_name_and_super(write_tree) -> None:  # type: ignore[no-untyped-def]
    symbols = _program(write_tree, {"m.py": _HIERARCHY}).symbols
    asked = [("m:Child", "poll", ""), ("m:Child", "poll", "m:Child"), ("m:Base", "poll", ""), ("m:Child", "shut", "")]
    expected = ["m:Child.poll", "m:Base.poll", "m:Base.poll", "m:Base.close"]
    # Asked twice in each order: a lookup answered from memory equals the first answer.
    for order in (asked, asked[::-1], asked):
        assert {q: symbols.lookup_method(*q) for q in order} == dict(zip(asked, expected))


def _fresh_symbols(kept: Symbols) -> Symbols:
    """Symbols of the same modules that know what `kept` learnt, and have resolved nothing yet but
    the decorated names whose wrappers they clone, as a program does once learning is over."""
    fresh = Symbols(list(kept.modules.values()), kept.test_modules)
    fresh.param_types = dict(kept.param_types)
    fresh.param_values = dict(kept.param_values)
    fresh._field_types, fresh._typed_stores = kept._field_types, kept._typed_stores
    fresh._field_values, fresh._value_stores = kept._field_values, kept._value_stores
    fresh.clone_wrappers()
    fresh.settle()
    return fresh


@pytest.mark.parametrize("folder", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name != "java"))
def test_a_resolution_kept_across_the_rounds_equals_a_fresh_one(folder: str) -> None:
    """Each round of the value flow forgets only the resolutions built on what it learnt: none
    that is kept may have gone stale (every call site resolves as it would from nothing)."""
    config = load_config([FIXTURES / folder], None, KNOWN_CODES)
    sources, _ = discover([FIXTURES / folder], config)
    kept = program_of(sources, config).symbols
    fresh = _fresh_symbols(kept)
    stale = [
        (fid, call.site.pos)
        for fid in sorted(kept.functions)
        for call in kept.function(fid).calls
        if call_targets(kept, fid, call) != call_targets(fresh, fid, call)
    ]
    assert stale == []


def _cycle(first: str) -> dict[str, frozenset[int]]:
    """Answers of three resolutions asking one another (`head` uses `fed` and `user`, `fed` uses
    `head`, `user` uses `fed`), asked starting with `first`."""
    memo = Resolutions(1, {0: lambda last, found: last == found})
    uses = {"head": ("fed", "user"), "fed": ("head",), "user": ("fed",)}
    own = {"head": {1}, "fed": set(), "user": {2}}
    # The answer seen unfinished: one object, as a memo tells an unfinished answer by identity.
    pending: frozenset[int] = frozenset()

    def answer(name: str) -> frozenset[int]:
        return memo.get(0, name, lambda: frozenset(own[name]).union(*map(answer, uses[name])), pending)

    answer(first)
    return {name: answer(name) for name in uses}


def test_an_answer_is_the_same_whichever_resolution_of_a_cycle_was_asked_first() -> None:
    # Asked first, `head` met `fed` unfinished; `user`, computed after `fed` from `fed`'s answer
    # then, kept it though `fed` was computed anew: `user` was {2} or {1, 2} by the order asked.
    answers = [_cycle(first) for first in ("head", "fed", "user")]
    assert answers == [dict.fromkeys(("head", "fed", "user"), frozenset({1, 2}))] * 3
