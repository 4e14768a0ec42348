"""EPL007: a position advanced to a new offset keeps the previous position's leader epoch."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from epochlint.config import name_words, snake_name
from epochlint.findings import Finding, RelatedLocation
from epochlint.frontend.facts import Arg, Call, Pos, Ref, written_name
from epochlint.frontend.java import is_java
from epochlint.program.model import Program
from epochlint.program.symbols import Entity, receiver_path
from epochlint.rules.base import Example, Rule

# The slot of a position that holds the current leader and its epoch.
_LEADER_SLOT = re.compile("current_leader|current_leader_epoch|leader_and_epoch", re.IGNORECASE)
_OFFSET = "offset"
_COPIERS = frozenset({"dataclasses.replace", "copy.replace", "attrs.evolve", "attr.evolve"})


@dataclass(frozen=True)
class _Carried:
    """An old position's attribute passed into the leader slot of a new position (or a copy)."""

    function: str
    pos: Pos
    text: str
    position: str
    copy: bool = False


class StaleLeaderEpochCarriedForward(Rule):
    code = "EPL007"
    name = "stale-leader-epoch-carried-forward"
    summary = "A new position keeps the previous position's leader epoch instead of reading metadata."
    what = """
A new position is built for a new offset, and its current-leader slot (a parameter or keyword
matching `current_leader`, `current_leader_epoch` or `leader_and_epoch`) is given an attribute of
the previous position (`position.current_leader`; in Java, a record's accessor or a getter called
without arguments, `position.currentLeader()`, reads one) instead of the leader read from current
metadata. A call builds a position when its callee's name contains `Position` (a factory such as
`FetchPosition.of(...)` too), under whatever name it is called (`FP(...)` after `from positions
import FetchPosition as FP`, or a local `build = FetchPosition`), or when its result is assigned to a
name or attribute with `position` as a whole word. A position value is named with `position` or
`positions` as a whole word (an element of `self._positions`) or is an instance of a `...Position`
class. Positional arguments are matched to the parameters of the project's own definition of the
callee; where there is none, an argument such as
`position.current_leader` names its slot itself. Copies count too: `dataclasses.replace(position,
offset=...)`, `attrs.evolve(position, offset=...)` and `position._replace(offset=...)` leave the
leader as it was. Not reported: a
position that keeps the old offset (`position.offset`), a call that reads the old leader without
building a position (a validation request, a log line), and a copy of a record class of the
project (a dataclass, an attrs class, a NamedTuple) whose fields and methods name no leader.
"""
    why = """
The leader epoch in a position is what the consumer presents to the broker to prove it still follows
the current leader, and what it commits. Carried from position to position, it is only refreshed
when an error forces it; after a leader change it silently goes stale, commits record an epoch the
new leader may have truncated, and restoring from them fails validation and resets the consumer.
"""
    seed = """
KAFKA-19902, root cause 2: `FetchCollector` advances the fetch position with
`new FetchPosition(nextInLineFetch.nextFetchOffset(), nextInLineFetch.lastEpoch(),
position.currentLeader)`: the current leader is inherited from the old position, never re-read from
metadata, while the offset moves on. The recommended fix reads `metadata.currentLeader(tp)` there.
"""
    example = """
def advance(self, tp, position, completed_fetch):
    next_position = FetchPosition(
        completed_fetch.next_fetch_offset,
        completed_fetch.last_epoch,
        position.current_leader,  # EPL007: the old position's leader, not metadata's
    )
    self._subscriptions.position(tp, next_position)
"""
    java_example = """
class FetchCollector {
    void advance(TopicPartition tp, FetchPosition position, CompletedFetch fetch) {
        FetchPosition nextPosition = new FetchPosition(fetch.nextFetchOffset(), fetch.lastEpoch(),
                position.currentLeader); // expect: EPL007
        subscriptions.position(tp, nextPosition);
    }
}
"""
    fix = """
Read the leader from current metadata when the position advances:

```python
def advance(self, tp, position, completed_fetch):
    next_position = FetchPosition(
        completed_fetch.next_fetch_offset,
        completed_fetch.last_epoch,
        self._metadata.current_leader(tp),
    )
    self._subscriptions.position(tp, next_position)
```
"""
    valid = (
        Example(
            title="the leader comes from metadata",
            code="""
class FetchPosition:
    def __init__(self, offset, offset_epoch, current_leader):
        self.offset = offset
        self.offset_epoch = offset_epoch
        self.current_leader = current_leader

class FetchCollector:
    def advance(self, tp, position, fetch):
        return FetchPosition(fetch.next_offset, fetch.last_epoch, self.metadata.current_leader(tp))
""",
        ),
        Example(
            title="a validation request reads the old leader without building a position",
            code="""
def validation_request(tp, position):
    return OffsetForLeaderPartition(
        partition=tp.partition,
        leader_epoch=position.offset_epoch,
        current_leader_epoch=position.current_leader.epoch,
    )
""",
        ),
    )
    invalid = (
        Example(
            title="KAFKA-19902: the old position's leader is carried forward",
            code="""
class FetchPosition:
    def __init__(self, offset, offset_epoch, current_leader):
        self.offset = offset
        self.offset_epoch = offset_epoch
        self.current_leader = current_leader

class FetchCollector:
    def advance(self, tp, position, fetch):
        return FetchPosition(fetch.next_offset, fetch.last_epoch, position.current_leader)  # expect: EPL007
""",
        ),
        Example(
            title="a copy with a new offset keeps the leader",
            code="""
import dataclasses

@dataclasses.dataclass(frozen=True)
class FetchPosition:
    offset: int
    current_leader: object

def advance(position: FetchPosition, next_offset: int) -> FetchPosition:
    return dataclasses.replace(position, offset=next_offset)  # expect: EPL007
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        for fid, (_, function) in sorted(program.symbols.functions.items()):
            for call in function.calls:
                for carried in _carried(program, fid, call):
                    yield self._finding(program, carried)

    def _finding(self, program: Program, carried: _Carried) -> Finding:
        if carried.copy:
            message = (
                f"`{carried.position}` is copied with a new offset and keeps its leader epoch; read "
                "the current leader from metadata when the position advances."
            )
        else:
            message = (
                f"The new position's current leader is `{carried.text}`, carried from the previous "
                "position; read it from current metadata (KAFKA-19902), or it goes stale after a "
                "leader change."
            )
        location = program.location(carried.function, carried.pos)
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=location,
            function=program.display_function(carried.function),
            related=(RelatedLocation(location, f"`{carried.position}` is the previous position"),),
            fingerprint_key=carried.text,
        )


def _carried(program: Program, fid: str, call: Call) -> Iterator[_Carried]:
    copied = _copied_position(program, fid, call)
    if copied is not None:
        position, written = copied
        offset = _keyword(call, _OFFSET)
        if not any(_LEADER_SLOT.search(arg.keyword) for arg in call.args if arg.keyword):
            if _advances(program, fid, offset, position):
                yield _Carried(fid, call.site.pos, call.text, written, copy=True)
            return
        # A copy that sets the leader: by its keywords, as a call that builds a position.
        slots = [(arg, arg.keyword) for arg in call.args if arg.keyword]
    elif _builds_position(program, fid, call):
        slots = _slots(program, fid, call)
        offset = next((arg for arg, slot in slots if slot == _OFFSET), None)
    else:
        return
    for index, (arg, slot) in enumerate(slots):
        ref = _attribute(program, fid, arg)
        if ref is None or not _LEADER_SLOT.search(snake_name(slot)):
            continue
        carried = _position_prefix(program, fid, ref)
        if carried is None or not _advances(program, fid, offset, carried):
            continue
        pos = _argument_pos(program, fid, call, arg, index)
        yield _Carried(fid, pos, arg.text, carried.text())


def _slots(program: Program, fid: str, call: Call) -> list[tuple[Arg, str]]:
    """Each argument with the parameter it binds, by the project's definition of the callee.

    A keyword names its slot (the parameter it binds, or the field a `**kwargs` parameter forwards
    it to). Without a definition, or after a `*` argument of unknown length, a positional
    attribute names it by its own last name (`position.current_leader`), and the first positional
    argument is the offset.
    """
    bound: dict[str, str] = {}
    for site in program.calls.sites_of_call.get((fid, call.id), ()):
        if not site.via_argument:
            params = program.dataflow.bound_arguments(site.callee, fid, call, site.bound_ahead)
            bound = {key: param for param, key in params.items()}
    if not bound and (callee := program.symbols.callee(fid, call)).kind == "class":
        # A dataclass's or a NamedTuple's `__init__` takes its fields in order.
        fields = program.symbols.generated_init_parameters(callee.target)
        bound = {str(index): name for index, name in enumerate(fields)}
    slots = []
    spread = False
    for index, arg in enumerate(call.args):
        slot = arg.keyword or bound.get(str(index), "")
        if not slot and (not bound or spread) and arg.ref is not None:
            slot = _OFFSET if index == 0 else (arg.ref.attrs or ("",))[-1]
        spread = spread or arg.star == "*"
        slots.append((arg, slot))
    return slots


def _builds_position(program: Program, fid: str, call: Call) -> bool:
    # `FetchPosition(...)`, and a factory on a position class: `FetchPosition.of(...)`.
    callee_names = (call.callee.name, *call.callee.attrs) if call.callee is not None else (call.method,)
    if any("Position" in name for name in (*callee_names, *_called_class_names(program, fid, call))):
        return True
    function = program.symbols.function(fid)
    names = [b.name for b in function.binds if b.value_call == call.id]
    names += [w.ref.attrs[-1] for w in function.writes if w.value_call == call.id and w.ref.attrs]
    return any(_has_position_word(name) for name in names)


def _called_class_names(program: Program, fid: str, call: Call) -> Iterator[str]:
    """The names the classes a call builds (or calls a factory on) are defined under, whatever name
    the call uses: `FP(...)` of `import FetchPosition as FP`, `build(...)` of `build = FetchPosition`."""
    symbols = program.symbols
    called = set(symbols.callees(fid, call))
    if call.callee is not None and call.callee.attrs:
        # A factory called on the class itself (`FP.of(...)`), not a method of an instance.
        called.add(symbols.entity(fid, call.callee._replace(attrs=call.callee.attrs[:-1])))
    return (_defined_name(entity) for entity in called if entity.kind in ("class", "external"))


def _defined_name(entity: Entity) -> str:
    """The last name of a class of the project (`module:Outer.Name`) or of an outside dotted name."""
    return entity.target.rsplit(":", 1)[-1].rsplit(".", 1)[-1]


def _has_position_word(name: str) -> bool:
    return any(word.lower() in ("position", "positions") for word in name_words(name))


def _is_position(program: Program, fid: str, ref: Ref) -> bool:
    """A value named like a position (`position`, `self._position`, an element of
    `self._positions`) or of a `...Position` class."""
    names = [attr for attr in ref.attrs if attr != "[]"]
    if _has_position_word(names[-1] if names else written_name(ref.name)):
        return True
    entity = program.symbols.entity(fid, ref)
    return entity.kind == "instance" and "Position" in _defined_name(entity)


def _attribute(program: Program, fid: str, arg: Arg) -> Ref | None:
    """The attribute path an argument reads, local aliases followed; in Java, an accessor called
    without arguments too (a record's `position.currentLeader()`, whose components are its fields);
    None for anything else."""
    ref = arg.ref if arg.kind == "ref" else _accessor_read(program, fid, arg)
    if ref is None:
        return None
    ref = program.symbols.expand_alias(fid, ref)
    return ref if ref.attrs else None


def _accessor_read(program: Program, fid: str, arg: Arg) -> Ref | None:
    """The member a Java accessor call reads, by its name: `currentLeader()` and a getter's
    `getCurrentLeader()` read `currentLeader`."""
    call = program.symbols.argument_call(fid, arg)
    if call is None or call.args or call.callee is None or not call.callee.attrs or not is_java(program.rel_path(fid)):
        return None
    *path, method = call.callee.attrs
    getter = method.startswith("get") and method[3:4].isupper()
    member = method[3].lower() + method[4:] if getter else method
    return call.callee._replace(attrs=(*path, member))


def _position_prefix(program: Program, fid: str, ref: Ref) -> Ref | None:
    """The position value an attribute path reads from (`position` in `position.current_leader`)."""
    for length in range(len(ref.attrs) - 1, -1, -1):
        prefix = Ref(ref.scope, ref.name, ref.attrs[:length])
        if _is_position(program, fid, prefix):
            return prefix
    return None


def _copied_position(program: Program, fid: str, call: Call) -> tuple[Ref, str] | None:
    """The position that `replace(position, offset=...)` or `position._replace(...)` copies (its
    aliases followed), and its text as written there."""
    if _keyword(call, _OFFSET) is None:
        return None
    source = receiver_path(call) if call.method == "_replace" else None
    written = call.text.removesuffix("._replace")
    if source is None:
        callee = program.symbols.callee(fid, call)
        first = call.args[0] if call.args and not call.args[0].keyword else None
        if callee.kind == "external" and callee.target in _COPIERS and first is not None:
            source, written = first.ref, first.text
    if source is None:
        return None
    expanded = program.symbols.expand_alias(fid, source)
    if not _is_position(program, fid, expanded) or _record_without_leader(program, fid, expanded):
        return None
    return expanded, written


def _record_without_leader(program: Program, fid: str, position: Ref) -> bool:
    """Whether the position copied is a record of the project's (a dataclass, an attrs class, a
    NamedTuple) whose fields and methods name no leader (`leader`, `leader_epoch`,
    `current_leader`...): it has no leader to carry forward."""
    symbols = program.symbols
    entity = symbols.entity(fid, position)
    if entity.kind != "instance" or entity.target not in symbols.classes:
        return False
    fields = symbols.generated_init_parameters(entity.target)
    methods = (name for klass in symbols.mro(entity.target) for name in symbols.classes[klass][1].methods)
    return bool(fields) and not any("leader" in name.lower() for name in (*fields, *methods))


def _keyword(call: Call, name: str) -> Arg | None:
    return next((arg for arg in call.args if arg.keyword == name), None)


def _advances(program: Program, fid: str, offset: Arg | None, position: Ref) -> bool:
    """False when the new position keeps the old one's offset (`position.offset`, or in Java
    `position.offset()`)."""
    ref = _attribute(program, fid, offset) if offset is not None else None
    return ref != Ref(position.scope, position.name, (*position.attrs, _OFFSET))


def _argument_pos(program: Program, fid: str, call: Call, arg: Arg, index: int) -> Pos:
    """Where the argument is written: the read of its value at the call, or the accessor's call."""
    accessor = program.symbols.argument_call(fid, arg)
    if accessor is not None:
        return accessor.site.pos
    target = arg.keyword or str(index)
    for access in program.symbols.function(fid).accesses:
        flow = access.flow
        if flow.call == call.id and flow.argument_keys() == (target,) and access.ref == arg.ref:
            return access.site.pos
    return call.site.pos
