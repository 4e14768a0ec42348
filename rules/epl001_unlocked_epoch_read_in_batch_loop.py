"""EPL001: a batch loop reads an epoch field without the lock that guards it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple

from epochlint.findings import ChainStep, Finding, FixHint, RelatedLocation
from epochlint.frontend.facts import Ref
from epochlint.program.locks import REENTRANT
from epochlint.program.model import BatchLoop, Program, ReachedRead
from epochlint.program.symbols import CONSTRUCTORS, FieldId
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import guarded_write_locations


class ReportedLoop(NamedTuple):
    """A batch loop reported for a field: the field's guards and the loop's unprotected reads."""

    loop: BatchLoop
    field: FieldId
    guards: frozenset[FieldId]
    reads: list[ReachedRead]


class UnlockedEpochReadInBatchLoop(Rule):
    code = "EPL001"
    name = "unlocked-epoch-read-in-batch-loop"
    summary = "A batch loop reads an epoch field without holding the lock that guards it."
    what = """
A loop over a batch of messages (`for`, `async for`, a comprehension, `map`/`filter`/`sorted`/
`min`/`max`/`any`/`all` or `functools.reduce` with a function, or `batch.sort(key=f)`) reads an
epoch field, directly or through any depth of calls, properties and accessors, while the field's
guard is not held around the loop. Over a collection written out or a range of a count (`for m in
(a, b)`, `sorted(range(3), key=f)`, `[a, b].sort(key=f)`, `max(a, b, key=f)`), or over a local that
only ever holds such a collection (`pair = (a, b)`, bound nowhere else in its function, no `del`,
`+=`, `global` or `nonlocal`, not a loop variable, never extended, added to or stored into, by its
name or another, nor, but a tuple, given to a function that may fill it or kept in another
container), none of these is a batch loop; their function still runs there, inside any batch loop
around them. A sort key is made of a function only by `functools.cmp_to_key`: a call of unknown
class is no key maker, whatever its name. The guard is
the lock held at a strict majority of the field's writes. A generator's body runs where its result
is iterated, not where it is called: its reads are judged with the locks held around the loops
that consume it. An accessor that takes the lock only
around the read does not help: the value leaves the lock before the loop uses it. Not reported when
every unprotected read is only logged (`print`, the `logging` module, a logger's `debug`/`info`/
`warning`/`warn`/`error`/`exception`/`critical`/`log`), directly or through locals. In a
coroutine (and a plain function reached only from coroutines) a read is unprotected only when an
interleaving point can run between it and a use of its value, judged where they are: an `await` in
the callee that reads, after the read, counts; one in the loop after the call counts only when the
value read is used after it (a value tested by an `if` is used until that `if` ends). An `async
with` interleaves where it enters (`__aenter__`, once its header is evaluated) and where its body
ends (`__aexit__`, on every way out of it): a value read in its header and used in its body, or
read in its body and used after it, is unprotected.
"""
    why = """
A redeliver, seek or reconnect running on another thread can bump the epoch between two iterations.
The first messages of the batch are then judged under the old epoch and pass, the rest under the
new one and are dropped: one batch, two epochs, and stale messages delivered after the rewind.
In a coroutine the same happens when the loop body awaits between deciding and acting.
"""
    seed = """
Pulsar #25204: `MultiTopicsConsumerImpl.receiveMessageFromConsumer` validated the consumer epoch
per message inside `messages.forEach` on a multi-threaded executor, without `incomingQueueLock`,
which `redeliverUnacknowledgedMessages()` holds while it increments the epoch.
"""
    example = """
class MultiTopicsConsumer:
    def redeliver_unacknowledged_messages(self):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1
            self.incoming_messages.clear()

    def is_valid_consumer_epoch(self, message):
        return message.consumer_epoch >= self.consumer_epoch

    def on_messages_received(self, messages):
        for message in messages:  # EPL001: consumer_epoch read per message, lock not held
            if self.is_valid_consumer_epoch(message):
                self.message_received(message)
"""
    java_example = """
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

class MultiTopicsConsumer {
    private final ReentrantLock incomingQueueLock = new ReentrantLock();
    private long consumerEpoch;

