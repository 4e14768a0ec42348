"""The Program: one analysis unit's facts merged, its graphs built once, and the questions rules ask."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

from epochlint.config import Config
from epochlint.findings import Location, function_display_name
from epochlint.frontend.facts import (
    FLOW_ARG,
    FLOW_ASSIGN,
    FLOW_CONDITION,
    FLOW_RETURN,
    MONITOR,
    Access,
    Arg,
    Call,
    Flow,
    Loop,
    Pos,
    Ref,
    Site,
    Write,
    within,
)
from epochlint.frontend.java import is_java
from epochlint.program.budget import LimitReport, WorkBudget, WorkLimitReached
from epochlint.program.callgraph import (
    CALL,
    ON_THE_SPOT,
    CallGraph,
    CallSite,
    Contexts,
    Passed,
    learn_bound_values,
    runs_while_built,
)
from epochlint.program.dataflow import DataFlow
from epochlint.program.lockorder import LockOrder
from epochlint.program.locks import Locks
from epochlint.program.modules import ModuleInfo, ModuleLocator
from epochlint.program.symbols import (
    CONSTRUCTORS,
    OVERLOAD_TAIL,
    FieldId,
    Spread,
    Symbols,
    bound_arguments,
    function_id,
    receiver_path,
    spread_arguments,
)

# A logger's methods: a value passed to one is only logged.
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


@dataclass(frozen=True)
class FileError:
    """A file that could not be read or parsed, with the reason."""

    rel: str
    reason: str
    # Where the reason lies (a syntax error's place), or line 1, column 1.
    pos: Pos = (1, 1, 1, 1)


@dataclass(frozen=True)
class FieldWrite:
    field: FieldId
    function: str
    write: Write
    initial: bool
    # `F = F + k` and the like, or a property's setter storing what `self.p += k` passes it.
    bump: bool = False


@dataclass(frozen=True)
class Step:
    """One level of a path through calls: the point in `function` where the path goes on."""

    function: str
    site: Site
    flow: Flow
    # The call edge taken from this point (None at the last step, the read itself).
    edge: CallSite | None = None


@dataclass(frozen=True)
class _PathState:
    """What the steps of a path down to a function decide about every read beyond it: whether it is
    protected, only logged, or interleaved before use (see `protected`, `only_logged` and
    `interleaves_before_use`). Two paths to a function in the same state judge every read beyond it
    alike, so only the shorter needs walking on."""

    held: frozenset[FieldId]  # locks held at any of the steps
    # The deepest step whose value is not returned further up: where a value returned all the way
    # up from below is used, with the locks held above it and whether an await follows it.
    use: tuple[str, Site, Flow]
    held_above_use: frozenset[FieldId]
    awaits_after_use: bool


# One search below a batch loop: the shortest path met to each (function, state, cycle, what the
# path passed), and what it keeps of what its paths pass.
_Walk = tuple[dict[tuple[str, _PathState, frozenset[str], Passed], int], Contexts, WorkBudget]


@dataclass(frozen=True)
class ReachedRead:
    """A read of a field reached from a starting point, with the path that reaches it."""

    field: FieldId
    steps: tuple[Step, ...]

    @property
    def function(self) -> str:
        return self.steps[-1].function

    @property
    def site(self) -> Site:
        return self.steps[-1].site


@dataclass(frozen=True)
class BatchLoop:
    """A batch loop: a `for`/`async for`/comprehension, or an iterating builtin call like map()."""

    function: str
    site: Site
    loop_id: int = -1
    call_id: int = -1
    is_async_for: bool = False


# Calls walked from batch loops to the epoch reads below them, per unit: far beyond real code (536
# in the benchmark tree at 4x), reached only where calls fork and join inside call cycles.
READS_STEPS = 100_000
# The same from one batch loop: a few hundred at most in real code. Kafka Streams' state restore
# loop alone took 83,000 steps of its unit's budget, which lost EPL001 and EPL002 for 1,885 files;
# such a loop is now left unchecked alone (EPL900 at the loop) and the rest of its unit is checked.
# (That loop now takes none: see `_loop_epoch_readers`.)
LOOP_READS_STEPS = 20_000
_LOOP_SEARCH = "the search for epoch reads through calls from this batch loop"
# The rules that ask it (see `epoch_reads_in_loop`).
LOOP_SEARCH_RULES = ("EPL001", "EPL002")


class Program:
    """Everything the rules may ask about one analysis unit."""

    def __init__(
        self, modules: list[ModuleInfo], config: Config, errors: list[FileError], locator: ModuleLocator | None = None
    ) -> None:
        """`locator` finds modules by the whole unit's names, where the program is one of its parts."""
        self.config = config
        self.errors = errors
        # Analyses that stopped at their work budget, by what they are (the rules that asked them
        # report nothing of them; EPL900 reports the limit).
        self.limits_reached: dict[str, LimitReport] = {}
        # Batch loops whose search for epoch reads stopped at its own budget (EPL001 and EPL002
        # report nothing of them; EPL900 reports the limit at the loop).
        self.loops_past_limit: dict[BatchLoop, WorkLimitReached] = {}
        self._reads_budget = WorkBudget("the search for epoch reads through calls from batch loops", READS_STEPS)
        self._batch_loops: dict[str, frozenset[int]] = {}
        self._loop_reads: dict[BatchLoop, list[ReachedRead]] = {}
        self._epoch_reads_of: dict[str, list[tuple[FieldId, Step]]] = {}
        self._reader_calls_of: dict[str, list[CallSite]] = {}
        self._next_states: dict[tuple[_PathState, Step], _PathState] = {}
        self._steps_through: dict[CallSite, Step] = {}
        self._passed_on_at: dict[tuple[CallSite, Passed], Passed] = {}
        self._local_uses_of: dict[tuple[str, tuple[str, ...]], tuple[Access, ...]] = {}
        self.modules = {m.name: m for m in modules}
        self.symbols = Symbols(modules, frozenset(m.name for m in modules if config.is_test_path(m.rel)), locator)
        self.symbols.type_fields()
        learn_bound_values(self.symbols, self.call_shapes_model)
        self.symbols.clone_wrappers()
        self.symbols.settle()
        self.calls = CallGraph(self.symbols, frozenset(config.iteration_helpers))
        self.locks = Locks(
            self.symbols, self.calls, config.lock_name, dict(config.lock_decorators), self.call_shapes_model
        )

    def release(self) -> None:
        """Free everything the program holds now, by reference counting; the program is unusable
        afterwards.

        Its analyses keep the program they ask (and the data flow its analyses, which keep it),
        and networkx keeps on each graph the views it has handed out: all of it lies in reference
        cycles that only a collection finds, walking every object the program made (0.7 s for
        kafka's part of the benchmark tree, against 0.01 s for what is left once these are cut).
        """
        derived = vars(self)
        for analysis in (derived.get("dataflow"), derived.get("lock_order")):
            if analysis is not None:
                analysis.release()
        vars(self.calls.graph).clear()
        derived.clear()

    # -- construction -------------------------------------------------------------------------

    def bound_arguments(self, callee: str, call: Call, ahead: int = 0) -> Iterator[tuple[str, Arg]]:
        """(parameter, argument) pairs of a resolved call, by position and keyword, after the
        `ahead` positional arguments a `functools.partial` binds."""
        return bound_arguments(self.symbols.function(callee), call, ahead)

    def spread_arguments(self, callee: str, call: Call, ahead: int = 0) -> Iterator[Spread]:
        """Where the arguments of a resolved call go, for the data flow: see
        `symbols.spread_arguments`."""
        return spread_arguments(self.symbols.function(callee), call, ahead)

    def is_test(self, fid: str) -> bool:
        """Whether `fid` is test code: reported like any code, but it never shapes the model."""
        return self.symbols.is_test(fid)

    def shapes_model(self, site: CallSite) -> bool:
        """Whether a call site counts for what its callee learns from its callers (entry locksets,
        parameter types, asyncio context): a test calling into non-test code does not."""
        return self.call_shapes_model(site.caller, site.callee)

    def call_shapes_model(self, caller: str, callee: str) -> bool:
        """`shapes_model` for a call from function `caller` to function `callee`."""
        return self.symbols.is_test(callee) or not self.symbols.is_test(caller)

    # -- configuration-driven names ----------------------------------------------------------------

    def is_epoch(self, field: FieldId) -> bool:
        return self.config.epoch_name(field.leaf)

    # -- writes and guards ---------------------------------------------------------------------

    @cached_property
    def field_writes(self) -> dict[FieldId, list[FieldWrite]]:
        writes: dict[FieldId, list[FieldWrite]] = {}
        setters = self._setters_bumping()
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            value = function.params[1].name if fid in setters and len(function.params) > 1 else None
            for write in function.writes:
                field = self.symbols.field(fid, write.ref)
                if field is None or self.symbols.property_write(fid, write):
                    continue  # a property's setter is a call: what it writes, it writes itself
                initial = self._is_initial(fid, write)
                stored = write.value_ref
                passed = stored is not None and not stored.attrs and stored.name == value
                writes.setdefault(field, []).append(FieldWrite(field, fid, write, initial, write.bump or passed))
        return writes

    @cached_property
    def bumps_by_setter_calls(self) -> dict[str, list[FieldWrite]]:
        """Bumps made by passing a field its own value plus something, for a callee to store
        (`self._set_epoch(self._epoch + 1)`, where `_set_epoch(e)` does `self._epoch = e`): by
        the caller, each a write at the call site. The setter's store is no bump by itself: the
        same setter also resets (`self._set_epoch(0)`)."""
        found: dict[str, list[FieldWrite]] = {}
        for sites in self.calls.sites_to.values():
            for site in sites:
                call = self.symbols.call(site.caller, site.call_id) if site.kind == CALL else None
                if call is None or all(arg.adds_to is None for arg in call.args):
                    continue
                for parameter, arg in self.bound_arguments(site.callee, call, site.bound_ahead):
                    added_to = arg.adds_to
                    added = self.symbols.field(site.caller, added_to) if added_to is not None else None
                    if added is None or added_to is None or not self._stores(site, call, parameter, added_to, added):
                        continue
                    bump = Write(added_to, call.site, "assign", bump=True)
                    found.setdefault(site.caller, []).append(FieldWrite(added, site.caller, bump, False, True))
        return found

    def _stores(self, site: CallSite, call: Call, parameter: str, added_to: Ref, field: FieldId) -> bool:
        """Whether the callee stores its parameter as it is into the path the argument adds to: the
        same field (`field`, what `added_to` denotes), and for a store into the callee's own object,
        an attribute of the object the call is made on (`self._set_epoch(...)`;
        `self._peer._set_epoch(self._epoch + 1)` sets the peer's epoch from this one's, no bump)."""
        own = self.symbols.self_param(site.callee)
        receiver = receiver_path(call) or Ref(added_to.scope, self.symbols.self_param(site.caller), ())
        for write in self.symbols.function(site.callee).writes:
            stored = write.value_ref
            if write.kind != "assign" or stored is None or stored.attrs or stored.name != parameter:
                continue
            if self.symbols.field(site.callee, write.ref) != field:
                continue
            on_the_receiver = receiver._replace(attrs=(*receiver.attrs, *write.ref.attrs))
            if own and write.ref.name == own and added_to != on_the_receiver:
                continue
            return True
        return False

    def _setters_bumping(self) -> frozenset[str]:
        """The property setters some bump runs (`self.epoch += 1`): what they store of their value
        parameter is a bump too."""
        return frozenset(
            setter
            for fid, (_, function) in self.symbols.functions.items()
            for write in function.writes
            if write.bump and (setter := self.symbols.property_write(fid, write))
        )

    def _is_initial(self, fid: str, write: Write) -> bool:
        """Initial values run before the object or module is shared: not writes."""
        function = self.symbols.function(fid)
        if function.kind in ("module", "classbody"):
            return True
        if function.name in CONSTRUCTORS and function.kind == "staticmethod":
            # Java's `static { epoch = 0; }`: its class's own static fields, as it is initialised.
            field = self.symbols.field(fid, write.ref)
            return field is not None and field.owner == self.symbols.class_of_function(fid)
        if write.ref.name != self.symbols.self_param(fid) and not self._holds_own_part(fid, write.ref.name):
            return False
        return function.name in CONSTRUCTORS or self._run_only_while_built(fid)

    def _holds_own_part(self, fid: str, local: str) -> bool:
        """Whether `local` holds only what the object's own methods return (`state = self.state()`,
        and the result of `self.state()` in `self.state().epoch = 0`): its own parts, in a
        constructor as unshared as its fields."""
        binds = self.symbols.binds(fid).get(local, ())
        return bool(binds) and all(
            bind.kind == "assign" and self.symbols.calls_own_method(fid, bind.value_call) for bind in binds
        )

    def _run_only_while_built(self, fid: str) -> bool:
        """Whether every call of `fid` that shapes the model is a constructor's call of a method of
        the object it builds (`self._reset_state()` in `__init__` only): its stores into `self`
        are initial values too."""
        sites = [site for site in self.calls.sites_to.get(fid, ()) if self.shapes_model(site)]
        return bool(sites) and all(self.runs_while_built(site) for site in sites)

    def runs_while_built(self, site: CallSite) -> bool:
        """Whether `site` is a constructor calling a method of the object it builds (`self.reset()`
        in `__init__`): the callee runs there before the object is shared."""
        return runs_while_built(self.symbols, site)

    def writes_of(self, field: FieldId) -> list[FieldWrite]:
        return [w for w in self.field_writes.get(field, []) if not w.initial]

    def epoch_fields(self) -> list[FieldId]:
        return sorted(f for f in self.field_writes if self.is_epoch(f))

    @cached_property
    def _guards(self) -> dict[FieldId, frozenset[FieldId]]:
        guards: dict[FieldId, frozenset[FieldId]] = {}
        declared = self._declared_guards()
        for field in self.epoch_fields():
            if field in declared:
                guards[field] = declared[field]
                continue
            # Tests poke internals single-threaded: their writes do not vote.
            writes = [w for w in self.writes_of(field) if not self.is_test(w.function)]
            counts: dict[FieldId, int] = {}
            for write in writes:
                for lock in self.locks.held(write.function, write.write.site):
                    counts[lock] = counts.get(lock, 0) + 1
            guards[field] = frozenset(lock for lock, held in counts.items() if 2 * held > len(writes))
        return guards

    def guards(self, field: FieldId) -> frozenset[FieldId]:
        """Locks held at a strict majority of the field's writes, or the declared guard."""
        return self._guards.get(field, frozenset())

    def _declared_guards(self) -> dict[FieldId, frozenset[FieldId]]:
        declared: dict[FieldId, frozenset[FieldId]] = {}
        for field, writes in self.field_writes.items():
            for write in writes:
                module = self.symbols.module_of(write.function)
                lines = dict(module.facts.guard_declarations)
                lock_attr = lines.get(write.write.site.pos[0])
                if lock_attr is None:
                    continue
                lock = self._lock_named(field, lock_attr, write.function)
                if lock is not None:
                    declared[field] = frozenset({lock})
        for field_text, lock_attr in self.config.guards:
            for field, writes in self.field_writes.items():
                if _matches_field(field, field_text):
                    lock = self._lock_named(field, lock_attr, writes[0].function)
                    if lock is not None:
                        declared[field] = frozenset({lock})
        return declared

    def _lock_named(self, field: FieldId, attr: str, writer: str) -> FieldId | None:
        """The lock a declaration names; in Java, `this` or a field that is no lock object names
        the monitor that `synchronized` holds."""
        if field.is_global:
            return self.locks.canonical(FieldId(field.owner, (attr,), True))
        java = is_java(self.symbols.module_of(writer).rel)
        if java and attr == "this":
            return FieldId(field.owner, (MONITOR,))
        lock = self.locks.canonical(FieldId(self.symbols.defining_class(field.owner, attr), (attr,)))
        if java and not self.locks.is_lock(lock):
            return FieldId(lock.owner, (*lock.path, MONITOR))
        return lock

    # -- reads -----------------------------------------------------------------------------------

    def variants(self, fid: str) -> tuple[str, ...]:
        """The ways `fid`'s body runs: as itself, and as each of its clones that calls reach (a
        decorator's wrapper, one per decoration). A wrapper every call reaches through its clones
        runs only as them: on its own it has no caller, and calls nothing the decorations pass."""
        clones = self._clones_of.get(fid, ())
        if clones and not self.calls.sites_to.get(fid):
            return clones
        return (fid, *clones)

    @cached_property
    def _clones_of(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, list[str]] = {}
        for clone_id, clone in sorted(self.symbols.clones.items()):
            if clone_id in self.calls.graph:
                found.setdefault(clone.wrapper, []).append(clone_id)
        return {wrapper: tuple(clones) for wrapper, clones in found.items()}

    def batch_loops(self) -> Iterator[BatchLoop]:
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            for loop in function.loops:
                if loop.id in self._batch_loop_ids(fid):
                    yield BatchLoop(fid, loop.site, loop_id=loop.id, is_async_for=loop.kind == "async_for")
            for site in self.calls.sites_from.get(fid, ()):
                if site.iterating:
                    yield BatchLoop(fid, site.site, call_id=site.call_id)

    def _batch_loop_ids(self, fid: str) -> frozenset[int]:
        # Asked once per access of a function: made once per function (a function with a thousand
        # batch loops and accesses took minutes when it was made per access).
        found = self._batch_loops.get(fid)
        if found is None:
            found = self._batch_loops[fid] = frozenset(
                loop.id for loop in self.symbols.function(fid).loops if self._is_batch(fid, loop)
            )
        return found

    def _is_batch(self, fid: str, loop: Loop) -> bool:
        """Whether `loop` walks a collection: not a `while`, nor a Java iterating call on what a
        method declared to return an `Optional` gives (`holder.find(tp).map(...)`), one value."""
        return loop.batch and loop.kind != "while" and not self.symbols.returns_optional(fid, loop.source_call)

    def innermost_batch_loop(self, fid: str, site: Site) -> int:
        batch = self._batch_loop_ids(fid)
        for loop_id in reversed(site.loops):
            if loop_id in batch:
                return loop_id
        return -1

    @cached_property
    def _epoch_readers(self) -> frozenset[str]:
        """Functions that read an epoch field, or call (inheriting locks) one that does, anywhere
        in them (see `_loop_epoch_readers` for those the search from a batch loop follows)."""
        return self._with_callers(
            {
                fid
                for fid, (_, function) in self.symbols.functions.items()
                if any(self._is_epoch_ref(fid, access.ref) for access in function.accesses)
            }
        )

    @cached_property
    def _epoch_writers(self) -> frozenset[str]:
        """Functions that write an epoch field (initial values aside), or call (inheriting locks)
        one that does."""
        writes = (w for field, found in self.field_writes.items() if self.is_epoch(field) for w in found)
        return self._with_callers({write.function for write in writes if not write.initial})

    @cached_property
    def _loop_epoch_readers(self) -> frozenset[str]:
        """The functions in which the search from a batch loop can find an epoch read (see
        `_reads_from`): those that read an epoch field outside their own batch loops, or call one
        of them there and then, outside their own batch loops.

        Paths through calls are enumerated one by one; this keeps them to the calls that can lead
        to an epoch read, or a dense call graph (a recursive visitor) has too many. The search takes
        no read nor call in a function's own batch loops (each is a loop of its own), so a function
        that reaches reads only through those leads it nowhere: Kafka Streams' iterator wrappers,
        each `peekNextKey` calling every other, do so, and their cycle was walked path by path
        (past 5,000,000 steps from one loop) to find nothing.
        """
        return self._with_callers(
            {
                fid
                for fid, (_, function) in self.symbols.functions.items()
                if any(
                    not self._batch_loop_ids(fid).intersection(access.site.loops)
                    and self._is_epoch_ref(fid, access.ref)
                    for access in function.accesses
                )
            },
            outside_batch_loops=True,
        )

    def _with_callers(self, found: set[str], outside_batch_loops: bool = False) -> frozenset[str]:
        """`found`, and the functions that call one of them there and then, through any calls
        (only calls outside the caller's own batch loops, if `outside_batch_loops`)."""
        pending = list(found)
        while pending:
            for site in self.calls.sites_to.get(pending.pop(), ()):
                if not site.inherits_locks or site.iterating or site.caller in found:
                    continue
                if outside_batch_loops and self._batch_loop_ids(site.caller).intersection(site.site.loops):
                    continue
                found.add(site.caller)
                pending.append(site.caller)
        return frozenset(found)

    def calls_using_epoch(self, fid: str, start: Pos, end: Pos) -> bool:
        """Whether a call that `fid` makes from place `start` up to (not including) place `end`
        runs, there and then, code that reads an epoch field (an accessor, a command that sends it)
        or writes one (a reset)."""
        return any(
            site.inherits_locks
            and start[:2] <= site.pos[:2] < end[:2]
            and (site.callee in self._epoch_readers or site.callee in self._epoch_writers)
            for site in self.calls.sites_from.get(fid, ())
        )

    def only_bumps(self, fid: str) -> bool:
        """Whether function `fid` does nothing but bump: each of its writes is a bump, and each of
        its calls is part of a bump's value (`F._replace(epoch=F.epoch + 1)`)."""
        function = self.symbols.function(fid)
        if not function.writes or not all(write.bump for write in function.writes):
            return False
        value_calls = {write.value_call for write in function.writes}
        values = [call.site.pos for call in function.calls if call.id in value_calls]
        return all(any(within(call.site.pos, value) for value in values) for call in function.calls)

    def _is_epoch_ref(self, fid: str, ref: Ref) -> bool:
        field = self.symbols.field(fid, ref)
        return field is not None and self.is_epoch(field)

    def epoch_reads_in_loop(self, loop: BatchLoop) -> list[ReachedRead]:
        """Reads of epoch fields whose innermost batch loop is `loop`, directly or through calls.
        Searched once per loop: EPL001 and EPL002 both ask, and the search's work budget counts
        its steps once."""
        found = self._loop_reads.get(loop)
        if found is None:
            try:
                found = self._epoch_reads_in_loop(loop, WorkBudget(_LOOP_SEARCH, LOOP_READS_STEPS))
            except WorkLimitReached as limit:
                if limit.what != _LOOP_SEARCH:
                    raise
                self.loops_past_limit[loop] = limit
                found = []
            self._loop_reads[loop] = found
        return found

    def _epoch_reads_in_loop(self, loop: BatchLoop, budget: WorkBudget) -> list[ReachedRead]:
        if loop.call_id >= 0:
            starts = [
                s for s in self.calls.sites_of_call.get((loop.function, loop.call_id), [])
                if s.kind == ON_THE_SPOT
            ]
            found: list[ReachedRead] = []
            call = self.symbols.call(loop.function, loop.call_id)
            flow = call.flow if call is not None else Flow()
            walk: _Walk = ({}, Contexts(self.calls), budget)
            for start in starts:
                if start.callee not in self._loop_epoch_readers:
                    continue
                first = Step(loop.function, loop.site, flow, start)
                state = self._first_state(loop, first)
                passed = walk[1].entering(start, ())
                found.extend(self._reads_from(start.callee, (first,), {start.callee}, state, walk, passed))
            return found
        fid = loop.function
        function = self.symbols.function(fid)
        found = []
        for access in function.accesses:
            if self.innermost_batch_loop(fid, access.site) != loop.loop_id:
                continue
            field = self.symbols.field(fid, access.ref)
            if field is not None and self.is_epoch(field):
                found.append(ReachedRead(field, (Step(fid, access.site, access.flow),)))
        walk = ({}, Contexts(self.calls), budget)
        for site in self.calls.sites_from.get(fid, ()):
            if not site.inherits_locks or site.iterating or site.callee not in self._loop_epoch_readers:
                continue
            if self.innermost_batch_loop(fid, site.site) != loop.loop_id and not self._iterates(loop, site):
                continue
            first = Step(fid, site.site, self._flow_of_site(site), site)
            state = self._first_state(loop, first)
            passed = walk[1].entering(site, ())
            found.extend(self._reads_from(site.callee, (first,), {site.callee}, state, walk, passed))
        return found

    def _iterates(self, loop: BatchLoop, site: CallSite) -> bool:
        """Whether `loop` iterates what a generator function called at `site` yields: the
        generator's body runs in the loop, one turn per message (RULES.md, Batch loop)."""
        return any(loop.loop_id in bind.site.loops for bind in self.locks.generator_iterations(site))

    def loop_hands_off_to_acquire(self, loop: BatchLoop, lock: FieldId) -> bool:
        """Whether the calls of `loop` (those in its header, the iterable's, and in its body, or the
        iterating call's) hand work to another thread that takes `lock` (see
        `LockOrder.hands_off_to_acquire`)."""
        if loop.call_id >= 0:
            sites = self.calls.sites_of_call.get((loop.function, loop.call_id), [])
        else:
            sites = [
                s
                for s in self.calls.sites_from.get(loop.function, ())
                if loop.loop_id in s.site.loops or within(s.pos, loop.site.pos)
            ]
        return self.lock_order.hands_off_to_acquire(sites, lock)

    def _first_state(self, loop: BatchLoop, first: Step) -> _PathState:
        return self._used_at(first, self.locks.local_locks(first.function, first.site), frozenset(), loop)

    def _next_state(self, state: _PathState, step: Step) -> _PathState:
        """The state of a path in `state` that goes on through `step`: asked at every path through
        the step (9,000 times for 460 answers in kafka's part of the benchmark tree), and it depends
        on the state, the step and the program's facts alone."""
        found = self._next_states.get((state, step))
        if found is None:
            found = self._next_states[state, step] = self._state_after(state, step)
        return found

    def _state_after(self, state: _PathState, step: Step) -> _PathState:
        held = state.held | self.locks.local_locks(step.function, step.site)
        if not self._returned(step):
            return self._used_at(step, held, state.held, None)
        awaits = state.awaits_after_use or self._awaits_after(None, step, None)
        return _PathState(held, state.use, state.held_above_use, awaits)

    def _used_at(
        self, step: Step, held: frozenset[FieldId], held_above: frozenset[FieldId], loop: BatchLoop | None
    ) -> _PathState:
        """The state of a path whose value from below is used at `step` (see `_use_level`)."""
        awaits = self._awaits_after(loop, step, self._use_end(step))
        return _PathState(held, (step.function, step.site, step.flow), held_above, awaits)

    @cached_property
    def _call_cycle(self) -> dict[str, frozenset[str]]:
        """The functions on a cycle of the call graph, each with the others of its cycles: a path
        on from one cannot enter any of them that the path already went through."""
        import networkx as nx  # imported where a graph is used (see callgraph.py)

        cycles: dict[str, frozenset[str]] = {}
        graph = self.calls.graph
        for component in nx.strongly_connected_components(graph):
            fid = next(iter(component))
            if len(component) > 1 or graph.has_edge(fid, fid):
                members = frozenset(component)
                cycles.update(dict.fromkeys(members, members))
        return cycles

    def _flow_of_site(self, site: CallSite) -> Flow:
        if site.call_id >= 0:
            call = self.symbols.call(site.caller, site.call_id)
            if call is not None:
                return call.flow
        for access in self.symbols.function(site.caller).accesses:
            if access.site == site.site:
                return access.flow
        return Flow()

    def _reads_from(
        self,
        fid: str,
        prefix: tuple[Step, ...],
        visiting: set[str],
        state: _PathState,
        walk: _Walk,
        passed: Passed,
    ) -> list[ReachedRead]:
        """Epoch reads made by `fid` and its lock-inheriting callees, outside their own batch loops.

        A function reached again in the same state, by a path that went through the same functions
        of its call cycle (the paths on from it avoid those) and is no shorter than one `walked`
        already (the first of `walk`), adds nothing: each of its reads was found with the same verdict
        by a path as short.
        Without this, calls that fork and join again make paths in exponential numbers; inside call
        cycles some still can, and the search stops at a fixed budget (EPL900 says where). A call
        of a parameter (or of its method) runs only what the path `passed` it (see
        `CallGraph.runs_after`)."""
        last = prefix[-1]
        self._reads_budget.spend(1, last.function, last.site.pos)
        walked, contexts, budget = walk
        budget.spend(1, last.function, last.site.pos)
        key = (fid, state, self._call_cycle.get(fid, frozenset()) & visiting, passed)
        if walked.get(key, len(prefix) + 1) <= len(prefix):
            return []
        walked[key] = len(prefix)
        found = [ReachedRead(field, (*prefix, step)) for field, step in self._epoch_reads_outside_batches(fid)]
        for site in self._calls_of_loop_readers(fid):
            if site.callee in visiting:
                continue
            if not self.calls.runs_after(passed, site):
                continue
            step = self._step_through(site)
            visiting.add(site.callee)
            found.extend(
                self._reads_from(
                    site.callee,
                    (*prefix, step),
                    visiting,
                    self._next_state(state, step),
                    walk,
                    contexts.kept(site.callee, self._passed_on(site, passed)),
                )
            )
            visiting.discard(site.callee)
        return found

    def _step_through(self, site: CallSite) -> Step:
        """The step of a path that goes on through `site`: the same on every path that does."""
        found = self._steps_through.get(site)
        if found is None:
            found = self._steps_through[site] = Step(site.caller, site.site, self._flow_of_site(site), site)
        return found

    def _passed_on(self, site: CallSite, passed: Passed) -> Passed:
        """`CallGraph.passed_on`, asked by the search at every path through `site` (9,000 times for
        350 answers in kafka's part of the benchmark tree): it depends on the site, what the path
        passed and the call graph alone."""
        found = self._passed_on_at.get((site, passed))
        if found is None:
            found = self._passed_on_at[site, passed] = self.calls.passed_on(site, passed)
        return found

    def _epoch_reads_outside_batches(self, fid: str) -> list[tuple[FieldId, Step]]:
        """The epoch reads of `fid` outside its own batch loops, with their steps: asked at every
        path that reaches `fid`, and they depend on its facts alone."""
        found = self._epoch_reads_of.get(fid)
        if found is None:
            batch = self._batch_loop_ids(fid)
            found = self._epoch_reads_of[fid] = []
            for access in self.symbols.function(fid).accesses:
                if batch.intersection(access.site.loops):
                    continue
                field = self.symbols.field(fid, access.ref)
                if field is not None and self.is_epoch(field):
                    found.append((field, Step(fid, access.site, access.flow)))
        return found

    def _calls_of_loop_readers(self, fid: str) -> list[CallSite]:
        """The call sites of `fid` outside its batch loops that hand its locks on to a function the
        search from a batch loop follows (see `_loop_epoch_readers`): as for the reads, asked at
        every path, answered by the built call graph alone."""
        found = self._reader_calls_of.get(fid)
        if found is None:
            batch = self._batch_loop_ids(fid)
            found = self._reader_calls_of[fid] = [
                site
                for site in self.calls.sites_from.get(fid, ())
                if site.inherits_locks
                and not site.iterating
                and site.callee in self._loop_epoch_readers
                and not batch.intersection(site.site.loops)
            ]
        return found

    # -- protection ------------------------------------------------------------------------------

    def protected(self, read: ReachedRead, guards: frozenset[FieldId]) -> bool:
        """A read is protected when a guard is held and the value is used only while it lasts.

        The value climbs the path while it is returned; at the level where it stops it is used
        locally. A guard held at a call site above that level covers the whole use; a guard held
        by a region at that level covers it if no use of the value falls outside the region.
        """
        steps = read.steps
        level = self._use_level(steps)
        for index in range(level):
            step = steps[index]
            if self.locks.local_locks(step.function, step.site) & guards:
                return True
        top = steps[level]
        for lock in self.locks.local_locks(top.function, top.site) & guards:
            if not self._escapes_region(top, lock):
                return True
        return self._only_revalidated(top, read.field, guards)

    def _only_revalidated(self, step: Step, field: FieldId, guards: frozenset[FieldId]) -> bool:
        """Whether the value at `step` is used only in re-validations (see `revalidates`)."""
        return self._every_use(step, lambda site, _: self.revalidates(step.function, site, field, guards))

    def _every_use(self, step: Step, test: Callable[[Site, Flow], bool]) -> bool:
        """Whether every use of the value at `step` passes `test`: the use right where it is read,
        or, when it is kept in locals, each use of those (there must be one)."""
        if step.flow.kind != FLOW_ASSIGN:
            return test(step.site, step.flow)
        uses = [u for u in self._local_uses(step.function, step.flow.targets) if u.flow.kind != FLOW_ASSIGN]
        return bool(uses) and all(test(use.site, use.flow) for use in uses)

    def revalidates(self, fid: str, site: Site, field: FieldId, guards: frozenset[FieldId]) -> bool:
        """Whether the value used at `site` in `fid` is compared with `field` itself read under one
        of `guards` (the optimistic idiom: `with L: if epoch != self._epoch: return`), directly or
        through an accessor."""
        function = self.symbols.function(fid)
        comparison = min(
            (pos for pos in function.comparisons if within(site.pos, pos)),
            key=lambda pos: (pos[2] - pos[0], pos[3] - pos[1]),
            default=None,
        )
        if comparison is None:
            return False
        others = [a for a in function.accesses if within(a.site.pos, comparison) and not within(a.site.pos, site.pos)]
        if any(self._reads_guarded(fid, access, field, guards) for access in others):
            return True
        calls = [c for c in function.calls if within(c.site.pos, comparison) and not within(c.site.pos, site.pos)]
        accessors = [
            edge.callee
            for call in calls
            for edge in self.calls.sites_of_call.get((fid, call.id), ())
            if not edge.via_argument
        ]
        # A property read runs its getter, an accessor as a method call is.
        accessors += [
            getter for access in others if (getter := self.symbols.property_read(fid, access.ref, access.above))
        ]
        return any(
            self._reads_guarded(accessor, access, field, guards)
            for accessor in accessors
            for access in self.symbols.function(accessor).accesses
        )

    def _reads_guarded(self, fid: str, access: Access, field: FieldId, guards: frozenset[FieldId]) -> bool:
        return self.dataflow.field_of(fid, access.ref) == field and bool(self.locks.held(fid, access.site) & guards)

    def only_logged(self, read: ReachedRead) -> bool:
        """Whether the value read (where it stops being returned up the path) is only logged:
        passed to a log call, or kept in locals whose every use is one."""
        step = read.steps[self._use_level(read.steps)]
        return self._every_use(step, lambda _, flow: self.is_logging(step.function, flow))

    def is_logging(self, fid: str, flow: Flow) -> bool:
        """Whether a value going to `flow` is an argument of `print`, of the `logging` module, or
        of a logger's method (`log.debug`, `self._logger.warning`, `getLogger(...).info`)."""
        if flow.kind != FLOW_ARG:
            return False
        call = self.symbols.call(fid, flow.call)
        if call is None:
            return False
        if call.method in _LOG_METHODS and (call.receiver_call >= 0 or (call.callee and call.callee.attrs)):
            return True
        callee = self.symbols.callee(fid, call)
        return callee.kind == "external" and (callee.target == "print" or callee.target.startswith("logging."))

    def _use_level(self, steps: tuple[Step, ...]) -> int:
        """The step where the value read stops climbing the path by `return`: where it is used."""
        level = len(steps) - 1
        while level > 0 and self._returned(steps[level]):
            level -= 1
        return level

    def _returned(self, step: Step) -> bool:
        """Whether the value at `step` leaves its function by `return` (directly or via a local)."""
        if step.flow.kind == FLOW_RETURN:
            return True
        if step.flow.kind != FLOW_ASSIGN:
            return False
        return any(
            use.flow.kind == FLOW_RETURN for use in self._local_uses(step.function, step.flow.targets)
        )

    def _local_uses(self, fid: str, names: tuple[str, ...]) -> tuple[Access, ...]:
        """Loads of the locals `names` in `fid`, and of locals computed from them, transitively:
        asked of every path through a step that assigns them, answered by `fid`'s facts alone."""
        found = self._local_uses_of.get((fid, names))
        if found is None:
            found = self._local_uses_of[fid, names] = tuple(self._find_local_uses(fid, names))
        return found

    def _find_local_uses(self, fid: str, names: tuple[str, ...]) -> list[Access]:
        function = self.symbols.function(fid)
        pending = set(names)
        done: set[str] = set()
        uses: list[Access] = []
        while pending:
            name = pending.pop()
            done.add(name)
            for access in function.accesses:
                if access.ref.scope == function.qualname and access.ref.name == name:
                    uses.append(access)
                    if access.flow.kind == FLOW_ASSIGN:
                        pending.update(set(access.flow.targets) - done)
        return uses

    def _escapes_region(self, step: Step, lock: FieldId) -> bool:
        """Whether the value at `step` is used (or returned) outside the region holding `lock`."""
        if lock in self.locks.decorator_locks(step.function):
            return step.flow.kind == FLOW_RETURN
        holding = self._regions_holding(step.function, step.site, lock)
        if step.flow.kind == FLOW_RETURN:
            return True
        if step.flow.kind != FLOW_ASSIGN:
            return False
        for use in self._local_uses(step.function, step.flow.targets):
            if use.flow.kind == FLOW_RETURN or not holding.intersection(use.site.regions):
                return True
        return False

    def _regions_holding(self, fid: str, site: Site, lock: FieldId) -> set[int]:
        regions = self.locks.regions_by_id(fid)
        return {r for r in site.regions if self.locks.region_lock(fid, regions[r]) == lock}

    # -- asyncio ---------------------------------------------------------------------------------

    @cached_property
    def _async_context(self) -> dict[str, bool]:
        """Coroutines, and plain functions reached only from coroutines, follow asyncio's model."""
        result = {fid: self.symbols.function(fid).is_async for fid in self.calls.graph}
        # The calls that count are the same on every pass: found once.
        callers = {
            fid: [s for s in self.calls.sites_to.get(fid, []) if self.shapes_model(s)]
            for fid, is_async in result.items()
            if not is_async
        }
        changed = True
        while changed:
            changed = False
            for fid, is_async in result.items():
                if is_async:
                    continue
                if callers[fid] and all(s.inherits_locks and result[s.caller] for s in callers[fid]):
                    result[fid] = True
                    changed = True
        return result

    def in_async_context(self, fid: str) -> bool:
        return self._async_context.get(fid, False)

    def interleaves_before_use(self, loop: BatchLoop, read: ReachedRead) -> bool:
        """Whether, in one iteration of `loop`, an interleaving point can run between the read and
        a use of the value read, judged where they are: in the callees the value is read in and
        returned through (after the point where it goes on), and in the frame that uses it (before
        its last use). An `await` in a caller above that frame does not separate them.
        """
        steps = read.steps
        level = self._use_level(steps)
        for index in range(level, len(steps)):
            step = steps[index]
            end = self._use_end(step) if index == level else None
            if self._awaits_after(loop if index == 0 else None, step, end):
                return True
        return False

    def _awaits_after(self, loop: BatchLoop | None, step: Step, end: tuple[int, int] | None) -> bool:
        """Whether `step`'s function has an interleaving point after `step` (and before `end`);
        in the loop's own function, only those in the loop's body count, not the `async for`
        header, which interleaves before each message is read."""
        for point in self.symbols.function(step.function).awaits:
            at = point.site.pos[:2]
            if loop is not None and (
                loop.loop_id < 0
                or loop.loop_id not in point.site.loops
                or (loop.is_async_for and within(point.site.pos, loop.site.pos))
            ):
                continue
            # One inside the step (`(await self.state()).epoch`) runs before it: it makes its receiver.
            # One where the step ends runs after it: the `__aexit__` of an `async with` that it ends.
            # The `__aenter__` of an item runs after its header, but interleaves only inside itself.
            if step.site.pos[2:] <= at and (end is None or at < end) and not point.runs_inside(step.site.pos):
                return True
        return False

    def _use_end(self, step: Step) -> tuple[int, int]:
        """Where the last use of the value at `step` ends: a value tested by an `if` or `while` is
        used until the statement ends; one kept in locals, until the last use of those ends."""
        function = self.symbols.function(step.function)
        uses = [(step.site, step.flow)]
        if step.flow.kind == FLOW_ASSIGN:
            uses += [(use.site, use.flow) for use in self._local_uses(step.function, step.flow.targets)]
        end = step.site.pos[2:]
        for site, flow in uses:
            end = max(end, site.pos[2:])
            if flow.kind == FLOW_CONDITION:
                governed = [g.statement[2:] for g in function.governs if within(site.pos, g.test)]
                end = max([end, *governed])
        return end

    # -- naming --------------------------------------------------------------------------------

    def location(self, fid: str, pos: Pos) -> Location:
        """Where `pos` in `fid` is shown. The `__exit__` a `with` item runs where the statement ends
        is shown at the item, as the code is read; where several end there, at all their items."""
        entered = self.symbols.function(fid).entered
        ending = sorted(item.site.pos for item in entered if item.exit is not None and item.exit.pos == pos)
        if ending:
            pos = (*ending[0][:2], *ending[-1][2:])
        return Location(self.rel_path(fid), *pos)

    def site_location(self, fid: str, site: Site) -> Location:
        """Where `site` in `fid` is shown: as `location` does, but the `__exit__` call of one `with`
        item at that item even where others end at the same place."""
        entered = next((entered for entered in self.symbols.function(fid).entered if entered.exit == site), None)
        return self.location(fid, entered.site.pos if entered is not None else site.pos)

    def rel_path(self, fid: str) -> str:
        return self.symbols.module_of(fid).rel

    def display_function(self, fid: str) -> str:
        """How findings name function `fid`; a Java method of several overloads with its
        parameters, `seek(offset)`, to tell them apart (a primitive's type is not kept)."""
        module, function = self.symbols.function_entry(fid)
        java = is_java(module.rel)
        name = function_display_name(module.name, module.facts.package, function.qualname, java)
        if not java or OVERLOAD_TAIL.sub("", fid) not in self.symbols.overloads:
            return name
        params = (param.name for param in function.params if param.name != "this")
        return f"{name}({', '.join(params)})"

    def function_id(self, module: str, qualname: str) -> str:
        return function_id(module, qualname)

    # -- lock order --------------------------------------------------------------------------------

    @cached_property
    def lock_order(self) -> LockOrder:
        """The lock-order graph, and the acquisitions, bumps and clears reached through calls."""
        return LockOrder(self)

    # -- data flow ---------------------------------------------------------------------------------

    @cached_property
    def dataflow(self) -> DataFlow:
        """Def-use of locals, containers, and return and field summaries, one analysis per domain."""
        return DataFlow(self)


def _matches_field(field: FieldId, text: str) -> bool:
    """`Class._epoch` or `module.Class._epoch` (or `module._EPOCH` for a global)."""
    display = field.display()
    qualified = f"{field.owner.replace(':', '.')}.{'.'.join(field.path)}"
    return text in (display, qualified)
