"""EPL003: an offset commit carries the epoch of consumed data instead of the current leader's."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from epochlint.config import Config
from epochlint.findings import ChainStep, Finding, FixHint, RelatedLocation
from epochlint.frontend.facts import Bind, Call, Choice, Ref, Site, written_name
from epochlint.frontend.java import is_java
from epochlint.program.callgraph import function_bound_at
from epochlint.program.dataflow import (
    CONDITIONAL,
    EMPTY,
    HOP_SOURCE,
    PARAM,
    Bound,
    CallContext,
    Domain,
    Event,
    Hop,
    Label,
    Path,
    Value,
    conditional,
    element_key,
    merge,
    passed_parameter,
)
from epochlint.program.model import Program
from epochlint.program.symbols import FieldId, bound_ahead
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import unique

HISTORICAL = "historical"
CURRENT = "current"
# A commit value (`OffsetAndMetadata`, `TopicPartition`) whose epoch is `inner`.
OFFSET = "offset"
COMMIT = "commit"
# The step where a commit value is built from the epoch (the `--fix` of EPL003 starts there).
BUILD = "build"

# The constructors whose epoch argument is committed, and the epoch's position when the project has
# no definition of its own: kafka-python's `OffsetAndMetadata(offset, metadata, leader_epoch)`,
# confluent-kafka's `TopicPartition(topic, partition, offset, metadata, leader_epoch)`.
_SINK_CLASSES: dict[str, int] = {"OffsetAndMetadata": 2, "TopicPartition": 4}
# Kafka's Java client: `new OffsetAndMetadata(offset, leaderEpoch, metadata)`; its other
# constructors, `(offset)` and `(offset, metadata)`, take no epoch.
_JAVA_SINK_CLASSES: dict[str, int | None] = {"OffsetAndMetadata": 1, "TopicPartition": None}
_JAVA_ARGUMENTS_WITH_EPOCH = 3
_EPOCH_KEYWORD = "leader_epoch"
# `max(historical, current)`, and Java's `Math.max`.
_MAX = frozenset({"max", "builtins.max", "Math.max", "java.lang.Math.max"})
_POSITION_WORDS = frozenset({"position", "pos"})


class CommitEpochs(Domain):
    """Historical and current epochs, the commit values built from them, and commit calls."""

    key = "EPL003"
    track_fields = True
    # `partial(self.commit_one, tp, offset, record.leader_epoch)` commits that epoch when called, as
    # `executor.submit(self.commit_one, tp, offset, record.leader_epoch)` does when it runs.
    follows_bound_arguments = True

    def __init__(self, program: Program) -> None:
        self.program = program
        self.config: Config = program.config
        # The epoch each name path reads (CURRENT, HISTORICAL or "") by its names, and each called
        # name by its receiver's: asked of every name path and call of every function, which
        # repeat the same few names, and answered by the configuration alone.
        self._read_epochs: dict[tuple[str, tuple[str, ...]], str] = {}
        self._called_epochs: dict[tuple[str, str], str] = {}

    # -- sources ---------------------------------------------------------------------------------

    def read(self, fid: str, ref: Ref, site: Site) -> tuple[Value, bool]:
        epoch = self._read_epoch(ref)
        if epoch == CURRENT:
            return {Label(CURRENT, (fid, site.pos)): ()}, True
        if epoch == HISTORICAL:
            return _historical(fid, site, ref.text()), True
        return EMPTY, False

    def may_read(self, fid: str, ref: Ref) -> bool:
        # `read` makes labels of current and historical epochs alone.
        return self._read_epoch(ref) != ""

    def _read_epoch(self, ref: Ref) -> str:
        key = (ref.name, ref.attrs)
        found = self._read_epochs.get(key)
        if found is None:
            found = self._read_epochs[key] = self._find_read_epoch(ref)
        return found

    def _find_read_epoch(self, ref: Ref) -> str:
        names = [attr for attr in ref.attrs if attr != "[]"]
        if not names:
            return ""
        if any(self.config.current_epoch_source(name) for name in names):
            return CURRENT
        receiver = ([written_name(ref.name), *names])[-2]
        return HISTORICAL if self.config.historical_epoch_read(names[-1], receiver) else ""

    def originates(self, fid: str, call: Call) -> bool:
        return bool(self._called_epoch(call))

    def _called_epoch(self, call: Call) -> str:
        """The epoch a call reads: CURRENT, HISTORICAL (the current one first), or ""."""
        key = (call.method, _receiver_name(call.callee))
        found = self._called_epochs.get(key)
        if found is None:
            method, receiver = key
            current = self.config.current_epoch_source(method)
            historical = not current and self.config.historical_epoch_read(method, receiver or None)
            found = self._called_epochs[key] = CURRENT if current else HISTORICAL if historical else ""
        return found

    def call_value(self, ctx: CallContext) -> Value:
        call = ctx.call
        epoch = self._called_epoch(call)
        if epoch == CURRENT:
            return {Label(CURRENT, (ctx.fid, call.site.pos)): ()}
        if epoch == HISTORICAL:
            return _historical(ctx.fid, call.site, f"{call.text}()")
        if ctx.callee.kind == "external" and ctx.callee.target in _MAX:
            arguments = ctx.all_args()
            current = {label: path for label, path in arguments.items() if label.kind == CURRENT}
            return current or _unless_current(arguments, arguments)
        if _sink_class(ctx):
            return self._commit_value(ctx)
        return super().call_value(ctx)

    def _commit_value(self, ctx: CallContext) -> Value:
        """`OffsetAndMetadata(offset, metadata, epoch)`: a commit value made from its epoch."""
        hop = Hop(ctx.fid, ctx.call.site, BUILD, f"`{ctx.call.text}(...)` built with it as its epoch")
        result: dict[Label, Path] = {}
        epochs = [ctx.args.get(key, EMPTY) for key in self._epoch_keys(ctx)]
        epochs += [ctx.element(key, element) for key, element in self._epoch_elements(ctx)]
        for epoch in epochs:
            for label, path in epoch.items():
                if label.kind in (HISTORICAL, PARAM, CONDITIONAL):
                    merge(result, {Label(OFFSET, (), label): path}, hop)
        return result

    def _epoch_keys(self, ctx: CallContext) -> set[str]:
        """The argument keys that hold the epoch, by the project's definition of the class or by
        kafka-python's."""
        keys = {_EPOCH_KEYWORD}
        if ctx.callee.kind != "class":
            position = self._epoch_position(ctx)
            if position is not None:
                keys.add(str(position))
            return keys
        # Each argument an epoch parameter may take: one after a `*` of unknown length too.
        keys.update(bound.key for bound in self._init_epoch_bindings(ctx) if bound.whole())
        keys.update(str(position) for position in self._generated_epochs(ctx).values())
        keys.update(key for key in ctx.args if not key.isdigit() and self.config.epoch_name(key))
        return keys

    def _epoch_elements(self, ctx: CallContext) -> Iterator[tuple[str, str]]:
        """(argument key, element) of each element of a starred argument (`**fields`, `*parts`)
        that an epoch parameter takes, by the project's definition of the class or by
        kafka-python's."""
        if ctx.callee.kind != "class":
            yield from _spread_epoch_elements(ctx.call, {_EPOCH_KEYWORD: self._epoch_position(ctx)})
            return
        yield from ((bound.key, bound.element) for bound in self._init_epoch_bindings(ctx) if bound.element)
        yield from _spread_epoch_elements(ctx.call, self._generated_epochs(ctx))

    def _generated_epochs(self, ctx: CallContext) -> dict[str, int | None]:
        """The epoch fields, by name, and their positions, of the `__init__` of the class a call
        builds where the class writes none: a dataclass's or a NamedTuple's takes its fields in
        order."""
        fields = self.program.symbols.generated_init_parameters(ctx.callee.target)
        return {name: index for index, name in enumerate(fields) if self.config.epoch_name(name)}

    def _init_epoch_bindings(self, ctx: CallContext) -> list[Bound]:
        """The bindings of the epoch parameters of the project's `__init__` of the class a call
        builds (none of a star parameter's elements: a `**kwargs` forwards them by their keys)."""
        init = self.program.symbols.lookup_method(ctx.callee.target, "__init__")
        if not init:
            return []
        bindings = ctx.flow.bound_argument_keys(init, ctx.fid, ctx.call, bound_ahead(ctx.callee))
        return [bound for bound in bindings if bound.first < 0 and self.config.epoch_name(bound.param)]

    def _epoch_position(self, ctx: CallContext) -> int | None:
        """The epoch's position among the arguments of a sink class the project does not define;
        None where it takes none (Java's constructors without one)."""
        java = is_java(self.program.symbols.module_of(ctx.fid).rel)
        position = (_JAVA_SINK_CLASSES if java else _SINK_CLASSES)[_sink_class(ctx)]
        return position if not java or len(ctx.call.args) == _JAVA_ARGUMENTS_WITH_EPOCH else None

    # -- how labels travel -------------------------------------------------------------------------

    def through_attribute(self, label: Label) -> bool:
        return label.kind == CURRENT

    def choice(self, choice: Choice, parts: Sequence[Value]) -> Value:
        """The seed's fallbacks are not historical: `cur if cur is not None else hist`,
        `hist if cur is None else cur`, `cur or hist`; the historical epoch taken where the current
        one is there (`hist if cur is not None else cur`) is. In a helper whose operands are its
        parameters, the callers' arguments decide (see `_unless_current`)."""
        if choice.kind == "if":
            test, body, orelse = parts
            parts = [
                EMPTY,
                _unless_current(body, test, orelse) if choice.present_arm != 1 else body,
                _unless_current(orelse, test, body) if choice.present_arm != 2 else orelse,
            ]
        elif choice.kind == "or":
            parts = [parts[0], *(_unless_current(p, parts[0]) for p in parts[1:])]
        return super().choice(choice, parts)

    def fallback(self, held: Value, value: Value) -> Value:
        """`epoch = cur` then `if epoch is None: epoch = hist`: the seed's combined approach."""
        return _unless_current(value, held)

    def rewrap(self, label: Label, inner: Label, binding: Mapping[str, Value]) -> Label | None:
        made = super().rewrap(label, inner, binding)
        # A commit value is made only of an epoch that may be historical.
        if made is not None and made.kind == OFFSET and made.inner is not None:
            return made if made.inner.kind in (HISTORICAL, PARAM, CONDITIONAL) else None
        return made

    def meets(self, label: Label) -> bool:
        return label.kind == CURRENT

    def met(self, label: Label) -> Label | None:
        return label if label.root().kind != HISTORICAL else None

    # -- commits ---------------------------------------------------------------------------------

    def call_events(self, ctx: CallContext) -> Iterable[Event]:
        call = ctx.call
        if self.config.commit_callee(call.method):
            committed, by = list(ctx.args.values()), f"committed by `{call.text}(...)`"
        else:
            committed, by = self._bound_to_a_commit(ctx), f"bound by `{call.text}(...)` for a commit"
        hop = Hop(ctx.fid, call.site, COMMIT, by)
        for value in committed:
            for label, path in value.items():
                if self.keeps_event(label):
                    yield Event(COMMIT, label, (*path, hop), ctx.fid, call.site)

    def _bound_to_a_commit(self, ctx: CallContext) -> list[Value]:
        """The values a call binds for a later call of a commit that is no function of the project
        (`functools.partial(consumer.commit, offsets=...)`, `executor.submit(consumer.commit,
        offsets)`, `loop.run_in_executor(None, consumer.commit, offsets)`): committed when it runs.
        A project function bound so is followed into (`follows_bound_arguments`)."""
        symbols = self.program.symbols
        found = function_bound_at(symbols, ctx.fid, ctx.call)
        if found is None:
            return []
        function, bound = found
        # Through a local alias too (`commit = consumer.commit`).
        called = symbols.expand_alias(ctx.fid, function.ref) if function.ref is not None else None
        name = called.attrs[-1] if called is not None and called.attrs else ""
        if not name or not self.config.commit_callee(name):
            return []
        if any(value.kind in ("function", "class") for value in symbols.argument_values(ctx.fid, function)):
            return []
        # An argument, or an element of the literal tuple or dict a thread is started with.
        keys: dict[int, str] = {}
        for index, arg in enumerate(ctx.call.args):
            keys[id(arg)] = arg.keyword or str(index)
            for position, item in enumerate(arg.items):
                keys[id(item)] = element_key(keys[id(arg)], item.keyword or str(position))
        return [ctx.args.get(keys[id(arg)], EMPTY) for arg in bound if id(arg) in keys]

    def keeps_event(self, label: Label) -> bool:
        return label.kind in (OFFSET, PARAM, CONDITIONAL)