    public void redeliverUnacknowledgedMessages() {
        incomingQueueLock.lock();
        try {
            consumerEpoch++;
        } finally {
            incomingQueueLock.unlock();
        }
    }

    public void seek() {
        incomingQueueLock.lock();
        try {
            consumerEpoch++;
        } finally {
            incomingQueueLock.unlock();
        }
    }

    void receive(List<Message> messages) {
        messages.forEach(msg -> { // expect: EPL001
            if (msg.epoch >= consumerEpoch) {
                deliver(msg);
            }
        });
    }

    void deliver(Message msg) {
    }
}
"""
    fix = """
Hold the guard for the whole batch, so that the epoch cannot change between two messages (the
investigation's option 1):

```python
    def on_messages_received(self, messages):
        with self.incoming_queue_lock:
            for message in messages:
                if self.is_valid_consumer_epoch(message):
                    self.message_received(message)
```

If the loop body re-acquires the same lock (enqueueing does, in Pulsar), the lock must be
reentrant (`threading.RLock`); with a plain `Lock` this fix deadlocks (see EPL008). Taking a
snapshot of the epoch before the loop, inside or outside the lock, is not a fix (see EPL002).
"""
    autofix = """
the guard is reentrant (the loop body may take it again, as Pulsar's enqueue does: with a plain
`Lock` this fix deadlocks, the deadlock EPL008 reports), it is an attribute of `self` in the loop's
function (a private `__name` only in the class that defines it: elsewhere Python renames it; not
a container of locks, `self._locks[tp]`, whose container is no lock to hold), the loop is a `for`
statement or a comprehension in a simple statement, with no `yield`, outside
coroutines (a thread lock held across an `await` blocks the event loop), the loop hands no work that
takes the guard to another thread (`pool.submit(self.track, m).result()` would wait forever for a
thread that waits for the lock), and holding it brings in no new finding (no lock-order cycle,
EPL009).
"""
    valid = (
        Example(
            title="the guard is held around the whole batch",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._epoch = 0

    def seek(self):
        with self._lock:
            self._epoch += 1

    def on_batch(self, batch):
        with self._lock:
            for message in batch:
                if message.epoch >= self._epoch:
                    self.deliver(message)
""",
        ),
        Example(
            title="a retry loop is not a batch loop",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def seek(self):
        with self._lock:
            self._epoch += 1

    def connect(self):
        for attempt in range(3):
            if self._epoch > 0:
                return attempt
""",
        ),
    )
    invalid = (
        Example(
            title="the epoch is read per message through a helper",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._epoch = 0

    def seek(self):
        with self._lock:
            self._epoch += 1

    def _is_current(self, message):
        return message.epoch >= self._epoch

    def on_batch(self, batch):
        for message in batch:  # expect: EPL001
            if self._is_current(message):
                self.deliver(message)
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        # Each field's guarded writes, once: every finding of the field relates them all.
        guarded_writes: dict[tuple[FieldId, frozenset[FieldId]], list[RelatedLocation]] = {}
        for loop, field, guards, reads in self.reported(program):
            if (field, guards) not in guarded_writes:
                guarded_writes[field, guards] = guarded_write_locations(program, field, guards)
            yield self._finding(program, loop, field, guards, reads, guarded_writes[field, guards])

    def reported(self, program: Program) -> Iterator[ReportedLoop]:
        """Each (loop, field) this rule reports, with the field's guards and the unprotected reads."""
        for loop in program.batch_loops():
            if program.symbols.function(loop.function).name in CONSTRUCTORS:
                continue
            yield from self._check_loop(program, loop)

    def _check_loop(self, program: Program, loop: BatchLoop) -> Iterator[ReportedLoop]:
        unprotected: dict[FieldId, list[ReachedRead]] = {}
        for variant in program.variants(loop.function):
            for field, reads in self._unprotected_reads(program, replace(loop, function=variant)):
                unprotected.setdefault(field, []).extend(reads)
        for field in sorted(unprotected):
            yield ReportedLoop(loop, field, program.guards(field), unprotected[field])

    def _unprotected_reads(
        self, program: Program, loop: BatchLoop
    ) -> Iterator[tuple[FieldId, list[ReachedRead]]]:
        """Per epoch field, the reads of `loop` (as one variant of its function runs it) that its
        guards do not protect."""
        by_field: dict[FieldId, list[ReachedRead]] = {}
        for read in program.epoch_reads_in_loop(loop):
            if program.is_epoch(read.field):
                by_field.setdefault(read.field, []).append(read)
        held_around = program.locks.held(loop.function, loop.site)
        is_async = program.in_async_context(loop.function)
        for field in sorted(by_field):
            guards = program.guards(field)
            if not guards or held_around & guards:
                continue
            unprotected = [
                r for r in by_field[field] if not program.protected(r, guards) and not program.only_logged(r)
            ]
            if is_async:
                unprotected = [
                    r for r in unprotected if program.interleaves_before_use(loop, r)
                ]
            if unprotected:
                yield field, unprotected

    def _finding(
        self,
        program: Program,
        loop: BatchLoop,
        field: FieldId,
        guards: frozenset[FieldId],
        reads: list[ReachedRead],
        guarded_writes: list[RelatedLocation],
    ) -> Finding:
        guard = " or ".join(f"`{lock.display()}`" for lock in sorted(guards))
        first = min(reads, key=lambda r: (len(r.steps), r.site.pos))
        via = ""
        if len(first.steps) > 1:
            via = " (via " + " -> ".join(
                program.display_function(s.edge.callee) for s in first.steps[:-1] if s.edge
            ) + ")"
        message = (
            f"Epoch field `{field.display()}` is read in this batch loop{via} without its guard "
            f"{guard}; a concurrent writer can change it mid-batch, so one batch is judged under "
            "two epochs."
        )
        related = [
            RelatedLocation(
                program.location(read.function, read.site.pos),
                f"read of `{field.display()}` without {guard}",
            )
            for read in sorted(reads, key=lambda r: (program.rel_path(r.function), r.site.pos))
        ]
        related.extend(guarded_writes)
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=program.location(loop.function, loop.site.pos),
            function=program.display_function(loop.function),
            related=tuple(_unique(related)),
            chain=tuple(_chain(program, loop, first)),
            fingerprint_key=field.display(),
            fix=_guard_to_hold(program, loop, guards),
        )


