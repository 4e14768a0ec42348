"""Data flow over a Program: def-use of locals, containers, and return and field summaries.

A value is a set of labels, each with one witness path (the hops it took: read, passed into a
callee, returned, stored into a field, read back). The engine is generic; a `Domain` (one per rule
that follows values) says what the labels mean: which reads are sources, what a call makes of its
arguments (sanitisers, constructors that wrap a value), which uses are events worth reporting.

Inside a function the analysis is flow-insensitive: a local holds the union of everything assigned
to it, a container (a local or field dict, list, set) the union of its items. Across functions it
is compositional, as RacerD is: each function gets one summary per domain (what it returns, what it
stores into fields, which of its parameters reach an event), computed once, callees first over the
condensation of the call graph, and instantiated at every call site by substituting the arguments
for the parameters (which also decide what it hands on only on a condition on them: see
`CONDITIONAL`). Field summaries (what a field may carry) are global: a few rounds let values
stored by one function reach the readers of the field in another.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from epochlint.frontend.facts import (
    FLOW_ARG,
    FLOW_ASSIGN,
    FLOW_ITER,
    FLOW_RECEIVER,
    FLOW_RETURN,
    FLOW_YIELD,
    FLOW_YIELD_FROM,
    STORING_BY_KEY,
    Access,
    Bind,
    Branches,
    Call,
    Choice,
    Exit,
    Flow,
    FunctionFacts,
    Held,
    Loop,
    Pos,
    Ref,
    Site,
    within,
)
from epochlint.program.callgraph import HANDOFF, PROPERTY, bound_for_later
from epochlint.program.symbols import Entity, FieldId, bound_ahead, function_id, receiver_path

if TYPE_CHECKING:
    from epochlint.program.model import Program

PARAM = "param"
# A parameter's label that a function hands on only unless a condition holds at its call site: in
# each of the clauses (`key`: tuples of parameter names), some parameter's argument carries a label
# that `Domain.meets` accepts (`max(cur, hist)` of two parameters drops `hist` where `cur` is
# current). `inner` is the label it conditions, made from a parameter; see `Domain.rewrap`.
CONDITIONAL = "conditional"

HOP_SOURCE = "source"
HOP_ASSIGN = "assign"
HOP_PASS = "pass"
HOP_RETURN = "return"
HOP_STORE = "store"
HOP_LOAD = "load"
HOP_USE = "use"

# Methods that put their arguments into the container they are called on.
CONTAINER_WRITERS = frozenset(
    {"append", "appendleft", "extend", "extendleft", "add", "insert", "update", "setdefault",
     "put", "put_nowait", "__setitem__"}
)
# Methods whose result is (part of) the container they are called on.
CONTAINER_READERS = frozenset(
    {"get", "pop", "popleft", "popitem", "items", "values", "keys", "copy", "setdefault",
     "__getitem__", "get_nowait"}
)
# Methods that move the elements of the list (or deque) they are called on, or remove one and move
# those after it: a name of a tuple target unpacking it later may take any element (`pop` at a
# position only: see `_reordered_paths`).
REORDERING_METHODS = frozenset(
    {"sort", "reverse", "insert", "remove", "pop", "popleft", "appendleft", "extendleft", "rotate"}
)
# Functions that reorder the list they are given first, in place (`random.shuffle(epochs)`).
REORDERING_FUNCTIONS = frozenset(
    {"shuffle", "heapify", "heappush", "heappop", "heapreplace", "heappushpop", "insort", "insort_left",
     "insort_right"}
)
_LOCAL_ROUNDS = 8
_MAX_VISITS = 12


@dataclass(frozen=True)
class Hop:
    """One step of a value's path: where it happened, what kind of step, and how to say it."""

    fid: str
    site: Site
    kind: str
    text: str


Path = tuple[Hop, ...]


@dataclass(frozen=True)
class Label:
    """What a value carries. `inner` is what a derived label was made from (a wrapped value)."""

    kind: str
    key: tuple[object, ...] = ()
    inner: Label | None = None

    def root(self) -> Label:
        label = self
        while label.inner is not None:
            label = label.inner
        return label


# A value: labels with their witness paths. Values handed out are never mutated.
Value = Mapping[Label, Path]
EMPTY: Value = {}


def param_label(name: str) -> Label:
    return Label(PARAM, (name,))


def depends_on_parameter(label: Label) -> bool:
    return label.root().kind == PARAM


def passed_parameter(label: Label) -> str | None:
    """The parameter whose argument `label` hands on, maybe on conditions (`max(cur, hist)` in a
    helper: `cur` unless `hist` is current); None for a label made of anything else."""
    while label.kind == CONDITIONAL and label.inner is not None:
        label = label.inner
    return str(label.key[0]) if label.kind == PARAM else None


def conditional(clauses: tuple[tuple[str, ...], ...], label: Label) -> Label:
    """`label` handed on unless `clauses` hold; as it is where it is already conditional on the
    same clauses (a recursive helper conditions its parameter once, not once per round)."""
    made: Label | None = label
    while made is not None and made.kind == CONDITIONAL:
        if made.key == clauses:
            return label
        made = made.inner
    return Label(CONDITIONAL, clauses, label)


def merge(into: dict[Label, Path], value: Value, hop: Hop | None = None) -> None:
    """Add `value` to `into`, each path extended by `hop`; a label keeps its shortest path."""
    for label, path in value.items():
        extended = (*path, hop) if hop is not None else path
        known = into.get(label)
        if known is None or len(extended) < len(known):
            into[label] = extended


def union(values: Iterable[Value]) -> dict[Label, Path]:
    result: dict[Label, Path] = {}
    for value in values:
        merge(result, value)
    return result


@dataclass(frozen=True)
class Event:
    """A use that a domain reports: where it is (the outermost call site it climbed to) and the
    label, with the path from the label's origin to the use."""

    kind: str
    label: Label
    path: Path
    fid: str
    site: Site


