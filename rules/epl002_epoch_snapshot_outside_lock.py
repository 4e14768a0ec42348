"""EPL002: a local keeps a snapshot of an epoch field and decides with it outside the field's lock."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from epochlint.findings import ChainStep, Finding, Location, RelatedLocation
from epochlint.frontend.facts import FLOW_CONDITION, Flow, Pos, Ref, Site, written_name
from epochlint.program.dataflow import (
    EMPTY,
    HOP_ASSIGN,
    HOP_PASS,
    HOP_RETURN,
    HOP_SOURCE,
    HOP_USE,
    PARAM,
    CallContext,
    Domain,
    Event,
    Hop,
    Label,
    Path,
    Value,
    merge,
)
from epochlint.program.model import Program, ReachedRead, Step
from epochlint.program.symbols import CONSTRUCTORS, FieldId
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import guarded_write_locations, unique
from epochlint.rules.epl001_unlocked_epoch_read_in_batch_loop import UnlockedEpochReadInBatchLoop

# A read of a guarded epoch field, as read; once compared, a decision about it (`ok = m.e >= e`).
READ = "read"
DECIDED = "decided"
# A local that took such a value, with the read it took as its inner label.
SNAPSHOT = "snapshot"
DECISION = "decision"

# Builtins whose result is computed from their arguments: they carry an epoch along.
_CARRYING_BUILTINS = frozenset(
    {"int", "float", "abs", "max", "min", "round", "bool", "all", "any", "sum", "dict", "list", "tuple", "sorted"}
)
# A container's methods that give what it holds: an item, a copy, or a view of its values.
_CARRYING_METHODS = frozenset({"get", "pop", "setdefault", "copy", "values", "items"})

# A place in one frame: a function and a site in it.
Frame = tuple[str, Site]


class EpochSnapshots(Domain):
    """Reads of guarded epoch fields, the locals that keep them, and the decisions made with those."""

    key = "EPL002"

    def __init__(self, program: Program) -> None:
        self.program = program

    def may_read(self, fid: str, ref: Ref) -> bool:
        # `read` makes labels of epoch fields alone.
        return self._epoch_field(fid, ref) is not None

    def read(self, fid: str, ref: Ref, site: Site) -> tuple[Value, bool]:
        field = self._epoch_field(fid, ref)
        if field is None or not self.program.guards(field):
            return EMPTY, False
        if self._own_field_in_constructor(fid, ref):
            return EMPTY, False
        hop = Hop(fid, site, HOP_SOURCE, f"reads `{field.display()}`")
        return {Label(READ, (field, fid, site.pos)): (hop,)}, False

    def _epoch_field(self, fid: str, ref: Ref) -> FieldId | None:
        field = self.program.dataflow.field_of(fid, ref)
        return field if field is not None and self.program.is_epoch(field) else None

    def _own_field_in_constructor(self, fid: str, ref: Ref) -> bool:
        symbols = self.program.symbols
        return symbols.function(fid).name in CONSTRUCTORS and ref.name == symbols.self_param(fid)

    def call_value(self, ctx: CallContext) -> Value:
        """Values returned by project functions other than accessors carry no read (the domain
        drops decided reads at returns); unknown calls carry nothing, but for builtins that
        compute from their arguments (or copy them) and containers' getters, copies and views."""
        if ctx.resolved is not None:
            return ctx.resolved
        if ctx.callee.kind == "external" and ctx.callee.target in _CARRYING_BUILTINS:
            return ctx.all_args()
        if ctx.call.method in _CARRYING_METHODS and ctx.call.callee is not None:
            return ctx.receiver
        return EMPTY

    def leaves(self, flow: Flow, value: Value) -> Value:
        if not flow.compared or not any(label.kind == READ for label in value):
            return value
        return {
            (Label(DECIDED, label.key) if label.kind == READ else label): path
            for label, path in value.items()
        }

    def assign(self, fid: str, name: str, value: Value, site: Site) -> Value:
        reads = {label: path for label, path in value.items() if label.kind in (READ, DECIDED)}
        if not reads or self._only_returned(fid, name):
            return value
        definition = self.program.dataflow.definition_site(fid, name, site)
        hop = Hop(fid, definition, HOP_ASSIGN, f"kept in the local `{written_name(name)}`")
        result = {label: path for label, path in value.items() if label not in reads}
        for label, path in reads.items():
            merge(result, {Label(SNAPSHOT, (fid, name, definition.pos), label): path}, hop)
        return result

    def _only_returned(self, fid: str, name: str) -> bool:
        """`value = self._epoch; return value` is an accessor's return, not a snapshot."""
        loads = self.program.dataflow.loads(fid, name)
        return bool(loads) and all(load.flow.returns_it() for load in loads)

    def passes(self, label: Label, how: str) -> bool:
        if label.kind == READ:
            return how == "return"
        return label.kind != DECIDED

    def keeps_event(self, label: Label) -> bool:
        return label.kind in (SNAPSHOT, PARAM)

    def value_events(self, fid: str, site: Site, flow: Flow, value: Value) -> Iterable[Event]:
        if not (flow.compared or flow.kind == FLOW_CONDITION) or self.program.is_logging(fid, flow):
            return
        hop = Hop(fid, site, HOP_USE, "used in a decision")
        for label, path in value.items():
            if self.keeps_event(label):
                yield Event(DECISION, label, (*path, hop), fid, site)