def _spread_epoch_elements(call: Call, epochs: Mapping[str, int | None]) -> Iterator[tuple[str, str]]:
    """(argument key, element) of each element of a starred argument that an epoch parameter of
    `epochs` (name -> position; None: by keyword only) takes where no keyword names it: its name of
    each `**fields`, and of the first `*parts`, the element `position` places on from it (after it,
    positions are unknown)."""
    named = {arg.keyword for arg in call.args if arg.keyword}
    unnamed = {name: position for name, position in epochs.items() if name not in named}
    spread = False
    for index, arg in enumerate(call.args):
        if arg.star == "**":
            yield from ((str(index), name) for name in unnamed)
        elif arg.star == "*" and not spread:
            spread = True
            for position in unnamed.values():
                if position is not None and position >= index:
                    yield str(index), str(position - index)


def _sink_class(ctx: CallContext) -> str:
    """The sink class a call builds (`OffsetAndMetadata`, `TopicPartition`), by the name it is
    called by or by the class or import that name stands for (`from kafka import
    OffsetAndMetadata as OAM`); "" for another call."""
    if ctx.call.method in _SINK_CLASSES:
        return ctx.call.method
    if ctx.callee.kind in ("class", "external"):
        name = ctx.callee.target.rpartition(":")[2].rpartition(".")[2]
        return name if name in _SINK_CLASSES else ""
    return ""