@dataclass
class Summary:
    """What one function does with values, in terms of its parameters where it depends on them."""

    returns: dict[Label, Path] = field(default_factory=dict)
    # What it returns by the position of the element of a tuple or list it returns written out
    # each part is (see `Flow.element`; "": no element, what it returns whole); none where it
    # returns no such tuple.
    returned_parts: dict[str, dict[Label, Path]] = field(default_factory=dict)
    stores: dict[FieldId, dict[Label, Path]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    def shape(
        self,
    ) -> tuple[frozenset[Label], frozenset[tuple[str, Label]], frozenset[tuple[FieldId, Label]], frozenset[Label]]:
        parts = frozenset((key, label) for key, value in self.returned_parts.items() for label in value)
        stored = frozenset((f, label) for f, value in self.stores.items() for label in value)
        return frozenset(self.returns), parts, stored, frozenset(e.label for e in self.events)

    def returned_element(self, position: int) -> dict[Label, Path]:
        """What the element at `position` of what it returns may hold: that element of the tuples
        or lists it returns written out, and what it returns whole (a tuple kept elsewhere)."""
        if not self.returned_parts:
            return self.returns
        return union((self.returned_parts.get("", EMPTY), self.returned_parts.get(str(position), EMPTY)))


@dataclass(frozen=True)
class CallContext:
    """A call as a domain sees it: its arguments' values by key (keyword, or position as a
    string), its receiver's value, and what its resolved callees return (None: unresolved)."""

    flow: DataFlow
    fid: str
    call: Call
    args: Mapping[str, Value]
    receiver: Value
    resolved: Value | None
    callee: Entity

    def all_args(self) -> dict[Label, Path]:
        return union(self.args.values())

    def element(self, key: str, element: str) -> dict[Label, Path]:
        """What the element `element` (position or keyword) of the starred argument of key `key`
        holds, where it is known (see `_element_of`)."""
        return _element_of(self.args, key, element)


class Domain:
    """What the labels of one analysis mean. The defaults follow values and report nothing."""

    # Identifies the domain's analysis in the engine's cache.
    key = ""
    # Whether reads of fields carry what was stored into them (field summaries).
    track_fields = False
    # Whether the arguments bound to a function for a later call (`functools.partial(f, x)`,
    # `executor.submit(f, x)`) pass into it, whenever it runs (a commit's epoch is committed all
    # the same); not where a value bound into a hand-off is a tag the task compares later
    # (RULES.md, Entry lockset).
    follows_bound_arguments = False

    def read(self, fid: str, ref: Ref, site: Site) -> tuple[Value, bool]:
        """Labels a name path makes where it is read, and whether they replace what it holds."""
        return EMPTY, False

    def call_value(self, ctx: CallContext) -> Value:
        """The value of a call: its callee's return; an unresolved call's result comes from its
        arguments and, for container methods, its receiver."""
        if ctx.resolved is not None:
            return ctx.resolved
        value = ctx.all_args()
        if ctx.call.method in CONTAINER_READERS:
            merge(value, ctx.receiver)
        return value

    def leaves(self, flow: Flow, value: Value) -> Value:
        """The value an expression hands on where it goes (`flow`): a comparison makes a decision
        of what it compares, for instance."""
        return value

    def assign(self, fid: str, name: str, value: Value, site: Site) -> Value:
        """The value a local takes from one assignment (`site` is the assigned value's)."""
        return value

    def fallback(self, held: Value, value: Value) -> Value:
        """The value a local takes from an assignment that runs only when it holds nothing
        (`if x is None: x = value`), where its other assignments give it `held`."""
        return value

    def passes(self, label: Label, how: str) -> bool:
        """Whether `label` crosses a call boundary `how` ("arg" into a callee, "return")."""
        return True

    def through_attribute(self, label: Label) -> bool:
        """Whether a local's `label` is also carried by an attribute read from it (`x.epoch`)."""
        return False

    def choice(self, choice: Choice, parts: Sequence[Value]) -> Value:
        """`b if t else o` is b or o (not t); `a or b`, `a and b` are either operand."""
        return union(parts[1:] if choice.kind == "if" else parts)

    def rewrap(self, label: Label, inner: Label, binding: Mapping[str, Value]) -> Label | None:
        """`label` (made from a parameter) made from `inner` instead, at a call site that binds the
        callee's parameters to `binding` (which decides its conditions); None when it would not be."""
        if label.inner is None:
            return inner
        made = self.rewrap(label.inner, inner, binding)
        if made is None:
            return None
        if label.kind == CONDITIONAL:
            return self._settled(label.key, made, binding)  # type: ignore[arg-type]
        return Label(label.kind, label.key, made)

    def _settled(
        self, clauses: Sequence[tuple[str, ...]], made: Label, binding: Mapping[str, Value]
    ) -> Label | None:
        """A conditional label at a call site: what `met` makes of it where the arguments meet its
        condition; conditional on the caller's parameters where the condition depends on them and
        the label is still made from one; else unconditional, as if the callee were inlined. An
        argument that is a caller's parameter only on conditions of its own (`m = max(cur, hist)`
        passed on) meets a clause where that parameter's argument does: a met label is handed on."""
        pending: list[tuple[str, ...]] = []
        for clause in clauses:
            arguments = union(binding.get(name, EMPTY) for name in clause)
            if any(self.meets(label) for label in arguments):
                continue
            renamed = tuple(sorted({name for label in arguments if (name := passed_parameter(label)) is not None}))
            if not renamed or not depends_on_parameter(made):
                return made
            pending.append(renamed)
        return conditional(tuple(pending), made) if pending else self.met(made)

    def meets(self, label: Label) -> bool:
        """Whether an argument's `label` meets a clause of a conditional label's condition."""
        return False

    def met(self, label: Label) -> Label | None:
        """What a conditional label hands on where its condition holds (None: nothing)."""
        return label

    def originates(self, fid: str, call: Call) -> bool:
        """Whether a call makes labels of its own, whatever its arguments (a source method)."""
        return False

    def may_read(self, fid: str, ref: Ref) -> bool:
        """False where `read` makes no label of a name path of `fid` wherever it is read: the search
        for the functions that make labels (every name path of every function) reads only the rest."""
        return True

    def keeps_event(self, label: Label) -> bool:
        """Whether an event still holds once a parameter's label is replaced by `label`."""
        return True

    def value_events(self, fid: str, site: Site, flow: Flow, value: Value) -> Iterable[Event]:
        return ()

    def call_events(self, ctx: CallContext) -> Iterable[Event]:
        return ()


# -- the per-function index (domain independent) ---------------------------------------------------

# Where a produced value goes: ("local", name), ("store", Ref), ("return",), ("arg", call, key),
# ("recv", call), ("part", choice index, part index).
Dest = tuple[object, ...]


@dataclass(frozen=True)
class _Producer:
    """An expression whose value the index follows: a name path read, a call, or a choice."""

    kind: str
    index: int
    site: Site
    flow: Flow
    dests: tuple[Dest, ...]


@dataclass
class _Index:
    fid: str
    qualname: str
    params: tuple[str, ...]
    accesses: tuple[Access, ...]
    calls: dict[int, Call]
    choices: tuple[Choice, ...]
    producers: list[_Producer] = field(default_factory=list)
    # Composite producers (calls, choices) by position in `producers`, innermost first.
    composites: list[int] = field(default_factory=list)
    call_producer: dict[int, int] = field(default_factory=dict)
    # Call id -> argument key -> producers of that argument's value.
    arguments: dict[int, dict[str, list[int]]] = field(default_factory=dict)
    inputs: dict[Dest, list[int]] = field(default_factory=dict)
    binds: list[Bind] = field(default_factory=list)
    # Where a loop target's iterable, a name path, is read, by the target's bind (see `_iterated_at`).
    iterated_at: dict[int, Site] = field(default_factory=dict)
    # Container writers: (call id, destination of the receiver).
    writers: list[tuple[int, Dest]] = field(default_factory=list)
    # Loads of each local name (any attribute path rooted at it).
    loads: dict[str, list[Access]] = field(default_factory=dict)
    # The bodies that run only when a local holds nothing (`if x is None:`), by local name.
    fallbacks: dict[str, list[Pos]] = field(default_factory=dict)
    # Each local that names what another does (see `_local_aliases`): the other, and where.
    aliases: dict[str, tuple[str, Site]] = field(default_factory=dict)
    # One name of a tuple target assigned a call's result (`epoch, size = self.snapshot()`), by
    # (name, call id): the position of its element of the result.
    unpacked: dict[tuple[str, int], int] = field(default_factory=dict)
    # The read of a name path whose value a tuple target takes (`epoch, offset = pair`), by its
    # position in `producers`: the position of each name's element of it.
    unpacked_reads: dict[int, dict[str, int]] = field(default_factory=dict)
    # The locals whose elements the function moves in place (see `_reordered_paths`), with the
    # locals their aliases name.
    reordered: frozenset[str] = frozenset()
    # Where sites lie and which assignment replaces which before a read: questions each solve of the
    # function asks again, in each domain, with the same answer, which depends on the function's
    # facts and the sites asked about alone (see `_Frame._conditions`, `_Frame._ran_where_held`,
    # `_Frame._arms_passed_over`, `_Frame._replaced`): answered once, by site.
    conditions: dict[Site, frozenset[object]] = field(default_factory=dict)
    ran_where_held: dict[Site, frozenset[object]] = field(default_factory=dict)
    arms_passed_over: dict[Site, frozenset[Pos]] = field(default_factory=dict)
    replaced: dict[tuple[Site, Site, tuple[Site, ...], tuple[bool, ...]], bool] = field(default_factory=dict)
    # What each call runs and binds (see `_CallRuns`), by call id: asked at each evaluation of it,
    # in every round of every solve, in each domain, with the same answer.
    call_runs: dict[int, _CallRuns] = field(default_factory=dict)


class _CallRuns(NamedTuple):
    """What the data flow asks of a call at each evaluation of it: what it calls; the project
    functions it runs, each with its kind of call site and the bindings of its parameters (see
    `Bound`); the functions whose results make up what it returns where none of those gives it (a
    Java collector's, bound to nothing, and those Python's `map` runs, with their bindings: see
    `_Frame._held`) and whether it gives the elements of the stream it is called on; and the
    functions it binds arguments of for a later call (see `bound_for_later`), with their bindings."""

    callee: Entity
    runs: tuple[tuple[str, str, tuple[Bound, ...]], ...]
    held: tuple[str, ...]
    mapped: tuple[tuple[str, tuple[Bound, ...]], ...]
    keeps_elements: bool
    later: tuple[tuple[str, tuple[Bound, ...]], ...]


def _inner_first(pos: Pos) -> tuple[int, int, int, int]:
    """A sort key that puts a span before every span containing it (a contained span starts no
    earlier, and ends earlier when it starts at the same place)."""
    return (-pos[0], -pos[1], pos[2], pos[3])


def _same_flow(a: Flow, b: Flow) -> bool:
    return (a.kind, a.targets, a.call, a.stores, a.element, a.item_store) == (
        b.kind, b.targets, b.call, b.stores, b.element, b.item_store
    )


def _build_index(program: Program, fid: str) -> _Index:
    function = program.symbols.function(fid)
    self_name = program.symbols.self_param(fid)
    index = _Index(
        fid=fid,
        qualname=function.qualname,
        params=tuple(p.name for p in function.params if p.name != self_name),
        accesses=function.accesses,
        calls={call.id: call for call in function.calls},
        choices=function.choices,
    )
    raw: list[tuple[str, int, Site, Flow, Pos]] = []
    for number, access in enumerate(function.accesses):
        raw.append(("access", number, access.site, access.flow, access.site.pos))
        if access.ref.scope == function.qualname:
            index.loads.setdefault(access.ref.name, []).append(access)
    for call in function.calls:
        raw.append(("call", call.id, call.site, call.flow, call.site.pos))
    for number, choice in enumerate(function.choices):
        raw.append(("choice", number, Site(choice.pos), choice.flow, choice.pos))
    for kind, number, site, flow, pos in raw:
        dests = _choice_part(function.choices, kind, number, flow, pos)
        if dests is None:
            dests = _flow_dests(flow, function.qualname) + _walrus_tested(function.choices, flow, pos)
        index.producers.append(_Producer(kind, number, site, flow, dests))
    for position, producer in enumerate(index.producers):
        for dest in producer.dests:
            index.inputs.setdefault(dest, []).append(position)
            if dest[0] == "arg":
                by_key = index.arguments.setdefault(dest[1], {})  # type: ignore[arg-type]
                by_key.setdefault(str(dest[2]), []).append(position)
        if producer.kind == "call":
            index.call_producer[producer.index] = position
    index.composites = sorted(
        (p for p, producer in enumerate(index.producers) if producer.kind != "access"),
        key=lambda p: _inner_first(index.producers[p].site.pos),
    )
    index.binds = [
        bind for bind in function.binds
        if bind.kind in ("iter", "iter_part", "with") and (bind.value_ref or bind.value_call >= 0)
    ]
    index.iterated_at = _iterated_at(function.accesses, index.binds)
    for fallback in function.fallbacks:
        index.fallbacks.setdefault(fallback.name, []).append(fallback.body)
    for call in function.calls:
        receiver = receiver_path(call)
        if call.method in CONTAINER_WRITERS and receiver is not None:
            index.writers.append((call.id, _store_dest(receiver, function.qualname)))
    index.aliases = dict(_local_aliases(program.symbols.binds(fid), index))
    index.unpacked = {
        (bind.name, bind.value_call): bind.index
        for bind in function.binds
        if bind.kind == "unpack" and bind.value_call >= 0
    }
    for bind in function.binds:
        read = _unpacked_read(index, bind) if bind.kind == "unpack" and bind.value_ref is not None else None
        if read is not None:
            index.unpacked_reads.setdefault(read, {})[bind.name] = bind.index
    index.reordered = _reordered_locals(function, index.aliases)
    return index


def _reordered_paths(function: FunctionFacts) -> Iterator[Ref]:
    """The name paths of the containers whose elements `function` moves in place, so that an
    element is no longer at the position it was written at: a reordering method called on one
    (`epochs.sort()`, `epochs.pop(0)`, not `epochs.pop()` nor `fields.pop("k")`), a reordering
    function given one first (`random.shuffle(epochs)`), a removal of an item not at a key of a
    dict (`del epochs[0]`), or a slice store (`epochs[:1] = []`, `self.pair[1:] = []`); a store
    at a position or a key (`self.pair[1] = e`, `self.offsets[tp] = o`) moves no element."""
    for call in function.calls:
        receiver = receiver_path(call)
        if receiver is not None and call.method in REORDERING_METHODS and (call.method != "pop" or _pops_at(call)):
            yield receiver
        first = call.args[0] if call.args else None
        if call.method in REORDERING_FUNCTIONS and first is not None and first.ref is not None and not first.keyword:
            yield first.ref
    for write in function.writes:
        if write.kind == "delete" and write.ref.attrs[-1:] == ("[]",) and not write.key.isidentifier():
            yield write.ref._replace(attrs=write.ref.attrs[:-1])
        elif write.kind == "item" and write.sliced:
            yield write.ref


def _pops_at(call: Call) -> bool:
    """Whether a `pop` call takes an element off at a position (`epochs.pop(0)`), moving those after
    it, not the last element (`pop()`) nor the item at a dict's key (`pop("k")`)."""
    first = call.args[0] if call.args else None
    return first is not None and not (first.kind == "const" and first.text[-1:] in ("'", '"'))


def _reordered_locals(function: FunctionFacts, aliases: Mapping[str, tuple[str, Site]]) -> frozenset[str]:
    """The locals of `function` whose elements it moves in place (see `_reordered_paths`), through
    an alias (`kw = epochs`, then `kw.reverse()`) too: the two name one list."""
    found = {ref.name for ref in _reordered_paths(function) if ref.scope == function.qualname and not ref.attrs}
    pending = list(found)
    while pending:
        aliased = aliases.get(pending.pop())
        if aliased is not None and aliased[0] not in found:
            found.add(aliased[0])
            pending.append(aliased[0])
    return frozenset(found)


def _unpacked_read(index: _Index, bind: Bind) -> int | None:
    """The read of the name path whose value one name of a tuple target takes (`epoch` of `epoch,
    offset = pair`): the first read of that path assigned to that name after it."""
    reads = [
        position
        for position, producer in enumerate(index.producers)
        if producer.kind == "access"
        and bind.name in producer.flow.targets
        and index.accesses[producer.index].ref == bind.value_ref
        and producer.site.pos[:2] >= bind.site.pos[:2]
    ]
    return min(reads, key=lambda position: index.producers[position].site.pos, default=None)


def _local_aliases(binds: Mapping[str, Sequence[Bind]], index: _Index) -> Iterator[tuple[str, tuple[str, Site]]]:
    """(alias, (aliased, where the alias is bound)) of each local bound once, to another local of
    the function alone (`kw = fields`): the two name one container, so that a store into an item
    of the alias stores into the other (see `_Frame._add_stores_through_aliases`)."""
    for name, bound in binds.items():
        ref = bound[0].value_ref
        if len(bound) != 1 or bound[0].kind != "assign" or ref is None:
            continue
        if ref.scope != index.qualname or ref.attrs or ref.name == name:
            continue
        # The value is that name alone: not `fields or {}`, `fields + extra`, `fields.copy()`.
        assigned = [
            index.producers[position]
            for position in index.inputs.get(("local", name), ())
            if name in index.producers[position].flow.targets
        ]
        if len(assigned) == 1 and assigned[0].kind == "access" and index.accesses[assigned[0].index].ref == ref:
            yield name, (ref.name, bound[0].site)


def _iterated_at(accesses: Sequence[Access], binds: Sequence[Bind]) -> dict[int, Site]:
    """Where each loop target's iterable is read (`self._epochs` of `for e in self._epochs`): the
    first read of that path as an iterable after the target, which is where the loop reads it (a
    read there is the one EPL001 reports), not where the target takes it."""
    iterables: dict[Ref, list[Site]] = {}
    for access in accesses:
        if access.flow.kind == FLOW_ITER:
            iterables.setdefault(access.ref, []).append(access.site)
    found: dict[int, Site] = {}
    for bind in binds:
        if bind.kind == "with" or bind.value_ref is None:
            continue
        after = [site for site in iterables.get(bind.value_ref, ()) if site.pos[:2] >= bind.site.pos[2:]]
        if after:
            found[id(bind)] = min(after, key=lambda site: site.pos)
    return found


def _choice_part(
    choices: tuple[Choice, ...], kind: str, number: int, flow: Flow, pos: Pos
) -> tuple[Dest, ...] | None:
    """The part of the innermost choice that a producer's value is, if it is one."""
    best: tuple[tuple[int, int, int, int], Dest] | None = None
    for position, choice in enumerate(choices):
        if kind == "choice" and position == number:
            continue
        if not within(pos, choice.pos) or not _same_flow(flow, choice.flow):
            continue
        key = _inner_first(choice.pos)
        for part, part_pos in enumerate(choice.parts):
            if within(pos, part_pos) and (best is None or key < best[0]):
                best = (key, ("part", position, part))
    return (best[1],) if best is not None else None


def _walrus_tested(choices: tuple[Choice, ...], flow: Flow, pos: Pos) -> tuple[Dest, ...]:
    """A value assigned inside a conditional expression's test, by a walrus (`cur if (cur := f())
    is not None else hist`), is also what the test tests, as it is without the walrus."""
    if flow.kind != FLOW_ASSIGN or not flow.targets:
        return ()
    tested = [
        (_inner_first(choice.pos), position)
        for position, choice in enumerate(choices)
        if choice.kind == "if" and within(pos, choice.parts[0])
    ]
    return (("part", min(tested)[1], 0),) if tested else ()


def _flow_dests(flow: Flow, qualname: str) -> tuple[Dest, ...]:
    if flow.kind == FLOW_ASSIGN:
        locals_ = tuple(("local", name) for name in flow.targets)
        stores = tuple(_store_dest(ref, qualname) for ref in flow.stores)
        return locals_ + stores + _argument_dests(flow)
    if flow.kind in (FLOW_RETURN, FLOW_YIELD, FLOW_YIELD_FROM):
        return (("return",),)
    if flow.kind == FLOW_ARG:
        return _argument_dests(flow)
    if flow.kind == FLOW_RECEIVER:
        return (("recv", flow.call),)
    return ()


class Bound(NamedTuple):
    """A parameter (or an element of a star parameter: `element_key("args", "0")`) bound at a call
    to the argument of key `key` (keyword, or position as a string), or to its element `element`
    (a starred argument's, by position or keyword); with `first` >= 0, the star parameter's elements
    from `first` on, each to the argument's element `shift` places on (see `Spread`)."""

    param: str
    key: str
    element: str = ""
    first: int = -1
    shift: int = 0
    # Only for some lengths of a starred argument before it (see `Spread.maybe`).
    maybe: bool = False

    def whole(self) -> bool:
        """Whether the parameter takes the argument itself."""
        return not self.element and self.first < 0

    def elements(self, names: Iterable[str]) -> Iterator[tuple[str, str]]:
        """(element of the star parameter, element of the argument) for the elements of the
        parameter among `names` (parameter names) that this binding fills."""
        prefix = f"{self.param}["
        for name in names:
            if not name.startswith(prefix) or not name.endswith("]"):
                continue
            element = name[len(prefix) : -1]
            if not element.isdigit():
                yield name, element
            elif int(element) >= self.first:
                yield name, str(int(element) + self.shift)


def _element_of(args: Mapping[str, Value], key: str, element: str) -> dict[Label, Path]:
    """What the element `element` (position or keyword) of the starred argument of key `key`
    holds: the same element of each parameter it holds, which the callers bind where it is a
    `*args` or `**kwargs` parameter (`g(*args, **kwargs)` forwards them), and what a local it is
    holds at that key (see `_Frame._spread_locals`); the elements of anything else are unknown."""
    held = {
        param_label(element_key(str(label.key[0]), element)): path
        for label, path in args.get(key, EMPTY).items()
        if label.kind == PARAM and label.inner is None
    }
    merge(held, args.get(element_key(key, element), EMPTY))
    return held


def _argument_dests(flow: Flow) -> tuple[Dest, ...]:
    """The argument a value is (`f(x)`, or a walrus's `f(x := v)`), if it is one."""
    keys = flow.argument_keys()
    if len(keys) == 2:
        # An element of a literal argument is part of the argument, and an argument of its own
        # when a hand-off binds the elements (`Thread(target=f, args=(a, b))`).
        return (("arg", flow.call, keys[0]), ("arg", flow.call, element_key(*keys)))
    return (("arg", flow.call, keys[0]),) if keys else ()


def element_key(argument: str, element: str) -> str:
    """The key of an element of a literal argument (see `Arg.items`), or of a spread local (see
    `_Frame._spread_locals`), among a call's arguments; the name of an element of a `*args` or
    `**kwargs` parameter (see `_element_of`), or of a local (see `Flow.element`)."""
    return f"{argument}[{element}]"


def element_field(target: FieldId, key: str) -> FieldId:
    """Where the analysis keeps what the element `key` (a position; "": none, a starred part) of
    the tuples or lists written out stored into field `target` holds (`self.pair = (cur, offset)`)."""
    return FieldId(target.owner, (*target.path, f"[{key or '*'}]"), target.is_global)


def _element_of_field(target: FieldId) -> tuple[FieldId, str] | None:
    """The field and the key of an element's place (see `element_field`); None for a field."""
    last = target.path[-1] if target.path else ""
    if len(last) < 3 or last[0] != "[" or last[-1] != "]":
        return None
    key = last[1:-1]
    return FieldId(target.owner, target.path[:-1], target.is_global), "" if key == "*" else key


def _element_held(whole: Value, parts: Mapping[str, Value], key: str) -> Value:
    """What the element `key` of a tuple or list takes of `whole`, what a name path holds, whose
    parts by element are `parts` (see `_Frame._parts_of`): all but what only its other elements
    hold. What a field holds besides (stored whole by a function that stores no tuple into it)
    has no parts: it is taken whole, unless another element holds it too."""
    kept = {*parts.get(key, EMPTY), *parts.get("", EMPTY)}
    others = {label for other, part in parts.items() if other not in (key, "") for label in part}
    return {label: path for label, path in whole.items() if label in kept or label not in others}


def _store_dest(ref: Ref, qualname: str) -> Dest:
    """An item of a local container is the local; anything else is a store into a path."""
    if ref.scope == qualname and all(attr == "[]" for attr in ref.attrs):
        return ("local", ref.name)
    return ("store", ref)


# -- the engine ------------------------------------------------------------------------------------


class DataFlow:
    """Per-function indexes (shared by every domain) and one memoised analysis per domain."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._indexes: dict[str, _Index] = {}
        self._analyses: dict[str, Analysis] = {}
        self._bindings: dict[tuple[str, str, int, int, bool], tuple[Bound, ...]] = {}

    def release(self) -> None:
        """Drop the analyses, each of which keeps this data flow (see `Program.release`)."""
        for analysis in self._analyses.values():
            vars(analysis).clear()
        vars(self).clear()

    def index(self, fid: str) -> _Index:
        cached = self._indexes.get(fid)
        if cached is None:
            cached = self._indexes[fid] = _build_index(self.program, fid)
        return cached

    @cached_property
    def ranks(self) -> dict[str, int]:
        """Callees before callers; the members of a cycle share a rank. The same for every
        domain: the call graph's condensation is computed once, not once per rule."""
        import networkx as nx

        condensed = nx.condensation(self.program.calls.graph)
        rank: dict[str, int] = {}
        for number, component in enumerate(reversed(list(nx.topological_sort(condensed)))):
            for fid in condensed.nodes[component]["members"]:
                rank[fid] = number
        return rank

    @cached_property
    def _captures(self) -> dict[tuple[str, str], tuple[str, Site]]:
        """(nested function, local name) -> (the enclosing function whose local it reads, where
        the enclosing function first names the nested one: a lambda's call, a def's use)."""
        symbols = self.program.symbols
        found: dict[tuple[str, str], tuple[str, Site]] = {}
        for fid, (module, function) in symbols.functions.items():
            for access in function.accesses:
                ref = access.ref
                if ref.attrs or not ref.scope or ref.scope == function.qualname:
                    continue
                outer = function_id(module.name, ref.scope)
                if outer in symbols.functions and (fid, ref.name) not in found:
                    entered = self._entry_site(outer, fid)
                    if entered is not None:
                        found[(fid, ref.name)] = (outer, entered)
        return found

    def _entry_site(self, outer: str, nested: str) -> Site | None:
        """Where `outer` hands on or calls its nested function `nested` first, by position; where
        it defines it, for one it neither calls nor hands on (returned, or kept: it runs later)."""
        sites = [site.site for site in self.program.calls.sites_from.get(outer, ()) if site.callee == nested]
        if sites:
            return min(sites, key=lambda site: site.pos)
        defined = self.program.symbols.function(nested)
        return Site(defined.pos) if defined.parent == self.program.symbols.function(outer).qualname else None

    @cached_property
    def closures(self) -> dict[str, tuple[set[str], set[str]]]:
        """Enclosing function -> the nested functions that read its locals, and those locals."""
        found: dict[str, tuple[set[str], set[str]]] = {}
        for (nested, name), (outer, _) in self._captures.items():
            nested_functions, names = found.setdefault(outer, (set(), set()))
            nested_functions.add(nested)
            names.add(name)
        return found

    def capture(self, fid: str, ref: Ref) -> tuple[str, Site] | None:
        """Where the local `ref` of an enclosing function, read in `fid`, comes from."""
        return self._captures.get((fid, ref.name)) if ref.scope else None

    def analyse(self, domain: Domain) -> Analysis:
        """The analysis of `domain`, computed on first use and reused."""
        cached = self._analyses.get(domain.key)
        if cached is None:
            cached = self._analyses[domain.key] = Analysis(self, domain)
        return cached

    @cached_property
    def reordered_fields(self) -> frozenset[FieldId]:
        """The fields whose elements some function of the program moves in place (see
        `_reordered_paths`): a tuple target unpacking one takes no element of its own of it."""
        found: set[FieldId] = set()
        for fid, (_, function) in self.program.symbols.functions.items():
            for ref in _reordered_paths(function):
                target = self.field_of(fid, ref)
                if target is not None:
                    found.add(target)
        return frozenset(found)

    def field_of(self, fid: str, ref: Ref) -> FieldId | None:
        """The shared location a name path denotes; a plain local name is never one (a local
        that copied a field holds a value, it does not alias the field)."""
        if ref.scope and not ref.attrs:
            return None
        return self.program.symbols.field(fid, ref)

    def loads(self, fid: str, name: str) -> list[Access]:
        """Every read of the local `name` in `fid` (bare, or as the root of a path)."""
        return self.index(fid).loads.get(name, [])

    def definition_site(self, fid: str, name: str, at: Site) -> Site:
        """The assignment of local `name` that takes the value computed at `at`."""
        best = at
        for bind in self.program.symbols.binds(fid).get(name, ()):
            if bind.kind in ("assign", "unpack", "annotation") and bind.site.pos[:2] <= at.pos[:2]:
                if best is at or bind.site.pos[:2] > best.pos[:2]:
                    best = bind.site
        return best

    def call_runs(self, fid: str, call: Call) -> _CallRuns:
        """What the data flow asks of a call (see `_CallRuns`), found once: it depends on the
        program alone, the same in each solve of the function, in each round and each domain."""
        index = self.index(fid)
        found = index.call_runs.get(call.id)
        if found is None:
            found = index.call_runs[call.id] = self._call_runs(fid, call)
        return found

    def _call_runs(self, fid: str, call: Call) -> _CallRuns:
        calls, symbols = self.program.calls, self.program.symbols
        runs = tuple(
            (site.callee, site.kind, self.bound_argument_keys(site.callee, fid, call, site.bound_ahead))
            for site in calls.sites_of_call.get((fid, call.id), ())
            if not site.via_argument and site.kind != PROPERTY
        )
        later = tuple(
            (callee, self.bound_argument_keys(callee, fid, call, bound_ahead(wrapped), as_bound))
            for callee, wrapped, as_bound in bound_for_later(symbols, fid, call)
        )
        mapped = tuple(
            (function, self.bound_argument_keys(function, fid, call, ahead, as_bound))
            for function, ahead, as_bound in calls.functions_mapped(fid, call)
        )
        held = tuple(calls.functions_held(fid, call))
        return _CallRuns(symbols.callee(fid, call), runs, held, mapped, calls.keeps_elements(fid, call), later)

    def bound_arguments(self, callee: str, fid: str, call: Call, ahead: int = 0) -> dict[str, str]:
        """Parameter -> argument key (keyword, or position as a string) at a resolved call of
        `callee` in `fid` (for `**kwargs`, the last keyword it takes), after the `ahead`
        positional arguments a `functools.partial` binds: the arguments that one parameter takes
        whole, not the elements of starred ones, nor the elements of star parameters, nor those an
        argument after a `*` one of unknown length may land on."""
        keys = self.bound_argument_keys(callee, fid, call, ahead)
        # An element of a star parameter is named as an element is (`args[0]`), no identifier.
        return {
            bound.param: bound.key
            for bound in keys
            if bound.whole() and not bound.maybe and bound.param.isidentifier()
        }

    def bound_argument_keys(
        self, callee: str, fid: str, call: Call, ahead: int = 0, as_bound: Call | None = None
    ) -> tuple[Bound, ...]:
        """The bindings at a resolved call (see `Bound`): `**kwargs` takes several keywords, and a
        parameter may take an element of a starred argument. `as_bound`: the call as it binds the
        parameters, where its arguments are some of `call`'s (those it binds for a later call: see
        `bound_for_later`); keys are those of `call`."""
        key = (callee, fid, call.id, ahead, as_bound is not None)
        cached = self._bindings.get(key)
        if cached is None:
            keys: dict[int, str] = {}
            for position, arg in enumerate(call.args):
                keys[id(arg)] = arg.keyword or str(position)
                for index, item in enumerate(arg.items):
                    keys[id(item)] = element_key(keys[id(arg)], item.keyword or str(index))
            cached = self._bindings[key] = tuple(
                Bound(
                    element_key(spread.param, spread.param_element) if spread.param_element else spread.param,
                    keys[id(spread.arg)],
                    spread.arg_element,
                    spread.first,
                    spread.shift,
                    spread.maybe,
                )
                for spread in self.program.spread_arguments(callee, as_bound or call, ahead)
            )
        return cached


class Analysis:
    """One domain's summaries, field values and events over the whole program.

    Solved with a worklist over the functions the domain's labels reach, and what they call: first
    the functions where labels are made; then, as the solving finds them, the callers of a function
    that returns a label of its own and the readers of a field one is stored into (and the nested
    functions that read a solved function's locals). Any other function sees no label of its own.
    Callees come first (over the condensation of the call graph), each again only where something
    it uses changed: a callee's summary, or the value of a field it reads. A function is solved at
    most `_MAX_VISITS` times (values only grow, but for a sanitiser that drops labels; the bound
    keeps such a cycle finite).

    Of what a reached function calls, only what can change a report is solved: a callee that a
    solved function passes a label to (one of its own, or a parameter's, which its callers may
    bind to one), and so on down, and a function whose locals a solved nested function reads. A
    callee's summary counts at a call only through the labels the call binds to its parameters,
    and through the labels of its own, which only a reached function has: one passed no label
    gives the call nothing, solved or not (see `_Frame.consulted`). The worklist still comes to
    each active function where it came before, which fixes the order field values are merged in
    (see `_solved_first`), and a function consulted only after the worklist came to it is solved
    then, before the frame that consults it is kept (see `_run`), as it was solved before it.
    """

    def __init__(self, flow: DataFlow, domain: Domain) -> None:
        self.flow = flow
        self.program = flow.program
        self.domain = domain
        self.summaries: dict[str, Summary] = {}
        self.fields: dict[FieldId, dict[Label, Path]] = {}
        # What each field holds by the element of the tuples or lists written out stored into it
        # (see `element_field`; "": a starred part), where a function stores one.
        self.field_elements: dict[FieldId, dict[str, dict[Label, Path]]] = {}
        self._events: dict[str, list[Event]] = {}
        self._stores: dict[str, dict[FieldId, dict[Label, Path]]] = {}
        # The functions that store into each field: a field's value is the union of theirs only
        # (scanning every function's stores at each change made the solve quadratic in the unit).
        self._storers: dict[FieldId, set[str]] = {}
        # The order the worklist first came to each active function in, solved or passed over.
        self._solved_first: dict[str, int] = {}
        self._reads: dict[tuple[str, Ref, Pos], tuple[Value, bool]] = {}
        self._named: dict[str, tuple[Summary, frozenset[str]]] = {}
        # The locals of each function that nested functions read (closures), as last solved.
        self.captured: dict[str, dict[str, dict[Label, Path]]] = {}
        self._run()

    @property
    def events(self) -> list[Event]:
        """Events whose labels depend on no parameter: the ones to report."""
        return [event for fid in sorted(self._events) for event in self._events[fid]]

    def summary(self, fid: str) -> Summary:
        return self.summaries.get(fid) or Summary()

    def parameters_named(self, fid: str) -> frozenset[str]:
        """The parameters (and elements of star parameters) whose labels `fid`'s summary holds."""
        summary = self.summary(fid)
        cached = self._named.get(fid)
        if cached is None or cached[0] is not summary:
            cached = self._named[fid] = (summary, _parameters_in(summary))
        return cached[1]

    def read(self, fid: str, ref: Ref, site: Site) -> tuple[Value, bool]:
        """The domain's labels for a name path read at `site`, asked once."""
        key = (fid, ref, site.pos)
        cached = self._reads.get(key)
        if cached is None:
            cached = self._reads[key] = self.domain.read(fid, ref, site)
        return cached

    def _run(self) -> None:
        rank = self.flow.ranks
        calls = self.program.calls
        readers = self._field_readers() if self.domain.track_fields else {}
        closures = self.flow.closures
        active: set[str] = set()
        # The active functions that are solved (see `Analysis`), and those the worklist came to
        # while they were not: passed over, until a solved function consults them.
        solving: set[str] = set()
        passed_over: set[str] = set()
        visits: dict[str, int] = {}
        queue: list[tuple[int, str]] = []
        queued: set[str] = set()

        def enqueue(fid: str) -> None:
            if fid not in queued:
                queued.add(fid)
                heapq.heappush(queue, (rank[fid], fid))

        def new_callees(fid: str) -> Iterator[str]:
            return (site.callee for site in calls.sites_from.get(fid, ()) if site.callee not in active)

        def activates_capturers(fid: str) -> bool:
            # Whether solving `fid` is what may make a nested function that reads its locals active:
            # one it neither calls nor hands on, so not among its callees (returned, or kept).
            capturers = closures[fid][0] if fid in closures else set()
            return not capturers <= {site.callee for site in calls.sites_from.get(fid, ())}

        def activate(reached: set[str]) -> None:
            # A newly reached function's callees are active too: their summaries say what becomes
            # of the labels it passes them, where it passes them any.
            new = _closure(reached - active, new_callees)
            active.update(new)
            solving.update(fid for fid in new if activates_capturers(fid))
            for fid in new:
                enqueue(fid)

        def visit(fid: str) -> bool:
            visits[fid] = visits.get(fid, 0) + 1
            return visits[fid] <= _MAX_VISITS

        def solve(first: str) -> None:
            # A frame is kept once the functions it consults (see `_Frame.consulted`) that the
            # worklist passed over are solved, each the same way, the lowest rank first: they were
            # solved before it. The frames under one on the stack are solved again after it, and
            # see what it changed.
            settling = [first]
            while settling:
                fid = settling[-1]
                frame = _Frame(self, fid)
                frame.solve()
                found = frame.results()
                consulted = frame.consulted & active
                solving.update(consulted)
                late = sorted(consulted & passed_over, key=lambda other: (rank[other], other), reverse=True)
                passed_over.difference_update(late)
                settling.extend(callee for callee in late if visit(callee))
                if late:
                    continue
                settling.pop()
                again, reached, seeing = self._analyse_function(frame, found, readers)
                activate(reached)
                solving.update(seeing & active)
                for changed in again & (solving - set(settling)):
                    enqueue(changed)

        origins = {fid for fid in self.program.symbols.functions if self._originates(fid)}
        activate(origins)
        solving.update(origins)
        while queue:
            _, fid = heapq.heappop(queue)
            queued.discard(fid)
            self._solved_first.setdefault(fid, len(self._solved_first))
            if fid not in solving:
                passed_over.add(fid)
            elif visit(fid):
                passed_over.discard(fid)
                solve(fid)

    def _originates(self, fid: str) -> bool:
        # From the facts, not the index: most functions are never solved, nor indexed.
        function = self.program.symbols.function(fid)
        # A plain local holds what it was given (see `ref_value`): no label is made there.
        refs = [(a.ref, a.site) for a in function.accesses if a.ref.attrs or a.ref.scope != function.qualname]
        refs += [(bind.value_ref, bind.site) for bind in function.binds if bind.value_ref is not None]
        if any(self.domain.may_read(fid, ref) and self.read(fid, ref, site)[0] for ref, site in refs):
            return True
        return any(self.domain.originates(fid, call) for call in function.calls)

    def _field_readers(self) -> dict[FieldId, set[str]]:
        readers: dict[FieldId, set[str]] = {}
        for fid, (_, function) in self.program.symbols.functions.items():
            for access in function.accesses:
                target = self.flow.field_of(fid, access.ref)
                if target is not None:
                    readers.setdefault(target, set()).add(fid)
        return readers

    def _analyse_function(
        self, frame: _Frame, found: _Found, readers: Mapping[FieldId, set[str]]
    ) -> tuple[set[str], set[str], set[str]]:
        """Keep what one function's solved frame found; return the functions to solve again because
        of what changed, those its labels now reach (its callers, when it returns a label of its
        own, the readers of a field it stores one into, and the nested functions that read its
        locals, when those changed), and those that see a label of its own there: these, but the
        nested functions where its locals hold none, and the callers it returns one to only in an
        element of a tuple (see `Summary.returned_parts`), which see it where they unpack one."""
        fid = frame.fid
        summary, events, stores = found
        before = self.summaries.get(fid)
        self.summaries[fid] = summary
        self._events[fid] = events
        again: set[str] = set()
        reached: set[str] = set()
        seeing: set[str] = set()
        if before is None or before.shape() != summary.shape():
            callers = {site.caller for site in self.program.calls.sites_to.get(fid, ())}
            again.update(callers)
            if _holds_its_own(summary.returns):
                reached.update(callers)
                seeing.update(callers)
            elif any(_holds_its_own(part) for part in summary.returned_parts.values()):
                seeing.update(callers)
        if fid in self.flow.closures:
            # Its nested functions read its locals: solved (again) when the labels there change.
            capturers, names = self.flow.closures[fid]
            held = {name: dict(frame.locals.get(name, EMPTY)) for name in names}
            if _shape(held) != _shape(self.captured.get(fid, {})):
                again.update(capturers)
                reached.update(capturers)
                if any(_holds_its_own(value) for value in held.values()):
                    seeing.update(capturers)
            self.captured[fid] = held
        old = self._stores.get(fid, {})
        self._stores[fid] = stores
        for target in stores:
            self._storers.setdefault(target, set()).add(fid)
        for target in set(old) | set(stores):
            if frozenset(old.get(target, EMPTY)) != frozenset(stores.get(target, EMPTY)):
                # In the order the worklist first came to the functions, as the paths' ties were
                # broken when each was solved there.
                storers = sorted(self._storers.get(target, ()), key=self._solved_first.__getitem__)
                self.fields[target] = union(self._stores[f][target] for f in storers if target in self._stores[f])
                read = self._field_read(target)
                again.update(readers.get(read, ()))
                reached.update(readers.get(read, ()))
                seeing.update(readers.get(read, ()))
        return again, reached, seeing

    def _field_read(self, target: FieldId) -> FieldId:
        """The field whose reads take what `target` holds: itself, or the field of an element's
        place (see `element_field`), whose parts by element are kept up to date here."""
        element = _element_of_field(target)
        if element is None:
            return target
        self.field_elements.setdefault(element[0], {})[element[1]] = self.fields[target]
        return element[0]

    # -- instantiation at call sites -------------------------------------------------------------

    def instantiate(
        self, value: Value, binding: Mapping[str, Value], enter: Hop, leave: Hop | None
    ) -> dict[Label, Path]:
        """A callee's `value` seen at a call site: parameters replaced by the arguments' values."""
        result: dict[Label, Path] = {}
        tail = (leave,) if leave is not None else ()
        for label, path in value.items():
            if not depends_on_parameter(label):
                merge(result, {label: (*path, *tail)})
                continue
            for argument, argument_path in binding.get(str(label.root().key[0]), EMPTY).items():
                if not self.domain.passes(argument, "arg"):
                    continue
                made = self.domain.rewrap(label, argument, binding)
                if made is not None and (leave is None or self.domain.passes(made, "return")):
                    merge(result, {made: (*argument_path, enter, *path, *tail)})
        return result


class _Frame:
    """The values of one function's locals and expressions, solved to a fixpoint."""

    def __init__(self, analysis: Analysis, fid: str) -> None:
        self.analysis = analysis
        self.domain = analysis.domain
        self.flow = analysis.flow
        self.program = analysis.program
        self.fid = fid
        self.index = analysis.flow.index(fid)
        self.locals: dict[str, dict[Label, Path]] = {}
        # Per local: its assignments and item stores, and what it holds besides (see `_local_at`).
        self._assigned: dict[str, list[_Assignment]] = {}
        self._besides: dict[str, dict[Label, Path]] = {}
        self.values: list[Value] = []
        # What each name of a tuple target takes of a name path's value (see `_unpacked_reads`), by
        # the read's position in the index's producers and the name.
        self._unpacked: dict[tuple[int, str], Value] = {}
        self.contexts: dict[int, CallContext] = {}
        # The project functions each call runs, with its arguments bound to their parameters.
        self._callees: dict[int, list[tuple[str, dict[str, Value]]]] = {}
        # The functions whose results it reads where they may hold more than labels of their own:
        # those it binds a label to a parameter of (see `_binding`), whose summaries say what
        # becomes of it (instantiated with none, a summary gives a call nothing else), and those
        # whose locals it reads (see `ref_value`).
        self.consulted: set[str] = set()

    def solve(self) -> None:
        """Evaluate the expressions with the locals' values, until the locals are stable."""
        self.locals = self._parameters()
        for _ in range(_LOCAL_ROUNDS):
            self.values = self._evaluate()
            assigned = _assigned_shape(self._assigned)
            new_locals = self._locals()
            # Stable when no local, and no one assignment of one or its element (see `_local_at`),
            # holds more.
            stable = _shape(new_locals) == _shape(self.locals) and _assigned_shape(self._assigned) == assigned
            self.locals = new_locals
            if stable:
                return
        self.values = self._evaluate()

    # -- one pass over the expressions -----------------------------------------------------------

    def _evaluate(self) -> list[Value]:
        index = self.index
        values: list[Value] = [EMPTY] * len(index.producers)
        for position, producer in enumerate(index.producers):
            if producer.kind == "access":
                access = index.accesses[producer.index]
                value = self.ref_value(access.ref, access.site, access.above)
                values[position] = self.domain.leaves(producer.flow, value)
        for position in index.composites:
            producer = index.producers[position]
            if producer.kind == "call":
                value = self._call_value(index.calls[producer.index], values)
            else:
                choice = index.choices[producer.index]
                parts = [
                    self._gather(("part", producer.index, part), values)
                    for part in range(len(choice.parts))
                ]
                value = self.domain.choice(choice, parts)
            values[position] = self.domain.leaves(producer.flow, value)
        self._unpacked = self._unpacked_reads(values)
        return values

    def _unpacked_reads(self, values: Sequence[Value]) -> dict[tuple[int, str], Value]:
        """What each name of a tuple target assigned a name path's value takes (`epoch, offset =
        pair`, `= self.pair`): its element of what the path holds, where the read is (see
        `_element_held`), with the locals' values the reads have."""
        found: dict[tuple[int, str], Value] = {}
        for position, elements in self.index.unpacked_reads.items():
            access = self.index.accesses[self.index.producers[position].index]
            parts = self._parts_of(access.ref, access.site)
            for name, element in elements.items():
                found[(position, name)] = _element_held(values[position], parts, str(element))
        return found

    def _parts_of(self, ref: Ref, site: Site) -> Mapping[str, Value]:
        """What a name path read at `site` holds by the element of a tuple or list written out each
        part is ("": no element of its own): a local's (see `_elements_at`), with what it holds
        besides its assignments (a fallback's, a container writer's); a field's (see `element_field`).
        None of a list whose elements are moved in place (see `_reordered_paths`: by this function
        for a local, `epochs.sort()`; by any for a field, `self.pair.reverse()`), which a name of a
        tuple target then takes whole."""
        if ref.scope == self.index.qualname and not ref.attrs:
            name = self._named_local(ref.name, site)
            if name in self.index.reordered:
                return {}
            parts = self._elements_at(name, site)
            merge(parts.setdefault("", {}), self._besides.get(name, EMPTY))
            return parts
        target = self.flow.field_of(self.fid, ref) if self.domain.track_fields else None
        if target is None or target in self.flow.reordered_fields:
            return {}
        return self.analysis.field_elements.get(target, {})

    def _gather(self, dest: Dest, values: list[Value]) -> dict[Label, Path]:
        return union(values[p] for p in self.index.inputs.get(dest, ()))

    def ref_value(self, ref: Ref, site: Site, above: bool = False) -> Value:
        """The value read at a name path: a local's (the one an alias names there, see
        `_named_local`), a source's, a property's (the getter above the method's class, read
        through `super()`: `above`), a field's, or a local of an enclosing function that this one
        reads (a closure: `lambda m: m.epoch >= epoch`)."""
        index = self.index
        if ref.scope == index.qualname and not ref.attrs:
            return self._local_at(self._named_local(ref.name, site), site)
        if not ref.attrs and (captured := self.flow.capture(self.fid, ref)) is not None:
            outer, entered = captured
            self.consulted.add(outer)
            hop = Hop(outer, entered, HOP_PASS, f"captured by `{self.program.display_function(self.fid)}`")
            value: dict[Label, Path] = {}
            merge(value, self.analysis.captured.get(outer, {}).get(ref.name, EMPTY), hop)
            return value
        made, replaces = self.analysis.read(self.fid, ref, site)
        if replaces:
            return made
        value = dict(made)
        if ref.scope == index.qualname:
            held = self._local_at(self._named_local(ref.name, site), site)
            if any(attr != "[]" for attr in ref.attrs):
                held = {k: v for k, v in held.items() if self.domain.through_attribute(k)}
            merge(value, held)
        getter = self.program.symbols.property_read(self.fid, ref, above)
        if getter:
            hop = self._returned(getter, site)
            merge(value, self.analysis.instantiate(self.analysis.summary(getter).returns, {}, hop, hop))
        elif self.domain.track_fields:
            target = self.flow.field_of(self.fid, ref)
            stored = self.analysis.fields.get(target) if target is not None else None
            if target is not None and stored:
                merge(value, stored, Hop(self.fid, site, HOP_LOAD, f"read from `{target.display()}`"))
        return value

    def _call_value(self, call: Call, values: list[Value]) -> Value:
        args = {
            key: union(values[p] for p in producers)
            for key, producers in self.index.arguments.get(call.id, {}).items()
        }
        args.update(self._spread_locals(call, args))
        receiver = self._gather(("recv", call.id), values)
        self._callees[call.id] = list(self._resolved(call, args))
        resolved = self._returned_by(call, lambda _, summary: summary.returns) if self._callees[call.id] else None
        if resolved is None:
            resolved = self._held(call, args, receiver)
        callee_entity = self.flow.call_runs(self.fid, call).callee
        ctx = CallContext(self.flow, self.fid, call, args, receiver, resolved, callee_entity)
        self.contexts[call.id] = ctx
        return self.domain.call_value(ctx)

    def _returned_by(
        self,
        call: Call,
        returned: Callable[[str, Summary], Value],
        callees: Sequence[tuple[str, dict[str, Value]]] = (),
    ) -> dict[Label, Path]:
        """What the project functions `call` runs (or `callees`, with their arguments) return
        (`returned` gives it from each one and its summary), seen at the call."""
        result: dict[Label, Path] = {}
        for callee, binding in callees or self._callees[call.id]:
            value = returned(callee, self.analysis.summary(callee))
            if value:
                hop = self._returned(callee, call.site)
                merge(result, self.analysis.instantiate(value, binding, self._enter(callee, call.site), hop))
        return result

    def _held(self, call: Call, args: Mapping[str, Value], receiver: Value) -> dict[Label, Path] | None:
        """What a call of no project function holds of what the functions it maps each element by
        return, and of the stream it is called on, where it gives its elements (`toList()`,
        `collect(Collectors.toList())`); None for a call that holds nothing so. Python's
        `map(f, records)` binds `f`'s parameters to the elements, as a loop over `records` would
        (see `CallGraph.functions_mapped`); the functions of a Java `collect`'s collector (see
        `CallGraph.functions_held`) are bound to nothing: the stream's elements are not known here."""
        runs = self.flow.call_runs(self.fid, call)
        functions: list[tuple[str, dict[str, Value]]] = [(function, {}) for function in runs.held]
        functions += [(function, self._binding(args, keys, function)) for function, keys in runs.mapped]
        value = self._returned_by(call, lambda _, summary: summary.returns, functions) if functions else None
        if runs.keeps_elements:
            value = union((value or EMPTY, receiver))
        return value

    def _spread_locals(self, call: Call, args: Mapping[str, Value]) -> Iterator[tuple[str, dict[Label, Path]]]:
        """The elements of each local a call spreads (`f(**fields)`, `f(*args)`), under their keys
        among its arguments: what the local holds at that key where the call reads it (see
        `_elements_at`)."""
        for position, arg in enumerate(call.args):
            if not arg.star or not arg.text.isidentifier():
                continue
            key, whole = str(position), args.get(str(position), EMPTY)
            for element, held in self._elements_at(arg.text, call.site).items():
                if element:
                    yield element_key(key, element), {label: whole[label] for label in held if label in whole}

    def _elements_at(self, name: str, site: Site, seen: frozenset[Site] = frozenset()) -> dict[str, dict[Label, Path]]:
        """What local `name` holds at each key of its own (see `Flow.element`; "": at none) where it
        is read at `site`: the elements of the assignments and item stores that reach the read (see
        `_held_from`), of the local an alias names there (see `_named_local`). An alias whose local
        was bound again since (`kw = fields`, then `fields = {...}`) keeps the container it named:
        what that local held where the alias was bound. An assignment of a value held whole
        (`fields = dict(fields)`, `{**fields, "note": n}`) keeps, of what the local held where it
        was made, the elements that value holds, at keys it does not write out itself (`seen`: the
        assignments already asked)."""
        name = self._named_local(name, site)
        assigned = self._assigned.get(name, ())
        held: dict[str, dict[Label, Path]] = {}
        for assignment in assigned:
            parts = self._parts_held_from(assignment, site, assigned)
            for element, part in parts.items():
                merge(held.setdefault(element, {}), part)
            whole = parts.get("")
            if whole and assignment.site not in seen:
                for element, part in self._elements_at(name, assignment.site, seen | {assignment.site}).items():
                    if element not in parts:
                        merge(held.setdefault(element, {}), {label: part[label] for label in part if label in whole})
        aliased, at = self.index.aliases.get(name, (name, site))
        # Only back to an earlier alias: each step reads before the last, so a cycle of aliases ends.
        if aliased != name and at.pos[2:] <= site.pos[:2]:
            for element, part in self._elements_at(aliased, at, seen).items():
                merge(held.setdefault(element, {}), part)
        return held

    def _resolved(
        self, call: Call, args: Mapping[str, Value], handed_off: bool = True
    ) -> Iterator[tuple[str, dict[str, Value]]]:
        """The project functions a call runs (not those it only passes on), with the arguments
        bound to their parameters; without `handed_off`, not the coroutines it hands to a task of
        their own (`create_task(self._deliver(m, epoch))`)."""
        for callee, kind, keys in self.flow.call_runs(self.fid, call).runs:
            if kind != HANDOFF or handed_off:
                yield callee, self._binding(args, keys, callee)

    def _entered(self, call: Call, args: Mapping[str, Value]) -> Iterator[tuple[str, dict[str, Value]]]:
        """The project functions a call passes its arguments into, with them bound to their
        parameters: those it runs, and for a domain that follows them
        (`Domain.follows_bound_arguments`), the coroutines it hands to a task and those it binds
        them to for a later call (see
        `bound_for_later`), which take them whenever they run (what they store and commit, not
        what they return)."""
        yield from self._resolved(call, args, self.domain.follows_bound_arguments)
        if not self.domain.follows_bound_arguments:
            return
        for callee, keys in self.flow.call_runs(self.fid, call).later:
            yield callee, self._binding(args, keys, callee)

    def _binding(self, args: Mapping[str, Value], keys: Sequence[Bound], callee: str) -> dict[str, Value]:
        if _binds_a_label(args, keys):
            self.consulted.add(callee)
        binding: dict[str, dict[Label, Path]] = {}
        for bound in keys:
            if bound.first >= 0:
                # Only the elements that the callee's summary names can carry anything on.
                for param, element in bound.elements(self.analysis.parameters_named(callee)):
                    merge(binding.setdefault(param, {}), _element_of(args, bound.key, element))
            elif bound.element:
                merge(binding.setdefault(bound.param, {}), _element_of(args, bound.key, bound.element))
            else:
                merge(binding.setdefault(bound.param, {}), args.get(bound.key, EMPTY))
        return dict(binding)

    def _enter(self, callee: str, site: Site) -> Hop:
        return Hop(self.fid, site, HOP_PASS, f"passed to `{self.program.display_function(callee)}`")

    def _returned(self, callee: str, site: Site) -> Hop:
        return Hop(self.fid, site, HOP_RETURN, f"returned by `{self.program.display_function(callee)}`")

    # -- locals ----------------------------------------------------------------------------------

    def _parameters(self) -> dict[str, dict[Label, Path]]:
        """Each parameter holds its own label: what the callers pass, in the summary."""
        return {name: {param_label(name): ()} for name in self.index.params}

    def _locals(self) -> dict[str, dict[Label, Path]]:
        index = self.index
        result = self._parameters()
        besides: dict[str, dict[Label, Path]] = {}
        # A parameter is given its value where the function starts: a later assignment replaces it.
        start = self.program.symbols.function(self.fid).pos[:2]
        entry = Site(start + start)
        self._assigned = {name: [_assignment(entry, value)] for name, value in result.items()}
        for dest, producers in index.inputs.items():
            if dest[0] != "local":
                continue
            name = str(dest[1])
            target = result.setdefault(name, {})
            fallbacks: list[Value] = []
            bodies = self._fallback_bodies(name, producers)
            assignments: dict[Site, _Assignment] = {}
            for position in producers:
                producer = index.producers[position]
                value = self.domain.assign(self.fid, name, self._assigned_value(name, position), producer.site)
                if any(within(producer.site.pos, body) for body in bodies):
                    fallbacks.append(value)
                else:
                    merge(target, value)
                    # A store into an item of the local (`offsets[tp] = ...`) is no part of the
                    # assignment before it: it adds to what the local holds, where it happens.
                    assigns = name in producer.flow.targets
                    definition = (
                        self.flow.definition_site(self.fid, name, producer.site)
                        if assigns
                        else producer.flow.item_store or producer.site
                    )
                    _add_piece(assignments, definition, producer, value, assigns)
            self._assigned.setdefault(name, []).extend(assignments.values())
            for value in fallbacks:
                fallen_back = self.domain.fallback(dict(target), value)
                merge(target, fallen_back)
                merge(besides.setdefault(name, {}), fallen_back)
        for bind in index.binds:
            bound = self._bound_value(bind)
            merge(result.setdefault(bind.name, {}), bound)
            # `with opener() as epoch:` assigns the local, as `epoch = ...` does; `for epoch in
            # epochs:` does on each pass, before the body.
            self._assigned.setdefault(bind.name, []).append(_assignment(bind.site, bound))
        self._assign_what_nothing_produces()
        for call_id, dest in index.writers:
            if dest[0] == "local":
                name, written = str(dest[1]), self._written(call_id)
                merge(result.setdefault(name, {}), written)
                stored = self._stored_by_key(call_id, written)
                if stored is None:
                    merge(besides.setdefault(name, {}), written)
                else:
                    self._assigned.setdefault(name, []).append(stored)
        for write in self.program.symbols.function(self.fid).writes:
            removed = _store_dest(write.ref, index.qualname)
            if write.kind == "delete" and write.key and removed[0] == "local":
                removal = _Assignment(write.site, {}, {write.key: {}}, False)
                self._assigned.setdefault(str(removed[1]), []).append(removal)
        self._add_stores_through_aliases(result)
        self._besides = besides
        return result

    def _assigned_value(self, name: str, position: int) -> Value:
        """What the producer at `position` gives local `name`: its value, but for one name of a
        tuple target assigned a call's result, its element of that result (see `_unpacked_value`),
        and for one assigned a name path's value, its element of what the path holds."""
        producer = self.index.producers[position]
        unpacked = self.index.unpacked.get((name, producer.index)) if producer.kind == "call" else None
        if unpacked is not None and self._callees.get(producer.index):
            return self._unpacked_value(producer, unpacked)
        return self._unpacked.get((position, name), self.values[position])

    def _unpacked_value(self, producer: _Producer, element: int) -> Value:
        """What `epoch` of `epoch, size = self.snapshot()` takes: the element at `element` of what
        each function called returns (see `Summary.returned_element`), so that what one element
        holds stays out of another (`return self._epoch, len(self._queue)`)."""
        call = self.index.calls[producer.index]
        resolved = self._returned_by(call, lambda callee, summary: self._element_given(callee, summary, element))
        ctx = replace(self.contexts[call.id], resolved=resolved)
        return self.domain.leaves(producer.flow, self.domain.call_value(ctx))

    def _element_given(self, callee: str, summary: Summary, element: int) -> Value:
        """What the element at `element` of what a call of `callee` gives holds (see
        `Summary.returned_element`); all it yields, for a generator no `@contextmanager` makes a
        context manager: unpacking its result takes what it yields first, then next, each whole."""
        symbols = self.program.symbols
        if symbols.function(callee).is_generator and not symbols.is_context_manager(callee):
            return summary.returns
        return summary.returned_element(element)

    def _add_stores_through_aliases(self, result: dict[str, dict[Label, Path]]) -> None:
        """A store into an item of an alias (`kw = fields`, then `kw["k"] = v`, `kw.update(k=v)`)
        is one into the local it names (see `_named_local`), where that local still holds the same
        container."""
        for alias in self.index.aliases:
            for store in list(self._assigned.get(alias, ())):
                aliased = self._named_local(alias, store.site)
                if not store.assigns and aliased != alias:
                    merge(result.setdefault(aliased, {}), store.value)
                    self._assigned.setdefault(aliased, []).append(store)

    def _named_local(self, name: str, site: Site) -> str:
        """The local whose container local `name` names at `site`: for an alias (`kw = fields`,
        see `_local_aliases`), the local it names, through an alias of an alias (`kw2 = kw`), as
        far as each still holds the same container there (see `_still_aliased`); a read of the
        alias is one of that local, with what was stored into it before the alias or after it;
        `name` itself for any other local."""
        binds = self.program.symbols.binds(self.fid)
        seen = {name}
        while name in self.index.aliases:
            aliased, at = self.index.aliases[name]
            if aliased in seen or not _still_aliased(at, site, [bind.site for bind in binds.get(aliased, ())]):
                break
            seen.add(aliased)
            name = aliased
        return name

    def _stored_by_key(self, call_id: int, written: Value) -> _Assignment | None:
        """A container writer that stores at keys (`fields.update(k=v)`, `fields.update({"k": v})`)
        as an item store at each (see `_held_from`), so that it replaces an earlier element at that
        key; None for any other writer. What it stores under no key it knows goes under ""."""
        call = self.index.calls[call_id]
        ctx = self.contexts.get(call_id)
        if call.method not in STORING_BY_KEY or ctx is None:
            return None
        parts: dict[str, dict[Label, Path]] = {}
        for key, value in ctx.args.items():
            argument, _, element = key.partition("[")
            stored_at = argument if argument.isidentifier() else element[:-1]
            if stored_at.isidentifier():
                merge(parts.setdefault(stored_at, {}), value)
        keyed = union(parts.values())
        parts[""] = {label: path for label, path in written.items() if label not in keyed}
        return _Assignment(call.site, dict(written), parts, False)

    def _assign_what_nothing_produces(self) -> None:
        """The assignments of a literal (`epoch = 0`) and the `with` targets of a context manager
        the flow does not follow, which carry nothing, yet replace what a local held before, as
        any assignment does."""
        followed = {id(bind) for bind in self.index.binds}
        for bind in self.program.symbols.function(self.fid).binds:
            replaces = bind.kind == "assign" and bind.literal or bind.kind == "with" and id(bind) not in followed
            if replaces and bind.name in self._assigned:
                self._assigned[bind.name].append(_assignment(bind.site, EMPTY))

    def _local_at(self, name: str, site: Site) -> Value:
        """What local `name` holds where it is read at `site`: what every assignment (a parameter's
        at the start) gives it, but those that a later one always replaces before the read (`epoch
        = record.leader_epoch`, then `epoch = max(epoch, current)`: the read after holds only the
        second's value, which the first reaches through the read inside it). An assignment replaces
        an earlier one for a read when it ends before the read starts and lies in nothing that may
        skip it or cut it short (see `_conditions`) but what holds both; an assignment after the
        read reaches it only in a loop around both, where one in that loop before the read, or
        after it on the same pass, may replace it (see `_replaced`). A store into an item of the
        local adds to what it holds (see `_held_from`)."""
        assigned = self._assigned.get(name, ())
        if len(assigned) < 2:
            return self.locals.get(name, EMPTY)
        live = [self._held_from(assignment, site, assigned) for assignment in assigned]
        if all(held is assignment.value for held, assignment in zip(live, assigned)):
            return self.locals.get(name, EMPTY)
        value = dict(self._besides.get(name, EMPTY))
        for kept in live:
            merge(value, kept)
        return value

    def _held_from(self, assignment: _Assignment, read: Site, assigned: Sequence[_Assignment]) -> Value:
        """What `assignment` still gives its local where it is read at `read`: nothing where a
        later assignment of the local replaces it; not its element at a key that a later store at
        that key replaces (`fields["leader_epoch"] = cur` after `fields = {..., "leader_epoch":
        hist}`, or `fields.update(leader_epoch=cur)`), or a removal (`del fields["leader_epoch"]`).
        A later store at the key replaces an earlier store's item there alike (the pieces of one
        stored value, `fields["k"] = a + b`, are one store: see `Flow.item_store`)."""
        parts = self._parts_held_from(assignment, read, assigned)
        return assignment.value if parts is assignment.parts else union(parts.values())

    def _parts_held_from(
        self, assignment: _Assignment, read: Site, assigned: Sequence[_Assignment]
    ) -> Mapping[str, dict[Label, Path]]:
        """The parts of `assignment` by key (see `_Assignment.parts`) that still reach a read at
        `read` (see `_held_from`): its own `parts` where nothing later replaces any of them; none
        where it comes only after the read, in no loop around both (`kw = fields` before `fields =
        {...}` again, or `fields = {...}` then `return` in an arm passed over, see
        `_after_the_read`; not one that runs first all the same, see `_runs_first`)."""
        rebinds = [later.site for later in assigned if later.assigns]
        site = assignment.site
        in_a_loop_around_both = bool(set(site.loops) & set(read.loops))
        only_after = self._after_the_read(site, read) and not in_a_loop_around_both and not self._runs_first(site, read)
        if only_after or self._replaced(site, read, rebinds):
            return {}
        stores = [later for later in assigned if not later.assigns]
        replaced = {
            key
            for key in assignment.parts
            if key and self._replaced(assignment.site, read, [later.site for later in stores if key in later.parts])
        }
        if not replaced:
            return assignment.parts
        return {key: part for key, part in assignment.parts.items() if key not in replaced}

    def _replaced(self, earlier: Site, read: Site, later_sites: Sequence[Site]) -> bool:
        """Whether one of `later_sites` (or each arm of a branching, by one of them) replaces what
        is assigned at `earlier` before the read at `read` (see `_find_replaced`), answered once
        per function: which of `later_sites` is `earlier` itself, not an equal site of another
        assignment, is part of the question."""
        key = (earlier, read, tuple(later_sites), tuple(later is earlier for later in later_sites))
        replaced = self.index.replaced.get(key)
        if replaced is None:
            replaced = self.index.replaced[key] = self._find_replaced(earlier, read, later_sites)
        return replaced

    def _find_replaced(self, earlier: Site, read: Site, later_sites: Sequence[Site]) -> bool:
        """Whether one of `later_sites` (or each arm of a branching, by one of them) replaces what
        is assigned at `earlier` before the read at `read`. A later assignment in nothing that may
        skip it but what holds the read too runs before the read on every path to it, whether or
        not those hold `earlier`: `e` declared again in a second loop, read there, holds none of
        what the first loop gave it (unless a pass may enter past it, see `_entered_past`, or it
        runs after the read, see `_updated_after`). Where `earlier` reaches the read only on a
        later pass of a loop (see `_passed_round`), an assignment in that loop before the read
        runs on each pass before it (`while batch: e = cur; commit(e); e = hist`); a Java `for`
        update may run between them too (see `_updated_before`). An assignment after `earlier` on
        its pass replaces it there and after the loop (see `_replaced_later_on_the_pass`)."""
        loop = self._passed_round(earlier, read)
        enclosing = self._conditions(earlier) & self._conditions(read)
        between = [later for later in later_sites if self._runs_before(later, earlier, read, loop)]
        read_in = self._conditions(read) | self._ran_where_held(read)
        if any(self._conditions(later) <= read_in and not self._entered_past(later, read) for later in between):
            return True
        if any(self._updated_before(later, earlier, read) for later in later_sites):
            return True
        if self._replaced_later_on_the_pass(earlier, read, later_sites, loop):
            return True
        if any(self._refreshed_before_each_exit(later, earlier, read) for later in later_sites):
            return True
        passed_over = self._arms_passed_over(read)
        # What has run wherever the read runs (see `Held`) skips no branching either: a `try` body
        # holding a test whose other arm cannot go on, where no handler goes on to the read.
        ran = enclosing | self._ran_where_held(read)
        return any(
            self._every_arm_assigns(branches, ran, between, passed_over)
            for branches in self.program.symbols.function(self.fid).branches
            if branches.exhaustive
            and branches.pos[2:] <= read.pos[:2]
            and self._branching_after(branches.pos, earlier, loop)
        )

    def _replaced_later_on_the_pass(
        self, earlier: Site, read: Site, later_sites: Sequence[Site], loop: Loop | None
    ) -> bool:
        """Whether one of `later_sites` written after `earlier` (or each arm of a branching there,
        by one of them) runs after it on every path on to the read at `read` (see `_follows`): in
        nothing that may skip it but what holds the read and the loops around `earlier` alone
        (see `_each_pass`). `for r in rs: e = r.leader_epoch; e = cur()`: the read after the loop,
        and one before them in its body on the next pass, hold `cur()` alone."""
        following = [later for later in later_sites if self._follows(later, earlier, read, loop)]
        if not following:
            return False
        each_pass = self._each_pass(earlier, read, loop)
        if any(self._conditions(later) <= each_pass for later in following):
            return True
        passed_over = self._arms_passed_over(read)
        return any(
            self._every_arm_assigns(branches, each_pass, following, passed_over)
            for branches in self.program.symbols.function(self.fid).branches
            if branches.exhaustive and self._on_the_way(branches.pos, earlier, read, loop)
        )

    def _follows(self, later: Site, earlier: Site, read: Site, loop: Loop | None) -> bool:
        """Whether `later` is written after `earlier` and before the read at `read` (where
        `earlier` reaches the read only on a later pass of `loop`, see `_passed_round`: anywhere
        after it in that loop), and runs on every way between them: no jump skips it (see
        `_skipped`), no pass enters past it (see `_entered_past`). Neither lies in a Java `for`
        update, which runs after the body written after it (see `_updated_before`)."""
        return (
            later is not earlier
            and self._on_the_way(later.pos, earlier, read, loop)
            and (loop is None or loop.id in later.loops)
            and not self._in_an_update(earlier.pos)
            and not self._in_an_update(later.pos)
            and not self._entered_past(later, read)
            and not self._skipped(later, earlier, read)
        )

    def _in_an_update(self, pos: Pos) -> bool:
        """Whether the span `pos` lies in the update of a Java `for` statement."""
        loops = self.program.symbols.function(self.fid).loops
        return any(loop.update is not None and within(pos, loop.update) for loop in loops)

    @staticmethod
    def _on_the_way(pos: Pos, earlier: Site, read: Site, loop: Loop | None) -> bool:
        """Whether the span `pos` starts after `earlier` and ends before the read at `read`, or,
        where `earlier` reaches the read only on a later pass of `loop`, anywhere after it (what
        lies in the loop runs on the way)."""
        return earlier.pos[2:] <= pos[:2] and (loop is not None or pos[2:] <= read.pos[:2])

    def _each_pass(self, earlier: Site, read: Site, loop: Loop | None) -> frozenset[object]:
        """What may skip an assignment after `earlier` that yet runs on every path from it to the
        read at `read`: what holds the read (where `earlier` reaches it only on a later pass of
        `loop`, what holds that loop's body: what else holds the read there may be left part-way
        and run again; nothing for a loop with no body of its own), the loops around `earlier`
        but not the read, which run it whole on each pass, with the test of a `while` among them,
        and the `do` statements the read follows, which run their body once before their test
        (`do { if ((e = cur) != null) break; } while (ok);`, then `commit(e)`; a jump before the
        assignment may skip it, see `_skipped`)."""
        function = self.program.symbols.function(self.fid)
        passes = [
            around
            for around in function.loops
            if around.id in earlier.loops and around.id not in read.loops or _body_ran_before(around, earlier, read)
        ]
        if loop is None:
            held = self._conditions(read)
        elif loop.body is not None:
            held = self._conditions(Site(loop.body, loop.site.regions, (*loop.site.loops, loop.id)))
        else:
            return frozenset()
        tests = {("governs", around.site.pos) for around in passes if around.kind == "while"}
        return held | {("loop", around.id) for around in passes} | tests

    def _skipped(self, later: Site, earlier: Site, read: Site) -> bool:
        """Whether a jump after `earlier`, before `later`, may go on past `later` to the read at
        `read`: a `break` or a caught `raise` that ends a statement holding `later`, a `continue`
        that ends a pass of a loop whose body holds it; not a `break` or `continue` that leaves
        the read too (see `_left_with_the_read`). A jump in a loop around `earlier` but not `later`
        counts wherever it lies in that loop's body: a later pass of it runs `earlier` before it."""
        function = self.program.symbols.function(self.fid)
        passes = [
            around.body
            for around in function.loops
            if around.body is not None and around.id in earlier.loops and around.id not in later.loops
        ]
        start = min([earlier.pos[2:], *(body[:2] for body in passes)])
        return any(
            start <= jump.pos[:2]
            and jump.pos[2:] <= later.pos[:2]
            and any(ended is not None and within(later.pos, ended) for ended in _ends(jump))
            and not _left_with_the_read(jump, later, read)
            for jump in function.exits
        )

    def _after_the_read(self, site: Site, read: Site) -> bool:
        """Whether a path from `site` reaches the read at `read` only round a loop around both, if
        any: `site` starts after the read ends, or lies in an arm of a statement before the read
        that goes on to no read (see `_arms_passed_over`: `if ok: e = cur()` / `else: e = hist;
        continue`, then `commit(e)`)."""
        return read.pos[2:] <= site.pos[:2] or any(within(site.pos, arm) for arm in self._arms_passed_over(read))

    def _passed_round(self, earlier: Site, read: Site) -> Loop | None:
        """The innermost loop around both `earlier` and the read at `read` where `earlier` is written
        after the read (or goes on to it only round a loop, see `_after_the_read`), and so reaches
        it only on a later pass; None where there is none. A read in a Java `for` update after an
        assignment in the body reads it on the same pass, as does one before an assignment written
        after it that runs first all the same (see `_runs_first`)."""
        shared = [loop_id for loop_id in read.loops if loop_id in earlier.loops]
        if not shared or not self._after_the_read(earlier, read) or self._runs_first(earlier, read):
            return None
        loops = self.program.symbols.function(self.fid).loops
        loop = next((loop for loop in loops if loop.id == shared[-1]), None)
        if loop is None or loop.update is not None and within(read.pos, loop.update) and _in_body(earlier.pos, loop):
            return None
        return loop

    @staticmethod
    def _branching_after(statement: Pos, earlier: Site, loop: Loop | None) -> bool:
        """Whether a branching at `statement` starts after `earlier`, or, where `earlier` reaches
        the read only on a later pass of `loop`, lies in that loop's body."""
        return earlier.pos[2:] <= statement[:2] if loop is None else _in_body(statement, loop)

    def _runs_before(self, later: Site, earlier: Site, read: Site, loop: Loop | None) -> bool:
        """Whether `later` is written before the read at `read` (or runs before it all the same, see
        `_runs_first`) and after `earlier`, or, where `earlier` reaches the read only on a later
        pass of `loop`, anywhere in that loop: what runs before the read on that pass (a `for`
        update of an inner loop whose body holds the read runs there only from its second pass on:
        see `_updated_after`)."""
        after = earlier.pos[2:] <= later.pos[:2] if loop is None else loop.id in later.loops
        return (
            later is not earlier
            and after
            and (later.pos[2:] <= read.pos[:2] or self._runs_first(later, read))
            and not self._updated_after(later, earlier, read)
        )

    def _runs_first(self, site: Site, read: Site) -> bool:
        """Whether `site`, written after the read at `read`, runs before it all the same: in a clause
        of a comprehension whose element holds the read (see `_in_a_clause_before`), or in the test
        of a conditional expression whose body or `orelse` holds it (`commit(e) if (e := cur())
        else None` commits what the test gave)."""
        return self._in_a_clause_before(site, read) or any(
            choice.kind == "if"
            and within(site.pos, choice.parts[0])
            and any(within(read.pos, arm) for arm in choice.parts[1:])
            for choice in self.program.symbols.function(self.fid).choices
        )

    def _in_a_clause_before(self, site: Site, read: Site) -> bool:
        """Whether `site` lies in a clause of a comprehension (its `for` and `if` clauses) whose
        element holds the read at `read`: written after the element, each clause runs before it
        on each pass (`[commit(e) for p in ps if (e := cur(p))]` commits what the `if` gave)."""
        return any(
            _runs_its_body_last(loop)
            and loop.id in site.loops
            and _in_body(read.pos, loop)
            and not _in_body(site.pos, loop)
            for loop in self.program.symbols.function(self.fid).loops
        )

    def _entered_past(self, later: Site, read: Site) -> bool:
        """Whether a pass may enter a Java `switch` at a `case:` group fallen into that holds `read`
        but not `later` (`case 1: e = cur; case 2: commit(e);`), and so skip `later`."""
        return any(
            within(read.pos, entered) and not within(later.pos, entered)
            for branches in self.program.symbols.function(self.fid).branches
            for entered in branches.fallen_into
        )

    def _updated_after(self, later: Site, earlier: Site, read: Site) -> bool:
        """Whether `later` lies in the update of a Java `for` statement whose body holds `read`, and
        `earlier` lies outside the loop's update and body: written before the body, the update runs
        after it on each pass, so the first pass reads what reached the loop (`e = hist;` then
        `for (...; i++, e = cur) commit(e);`); `earlier` in the update before it is replaced, on
        the pass before, and one in the body, on its way round to the read (see
        `_passed_round`)."""
        return any(
            loop.update is not None
            and within(later.pos, loop.update)
            and _in_body(read.pos, loop)
            and not within(earlier.pos, loop.update)
            and not _in_body(earlier.pos, loop)
            for loop in self.program.symbols.function(self.fid).loops
        )

    def _updated_before(self, later: Site, earlier: Site, read: Site) -> bool:
        """Whether `later` lies in the update of a Java `for` statement whose body holds `earlier`,
        which runs it on every way from there to the read at `read` in the loop's condition or
        after the loop, or in the test of a loop whose body (or update, see
        `_tested_after_the_update`) holds `earlier`, which runs it on every way from there to a
        read after the loop: the body's end and its `continue`s go on to the update and the test,
        and the loop ends past them only where a jump leaves the body (see `_jumps_out`). Nothing
        else but what holds the read may skip them (`for (; i < n; i++, e = cur) e = hist;` or
        `while ((e = cur) == null) e = hist;`, then `commit(e)`): where the loop ends by failing
        its test, an operand of `||` in it has run (see `Held`)."""
        read_in = self._conditions(read) | self._ran_where_held(read)
        return any(
            (
                _in_body(earlier.pos, loop)
                and loop.update is not None
                and within(later.pos, loop.update)
                and (_in_condition(read, loop) or self._after_the_update(loop, read))
                or loop.test is not None
                and within(later.pos, loop.test)
                and (
                    _in_body(earlier.pos, loop) and self._after_the_update(loop, read)
                    or _tested_after_the_update(loop, earlier, read)
                )
            )
            and self._conditions(later) <= read_in | {("loop", loop.id)}
            for loop in self.program.symbols.function(self.fid).loops
        )

    def _after_the_update(self, loop: Loop, read: Site) -> bool:
        """Whether the read at `read` comes after `loop`, which ends only past its update and its
        test."""
        return loop.site.pos[2:] <= read.pos[:2] and loop.body is not None and not self._jumps_out(loop.body)

    def _jumps_out(self, body: Pos) -> bool:
        """Whether a `break` or `continue` in a loop's `body` goes on outside it."""
        return bool(self._jumps_leaving(body))

    def _jumps_leaving(self, body: Pos) -> list[Exit]:
        """The `break`s and `continue`s in a loop's `body` that go on outside it: a `break` of the
        loop or of a statement around it, a `continue` of an outer loop."""
        return [
            jump
            for jump in self.program.symbols.function(self.fid).exits
            if within(jump.pos, body)
            and (
                jump.ended_loop is not None and not within(jump.ended_loop, body)
                or jump.continued is not None and not within(jump.continued, body)
            )
        ]

    def _refreshed_before_each_exit(self, later: Site, earlier: Site, read: Site) -> bool:
        """Whether `later` lies in the body of a loop that ends by a jump alone (see
        `_ends_by_jumps_alone`) that the read at `read` follows (`earlier` not between them), and
        runs on every way to each jump leaving it (see `_jumps_leaving`, `_runs_before_the_jump`):
        the read runs only past one of those jumps (`while True: if (e := cur()) is
        not None: break`, then `commit(e)`). Not where the loop lies in something the read does not,
        which may leave it before any jump (a `try` body whose handler the read follows)."""
        loops = self.program.symbols.function(self.fid).loops
        for loop in loops:
            if loop.body is None or not _ends_by_jumps_alone(loop, read) or not _in_body(later.pos, loop):
                continue
            if read.pos[:2] < loop.site.pos[2:] or _between(earlier.pos, loop.site.pos, read.pos):
                continue
            if not self._conditions_around(loop, loops) <= self._conditions(read) | self._ran_where_held(read):
                continue
            leaving = [*self._jumps_leaving(loop.body), *self._raises_caught_outside(loop.body)]
            if leaving and all(self._runs_before_the_jump(later, earlier, jump) for jump in leaving):
                return True
        return False

    def _conditions_around(self, loop: Loop, loops: Sequence[Loop]) -> frozenset[object]:
        """What may skip the loop statement `loop`, or leave it part-way (see `_conditions`): not
        the `while` statement itself, which governs its own body."""
        return self._conditions(_site_in_bodies(loop.site.pos, loops)) - {("governs", loop.site.pos)}

    def _raises_caught_outside(self, body: Pos) -> list[Exit]:
        """The `raise`s in a loop's `body` that a `try` statement around the loop catches: their
        path goes on after the loop, past its handler."""
        return [
            exit
            for exit in self.program.symbols.function(self.fid).exits
            if exit.raised
            and within(exit.pos, body)
            and exit.caught_by is not None
            and not within(exit.caught_by, body)
        ]

    def _runs_before_the_jump(self, later: Site, earlier: Site, jump: Exit) -> bool:
        """Whether `later`, written before `jump`, runs on every way to it (nothing that may skip
        `later` but what holds the jump too, or an operand that has run there), `earlier` not
        written between them nor in a `finally` suite the jump runs on its way out."""
        loops = self.program.symbols.function(self.fid).loops
        at = _site_in_bodies(jump.pos, loops)
        return (
            later is not earlier
            and later.pos[2:] <= jump.pos[:2]
            and not _between(earlier.pos, later.pos, jump.pos)
            and not any(within(earlier.pos, block) for block in jump.finally_blocks)
            and self._conditions(later) <= self._conditions(at) | self._ran_where_held(at)
        )

    def _every_arm_assigns(
        self,
        branches: Branches,
        enclosing: frozenset[object],
        assigned: Sequence[Site],
        passed_over: frozenset[Pos] = frozenset(),
    ) -> bool:
        """Whether each arm of `branches` (`if ... else`, a `match` ending in `case _:`) runs one of
        `assigned` on every path through it that goes on after the statement, given that
        `enclosing` is what else may skip it; an arm may do so in an exhaustive branching of its own
        (`elif ... else`). The arms `passed_over` go on to no read asked about (see
        `_arms_passed_over`)."""
        function = self.program.symbols.function(self.fid)
        for arm in branches.arms:
            if arm in passed_over:
                continue
            inside = enclosing | {("governs", branches.pos), ("arm", arm)}
            if not any(within(later.pos, arm) and self._conditions(later) <= inside for later in assigned) and not any(
                inner is not branches and inner.exhaustive and within(inner.pos, arm)
                and self._every_arm_assigns(inner, inside, assigned, passed_over)
                for inner in function.branches
            ):
                return False
        return True

    def _arms_passed_over(self, read: Site) -> frozenset[Pos]:
        """The arms that go on to no read at `read` (see `_find_arms_passed_over`), found once per
        function."""
        found = self.index.arms_passed_over.get(read)
        if found is None:
            found = self.index.arms_passed_over[read] = self._find_arms_passed_over(read)
        return found

    def _find_arms_passed_over(self, read: Site) -> frozenset[Pos]:
        """The bodies of the `if` statements with an `else` (or of `elif` and `else if` arms)
        written before the read at `read` whose test failed wherever the read runs, and the `else`
        blocks of those whose test held there (see `Held`: the rest of the block after one whose
        body, or `else`, cannot go on): no path through them goes on to the read, which runs only
        past the other arm (`if ok: return` / `else: e = cur()`, then `commit(e)`); likewise the
        arms that cannot go on of the statements the read runs past (see `LeavingArm`)."""
        function = self.program.symbols.function(self.fid)
        tested = [held for held in function.held if any(within(read.pos, span) for span in held.spans)]
        arms = frozenset(
            branches.arms[0 if held.failed else 1]
            for branches in function.branches
            if branches.exhaustive and len(branches.arms) == 2 and branches.pos[2:] <= read.pos[:2]
            for held in tested
            if within(held.operands[0], branches.pos) and held.operands[0][2:] <= branches.arms[0][:2]
        )
        left = frozenset(
            leaving.arm for leaving in function.leaving_arms if any(within(read.pos, span) for span in leaving.spans)
        )
        return arms | left | self._run_where_the_test_went_otherwise(read, tested)

    def _run_where_the_test_went_otherwise(self, read: Site, tested: Sequence[Held]) -> frozenset[Pos]:
        """The spans before the read at `read` that run only where a test of `tested` (see `Held`)
        went the other way, so that no path through them goes on to the read: also the body of an
        `if` statement with no `else` that cannot go on (`if not ok: e = hist; continue`, then
        `commit(e)`), which no `Branches` holds. Not a loop's body, which runs where its test held
        before the test fails."""
        function = self.program.symbols.function(self.fid)
        loop_tests = {loop.test for loop in function.loops if loop.test is not None}
        return frozenset(
            span
            for held in tested
            if held.operands[0] not in loop_tests
            for other in function.held
            if other.operands[0] == held.operands[0] and other.failed != held.failed
            for span in other.spans
            if span[2:] <= read.pos[:2]
        )

    def _conditions(self, site: Site) -> frozenset[object]:
        """The loops, the `if` and `while` statements, the arms (see `Branches`: of an `if`, a
        `match`, a `switch`, a `try`, a loop's `else`...) and the operands evaluated only on a
        condition (of `and`, `or`, a conditional expression) that `site` lies in: what may not run,
        or run to its end, on a path through it. A statement's test runs wherever the statement
        does: neither a loop nor an `if` or `while` statement skips its own test."""
        found = self.index.conditions.get(site)
        if found is None:
            function = self.program.symbols.function(self.fid)
            tested = {loop.id for loop in function.loops if loop.test is not None and within(site.pos, loop.test)}
            # Tagged: an `elif` arm and the `if` statement that fills it have the same position.
            found = frozenset(
                (
                    *(("loop", loop) for loop in site.loops if loop not in tested),
                    *function.conditions_around(site.pos),
                )
            )
            self.index.conditions[site] = found
        return found

    def _ran_where_held(self, site: Site) -> frozenset[object]:
        """The operands that have run wherever `site` runs (see `_find_ran_where_held`), found once
        per function."""
        found = self.index.ran_where_held.get(site)
        if found is None:
            found = self.index.ran_where_held[site] = self._find_ran_where_held(site)
        return found

    def _find_ran_where_held(self, site: Site) -> frozenset[object]:
        """The operands evaluated only on a condition (see `_conditions`) that have run wherever
        `site` runs: those of an `and` chain tested by what holds it (see `Held`), and what holds
        that test, which has run there too. `if ok and (e := cur()):` runs its body past the walrus,
        which replaces what `e` held before there; `if ok: return` / `elif (e := cur()) is None:
        return` runs the rest of the block past the `if` arm, and so past the walrus."""
        function = self.program.symbols.function(self.fid)
        ran: set[object] = set()
        for held in function.held:
            if any(within(site.pos, span) for span in held.spans):
                ran.update(("part", operand) for operand in held.operands)
                # The first operand is the test; `site`'s loops in place of its own add only what holds `site`.
                ran.update(self._conditions(site._replace(pos=held.operands[0])))
        for through in function.ran_through:
            if any(within(site.pos, span) for span in through.spans):
                ran.update(("arm", block) for block in through.blocks)
        return frozenset(ran)

    def _fallback_bodies(self, name: str | None, producers: Sequence[int]) -> list[Pos]:
        """The bodies whose `producers` (the assignments to local `name`, or the returns when
        `name` is None) run only when what they give holds nothing: those that run only when
        `name` holds nothing, and those that run only when another local holds nothing where every
        other producer copies that local (`epoch = cur`, then `if cur is None: epoch = hist`)."""
        index = self.index
        bodies = list(index.fallbacks.get(name, ())) if name is not None else []
        for tested, tested_bodies in index.fallbacks.items():
            if tested == name:
                continue
            outside = [
                index.producers[position]
                for position in producers
                if not any(within(index.producers[position].site.pos, body) for body in tested_bodies)
            ]
            if outside and all(self._copies_local(producer, tested) for producer in outside):
                bodies.extend(tested_bodies)
        return bodies

    def _copies_local(self, producer: _Producer, name: str) -> bool:
        """Whether `producer` is a read of local `name` itself."""
        if producer.kind != "access":
            return False
        ref = self.index.accesses[producer.index].ref
        return bool(ref.scope) and ref.name == name and not ref.attrs

    def _bound_value(self, bind: Bind) -> Value:
        """The value a loop or `with` target takes: its iterable's (an element of a container
        carries what the container does) or what its context manager gives on entering."""
        if bind.value_call >= 0:
            position = self.index.call_producer.get(bind.value_call)
            value = self.values[position] if position is not None else EMPTY
        elif bind.value_ref is not None:
            value = self.ref_value(bind.value_ref, self.index.iterated_at.get(id(bind), bind.site))
        else:
            return EMPTY
        if bind.kind == "with":
            value = self._entered_value(bind, value)
        return self.domain.assign(self.fid, bind.name, value, bind.site)

    def _entered_value(self, bind: Bind, manager: Value) -> Value:
        """What `with cm as x:` gives `x`: what the `__enter__` of `cm`'s class returns, `cm` (which
        holds `manager`) bound to its `self`; `manager` itself where no `__enter__` is known. A call
        of a `@contextmanager` generator already gives what it yields, as its result."""
        symbols = self.program.symbols
        item = symbols.item_binding(self.fid, bind)
        enters = symbols.enter_methods(self.fid, item) if item is not None else []
        if item is None or not enters:
            return self._yielded_element(bind, manager)
        entered: dict[Label, Path] = {}
        for enter in enters:
            binding = {symbols.self_param(enter): manager}
            summary = self.analysis.summary(enter)
            # `with cm as (a, b):` gives each name its element of what `__enter__` returns.
            returns = summary.returned_element(bind.index) if bind.index >= 0 else summary.returns
            # At the item, where `__enter__` runs (see `CallGraph._context_sites`).
            into, back = self._enter(enter, item.site), self._returned(enter, item.site)
            merge(entered, self.analysis.instantiate(returns, binding, into, back))
        return entered

    def _yielded_element(self, bind: Bind, manager: Value) -> Value:
        """What one name of a tuple target (`with snapshot() as (epoch, size):`) takes of what the
        call of a `@contextmanager` generator gives, `manager`: its element of what the generator
        yields (see `_unpacked_value`); any other name takes `manager` whole."""
        position = self.index.call_producer.get(bind.value_call)
        if bind.index < 0 or position is None or not self._callees.get(bind.value_call):
            return manager
        return self._unpacked_value(self.index.producers[position], bind.index)

    def _written(self, call_id: int) -> dict[Label, Path]:
        ctx = self.contexts.get(call_id)
        return ctx.all_args() if ctx is not None else {}

    # -- what the function does with values --------------------------------------------------------

    def results(self) -> _Found:
        """The summary (parameter-dependent part), the events and stores that depend on no
        parameter (reported and merged into the field summaries as they are)."""
        summary = Summary()
        concrete: list[Event] = []
        stores: dict[FieldId, dict[Label, Path]] = {}
        producers = self.index.inputs.get(("return",), [])
        summary.returns = self._returns(producers)
        by_element: dict[str, list[int]] = {}
        for position in producers:
            by_element.setdefault(self.index.producers[position].flow.element, []).append(position)
        if len(by_element) > 1 or "" not in by_element:
            summary.returned_parts = {key: self._returns(part) for key, part in by_element.items()}
        for target, value in self._stores():
            for label, path in value.items():
                bucket = summary.stores if depends_on_parameter(label) else stores
                merge(bucket.setdefault(target, {}), {label: path})
        for event in _shortest_events(self._events()):
            (summary.events if depends_on_parameter(event.label) else concrete).append(event)
        return summary, concrete, stores

    def _returns(self, producers: Sequence[int]) -> dict[Label, Path]:
        """What the function returns by `producers` (of its returns), as far as it passes a return:
        a return that runs only when a local holds nothing where every other return gives that
        local (`if cur is None: return hist`, then `return cur`) is a fallback, as the same written
        as assignments to a local is."""
        bodies = self._fallback_bodies(None, producers)
        falls_back = [any(within(self.index.producers[p].site.pos, body) for body in bodies) for p in producers]
        held = union(self.values[p] for p, fallback in zip(producers, falls_back) if not fallback)
        returns = dict(held)
        for position, fallback in zip(producers, falls_back):
            if fallback:
                merge(returns, self.domain.fallback(held, self.values[position]))
        return {label: path for label, path in returns.items() if self.domain.passes(label, "return")}

    def _stores(self) -> Iterator[tuple[FieldId, Value]]:
        """Values stored into fields: by assignment, by a container writer, and by callees that
        store what they were given."""
        index = self.index
        for dest, producers in index.inputs.items():
            if dest[0] == "store":
                value, site = union(self.values[p] for p in producers), index.producers[producers[0]].site
                for target, stored in self._store(dest[1], value, site):  # type: ignore[arg-type]
                    yield target, stored
                    yield from self._element_stores(dest[1], target, producers, stored)  # type: ignore[arg-type]
        for call_id, dest in index.writers:
            if dest[0] == "store":
                yield from self._store(dest[1], self._written(call_id), index.calls[call_id].site)  # type: ignore[arg-type]
        for call_id, ctx in self.contexts.items():
            for callee, binding in self._entered(ctx.call, ctx.args):
                enter = self._enter(callee, ctx.call.site)
                for target, value in self.analysis.summary(callee).stores.items():
                    yield target, self.analysis.instantiate(value, binding, enter, None)
            if ctx.callee.kind == "class":
                yield from self._generated_init_stores(ctx)
            yield from self._copy_stores(ctx)

    def _element_stores(
        self, ref: Ref, target: FieldId, producers: Sequence[int], stored: Value
    ) -> Iterator[tuple[FieldId, Value]]:
        """What the function stores into field `target`, by the name path `ref`, by element (see
        `element_field`), where it stores a tuple or list written out (`self.pair = (cur, offset)`),
        with the paths of the whole store, `stored`. A store into an item (`self.pair[1] = e`) is
        one into any element: the frontend keeps no position of a field's item, and what is
        stored is one element, not a tuple of them."""
        if ref.attrs[-1:] == ("[]",):
            yield element_field(target, ""), stored
            return
        parts: dict[str, set[Label]] = {}
        for position in producers:
            parts.setdefault(self.index.producers[position].flow.element, set()).update(self.values[position])
        if set(parts) == {""}:
            return
        for key, labels in parts.items():
            held = {label: stored[label] for label in labels if label in stored}
            if held:
                yield element_field(target, key), held

    def _copy_stores(self, ctx: CallContext) -> Iterator[tuple[FieldId, Value]]:
        """What a copy of a record with fields replaced stores (`replace(state, epoch=e)`,
        `state._replace(epoch=e)`): each keyword argument into the copy's field of its name."""
        symbols = self.program.symbols
        copied = symbols.copied_record(self.fid, ctx.call)
        for name, value in ctx.args.items() if copied else ():
            # Keywords only: not positions, nor the elements of a spread local (`replace(s, **kw)`).
            if value and name.isidentifier():
                yield self._stored(FieldId(symbols.defining_class(copied, name), (name,)), value, ctx.call.site)

    def _generated_init_stores(self, ctx: CallContext) -> Iterator[tuple[FieldId, Value]]:
        """What a record class's generated `__init__` stores (`Checkpoint(offset, epoch)` of a
        dataclass or NamedTuple): each argument into the field of its parameter."""
        symbols = self.program.symbols
        for index, name in enumerate(symbols.generated_init_parameters(ctx.callee.target)):
            value = union(ctx.args.get(key, EMPTY) for key in (str(index), name))
            if value:
                target = FieldId(symbols.defining_class(ctx.callee.target, name), (name,))
                yield self._stored(target, value, ctx.call.site)

    def _store(self, ref: Ref, value: Value, site: Site) -> Iterator[tuple[FieldId, Value]]:
        target = self.flow.field_of(self.fid, ref)
        if target is not None and value:
            yield self._stored(target, value, site)

    def _stored(self, target: FieldId, value: Value, site: Site) -> tuple[FieldId, Value]:
        """`value` stored into field `target` at `site`: each path goes on through the store."""
        hop = Hop(self.fid, site, HOP_STORE, f"stored in `{target.display()}`")
        return target, {label: (*path, hop) for label, path in value.items()}

    def _events(self) -> Iterator[Event]:
        index = self.index
        for position, producer in enumerate(index.producers):
            value = self.values[position]
            # A choice's value is its parts', already seen where they go.
            if value and producer.kind != "choice":
                yield from self.domain.value_events(self.fid, producer.site, producer.flow, value)
        for ctx in self.contexts.values():
            yield from self.domain.call_events(ctx)
            for callee, binding in self._entered(ctx.call, ctx.args):
                yield from self._climbed(callee, ctx, binding)

    def _climbed(self, callee: str, ctx: CallContext, binding: Mapping[str, Value]) -> Iterator[Event]:
        """A callee's parameter-dependent events, at this call site, with the arguments' labels."""
        enter = self._enter(callee, ctx.call.site)
        for event in self.analysis.summary(callee).events:
            made = self.analysis.instantiate({event.label: event.path}, binding, enter, None)
            for label, path in made.items():
                if self.domain.keeps_event(label):
                    yield Event(event.kind, label, path, self.fid, ctx.call.site)


# What a solved frame found: its summary, the events and stores that depend on no parameter.
_Found = tuple[Summary, list[Event], dict[FieldId, dict[Label, Path]]]


class _Assignment(NamedTuple):
    """What one assignment of a local gives it (see `_Frame._local_at`): where, spanning its
    pieces; its value, and the same by the key of the element of the local each part is (see
    `Flow.element`; "": none of its own); whether it assigns the local itself, or stores into an
    item of it (`offsets[tp] = ...`), adding to what the local holds."""

    site: Site
    value: dict[Label, Path]
    parts: dict[str, dict[Label, Path]]
    assigns: bool = True


def _assignment(site: Site, value: Value) -> _Assignment:
    """An assignment of `value` with no elements of its own (a parameter's, a `with` target's)."""
    return _Assignment(site, dict(value), {"": dict(value)})


def _add_piece(
    assignments: dict[Site, _Assignment], definition: Site, piece: _Producer, value: Value, assigns: bool
) -> None:
    """Add a piece of an assignment's value (`self._epoch` and `delta` of `epoch = self._epoch +
    delta`) to the assignment at `definition`: its pieces are one assignment, spanning them all
    (in the loops of its target, not those of a comprehension in it), which no piece of it
    replaces."""
    known = assignments.get(definition) or _Assignment(piece.site, {}, {}, assigns)
    span = known.site
    start, end = min(span.pos[:2], piece.site.pos[:2]), max(span.pos[2:], piece.site.pos[2:])
    merge(known.value, value)
    merge(known.parts.setdefault(piece.flow.element, {}), value)
    assignments[definition] = known._replace(site=definition._replace(pos=(*start, *end)))


def _site_in_bodies(pos: Pos, loops: Sequence[Loop]) -> Site:
    """A site at `pos` in the loops whose bodies hold it (its regions aside), to ask what holds it."""
    return Site(pos, loops=tuple(loop.id for loop in loops if _in_body(pos, loop)))


def _in_body(pos: Pos, loop: Loop) -> bool:
    """Whether the span `pos` lies in the body of `loop` (what it runs per turn)."""
    return loop.body is not None and within(pos, loop.body)


def _runs_its_body_last(loop: Loop) -> bool:
    """Whether `loop` is a comprehension's `for` clause: its body, the element, is written before
    the clause, yet runs after it (and after the clauses that follow it) on each pass."""
    return loop.body is not None and loop.body[:2] < loop.site.pos[:2]


def _ends(jump: Exit) -> tuple[Pos | None, ...]:
    """What `jump` leaves, to go on after it or at its next pass: the statement a `break` ends,
    the body whose pass a `continue` ends, the `try` statement that catches a `raise`."""
    return jump.ended_loop, jump.continued, jump.caught_by


def _left_with_the_read(jump: Exit, later: Site, read: Site) -> bool:
    """Whether `jump` is a `break` or `continue` (no handler of a `raise` falls through) that
    leaves a statement, or a pass of a body, holding `later` and the read at `read` after it: its
    path goes on past the read, or at a pass that reaches the read only on the way through `later`
    again (`outer: for (...) { do { if (ok) continue outer; e = cur; } while (e == null);
    commit(e); }`)."""
    left = jump.ended_loop if jump.ended_loop is not None else jump.continued
    return (
        jump.caught_by is None
        and left is not None
        and within(read.pos, left)
        and later.pos[2:] <= read.pos[:2]
    )


def _ends_by_jumps_alone(loop: Loop, read: Site) -> bool:
    """Whether the read at `read` runs past `loop` only past a jump that leaves it: the loop never
    ends by failing its test (`while True:`, `for (;;)`; not a `do` statement, which runs its body
    once before a test written after it), or the read follows its `else`, which cannot go on
    (`for ...: ...; break` / `else: return`)."""
    if loop.else_leaving is not None and loop.else_leaving[2:] <= read.pos[:2]:
        return True
    return loop.runs_once and loop.body is not None and (loop.test is None or loop.test[:2] < loop.body[:2])


def _tests_after_the_body(loop: Loop) -> bool:
    """Whether `loop` is a `do` statement: it runs its body once before a test written after it."""
    return loop.body is not None and loop.test is not None and loop.body[2:] <= loop.test[:2]


def _body_ran_before(loop: Loop, earlier: Site, read: Site) -> bool:
    """Whether `loop` is a `do` statement (see `_tests_after_the_body`) that does not hold
    `earlier`, and so has run its body once before the read at `read` written after the body (after
    the loop, or in its test)."""
    return (
        _tests_after_the_body(loop)
        and loop.id not in earlier.loops
        and loop.body is not None
        and loop.body[2:] <= read.pos[:2]
    )


def _tested_after_the_update(loop: Loop, earlier: Site, read: Site) -> bool:
    """Whether `earlier` lies in the update of the Java `for` statement `loop`, which the read at
    `read` follows: every way from the update to the read runs the test, also one through a jump
    leaving the body, which the test ran before on that pass (`for (; (e = cur) == null && i < n;
    i++, e = hist)`, then `commit(e)`)."""
    return loop.update is not None and within(earlier.pos, loop.update) and loop.site.pos[2:] <= read.pos[:2]


def _between(pos: Pos, first: Pos, last: Pos) -> bool:
    """Whether the span `pos` lies after the span `first` and before the span `last`."""
    return first[2:] <= pos[:2] and pos[2:] <= last[:2]


def _in_condition(site: Site, loop: Loop) -> bool:
    """Whether `site` lies in the condition of a Java `for` statement `loop`: in the loop (its init
    is not), but not in its body or update."""
    in_update = loop.update is not None and within(site.pos, loop.update)
    return loop.id in site.loops and not in_update and not _in_body(site.pos, loop)


def _still_aliased(alias: Site, store: Site, rebinds: Sequence[Site]) -> bool:
    """Whether a store into an item of an alias bound at `alias` (see `_local_aliases`), or a
    read of it, at `store`, is one of what the aliased local holds: it comes after the alias, and
    no rebinding of that local (`rebinds`) comes between them, nor after them in a loop around it
    but not the alias (where a later turn stores into what it bound)."""
    if store.pos[:2] < alias.pos[2:]:
        return False
    return not any(
        alias.pos[2:] <= rebind.pos[:2]
        and (rebind.pos[2:] <= store.pos[:2] or set(rebind.loops) & set(store.loops) - set(alias.loops))
        for rebind in rebinds
    )


def _parameters_in(summary: Summary) -> frozenset[str]:
    """The parameters a summary's labels are made from, and those their conditions name."""
    labels = [*summary.returns, *(label for value in summary.stores.values() for label in value)]
    labels += [label for value in summary.returned_parts.values() for label in value]
    labels += [event.label for event in summary.events]
    names: set[str] = set()
    for label in labels:
        made: Label | None = label
        while made is not None:
            if made.kind == PARAM:
                names.add(str(made.key[0]))
            elif made.kind == CONDITIONAL:
                names.update(name for clause in made.key for name in clause)  # type: ignore[attr-defined]
            made = made.inner
    return frozenset(names)


def _holds_its_own(value: Value) -> bool:
    """Whether `value` holds a label that depends on no parameter: one of the function's own."""
    return not all(depends_on_parameter(label) for label in value)


def _binds_a_label(args: Mapping[str, Value], keys: Sequence[Bound]) -> bool:
    """Whether an argument bound by `keys`, or an element of one, holds a label: all a binding
    holds comes from those (see `_element_of`), whatever the callee's summary names."""
    bound = {key.key for key in keys}
    elements = tuple(f"{key}[" for key in bound)
    return any(value and (key in bound or key.startswith(elements)) for key, value in args.items())


def _closure(start: set[str], step: Callable[[str], Iterable[str]]) -> set[str]:
    """`start` and everything reached from it by `step`."""
    reached = set(start)
    pending = list(start)
    while pending:
        for other in step(pending.pop()):
            if other not in reached:
                reached.add(other)
                pending.append(other)
    return reached


def _shortest_events(events: Iterable[Event]) -> list[Event]:
    """One event per (kind, label, place), with its shortest path: a callee's event climbs to
    every call site, and without this its copies would multiply along each chain of calls."""
    kept: dict[tuple[str, Label, str, Site], Event] = {}
    for event in events:
        key = (event.kind, event.label, event.fid, event.site)
        known = kept.get(key)
        if known is None or len(event.path) < len(known.path):
            kept[key] = event
    return list(kept.values())


def _assigned_shape(
    assigned: Mapping[str, Sequence[_Assignment]],
) -> dict[str, tuple[frozenset[tuple[str, Label]], ...]]:
    """The labels of each assignment of each local, by the key of the element they are at (see
    `_Assignment.parts`)."""
    return {
        name: tuple(frozenset((key, label) for key, part in done.parts.items() for label in part) for done in values)
        for name, values in assigned.items()
    }


def _shape(locals_: Mapping[str, Value]) -> dict[str, frozenset[Label]]:
    return {name: frozenset(value) for name, value in locals_.items() if value}