def _chain(program: Program, loop: BatchLoop, read: ReachedRead) -> Iterator[ChainStep]:
    yield ChainStep(
        program.location(loop.function, loop.site.pos),
        program.display_function(loop.function),
        "batch loop",
    )
    for step in read.steps[:-1]:
        if step.edge is not None:
            yield ChainStep(
                program.site_location(step.function, step.site),
                program.display_function(step.function),
                f"calls `{program.display_function(step.edge.callee)}`",
            )
    yield ChainStep(
        program.location(read.function, read.site.pos),
        program.display_function(read.function),
        f"reads `{read.field.display()}`",
    )


def _unique(related: list[RelatedLocation]) -> Iterator[RelatedLocation]:
    seen = set()
    for item in related:
        if item not in seen:
            seen.add(item)
            yield item


def _is_mangled(attribute: str) -> bool:
    """Whether Python renames `attribute` after the class whose body writes it (`__lock`)."""
    return attribute.startswith("__") and not attribute.endswith("__")


def _guard_to_hold(program: Program, loop: BatchLoop, guards: frozenset[FieldId]) -> FixHint | None:
    """What `--fix` needs (`epochlint.fix.epl001`): the guard to hold around `loop`, as the loop's
    function writes it, when the fix is safe."""
    if program.in_async_context(loop.function):
        return None
    self_name = program.symbols.self_param(loop.function)
    if not self_name:
        return None
    qualname = program.symbols.function(loop.function).qualname
    loop_class = program.symbols.class_of_function(loop.function)
    for guard in sorted(guards):
        if guard.is_global or len(guard.path) != 1 or program.locks.kind(guard) != REENTRANT:
            continue
        if program.locks.is_element(guard):
            continue  # `with self._locks:` holds no element: the container is no lock
        if _is_mangled(guard.leaf) and guard.owner != loop_class:
            continue  # `self.__lock` written in another class names another attribute there
        if program.loop_hands_off_to_acquire(loop, guard):
            continue  # held around the loop, it would keep that work waiting: a deadlock if awaited
        written = Ref(qualname, self_name, guard.path)
        if program.locks.lock_of(loop.function, written) == guard:
            return FixHint(text=written.text())
    return None
