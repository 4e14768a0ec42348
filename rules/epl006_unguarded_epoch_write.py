"""EPL006: an epoch field is written without the lock that guards its other writes."""

from __future__ import annotations

from collections.abc import Iterable

from epochlint.findings import ChainStep, Finding, RelatedLocation
from epochlint.program.model import FieldWrite, Program
from epochlint.program.symbols import FieldId
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import call_steps, unique, unlocked_caller_chain, via


class UnguardedEpochWrite(Rule):
    code = "EPL006"
    name = "unguarded-epoch-write"
    summary = "An epoch field is written without holding the lock that guards it."
    what = """
An epoch field has a guard: the lock held at a strict majority of its writes (or the one declared
with `# epochlint: guarded-by=...` or `[tool.epochlint.guards]`). A write of the field (an
assignment, a bump, an assignment into it; initial values in constructors, class bodies and at
module level are not writes) where that lock is not held is reported. With several guards, a write
must hold every one of them. Locks held by every caller count (the entry lockset), so a helper
called only under the lock is fine. When the write's own function takes no lock and some caller
calls it without the guard, the finding names that caller and carries the chain of calls from it
to the write: the caller is the culprit, and the fix goes there (or the write takes the lock, but
mind EPL008 if the other callers hold it already).
"""
    why = """
Readers take the guard to see one stable epoch for as long as they decide and act; writers take it
so that no decision straddles a bump. One writer that skips the lock makes every reader's lock
meaningless: its bump lands in the middle of a batch that holds the lock, and the batch is judged
under two epochs. This is RacerD's "unprotected write" and SpotBugs' inconsistent synchronization.
"""
    seed = """
PIP-84 and #25204: `redeliverUnacknowledgedMessages()` bumps the consumer epoch under
`incomingQueueLock`, and the fix for #25204 relies on the receive path holding that same lock.
A reconnect or seek path that resets or bumps the epoch without the lock reopens the race the
fix closed.
"""
    example = """
class Consumer:
    def redeliver_unacknowledged_messages(self):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1
            self.incoming_messages.clear()

    def seek(self, message_id):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1

    def connection_opened(self, cnx):
        self.consumer_epoch += 1  # EPL006: incoming_queue_lock is not held
"""
    java_example = """
class Consumer {
    private long epoch;

    public synchronized void redeliver() {
        epoch++;
    }

    public synchronized void seek() {
        epoch++;
    }

    public void reconnect() {
        epoch = 0; // expect: EPL006
    }
}
"""
    fix = """
Take the guard around the write, as the other writers do:

```python
    def connection_opened(self, cnx):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1
```

If the write really runs before the object is shared, move it into the constructor, where it is an
initial value.
"""
    valid = (
        Example(
            title="every write holds the guard, one of them through its only caller",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def seek(self):
        with self._lock:
            self._epoch += 1

    def _bump(self):
        self._epoch += 1

    def redeliver(self):
        with self._lock:
            self._bump()
""",
        ),
        Example(
            title="a field written under no lock at all has no guard",
            code="""
class Consumer:
    def __init__(self):
        self._epoch = 0

    def seek(self):
        self._epoch += 1

    def redeliver(self):
        self._epoch += 1
""",
        ),
    )
    invalid = (
        Example(
            title="a reconnect bumps the epoch without the lock",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def seek(self):
        with self._lock:
            self._epoch += 1

    def redeliver(self):
        with self._lock:
            self._epoch += 1

    def on_reconnect(self):
        self._epoch = 0  # expect: EPL006
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        for field in program.epoch_fields():
            guards = program.guards(field)
            if not guards:
                continue
            writes = program.writes_of(field)
            guarded = [w for w in writes if guards <= self._held(program, w)]
            for write in writes:
                missing = guards - self._held(program, write)
                if missing:
                    yield self._finding(program, field, write, missing, guarded)

    @staticmethod
    def _held(program: Program, write: FieldWrite) -> frozenset[FieldId]:
        return program.locks.held(write.function, write.write.site)

    def _finding(
        self,
        program: Program,
        field: FieldId,
        write: FieldWrite,
        missing: frozenset[FieldId],
        guarded: list[FieldWrite],
    ) -> Finding:
        locks = " and ".join(f"`{lock.display()}`" for lock in sorted(missing))
        calls = unlocked_caller_chain(program, write.function, missing)
        culprit = (
            f" because `{program.display_function(calls[0].caller)}` calls "
            f"`{program.display_function(write.function)}` without it{via(program, calls[:-1])}"
            if calls
            else ""
        )
        message = (
            f"Epoch field `{field.display()}` is written without its guard {locks}{culprit}; readers "
            "that hold the guard can see it change under them."
        )
        location = program.location(write.function, write.write.site.pos)
        written = ChainStep(location, program.display_function(write.function), f"writes `{field.display()}`")
        chain = (*call_steps(program, calls), written) if calls else ()
        related = [
            RelatedLocation(
                program.location(w.function, w.write.site.pos),
                f"write of `{field.display()}` holding its guard",
            )
            for w in sorted(guarded, key=lambda w: (program.rel_path(w.function), w.write.site.pos))
        ]
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=location,
            function=program.display_function(write.function),
            related=unique(related),
            chain=chain,
            fingerprint_key=field.display(),
        )
