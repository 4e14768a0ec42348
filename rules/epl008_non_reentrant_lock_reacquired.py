"""EPL008: a non-reentrant lock is acquired again while the same thread or task already holds it."""

from __future__ import annotations

from collections.abc import Iterable

from epochlint.findings import Finding, RelatedLocation
from epochlint.frontend.facts import Pos
from epochlint.program.lockorder import OrderSite
from epochlint.program.locks import NON_REENTRANT
from epochlint.program.model import Program
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import acquisition_step, call_steps, chain_order, unique, via


class NonReentrantLockReacquired(Rule):
    code = "EPL008"
    name = "non-reentrant-lock-reacquired"
    summary = "A non-reentrant lock is acquired again while it is already held: a self-deadlock."
    what = """
A lock that is not reentrant (`threading.Lock`, `multiprocessing.Lock`, `asyncio.Lock`,
`asyncio.Condition()`, a semaphore of count 1; built in `__init__` or in the class body) is acquired
while it is already held: in a nested region of the same
function, or in a function reached through any chain of resolved calls that starts inside a held
region of it (a `with`, an `acquire()`/`release()` pair, or a lock decorator such as
`@synchronized`). One finding per inner acquisition. Reentrant locks (`RLock`, `Condition()`)
and locks of unknown kind are never reported; hand-offs (`submit`, `Thread(target=...)`,
callbacks, `create_task`) run later and elsewhere, so they never count. A non-blocking or timed
acquire whose result is tested (`if L.acquire(blocking=False):`) never waits, so it is never the
inner acquisition (one tested that waits as long as it takes, `if L.acquire():`, is one like any
other); and code that runs only where such an acquire of L succeeded cannot be reached
by a thread that already holds L (the test fails for it), so chains through it do not count.
The locks of a container (`self._locks[tp] = threading.Lock()`) are one element lock: taking
`self._locks[b]` while holding `self._locks[a]` may take another lock, so it is never reported.
"""
    why = """
A plain `Lock` does not know who holds it: a second `acquire()` by the holder waits for a release
that can only come from itself, and the thread hangs forever. An `asyncio.Lock` does the same to
the task that awaits it. Other callers of the inner function that do not hold the lock are fine;
the one path that does deadlocks every time it runs.
"""
    seed = """
The #25204 investigation: the fix for the unlocked batch loop is to hold `incomingQueueLock` around
the whole batch, and the loop body enqueues through `enqueueMessageAndCheckBatchReceive`, which
takes `incomingQueueLock` again. That is safe only because the Java lock is a `ReentrantLock`.
Port the fix to Python with `threading.Lock` and the consumer deadlocks on its first message.
"""
    example = """
class MultiTopicsConsumer:
    def __init__(self):
        self.incoming_queue_lock = threading.Lock()

    def enqueue(self, message):
        with self.incoming_queue_lock:  # EPL008: already held by on_messages_received
            self.incoming_messages.append(message)

    def on_messages_received(self, messages):
        with self.incoming_queue_lock:
            for message in messages:
                if self.is_valid_consumer_epoch(message):
                    self.enqueue(message)
"""
    java_example = """
import java.util.List;
import java.util.concurrent.Semaphore;

class Consumer {
    private final Semaphore permit = new Semaphore(1);

    private void enqueue(Message message) throws InterruptedException {
        permit.acquire(); // expect: EPL008
        try {
            queue.add(message);
        } finally {
            permit.release();
        }
    }

    void receive(List<Message> messages) throws InterruptedException {
        permit.acquire();
        try {
            for (Message message : messages) {
                enqueue(message);
            }
        } finally {
            permit.release();
        }
    }
}
"""
    fix = """
Make the lock reentrant where holding it across the call is intended (`threading.RLock()`, as Java's
`ReentrantLock` is), or split the callee into a locked entry point and an unlocked body that the
caller, already holding the lock, calls directly:

```python
    def enqueue(self, message):
        with self.incoming_queue_lock:
            self._enqueue_locked(message)

    def _enqueue_locked(self, message):
        self.incoming_messages.append(message)
```

An `asyncio.Lock` has no reentrant variant: restructure the coroutine so the inner code does not
take the lock again.
"""
    valid = (
        Example(
            title="the #25204 fix with a reentrant lock",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._queue = []

    def enqueue(self, message):
        with self._lock:
            self._queue.append(message)

    def on_batch(self, batch):
        with self._lock:
            for message in batch:
                self.enqueue(message)
""",
        ),
        Example(
            title="a hand-off runs later, without the caller's lock",
            code="""
import threading
from concurrent.futures import ThreadPoolExecutor

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor()

    def _flush(self):
        with self._lock:
            pass

    def on_batch(self, batch):
        with self._lock:
            self._executor.submit(self._flush)
""",
        ),
    )
    invalid = (
        Example(
            title="the #25204 fix with a plain Lock deadlocks in the enqueue",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._queue = []

    def enqueue(self, message):
        with self._lock:  # expect: EPL008
            self._queue.append(message)

    def on_batch(self, batch):
        with self._lock:
            for message in batch:
                self.enqueue(message)
""",
        ),
        Example(
            title="an asyncio.Lock taken again by an awaited coroutine",
            code="""
import asyncio

class Consumer:
    def __init__(self):
        self._lock = asyncio.Lock()

    async def _refresh(self):
        async with self._lock:  # expect: EPL008
            await asyncio.sleep(0)

    async def poll(self):
        async with self._lock:
            await self._refresh()
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        # By the inner acquisition's place: a helper's lock parameter, bound to other locks by
        # other calls, is one place however many locks re-taken there (RULES.md: one finding per site).
        by_inner: dict[tuple[str, Pos], list[OrderSite]] = {}
        for site in program.lock_order.reacquisitions():
            # An element lock stands for many locks: re-taking "it" may be taking another one.
            lock = site.inner.lock
            if program.locks.kind(lock) == NON_REENTRANT and not program.locks.is_element(lock):
                by_inner.setdefault((site.inner.function, site.inner.pos), []).append(site)
        for sites in by_inner.values():
            first = min(
                sites,
                key=lambda s: (
                    len(s.chain),
                    program.rel_path(s.outer.function),
                    s.outer.pos,
                    chain_order(program, s.bound_by),
                    s.inner.lock.display(),
                ),
            )
            yield self._finding(program, first, sites)

    def _finding(self, program: Program, site: OrderSite, sites: list[OrderSite]) -> Finding:
        lock = site.inner.lock.display()
        where = "in the same function" if not site.chain else f"through calls{via(program, site.chain)}"
        message = (
            f"Non-reentrant lock `{lock}` is acquired here while it is already held ({where}): "
            "the holder waits for itself and deadlocks."
        )
        related = [
            RelatedLocation(
                program.location(s.outer.function, s.outer.pos), f"`{s.inner.lock.display()}` is already held here"
            )
            for s in sorted(sites, key=lambda s: _outer_order(program, s))
        ]
        chain = [
            *call_steps(program, site.bound_by),
            acquisition_step(program, site.outer, f"acquires `{lock}`"),
            *call_steps(program, site.chain),
            acquisition_step(program, site.inner, f"acquires `{lock}` again"),
        ]
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=program.location(site.inner.function, site.inner.pos),
            function=program.display_function(site.inner.function),
            related=unique(related),
            chain=tuple(chain),
            fingerprint_key=lock,
        )


def _outer_order(program: Program, site: OrderSite) -> tuple[str, Pos, str]:
    return program.rel_path(site.outer.function), site.outer.pos, site.inner.lock.display()
