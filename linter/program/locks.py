"""Locks: which fields hold locks and of what kind, held regions, and entry locksets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from epochlint.frontend.facts import FLOW_RETURN, Call, Ref, Region, Site
from epochlint.program.callgraph import CallGraph
from epochlint.program.symbols import Entity, FieldId, Symbols, bound_arguments

REENTRANT = "reentrant"
NON_REENTRANT = "non-reentrant"
UNKNOWN_KIND = "unknown"

_LOCK_CONSTRUCTORS = {
    "threading.Lock": NON_REENTRANT,
    "threading.RLock": REENTRANT,
    "threading.Condition": REENTRANT,
    "threading.Semaphore": NON_REENTRANT,
    "threading.BoundedSemaphore": NON_REENTRANT,
    "multiprocessing.Lock": NON_REENTRANT,
    "multiprocessing.RLock": REENTRANT,
    "multiprocessing.Condition": REENTRANT,
    "asyncio.Lock": NON_REENTRANT,
    "asyncio.Condition": NON_REENTRANT,
    "asyncio.Semaphore": NON_REENTRANT,
    "asyncio.BoundedSemaphore": NON_REENTRANT,
}
_SEMAPHORES = frozenset(
    name for name in _LOCK_CONSTRUCTORS if name.rsplit(".", 1)[1].endswith("Semaphore")
)
_CONDITIONS = frozenset(name for name in _LOCK_CONSTRUCTORS if name.endswith("Condition"))


@dataclass(frozen=True)
class LockInfo:
    field: FieldId
    kind: str
    # `Condition(L)` is the same lock as L.
    same_as: FieldId | None = None


class Locks:
    """Lock identities of a unit and the locks held at every point of every function."""

    def __init__(
        self,
        symbols: Symbols,
        calls: CallGraph,
        lock_name: Callable[[str], bool],
        lock_decorators: dict[str, str],
    ) -> None:
        self.symbols = symbols
        self.calls = calls
        self.lock_name = lock_name
        self.lock_decorators = lock_decorators
        self.constructed: dict[FieldId, LockInfo] = {}
        # Fields built by a constructor we know is not a lock (a semaphore with a larger count).
        self.not_locks: set[FieldId] = set()
        self._find_constructed()
        self._region_locks: dict[tuple[str, int], FieldId | None] = {}
        self._decorator_locks: dict[str, frozenset[FieldId]] = {}
        self.entry: dict[str, frozenset[FieldId]] = {}
        self._compute_entry_locksets()

    # -- identities ------------------------------------------------------------------------

    def _find_constructed(self) -> None:
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            for write in function.writes:
                if write.value_call < 0:
                    continue
                call = self.symbols.call(fid, write.value_call)
                if call is None:
                    continue
                callee = self._lock_constructor(fid, call)
                if callee.kind != "external" or callee.target not in _LOCK_CONSTRUCTORS:
                    continue
                field = self.symbols.field(fid, write.ref)
                if field is None:
                    continue
                kind = _LOCK_CONSTRUCTORS[callee.target]
                if callee.target in _SEMAPHORES and not _count_is_one(call.args):
                    self.not_locks.add(field)
                    continue
                same_as = None
                if callee.target in _CONDITIONS and call.args and call.args[0].ref is not None:
                    same_as = self.symbols.field(fid, call.args[0].ref)
                    if callee.target == "threading.Condition" and same_as is not None:
                        kind = UNKNOWN_KIND
                elif callee.target in _CONDITIONS and callee.target.startswith("threading"):
                    kind = REENTRANT
                self.constructed[field] = LockInfo(field, kind, same_as)

        self._find_passed()

    def _lock_constructor(self, fid: str, call: Call) -> Entity:
        """The lock constructor a call runs: itself, or the one a project factory returns."""
        callee = self.symbols.callee(fid, call)
        if callee.kind != "function":
            return callee
        returned = {
            self.symbols.callee(callee.target, inner)
            for inner in self.symbols.function(callee.target).calls
            if inner.flow.kind == FLOW_RETURN
        }
        return returned.pop() if len(returned) == 1 else callee

    def _find_passed(self) -> None:
        """A field set from a parameter (`self._pool_lock = pool_lock`) is the lock every
        resolved call binds to that parameter (`Connection(pool_lock=self._lock)`)."""
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            params = {param.name for param in function.params}
            for write in function.writes:
                value = write.value_ref
                if value is None or value.attrs or value.scope != function.qualname or value.name not in params:
                    continue
                field = self.symbols.field(fid, write.ref)
                passed = self._locks_passed(fid, value.name)
                if field is not None and field not in self.constructed and len(passed) == 1:
                    lock = passed.pop()
                    self.constructed[field] = LockInfo(field, self.kind(lock), lock)

    def _locks_passed(self, fid: str, param: str) -> set[FieldId]:
        """The locks bound to parameter `param` of `fid` at its resolved call sites; a site that
        binds something else (or nothing known) adds None."""
        passed: set[FieldId | None] = set()
        for site in self.calls.sites_to.get(fid, ()):
            call = self.symbols.call(site.caller, site.call_id) if site.call_id >= 0 else None
            if call is None or site.via_argument:
                continue
            for name, arg in bound_arguments(self.symbols.function(fid), call):
                if name == param:
                    lock = self.lock_of(site.caller, arg.ref) if arg.ref is not None else None
                    passed.add(lock)
        return set() if None in passed else passed  # type: ignore[return-value]

    def canonical(self, field: FieldId) -> FieldId:
        seen = set()
        while field in self.constructed and self.constructed[field].same_as is not None:
            if field in seen:
                break
            seen.add(field)
            field = self.constructed[field].same_as  # type: ignore[assignment]
        return field

    def is_lock(self, field: FieldId) -> bool:
        if field in self.not_locks:
            return False
        return field in self.constructed or self.lock_name(field.leaf)

    def kind(self, lock: FieldId) -> str:
        info = self.constructed.get(lock)
        return info.kind if info is not None else UNKNOWN_KIND

    def lock_of(self, fid: str, ref: Ref) -> FieldId | None:
        field = self.symbols.field(fid, ref, objects_only=False)
        if field is None or not self.is_lock(field):
            return None
        return self.canonical(field)

    def region_lock(self, fid: str, region: Region) -> FieldId | None:
        key = (fid, region.id)
        if key not in self._region_locks:
            self._region_locks[key] = self.lock_of(fid, region.lock)
        return self._region_locks[key]

    def decorator_locks(self, fid: str) -> frozenset[FieldId]:
        cached = self._decorator_locks.get(fid)
        if cached is not None:
            return cached
        function = self.symbols.function(fid)
        self_name = self.symbols.self_param(fid)
        found = set()
        for decorator in function.decorators:
            attribute = self.lock_decorators.get(decorator) or self.lock_decorators.get(
                decorator.rsplit(".", 1)[-1]
            )
            if attribute and self_name:
                lock = self.lock_of(fid, Ref(function.qualname, self_name, (attribute,)))
                if lock is not None:
                    found.add(lock)
        result = frozenset(found)
        self._decorator_locks[fid] = result
        return result

    # -- held locks ---------------------------------------------------------------------------

    def regions_by_id(self, fid: str) -> dict[int, Region]:
        return {region.id: region for region in self.symbols.function(fid).regions}

    def local_locks(self, fid: str, site: Site) -> frozenset[FieldId]:
        """Locks held at `site` by the function itself: its held regions and lock decorators."""
        regions = self.regions_by_id(fid)
        held = set(self.decorator_locks(fid))
        for region_id in site.regions:
            lock = self.region_lock(fid, regions[region_id])
            if lock is not None:
                held.add(lock)
        return frozenset(held)

    def held(self, fid: str, site: Site) -> frozenset[FieldId]:
        """Locks held at `site`: the local ones plus the function's entry lockset."""
        return self.local_locks(fid, site) | self.entry.get(fid, frozenset())

    def _compute_entry_locksets(self) -> None:
        """Entry lockset = intersection over resolved call sites of the locks held there.

        Empty for a function with no known caller and for any function handed off. Solved over
        the condensation of the call graph, callers first; inside a cycle, iterated to a fixpoint
        from the top of the lattice.
        """
        graph = self.calls.graph
        condensed = nx.condensation(graph)
        top: frozenset[FieldId] | None = None
        for component in nx.topological_sort(condensed):
            members = sorted(condensed.nodes[component]["members"])
            state: dict[str, frozenset[FieldId] | None] = {fid: top for fid in members}
            changed = True
            while changed:
                changed = False
                for fid in members:
                    value = self._entry_from_callers(fid, state)
                    if value != state[fid]:
                        state[fid] = value
                        changed = True
            for fid in members:
                self.entry[fid] = state[fid] or frozenset()

    def _entry_from_callers(
        self, fid: str, state: dict[str, frozenset[FieldId] | None]
    ) -> frozenset[FieldId] | None:
        sites = self.calls.sites_to.get(fid, [])
        if not sites or any(not site.inherits_locks for site in sites):
            return frozenset()
        result: frozenset[FieldId] | None = None
        for site in sites:
            caller_entry = state.get(site.caller, self.entry.get(site.caller, frozenset()))
            if caller_entry is None:
                continue  # not yet known in this cycle: the top element
            at_site = self.local_locks(site.caller, site.site) | caller_entry
            result = at_site if result is None else result & at_site
        return result


def _count_is_one(args: tuple) -> bool:
    """A semaphore is a lock only when its count is 1 (the default)."""
    positional = [arg for arg in args if not arg.keyword or arg.keyword == "value"]
    return not positional or positional[0].text == "1"
