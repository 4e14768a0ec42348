"""EPL005: a seek, redeliver or rewind never bumps the consumer's epoch."""

from __future__ import annotations

from collections.abc import Iterable

from epochlint.findings import Finding, RelatedLocation
from epochlint.program.model import Program
from epochlint.program.symbols import FieldId
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import unique

# Bodies that only declare an interface: nothing to bump.
_ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abc.abstractmethod"})


class RewindWithoutEpochBump(Rule):
    code = "EPL005"
    name = "rewind-without-epoch-bump"
    summary = "A seek, redeliver or rewind operation never bumps the consumer's epoch."
    what = """
A rewind operation is a public method whose name's first words are `seek`, `redeliver` or `rewind`,
or which starts with `reset_cursor` (configurable with `rewind-methods`), and whose name does not
end like an event handler's (`_completed`, `_complete`, `_done`, `_failed`, `_succeeded`,
`_callback`, `_handler`, `_response`). It is reported when its class owns a guarded epoch field (its
own, inherited, or on a holder object of `self`, such as `self._state.epoch`; for a method of a
mixin that owns none, those of the classes that inherit it as it is) and no path through the method
bumps any of them: not the method itself, nor anything it calls, nor anything it hands off to run
later (a rewind delegated to an executor task, or to a thread of the project's own
`threading.Thread` subclass, whose `run` its `start()` runs, counts when the task or the thread
bumps).
Bumping on some paths only is enough. Only epoch fields that the program bumps somewhere count:
a field that is only ever assigned (a Kafka leader epoch learnt from metadata, reset to -1 by a
seek) is not a counter that a rewind could advance. Abstract methods (`@abstractmethod`, or a body
of only `...`, `pass`, a docstring or `raise NotImplementedError`; in Java, `abstract` or interface
methods, an empty body, or one that only throws `UnsupportedOperationException`) declare an
interface and are not reported; a body that does anything else (even `return None`) is a rewind
that never bumps.
"""
    why = """
The epoch is how a consumer tells messages read before a rewind from messages read after it. A
seek that moves the cursor without bumping the epoch leaves every in-flight message, fetched from
the old position, carrying the current epoch: they pass the check and are delivered after the seek,
as if the seek had not happened.
"""
    seed = """
The Pulsar seek-epoch proposal (issue #16757, "Pulsar client: seek command add epoch"): PIP-84 added
the epoch to redeliver, but `seek` did not bump it, so a reader could receive entries from before
the seek position after seeking. The proposal makes seek increase the epoch and send it with the
seek command, exactly as redeliver does.
"""
    example = """
class Reader:
    def redeliver_unacknowledged_messages(self):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1
            self.incoming_messages.clear()

    def seek(self, message_id):  # EPL005: the epoch is never bumped
        with self.incoming_queue_lock:
            self.incoming_messages.clear()
        self.cnx.send_seek(message_id)
"""
    java_example = """
class Reader {
    private long epoch;
    private final List<Message> queue = new ArrayList<>();

    public synchronized void redeliverUnacknowledgedMessages() {
        epoch++;
        queue.clear();
    }

    public synchronized void seek(MessageId messageId) { // expect: EPL005
        queue.clear();
    }
}
"""
    fix = """
Bump the epoch in the rewind, under its guard, before clearing and before sending the command:

```python
    def seek(self, message_id):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1
            self.incoming_messages.clear()
        self.cnx.send_seek(message_id, self.consumer_epoch)
```
"""
    valid = (
        Example(
            title="the seek bumps through a helper",
            code="""
import threading

class Reader:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def _bump(self):
        with self._lock:
            self._epoch += 1

    def seek(self, message_id):
        self._bump()
""",
        ),
        Example(
            title="the redeliver is delegated to an executor task that bumps",
            code="""
import threading
from concurrent.futures import ThreadPoolExecutor

class Reader:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0
        self._executor = ThreadPoolExecutor()

    def _redeliver_task(self):
        with self._lock:
            self._epoch += 1

    def redeliver_unacknowledged_messages(self):
        return self._executor.submit(self._redeliver_task)
""",
        ),
        Example(
            title="the seek starts a thread whose `run` bumps",
            code="""
import threading

class SeekThread(threading.Thread):
    def __init__(self, reader):
        super().__init__(daemon=True)
        self._reader = reader

    def run(self):
        with self._reader._lock:
            self._reader._epoch += 1

class Reader:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def redeliver(self):
        with self._lock:
            self._epoch += 1

    def seek(self, message_id):
        SeekThread(self).start()
""",
        ),
    )
    invalid = (
        Example(
            title="seek moves the cursor and keeps the epoch",
            code="""
import threading

class Reader:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0
        self._queue = []

    def redeliver(self):
        with self._lock:
            self._epoch += 1
            self._queue.clear()

    def seek(self, message_id):  # expect: EPL005
        with self._lock:
            self._queue.clear()
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        owned_by: dict[str, frozenset[FieldId]] = {}
        fields = _FieldsByOwner(program)
        for fid, (_, function) in sorted(program.symbols.functions.items()):
            cls = program.symbols.class_of_function(fid)
            if function.kind != "method" or not program.config.rewind_name(function.name):
                continue
            if function.visibility not in ("", "public"):
                continue  # a Java method that is not public is no rewind operation of the API
            if _is_stub(program, fid):
                continue
            if cls not in owned_by:
                owned_by[cls] = _guarded_epoch_fields(program, cls, fields)
            owned = owned_by[cls] or _owned_by_hosts(program, fid, fields)
            if not owned:
                continue
            if any(event.field in owned for event in program.lock_order.bumps_reached(fid)):
                continue
            yield self._finding(program, fid, owned)

    def _finding(self, program: Program, fid: str, owned: frozenset[FieldId]) -> Finding:
        fields = sorted(owned)
        names = " or ".join(f"`{field.display()}`" for field in fields)
        name = program.symbols.function(fid).name
        message = (
            f"Rewind operation `{name}` never bumps {names}; messages read before it still carry "
            "the current epoch and are delivered after it."
        )
        related = [
            RelatedLocation(
                program.location(write.function, write.write.site.pos),
                f"`{field.display()}` is bumped here",
            )
            for field in fields
            for write in program.writes_of(field)
            if write.bump
        ]
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=program.location(fid, program.symbols.function(fid).pos),
            function=program.display_function(fid),
            related=unique(related),
            fingerprint_key=name,
        )


def _owned_by_hosts(program: Program, fid: str, fields: _FieldsByOwner) -> frozenset[FieldId]:
    """For a rewind method of a class that owns no epoch (a mixin): the guarded epoch fields of the
    classes that inherit the method as it is, on whose instances it runs."""
    symbols = program.symbols
    cls, name = symbols.class_of_function(fid), symbols.function(fid).name
    hosts = [sub for sub in symbols.subclasses_seen_from(cls, fid) if symbols.lookup_method(sub, name) == fid]
    return frozenset(field for host in hosts for field in _guarded_epoch_fields(program, host, fields))


class _FieldsByOwner:
    """The program's guarded epoch fields and its single-attribute fields, by owning class: made
    once per run (looked through per class, they made the rule quadratic in the classes)."""

    def __init__(self, program: Program) -> None:
        bumped = program.lock_order.bumped_fields
        self.guarded: dict[str, list[FieldId]] = {}
        for field in program.epoch_fields():
            if program.guards(field) and field in bumped:
                self.guarded.setdefault(field.owner, []).append(field)
        self.holders: dict[str, list[FieldId]] = {}
        for field in program.field_writes:
            if len(field.path) == 1:
                self.holders.setdefault(field.owner, []).append(field)


def _guarded_epoch_fields(program: Program, cls: str, fields: _FieldsByOwner) -> frozenset[FieldId]:
    """Guarded epoch fields of `self` in class `cls`: its own, inherited, or on a holder object
    (a field of `self` whose class is known), through any depth of holders.

    Only fields that the program bumps somewhere count: an epoch that is only ever assigned (a
    leader epoch learnt from metadata, reset by a seek) is not a counter a rewind could advance.
    """
    symbols = program.symbols
    found: set[FieldId] = set()
    pending, seen = [cls], {cls}
    while pending:
        for owner in symbols.mro(pending.pop()):
            found.update(fields.guarded.get(owner, ()))
            for field in fields.holders.get(owner, ()):
                holder = symbols.field_type(field.owner, field.path[0])
                if holder is not None and holder.target not in seen:
                    seen.add(holder.target)
                    pending.append(holder.target)
    return frozenset(found)


def _is_stub(program: Program, fid: str) -> bool:
    """An abstract method: `@abstractmethod`, or a body of only `...`, `pass`, a docstring or
    `raise NotImplementedError`."""
    function = program.symbols.function(fid)
    return function.stub_body or bool(_ABSTRACT_DECORATORS.intersection(function.decorators))
