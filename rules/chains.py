"""Paths through calls as findings show them, shared by the rules that follow calls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from epochlint.findings import ChainStep, RelatedLocation
from epochlint.program.callgraph import CallSite
from epochlint.program.lockorder import Acquisition
from epochlint.program.model import Program


def call_steps(program: Program, chain: Iterable[CallSite]) -> Iterator[ChainStep]:
    """One step per call site of `chain`: where the caller calls the next function."""
    for site in chain:
        yield ChainStep(
            program.location(site.caller, site.pos),
            program.display_function(site.caller),
            f"calls `{program.display_function(site.callee)}`",
        )


def via(program: Program, chain: Iterable[CallSite]) -> str:
    """` (via a -> b)` naming the functions a chain enters, or "" for no chain."""
    names = [program.display_function(site.callee) for site in chain]
    return f" (via {' -> '.join(names)})" if names else ""


def acquisition_step(program: Program, acquisition: Acquisition, message: str) -> ChainStep:
    return ChainStep(
        program.location(acquisition.function, acquisition.pos),
        program.display_function(acquisition.function),
        message,
    )


def unique(related: Iterable[RelatedLocation]) -> tuple[RelatedLocation, ...]:
    """Related locations in order, each once."""
    return tuple(dict.fromkeys(related))