class CommitWithHistoricalEpoch(Rule):
    code = "EPL003"
    name = "commit-with-historical-epoch"
    summary = "An offset commit carries the epoch of consumed data instead of the current leader epoch."
    what = """
A value that holds a historical epoch reaches an offset commit as the commit's leader epoch. A
historical epoch is the epoch of data already consumed: an attribute named `offset_epoch`,
`last_epoch` or `last_fetched_epoch`, or `leader_epoch`/`epoch` read (as an attribute or a method
call) from a record, batch, message, fetch or position value (`record.leader_epoch`,
`completed_fetch.epoch`). It becomes a commit value as the epoch argument of `OffsetAndMetadata` or
`TopicPartition` (the `leader_epoch` keyword, or the positional argument bound to an epoch
parameter, by the project's own class (a dataclass's or NamedTuple's fields in order, where it
writes no `__init__`), by kafka-python's `OffsetAndMetadata(offset, metadata,
leader_epoch)` or by confluent-kafka's `TopicPartition(topic, partition, offset, metadata,
leader_epoch)`), and is reported when that value reaches a commit call: a callee with `commit` as a
whole word in its name, `send_offsets_to_transaction` or `store_offsets`. The value is followed
through locals, dicts and lists of offsets (comprehensions included), arguments, returns,
constructors and fields, across modules; a local given another value on every path before a read
(`epoch = max(epoch, current)`, where nothing the read is not in may skip it or cut it short: an
`if`, a loop or its `else`, a `try`, a `with` that may swallow an exception, a short-circuit) no
longer holds the earlier one there. A function that passes its parameter on to a commit is a
commit itself at its call sites: the finding lands at the outermost call that receives the
historical value, once per call whatever the number of sources. A call that binds the value for a
later call of such a function is one too: `functools.partial(commit_one, tp, offset,
record.leader_epoch)`, and the hand-offs that forward their further arguments
(`executor.submit(commit_one, ...)`, `to_thread`, `call_soon`, `call_soon_threadsafe`,
`call_later`, `call_at`, `run_in_executor`), and a thread, timer or process started with it in its
literal tuple or dict of arguments (`threading.Thread(target=commit_one, args=(tp, offset,
record.leader_epoch))`); so is a call that binds it for a later call of the client's own commit
(`functools.partial(consumer.commit, offsets=...)`, `executor.submit(consumer.commit, offsets)`,
`loop.run_in_executor(None, consumer.commit, offsets)`). Not historical: the current leader
epoch (`current_leader`, `current_leader_epoch`, `metadata.leader_epoch_for(tp)`, also through a
position: `position.current_leader.epoch`), `max(historical, current)`, and a fallback that uses
the historical epoch only when the current one is missing (`cur if cur is not None else hist`,
`cur or hist`, or as statements: `epoch = cur` then `if epoch is None: epoch = hist` (or `if cur
is None:`), or `if cur is not None: epoch = cur` with `else: epoch = hist`, either way round).
Either defence written in a helper that takes both epochs (`pick_epoch(cur, hist)`), also as
returns (`if cur is None: return hist` then `return cur`, or `if cur is not None: return cur`
then `return hist`), is judged at each call as if written there: by what the call passes.
`min(historical, current)` and a conditional on anything else (`hist if flag else cur`) do carry
the historical epoch. Sources,
current sources and commit callees are configurable (`historical-epoch-sources`,
`current-epoch-sources`, `commit-sinks`).
"""
    why = """
The committed leader epoch is what a consumer restoring from the commit presents to the broker to
validate its position. The epoch of the last consumed record belongs to whichever leader wrote it;
after a leader change and a truncation the new leader may no longer know that epoch, validation
fails with OFFSET_OUT_OF_RANGE, and the consumer resets: to the earliest offset (days of data
reprocessed) or to the latest (messages lost).
"""
    seed = """
KAFKA-19902: `SubscriptionState.allConsumed()` builds each commit as `new
OffsetAndMetadata(position.offset, position.offsetEpoch, "")`, the epoch of the consumed batch, while
the position also holds `currentLeader.epoch`. After a leader change, a rebalance that commits in
`onPartitionsRevoked`, and a truncation, `refreshCommittedOffsets()` restores a position whose epoch
the broker no longer has, and the consumer resets to the earliest offset.
"""
    example = """
class SubscriptionState:
    def all_consumed(self):
        consumed = {}
        for tp, state in self.assignment.items():
            if state.has_valid_position():
                # kafka-python's order: (offset, metadata, leader_epoch)
                consumed[tp] = OffsetAndMetadata(state.position.offset, "", state.position.offset_epoch)
        return consumed

class ConsumerCoordinator:
    def __init__(self, subscriptions: SubscriptionState):
        self.subscriptions = subscriptions

    def maybe_auto_commit_offsets_now(self):
        self.commit_offsets_async(self.subscriptions.all_consumed())  # EPL003
"""
    java_example = """
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

class Committer {
    void commitPosition(Consumer consumer, TopicPartition tp, FetchPosition position) {
        OffsetAndMetadata offset = new OffsetAndMetadata(position.offset, position.offsetEpoch, "");
        consumer.commitSync(Map.of(tp, offset)); // expect: EPL003
    }
}
"""
    fix = """
Commit the current leader epoch, or, as the KAFKA-19902 analysis proposes for defence in depth, the
larger of the two, falling back to the record's epoch only when no leader epoch is known:

```python
    def all_consumed(self):
        consumed = {}
        for tp, state in self.assignment.items():
            if state.has_valid_position():
                position = state.position
                current = position.current_leader.epoch
                if position.offset_epoch is not None and current is not None:
                    epoch = max(position.offset_epoch, current)
                else:
                    epoch = current if current is not None else position.offset_epoch
                consumed[tp] = OffsetAndMetadata(position.offset, epoch, "")
        return consumed
```

Keep the position's current leader fresh too (EPL007): a current leader carried forward from
position to position is as stale as the record's epoch.
"""
    autofix = """
the historical epoch is read right in the epoch argument of the commit value (`OffsetAndMetadata`,
`TopicPartition`), and the current leader epoch is in scope there: a local bound once, before it,
to the current epoch from metadata (`metadata.leader_epoch_for(tp)`,
`position.current_leader.epoch`) and never unbound in the function (`del`, `except ... as`), or
the `current_leader.epoch` of the position the historical
epoch is read from. Both are then numbers, as in kafka-python, which
writes -1 for an epoch it does not know.
"""
    valid = (
        Example(
            title="the current leader's epoch is committed",
            code="""
from kafka.structs import OffsetAndMetadata

class Committer:
    def commit_record(self, consumer, tp, record, metadata):
        epoch = metadata.leader_epoch_for(tp)
        consumer.commit({tp: OffsetAndMetadata(record.offset + 1, "", epoch)})
""",
        ),
        Example(
            title="max(record epoch, current epoch) is the seed's defence",
            code="""
from kafka.structs import OffsetAndMetadata

def commit_record(consumer, tp, record, position):
    epoch = max(record.leader_epoch, position.current_leader.epoch)
    consumer.commit({tp: OffsetAndMetadata(record.offset + 1, "", epoch)})
""",
        ),
    )
    invalid = (
        Example(
            title="the record's epoch is committed",
            code="""
from kafka.structs import OffsetAndMetadata

def commit_record(consumer, tp, record):
    offsets = {tp: OffsetAndMetadata(record.offset + 1, "", record.leader_epoch)}
    consumer.commit(offsets)  # expect: EPL003
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        analysis = program.dataflow.analyse(CommitEpochs(program))
        by_call: dict[tuple[str, tuple[int, int, int, int]], list[Event]] = {}
        for event in analysis.events:
            if event.kind == COMMIT and event.label.kind == OFFSET:
                by_call.setdefault((event.fid, event.site.pos), []).append(event)
        for (fid, pos), events in sorted(by_call.items()):
            yield self._finding(program, fid, pos, events)

    def _finding(
        self, program: Program, fid: str, pos: tuple[int, int, int, int], events: list[Event]
    ) -> Finding:
        shown = min(events, key=lambda e: (len(e.path), _source(e).site.pos))
        source = _source(shown)
        text = str(shown.label.root().key[2])
        others = len({e.label.root() for e in events}) - 1
        more = f" (and {others} more source{'s' if others > 1 else ''})" if others else ""
        message = (
            f"This commit carries a historical epoch: `{text}`{more}, the epoch of data already "
            "consumed, is committed as the leader epoch. After a leader change and a truncation, "
            "restoring from this commit fails validation and the consumer resets; commit the "
            "current leader epoch (or max(historical, current))."
        )
        related = [
            RelatedLocation(
                program.location(_source(e).fid, _source(e).site.pos),
                f"historical epoch `{e.label.root().key[2]}` read here",
            )
            for e in sorted(events, key=lambda e: (program.rel_path(_source(e).fid), _source(e).site.pos))
        ]
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=program.location(fid, pos),
            function=program.display_function(fid),
            related=unique(related),
            chain=tuple(_chain(program, shown.path)),
            fingerprint_key=f"{source.text}",
            fix=_commit_at_least_current(program, shown.path),
        )


def _source(event: Event) -> Hop:
    return event.path[0]


def _chain(program: Program, path: tuple[Hop, ...]) -> Iterator[ChainStep]:
    for hop in path:
        yield ChainStep(program.site_location(hop.fid, hop.site), program.display_function(hop.fid), hop.text)


def _historical(fid: str, site: Site, text: str) -> Value:
    hop = Hop(fid, site, HOP_SOURCE, f"reads the historical epoch `{text}`")
    return {Label(HISTORICAL, (fid, site.pos, text)): (hop,)}


def _receiver_name(callee: Ref | None) -> str:
    """The last name of a method call's receiver: `record` in `self.record.leader_epoch()`."""
    if callee is None:
        return ""
    names = [callee.name, *(attr for attr in callee.attrs[:-1] if attr != "[]")]
    return names[-1] if callee.attrs else ""


def _has_current(value: Value) -> bool:
    return any(label.kind == CURRENT for label in value)


def _unless_current(value: Value, *conditions: Value) -> Value:
    """`value` without its historical epochs where every one of `conditions` holds a current epoch.
    Where they hold one only if the arguments of some parameters do (in a helper: `max(cur, hist)`,
    `cur if cur is not None else hist`), its parameters are handed on conditional on those: the
    callers' arguments decide, as if the helper were written inline."""
    clauses = [_parameters_of(condition) for condition in conditions if not _has_current(condition)]
    if not clauses:
        return _without_historical(value)
    if not all(clauses):
        return value
    return {
        (conditional(tuple(clauses), label) if passed_parameter(label) is not None else label): path
        for label, path in value.items()
    }


def _parameters_of(value: Value) -> tuple[str, ...]:
    """The parameters whose arguments `value` holds, maybe on conditions (`m = max(cur, hist)`
    holds a current epoch where `cur` or `hist` is)."""
    return tuple(sorted({name for label in value if (name := passed_parameter(label)) is not None}))


def _without_historical(value: Value) -> Value:
    return {label: path for label, path in value.items() if label.root().kind != HISTORICAL}


def _commit_at_least_current(program: Program, path: Sequence[Hop]) -> FixHint | None:
    """What `--fix` needs (`epochlint.fix.epl003`): `max(historical, current)` in place of the
    historical read, when a current epoch is at hand."""
    if len(path) < 2 or path[1].kind != BUILD or path[1].fid != path[0].fid:
        return None
    source, build = path[0], path[1]
    if not (build.site.pos[:2] <= source.site.pos[:2] and source.site.pos[2:] <= build.site.pos[2:]):
        return None  # read before, into a local that may have other uses
    current = _current_local(program, source) or _current_of_position(program, source)
    if current is None:
        return None
    return FixHint(text=current, location=program.location(source.fid, source.site.pos))


def _current_local(program: Program, source: Hop) -> str | None:
    """A local bound once, before the read, to the current leader epoch from metadata."""
    function = program.symbols.function(source.fid)
    for bind in function.binds:
        if bind.kind != "assign" or bind.site.pos[:2] >= source.site.pos[:2]:
            continue
        if _is_current(program, source.fid, bind) and sum(1 for b in function.binds if b.name == bind.name) == 1:
            return bind.name
    return None


def _is_current(program: Program, fid: str, bind: Bind) -> bool:
    """`x = metadata.leader_epoch_for(tp)`, `x = position.current_leader.epoch`: an epoch, and current."""
    config = program.config
    if bind.value_ref is not None and bind.value_ref.attrs:
        names = [attr for attr in bind.value_ref.attrs if attr != "[]"]
        return any(config.current_epoch_source(n) for n in names) and config.epoch_name(names[-1])
    call = program.symbols.call(fid, bind.value_call) if bind.value_call >= 0 else None
    return call is not None and config.current_epoch_source(call.method) and config.epoch_name(call.method)


def _current_of_position(program: Program, source: Hop) -> str | None:
    """`P.current_leader.epoch` when the source reads `P.<epoch>` and P is a position with a leader."""
    function = program.symbols.function(source.fid)
    read = next((a for a in function.accesses if a.site.pos == source.site.pos), None)
    if read is None or not read.ref.attrs:
        return None
    holder = Ref(read.ref.scope, read.ref.name, read.ref.attrs[:-1])
    if holder.text().rsplit(".", 1)[-1].lower().lstrip("_") not in _POSITION_WORDS:
        return None
    entity = program.symbols.entity(source.fid, holder)
    # Of unknown class, the position is any class of the project with the field read.
    owners = [entity.target] if entity.kind == "instance" else _classes_with(program, read.ref.attrs[-1])
    if not owners or not all(_has_field(program, cid, "current_leader") for cid in owners):
        return None
    return f"{holder.text()}.current_leader.epoch"


def _classes_with(program: Program, attr: str) -> list[str]:
    return [cid for cid in sorted(program.symbols.classes) if _has_field(program, cid, attr)]


def _has_field(program: Program, cid: str, attr: str) -> bool:
    owner = program.symbols.defining_class(cid, attr)
    return bool(program.field_writes.get(FieldId(owner, (attr,)))) or any(
        attr in program.symbols.classes[klass][1].attributes
        for klass in program.symbols.mro(cid)
        if klass in program.symbols.classes
    )
