"""EPL004: the incoming queue is cleared before the epoch is bumped."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from epochlint.findings import ChainStep, Finding, FixHint, RelatedLocation
from epochlint.program.lockorder import Event, LockOrder
from epochlint.program.model import Program
from epochlint.program.symbols import CONSTRUCTORS
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import call_steps, via


class EpochBumpAfterQueueClear(Rule):
    code = "EPL004"
    name = "epoch-bump-after-queue-clear"
    summary = "An epoch is bumped after the incoming queue was cleared, not before."
    what = """
In one function, an epoch field is bumped (`+= 1`, `= F + 1`, `_replace(epoch=F.epoch + 1)`, or a
call of a function that bumps) after an incoming queue or buffer was cleared: `.clear()` on an
attribute whose name contains `incoming`, `queue`, `buffer` or `pending`, a reassignment of such an
attribute to an empty container (`[]`, `{}`, `set()`, `deque()`, `Queue()`, `asyncio.Queue()`; in
Java, a `new` collection given no arguments but numbers and flags, a capacity however it is held,
or `List.of()`, `Map.of()`, `Collections.emptyList()`), or a call of a function that does either,
judged by its body. Calls handed off to run later do not count. A `with` over an instance of a
project class calls its `__enter__` (`__aenter__`) at the `with`, and its `__exit__` (`__aexit__`)
where the statement ends, after a `return` in its body too; the `__exit__`s of several items, or of
nested `with` statements, that end together run the latest entered first. A `@contextmanager`
(`@asynccontextmanager`) generator called by a `with` item runs up to its `yield` at the item, and
what follows a `yield` on some path (a `finally` around it too) where the statement ends; so does
one called and kept in a local or a field (`cm = self.gen()`) where a `with` enters it
(`with cm:`), and none of its body runs at that call. One that a generator enters is split at its
own `yield` in turn. A finding at such a call is shown at its `with` item. One that clears
before its `yield` and bumps after it is reported at its own clear, not again at the item (but in
a coroutine, at the item too where the body awaits between them). In a coroutine, a clear and a bump
with no interleaving point between them (`await`, `async for`, `async with`, here or in the callees
that make them: an `__aenter__` that clears is interleaved where it awaits, not after it; such a
generator, only where it awaits on the side of its `yield` that runs between them) cannot be
separated and are not reported. "After" means on some path: a clear and a bump
in different arms of one `if` or in two `case` arms of one `match`, or with a `return` (`raise`)
after the clear in its own block, never run one after the other (but a bump in a `finally` suite
runs after a `return` in its `try`; a `raise` goes on in its `try`'s handlers, and after the `try`
where one of them ends without leaving, or at the loop around it where one ends in `break` (after
the loop, its `else` skipped) or `continue` (the loop's next turn)); a `continue` after the clear
skips the rest of its loop's body (the order is judged along one pass through the body, not around
the loop to its next turn) but goes on, past a `return` there, to what follows the loop; code left
after a `return`, `raise`, `break` or `continue` in its own block, or after a `with` whose body
always leaves, is on no path. A tuple assignment stores its targets left to right
(`self._incoming, self._epoch = [], self._epoch + 1` clears first). One finding per clear, at the
clear, or at the call that leads to it.
"""
    why = """
Between the clear and the bump, a receiver thread can enqueue a message read before the rewind. It
carries the old epoch, and the consumer still has the old epoch, so the message passes the check
and is delivered after the redeliver or seek that should have dropped it. Bumping first closes the
window: whatever is enqueued after the bump is stale by its epoch, and whatever was enqueued before
is removed by the clear.
"""
    seed = """
PIP-84 (Pulsar client: redeliver command add epoch), note 2: "Increase epoch must before clear
consumer incomingQueue". The Java client follows it in `ConsumerImpl.redeliverUnacknowledgedMessages`:
`CONSUMER_EPOCH.incrementAndGet(this)` comes before `clearIncomingMessages()`.
"""
    example = """
class Consumer:
    def redeliver_unacknowledged_messages(self):
        with self.incoming_queue_lock:
            self.incoming_messages.clear()  # EPL004: cleared before the bump below
            self.consumer_epoch += 1
            self.send_redeliver_command(self.consumer_epoch)
"""
    java_example = """
class Consumer {
    private volatile long consumerEpoch;
    private final BlockingQueue<Message> incomingMessages = new LinkedBlockingQueue<>();

    public synchronized void redeliverUnacknowledgedMessages() {
        incomingMessages.clear(); // expect: EPL004
        consumerEpoch++;
    }
}
"""
    fix = """
Bump the epoch first, then clear the queue:

```python
    def redeliver_unacknowledged_messages(self):
        with self.incoming_queue_lock:
            self.consumer_epoch += 1
            self.incoming_messages.clear()
            self.send_redeliver_command(self.consumer_epoch)
```
"""
    autofix = """
the clear and the bump are statements of the same block (or of one line, split by `;`), the bump
statement does nothing else (it
writes the field, or calls a function that does nothing but bump), it reads no name that a statement
from the clear up to it mentions (a local assigned there), and nothing from the clear up to the bump
mentions the epoch field, calls code that reads or writes it (an accessor, a command that sends it,
a reset) or can leave the block early (`return`, `raise`, `break`, `continue`, `yield`, `await`):
then moving the bump up changes only the order that PIP-84 asks for.
"""
    valid = (
        Example(
            title="bump, then clear (PIP-84)",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0
        self._incoming = []

    def redeliver(self):
        with self._lock:
            self._epoch += 1
            self._incoming.clear()
""",
        ),
        Example(
            title="a coroutine that clears and bumps with no await between them",
            code="""
import asyncio

class Consumer:
    def __init__(self):
        self._epoch = 0
        self._queue = asyncio.Queue()

    async def seek(self, offset):
        self._queue = asyncio.Queue()
        self._epoch += 1
        await self._send_seek(offset, self._epoch)

    async def _send_seek(self, offset, epoch):
        await asyncio.sleep(0)
""",
        ),
    )
    invalid = (
        Example(
            title="clear, then bump",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0
        self._incoming = []

    def redeliver(self):
        with self._lock:
            self._incoming.clear()  # expect: EPL004
            self._epoch += 1
""",
        ),
        Example(
            title="the clear happens in a helper",
            code="""
import collections

class Consumer:
    def __init__(self):
        self._epoch = 0
        self._pending = collections.deque()

    def _reset_pending(self):
        self._pending = collections.deque()

    def seek(self, offset):
        self._reset_pending()  # expect: EPL004
        self._epoch = self._epoch + 1
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        order = program.lock_order
        for fid in sorted(program.symbols.functions):
            if program.symbols.function(fid).name in CONSTRUCTORS:
                continue
            bumps = order.events(fid, "bump")
            if not bumps:
                continue
            is_async = program.in_async_context(fid)
            for clear in order.events(fid, "clear"):
                later = [
                    b
                    for b in bumps
                    if order.runs_after(fid, clear.site, b.site)
                    and not order.exclusive(fid, clear.site.pos, b.site.pos)
                ]
                if is_async:
                    later = [b for b in later if order.interleaves_between(clear, b)]
                else:
                    later = [b for b in later if not _one_generator_on_both_sides(order, clear, b)]
                if later:
                    yield self._finding(program, clear, later[0])

    def _finding(self, program: Program, clear: Event, bump: Event) -> Finding:
        field = bump.field.display() if bump.field else "the epoch"
        message = (
            f"`{clear.what}` is cleared{via(program, clear.chain)} before epoch field `{field}` "
            f"is bumped{via(program, bump.chain)}; a receiver can enqueue a stale message in "
            "between that still passes the old epoch. Bump the epoch first (PIP-84)."
        )
        related = (
            RelatedLocation(
                program.location(bump.target_function, bump.target.pos), f"bump of `{field}`"
            ),
        )
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=program.site_location(clear.function, clear.site),
            function=program.display_function(clear.function),
            related=related,
            chain=tuple(_steps(program, clear, "clears", clear.what))
            + tuple(_steps(program, bump, "bumps", field)),
            fingerprint_key=f"{clear.what}:{field}",
            fix=_bump_first(program, clear, bump),
        )


def _one_generator_on_both_sides(order: LockOrder, clear: Event, bump: Event) -> bool:
    """Whether one `with` item's `@contextmanager` generator makes the clear before its `yield` and
    the bump after it (`LockOrder.events` places the two apart). Outside a coroutine the generator
    orders them itself and is reported there: one finding per clear, as for any call doing both."""
    if not (clear.chain and bump.chain) or clear.chain[0].callee != bump.chain[0].callee:
        return False
    item = order.entered_item(clear.chain[0])
    return item is not None and item == order.entered_item(bump.chain[0])


def _steps(program: Program, event: Event, verb: str, what: str) -> Iterator[ChainStep]:
    yield from call_steps(program, event.chain)
    yield ChainStep(
        program.location(event.target_function, event.target.pos),
        program.display_function(event.target_function),
        f"{verb} `{what}`",
    )


def _bump_first(program: Program, clear: Event, bump: Event) -> FixHint | None:
    """What `--fix` needs (`epochlint.fix.epl004`): where the bump happens in the function that
    clears (the bump, or the call of a function that does nothing but bump). None where moving it
    could change more than the order: the call that makes the bump does more, or a call from the
    clear up to the bump reads or writes the epoch."""
    if bump.field is None or program.calls_using_epoch(clear.function, clear.site.pos, bump.site.pos):
        return None
    if bump.chain and (len(bump.chain) > 1 or not program.only_bumps(bump.target_function)):
        return None
    return FixHint(text=bump.field.leaf, location=program.location(bump.function, bump.site.pos))
