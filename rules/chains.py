"""Paths through calls as findings show them, shared by the rules that follow calls."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator

from epochlint.findings import ChainStep, RelatedLocation
from epochlint.frontend.facts import Pos
from epochlint.program.callgraph import CallSite
from epochlint.program.lockorder import Acquisition
from epochlint.program.model import Program
from epochlint.program.symbols import FieldId


def call_steps(program: Program, chain: Iterable[CallSite]) -> Iterator[ChainStep]:
    """One step per call site of `chain`: where the caller calls the next function."""
    for site in chain:
        yield ChainStep(
            program.site_location(site.caller, site.site),
            program.display_function(site.caller),
            f"calls `{program.display_function(site.callee)}`",
        )


def chain_order(program: Program, chain: Iterable[CallSite]) -> tuple[tuple[str, Pos], ...]:
    """A chain's calls as places in the source, to order chains that tie otherwise."""
    return tuple((program.rel_path(site.caller), site.pos) for site in chain)


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


def unlocked_caller_chain(program: Program, fid: str, locks: frozenset[FieldId]) -> tuple[CallSite, ...]:
    """The shortest chain of calls into `fid` along which none of `locks` is held, from a caller
    that itself runs without them (no caller of its own holds them, or it is handed off): the
    caller that leaves `fid` unguarded; of chains as short, the one whose call nearest `fid` comes
    first in the source. Empty when every path into `fid` holds them.
    """
    locksets = program.locks
    paths: deque[tuple[str, tuple[CallSite, ...]]] = deque([(fid, ())])
    seen = {fid}
    while paths:
        callee, chain = paths.popleft()
        # A constructor's call of a method of the object it builds runs before the object is shared.
        called = (site for site in program.calls.sites_to.get(callee, ()) if not program.runs_while_built(site))
        # By place in the source (module, then position), as the other chains are chosen: the
        # chain shown starts from the first unlocked caller in the file, not the first by name.
        sites = sorted(called, key=lambda s: (program.rel_path(s.caller), s.pos, s.caller))
        if chain and (not sites or any(not site.inherits_locks for site in sites)):
            return chain
        for site in sites:
            holds = locksets.local_locks(site.caller, site.site) | locksets.entry.get(site.caller, frozenset())
            if site.inherits_locks and site.caller not in seen and not locks <= holds:
                seen.add(site.caller)
                paths.append((site.caller, (site, *chain)))
    return ()


def guarded_write_locations(program: Program, field: FieldId, guards: frozenset[FieldId]) -> list[RelatedLocation]:
    """The related locations of the writes of `field` that hold one of its `guards`."""
    return [
        RelatedLocation(program.location(write.function, write.write.site.pos), f"guarded write of `{field.display()}`")
        for write in program.writes_of(field)
        if program.locks.held(write.function, write.write.site) & guards
    ]