class EpochSnapshotOutsideLock(Rule):
    code = "EPL002"
    name = "epoch-snapshot-outside-lock"
    summary = "A local keeps a snapshot of an epoch field and decides with it outside the field's lock."
    what = """
A local is assigned a value computed from a read of a guarded epoch field: the field itself, a
decision that reads it (`ok = msg.epoch >= self._epoch`), or the result of an accessor or property
that returns it. The local, or a local computed from it, is later used in a decision: compared,
tested in a condition (an `if`'s, or as what a `match` or a Java `switch` chooses its case by), or
passed or returned to where it is compared (through any depth of calls).
The read and that use are not inside one and the same held region of the guard: the snapshot was
taken outside the lock, or under it in a region that ended before the use. In a tuple assignment
only the targets that receive a value computed from the field are snapshots (`epoch, expired =
self._epoch, self.is_expired()` snapshots `epoch` alone); a walrus assigns its local, and the
expression's own value is the read, not a use. Not a stale use: re-validating the snapshot against
the live field read under the guard (the optimistic idiom: `with L: if epoch != self._epoch:
return`, directly or through an accessor that reads the field under the guard); a snapshot whose
every use re-validates is not reported. Not decisions: uses that only log, and sending the epoch on
(a command or a message tagged with it, to be compared later
against the live field). Not reported: the read and every use in one held region; in a coroutine,
no interleaving point between the read and the use (an `async with` is one where it enters, once
its header is evaluated, and one where its body ends, on every way out of it); a field without a
guard; a read in a batch loop that EPL001 already reports for the field, a helper's read too where
the helper runs only in such loops (where EPL001 is not selected, it reports nothing, and the
snapshot is this rule's).
Reported once, at the local that takes the read.
"""
    why = """
A snapshot freezes the epoch at the moment it was read. A redeliver, seek or reconnect that runs
after the read and before the decision bumps the epoch and clears the queue, but the decision is
still made with the old value: messages from before the rewind are accepted. Taking the snapshot
under the lock does not help once the lock is released before the snapshot is used.
"""
    seed = """
Pulsar #25204: the investigation's fix options 2 ("snapshot the epoch once at the start of the
batch") and 3 ("snapshot under the lock, release, then run the loop with the snapshot") are both
shown to be wrong: a redeliver between the snapshot and the loop is missed and a stale batch is
delivered. Only holding `incomingQueueLock` for the whole batch (option 1) is correct.
"""
    example = """
class MultiTopicsConsumer:
    def redeliver_unacknowledged_messages(self):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1
            self.incoming_messages.clear()

    def on_messages_received(self, messages):
        with self.incoming_queue_lock:
            epoch = self.consumer_epoch  # EPL002: the region ends before the snapshot is used
        for message in messages:
            if message.consumer_epoch >= epoch:
                self.message_received(message)
"""
    java_example = """
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

class Consumer {
    private final ReentrantLock lock = new ReentrantLock();
    private long epoch;

    public void redeliver() {
        lock.lock();
        try {
            epoch++;
        } finally {
            lock.unlock();
        }
    }

    public void seek() {
        lock.lock();
        try {
            epoch++;
        } finally {
            lock.unlock();
        }
    }

    void receive(List<Message> messages) {
        long current = epoch; // expect: EPL002
        for (Message msg : messages) {
            if (msg.epoch >= current) {
                deliver(msg);
            }
        }
    }

    void deliver(Message msg) {
    }
}
"""
    fix = """
Decide while holding the guard, with the live field, for the whole batch (the investigation's
option 1):

```python
    def on_messages_received(self, messages):
        with self.incoming_queue_lock:
            for message in messages:
                if message.consumer_epoch >= self.consumer_epoch:
                    self.message_received(message)
```

Keeping the epoch in a local is fine as long as the read and every decision that uses it stay
inside that one held region. With a non-reentrant lock, check EPL008 first.
"""
    valid = (
        Example(
            title="read and decision in one held region",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def seek(self):
        with self._lock:
            self._epoch += 1

    def accept(self, message):
        with self._lock:
            epoch = self._epoch
            if message.epoch >= epoch:
                self.deliver(message)
""",
        ),
        Example(
            title="the epoch is only sent on, as a tag",
            code="""
import threading

class Consumer:
    def __init__(self, cnx):
        self._lock = threading.Lock()
        self._epoch = 0
        self._cnx = cnx

    def seek(self):
        with self._lock:
            self._epoch += 1

    def request_redelivery(self):
        epoch = self._epoch
        self._cnx.send_redeliver(epoch=epoch)
""",
        ),
    )
    invalid = (
        Example(
            title="the snapshot is taken under the lock and used after release",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def seek(self):
        with self._lock:
            self._epoch += 1

    def accept_batch(self, batch):
        with self._lock:
            epoch = self._epoch  # expect: EPL002
        for message in batch:
            if message.epoch >= epoch:
                self.deliver(message)
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        analysis = program.dataflow.analyse(EpochSnapshots(program))
        reported = _epl001_reads(program)
        by_snapshot: dict[Label, list[Event]] = {}
        for event in analysis.events:
            snapshot = _snapshot(event.label)
            if event.kind == DECISION and snapshot is not None:
                by_snapshot.setdefault(snapshot, []).append(event)
        for snapshot, events in sorted(by_snapshot.items(), key=lambda item: _sort_key(item[0])):
            field: FieldId = snapshot.root().key[0]  # type: ignore[assignment]
            if (str(snapshot.key[0]), _arrival(events[0].path, str(snapshot.key[0])), field) in reported:
                continue
            guards = program.guards(field)
            unprotected = [
                e for e in events
                if not _protected(program, e.path, guards)
                and not program.revalidates(e.path[-1].fid, e.path[-1].site, field, guards)
            ]
            if unprotected:
                yield self._finding(program, snapshot, field, guards, unprotected)

    def _finding(
        self,
        program: Program,
        snapshot: Label,
        field: FieldId,
        guards: frozenset[FieldId],
        uses: list[Event],
    ) -> Finding:
        fid, name, pos = snapshot.key
        guard = " or ".join(f"`{lock.display()}`" for lock in sorted(guards))
        shown = min(uses, key=lambda e: len(e.path))
        reads, _ = _frames(shown.path)
        if _held_at(program, reads, guards):
            how = f"under {guard}, but the held region ends before it is used"
            # A later region of the guard may hold the use: the snapshot is no fresher for it.
            used = f"`{name}` used in a decision after the region that read it ended"
        else:
            how = f"outside its guard {guard}"
            used = f"`{name}` used in a decision; it was read without {guard}"
        message = (
            f"`{name}` keeps a snapshot of epoch field `{field.display()}` taken {how}; a writer "
            "(redeliver, seek) that runs between the snapshot and the decision is missed. Decide "
            f"with the live field while holding {guard}."
        )
        related = [
            RelatedLocation(_location(program, use.path[-1]), used)
            for use in sorted(uses, key=lambda e: (program.rel_path(e.path[-1].fid), e.path[-1].site.pos))
        ]
        related.extend(guarded_write_locations(program, field, guards))
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=program.location(str(fid), pos),  # type: ignore[arg-type]
            function=program.display_function(str(fid)),
            related=unique(related),
            chain=tuple(_chain(program, shown.path)),
            fingerprint_key=f"{name}:{field.display()}",
        )


def _snapshot(label: Label) -> Label | None:
    while label is not None and label.kind != SNAPSHOT:
        label = label.inner  # type: ignore[assignment]
    return label


def _sort_key(snapshot: Label) -> tuple[str, object]:
    fid, _, pos = snapshot.key
    return str(fid), pos


def _epl001_reads(program: Program) -> set[tuple[str, Pos, FieldId]]:
    """Where EPL001 reports a read of a field in a batch loop, as the loop's function sees it
    (the access, or the call that reaches the read); the read in the body of a generator the loop
    iterates, which runs in the loop (RULES.md, Batch loop); and a helper's read that runs only in
    such loops, every call of the helper being on the way from one (one finding per mistake). A
    helper called from elsewhere too makes its snapshot there a mistake of its own. Where EPL001 is
    not selected for the loop's file, it reports nothing there, and the snapshot is this rule's."""
    reads = [
        (field, read)
        for loop, field, _, found in UnlockedEpochReadInBatchLoop().reported(program)
        if program.config.is_code_enabled(UnlockedEpochReadInBatchLoop.code, program.rel_path(loop.function))
        for read in found
    ]
    in_loops = {(read.steps[0].function, read.steps[0].site.pos) for _, read in reads}
    on_the_way = {(step.function, step.site.pos) for _, read in reads for step in read.steps[:-1]}
    only_in_loops = _OnlyInLoops(program, in_loops, on_the_way)
    return {
        (step.function, step.site.pos, field)
        for field, read in reads
        for step in (read.steps[0], *_generator_read(program, read), *only_in_loops.read(read))
    }


class _OnlyInLoops:
    """Whether a function runs only inside reported batch loops: every call of it that shapes
    the model is made in such a loop, or on the way from one by a function that runs only there."""

    def __init__(self, program: Program, in_loops: set[tuple[str, Pos]], on_the_way: set[tuple[str, Pos]]) -> None:
        self._program = program
        self._in_loops = in_loops
        self._on_the_way = on_the_way
        self._known: dict[str, bool] = {}

    def read(self, read: ReachedRead) -> tuple[Step, ...]:
        """The read itself, where it is made through calls by a function that runs only there."""
        last = read.steps[-1]
        return (last,) if len(read.steps) > 1 and self._runs_only_there(last.function) else ()

    def _runs_only_there(self, fid: str) -> bool:
        if fid not in self._known:
            self._known[fid] = False  # a recursion does not vouch for itself
            sites = [site for site in self._program.calls.sites_to.get(fid, ()) if self._program.shapes_model(site)]
            self._known[fid] = bool(sites) and all(self._made_there(site.caller, site.pos) for site in sites)
        return self._known[fid]

    def _made_there(self, caller: str, pos: Pos) -> bool:
        if (caller, pos) in self._in_loops:
            return True
        return (caller, pos) in self._on_the_way and self._runs_only_there(caller)


def _generator_read(program: Program, read: ReachedRead) -> tuple[Step, ...]:
    """The read itself, where it is made in the body of the generator that the path's first call
    runs; none for another path."""
    first = read.steps[0].edge
    if len(read.steps) != 2 or first is None or not program.symbols.function(first.callee).is_generator:
        return ()
    return (read.steps[-1],)


def _arrival(path: Path, fid: str) -> Pos | None:
    """Where a snapshot's value enters the snapshot's function: the read, or the call or
    property access that returns it."""
    return next((hop.site.pos for hop in path if hop.fid == fid), None)


def _frames(path: Path) -> tuple[list[Frame], list[Frame]]:
    """Where the read and the use happen, from the outermost frame both share downwards.

    A return before the use climbs to the caller (the read happened inside that call); a value
    passed into a callee descends (the use happens inside that call), and comes back up when the
    callee returns it.
    """
    reads: list[Frame] = [(path[0].fid, path[0].site)]
    uses: list[Frame] = []
    for hop in path[1:]:
        if hop.kind == HOP_RETURN:
            if uses:
                uses.pop()
            else:
                reads.insert(0, (hop.fid, hop.site))
        elif hop.kind in (HOP_PASS, HOP_USE):
            uses.append((hop.fid, hop.site))
    return reads, uses


def _protected(program: Program, path: Path, guards: frozenset[FieldId]) -> bool:
    """The read and the use happen in one held region of a guard, or, in a coroutine, with no
    interleaving point between them."""
    reads, uses = _frames(path)
    fid, read_site = reads[0]
    use_site = uses[0][1]
    locks = program.locks
    if (locks.entry.get(fid, frozenset()) | locks.decorator_locks(fid)) & guards:
        return True
    regions = locks.regions_by_id(fid)
    for region in set(read_site.regions) & set(use_site.regions):
        if locks.region_lock(fid, regions[region]) in guards:
            return True
    return program.in_async_context(fid) and not _interleaves(program, reads, uses)


def _interleaves(program: Program, reads: list[Frame], uses: list[Frame]) -> bool:
    """Whether an `await` can run between the read and the use: between them in their shared
    frame (or anywhere in a loop that holds the use but not the read), or in the callees on the
    way to either."""
    fid, read_site = reads[0]
    use_site = uses[0][1]
    awaits = program.symbols.function(fid).awaits
    new_loops = set(use_site.loops) - set(read_site.loops)
    for point in awaits:
        # One inside the read (`(await self.state()).epoch`) runs before it: it makes its receiver.
        # One where the read ends runs after it: the `__aexit__` of an `async with` that it ends.
        # The `__aenter__` of an item runs after its header, but interleaves only inside itself.
        if read_site.pos[2:] <= point.site.pos[:2] <= use_site.pos[:2] and not point.runs_inside(read_site.pos):
            return True
        if new_loops & set(point.site.loops):
            return True
    deeper = [(f, s, True) for f, s in reads[1:]] + [(f, s, False) for f, s in uses[1:]]
    for callee, site, after in deeper:
        for point in program.symbols.function(callee).awaits:
            if (point.site.pos[:2] > site.pos[:2]) == after and not point.runs_inside(site.pos):
                return True
    return False


def _held_at(program: Program, reads: list[Frame], guards: frozenset[FieldId]) -> bool:
    return any(program.locks.held(fid, site) & guards for fid, site in reads)


def _location(program: Program, hop: Hop) -> Location:
    return program.site_location(hop.fid, hop.site)


def _chain(program: Program, path: Path) -> Iterator[ChainStep]:
    for hop in path:
        yield ChainStep(_location(program, hop), program.display_function(hop.fid), hop.text)
