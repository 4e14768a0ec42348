"""EPL009: two or more locks are taken in orders that form a cycle."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from epochlint.findings import Finding, RelatedLocation
from epochlint.frontend.facts import Pos
from epochlint.program.lockorder import OrderSite
from epochlint.program.model import Program
from epochlint.program.symbols import FieldId
from epochlint.rules.base import Example, Rule
from epochlint.rules.chains import acquisition_step, call_steps, chain_order, unique

if TYPE_CHECKING:  # networkx is imported where a graph is built (see callgraph.py)
    import networkx as nx


class LockOrderInversion(Rule):
    code = "EPL009"
    name = "lock-order-inversion"
    summary = "Locks are acquired in opposite orders on different paths: two threads can deadlock."
    what = """
The lock-order graph has an edge L1 -> L2 wherever L2 is acquired while L1 is held, in one function
or through any chain of resolved calls (hand-offs add no edge). A cycle in it (L1 -> L2 on one path,
L2 -> L1 on another, or a longer ring) is reported once per group of locks that reach each other, at
one of the acquisitions that make the group's edges; the others are related locations. Reentrant or
not makes no difference. A non-blocking or timed acquire whose result is tested never waits for its
lock, so it makes no edge (trying the second lock is the classic way out of a cycle; `if
L.acquire():`, which waits as long as it takes, makes one), and neither does taking a reentrant lock
that the path already holds (it waits for nothing). A lock passed to a helper is the lock each
call passes: `both(self._in, self._out)` and `both(self._out, self._in)`, of one `def both(first,
second)` nesting `with first:` and `with second:`, take the two locks in both orders, and the chain
shows the call that passed them. The locks of a container (`self._locks[tp]`) are
one element lock whose instances the graph cannot tell apart: it is never part of a reported cycle.
Taking the same lock twice is EPL008's business, not this rule's.
"""
    why = """
A thread that holds L1 and waits for L2, while another holds L2 and waits for L1, waits forever.
It needs only the wrong interleaving, so tests rarely see it and production eventually does. A
redeliver path that takes the consumer lock and then the queue lock, next to a receive path that
takes them the other way round, is exactly this.
"""
    seed = """
Pulsar's `ConsumerImpl.redeliverUnacknowledgedMessages()` takes `synchronized(this)` and then
`incomingQueueLock`, and the #25204 fix makes the multi-topics consumer hold its
`incomingQueueLock` across calls into sub-consumers. Every lock added to fix an epoch race adds an
edge to this graph; a cycle among them is a deadlock waiting for load.
"""
    example = """
class Consumer:
    def redeliver(self):
        with self._consumer_lock:
            with self._queue_lock:  # EPL009: _consumer_lock -> _queue_lock here ...
                self._epoch += 1
                self._queue.clear()

    def on_message(self, message):
        with self._queue_lock:
            with self._consumer_lock:  # ... and _queue_lock -> _consumer_lock here
                self._queue.append(message)
"""
    java_example = """
class Consumer {
    private final Object consumerLock = new Object();
    private final Object queueLock = new Object();

    void redeliver() {
        synchronized (consumerLock) {
            synchronized (queueLock) { // expect: EPL009
                clear();
            }
        }
    }

    void receive() {
        synchronized (queueLock) {
            synchronized (consumerLock) {
                clear();
            }
        }
    }

    void clear() {
    }
}
"""
    fix = """
Pick one global order for the locks and take them in that order everywhere (here: the consumer lock,
then the queue lock), or do the inner work after releasing the outer lock. Where one lock is
enough to protect both pieces of state, merge the two.
"""
    valid = (
        Example(
            title="the same order everywhere",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._consumer_lock = threading.Lock()
        self._queue_lock = threading.Lock()

    def redeliver(self):
        with self._consumer_lock:
            with self._queue_lock:
                pass

    def on_message(self, message):
        with self._consumer_lock:
            with self._queue_lock:
                pass
""",
        ),
        Example(
            title="the second lock is taken by a hand-off, after release",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._a_lock = threading.Lock()
        self._b_lock = threading.Lock()

    def _with_a(self):
        with self._a_lock:
            pass

    def first(self):
        with self._a_lock:
            with self._b_lock:
                pass

    def second(self):
        with self._b_lock:
            threading.Thread(target=self._with_a).start()
""",
        ),
    )
    invalid = (
        Example(
            title="opposite orders, one of them through a call",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._consumer_lock = threading.RLock()
        self._queue_lock = threading.RLock()

    def _enqueue(self, message):
        with self._consumer_lock:  # expect: EPL009
            pass

    def redeliver(self):
        with self._consumer_lock:
            with self._queue_lock:
                pass

    def on_message(self, message):
        with self._queue_lock:
            self._enqueue(message)
""",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        graph = program.lock_order.graph
        for group in program.lock_order.cycles():
            sub = graph.subgraph(group)
            sites = [site for _, _, data in sub.edges(data=True) for site in data["sites"]]
            first = min(sites, key=lambda s: _order(program, s))
            yield self._finding(program, sub, first, sites)

    def _finding(
        self, program: Program, sub: nx.DiGraph, first: OrderSite, sites: list[OrderSite]
    ) -> Finding:
        import networkx as nx

        held, taken = first.outer.lock, first.inner.lock
        back: list[FieldId] = nx.shortest_path(sub, taken, held)
        ring = " -> ".join(f"`{lock.display()}`" for lock in (held, *back))
        message = (
            f"Lock-order cycle {ring}: `{taken.display()}` is acquired here while "
            f"`{held.display()}` is held, and other paths take them the other way round; two "
            "threads taking them in opposite orders can deadlock."
        )
        related = [
            RelatedLocation(
                program.location(s.inner.function, s.inner.pos),
                f"`{s.inner.lock.display()}` acquired while `{s.outer.lock.display()}` is held",
            )
            for s in sorted(sites, key=lambda s: _order(program, s))
            if s.inner != first.inner or s.outer.lock != held
        ]
        related.insert(
            0,
            RelatedLocation(
                program.location(first.outer.function, first.outer.pos),
                f"`{held.display()}` is held from here",
            ),
        )
        chain = [
            *call_steps(program, first.bound_by),
            acquisition_step(program, first.outer, f"acquires `{held.display()}`"),
            *call_steps(program, first.chain),
            acquisition_step(program, first.inner, f"acquires `{taken.display()}`"),
        ]
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=program.location(first.inner.function, first.inner.pos),
            function=program.display_function(first.inner.function),
            related=unique(related),
            chain=tuple(chain),
            fingerprint_key=",".join(sorted(lock.display() for lock in sub.nodes)),
        )


def _order(program: Program, site: OrderSite) -> tuple[str, Pos, int, str, Pos, str, str, tuple[tuple[str, Pos], ...]]:
    """Findings land at the first inner acquisition in the source, reached most directly; the
    locks, then the calls that bound them, tell apart the pairs that one helper makes at the same
    places with the locks each call passes it."""
    return (
        program.rel_path(site.inner.function),
        site.inner.pos,
        len(site.chain),
        program.rel_path(site.outer.function),
        site.outer.pos,
        site.outer.lock.display(),
        site.inner.lock.display(),
        chain_order(program, site.bound_by),
    )
