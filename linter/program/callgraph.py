"""The call graph (networkx): resolved calls, constructors, properties, and marked hand-offs."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from epochlint.frontend.facts import Arg, Call, Pos, Site
from epochlint.program.symbols import Entity, Symbols, function_id

# Builtins that call a function argument on the spot, once per element: batch loops.
ITERATING_BUILTINS = frozenset({"map", "filter", "sorted", "min", "max", "any", "all", "functools.reduce"})
# `batch.sort(key=f)` is a batch loop too.
_ITERATING_METHODS = frozenset({"sort"})
# Calls that run a function argument on the spot but are not batch loops.
_ON_THE_SPOT_METHODS = frozenset({"wait_for"})
# Calls whose coroutine argument runs later, as a task of its own (gather wraps each in one).
_TASK_SPAWNERS = frozenset({"create_task", "ensure_future", "run_coroutine_threadsafe", "gather"})

CALL = "call"
CONSTRUCTOR = "ctor"
PROPERTY = "property"
HANDOFF = "handoff"
# A function run on the spot by a builtin such as map(): it runs with the caller's locks.
ON_THE_SPOT = "spot"


@dataclass(frozen=True)
class CallSite:
    """One edge of the call graph at one place in the caller."""

    caller: str
    callee: str
    kind: str
    site: Site
    call_id: int = -1
    # For ON_THE_SPOT edges of iterating builtins: the call is a batch loop.
    iterating: bool = False
    # The callee was passed as an argument (`submit(f)`, `map(f, xs)`), not called here.
    via_argument: bool = False

    @property
    def pos(self) -> Pos:
        return self.site.pos

    @property
    def inherits_locks(self) -> bool:
        return self.kind != HANDOFF


class CallGraph:
    """Resolved call sites of a unit, with a networkx DiGraph of functions over them."""

    def __init__(self, symbols: Symbols, iteration_helpers: frozenset[str]) -> None:
        self.symbols = symbols
        self.iteration_helpers = iteration_helpers
        self.graph: nx.DiGraph = nx.DiGraph()
        self.sites_from: dict[str, list[CallSite]] = {}
        self.sites_to: dict[str, list[CallSite]] = {}
        # (caller, call id) -> the sites that call made, for rules that start from a call.
        self.sites_of_call: dict[tuple[str, int], list[CallSite]] = {}
        self.graph.add_nodes_from(symbols.functions)
        for fid in sorted(symbols.functions):
            for site in self._sites_in(fid):
                self._add(site)

    def _add(self, site: CallSite) -> None:
        self.sites_from.setdefault(site.caller, []).append(site)
        self.sites_to.setdefault(site.callee, []).append(site)
        if site.call_id >= 0:
            self.sites_of_call.setdefault((site.caller, site.call_id), []).append(site)
        if self.graph.has_edge(site.caller, site.callee):
            self.graph.edges[site.caller, site.callee]["sites"].append(site)
        else:
            self.graph.add_edge(site.caller, site.callee, sites=[site])

    def _sites_in(self, fid: str) -> list[CallSite]:
        function = self.symbols.function(fid)
        spawned = {
            arg.call
            for call in function.calls
            if call.method in _TASK_SPAWNERS
            for arg in call.args
            if arg.kind == "call"
        }
        sites: list[CallSite] = []
        for call in function.calls:
            sites.extend(self._call_sites(fid, call, handed_off=call.id in spawned))
        for access in function.accesses:
            entity = self.symbols.entity(fid, access.ref)
            if entity.kind == "property":
                sites.append(CallSite(fid, entity.target, PROPERTY, access.site))
        return sites

    def _call_sites(self, fid: str, call: Call, handed_off: bool) -> list[CallSite]:
        sites = []
        callee = self.symbols.callee(fid, call)
        target = self._target(callee)
        if target:
            kind = HANDOFF if handed_off else CONSTRUCTOR if callee.kind == "class" else CALL
            sites.append(CallSite(fid, target, kind, call.site, call.id))
        runs_on_the_spot = self._runs_on_the_spot(callee, call)
        iterating = self._iterates(callee, call)
        for arg in call.args:
            function = self._function_argument(fid, arg)
            if not function:
                continue
            kind = ON_THE_SPOT if runs_on_the_spot or iterating else HANDOFF
            sites.append(
                CallSite(fid, function, kind, call.site, call.id, iterating, via_argument=True)
            )
        return sites

    def _target(self, callee: Entity) -> str:
        if callee.kind in ("function", "property"):
            return callee.target
        if callee.kind == "class":
            return self.symbols.lookup_method(callee.target, "__init__")
        return ""

    def _function_argument(self, fid: str, arg: Arg) -> str:
        if arg.kind == "lambda":
            return function_id(self.symbols.module_of(fid).name, arg.function)
        if arg.kind == "ref" and arg.ref is not None:
            entity = self.symbols.entity(fid, arg.ref)
            if entity.kind == "function":
                return entity.target
        return ""

    def _iterates(self, callee: Entity, call: Call) -> bool:
        name = callee.target if callee.kind == "external" else ""
        if name in ITERATING_BUILTINS or (callee.kind != "function" and call.method in _ITERATING_METHODS):
            return True
        return bool(self.iteration_helpers) and (
            name in self.iteration_helpers or call.method in self.iteration_helpers
        )

    def _runs_on_the_spot(self, callee: Entity, call: Call) -> bool:
        return callee.kind != "function" and call.method in _ON_THE_SPOT_METHODS

    def handed_off(self, fid: str) -> bool:
        return any(site.kind == HANDOFF for site in self.sites_to.get(fid, ()))
