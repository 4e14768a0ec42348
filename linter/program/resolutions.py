"""Memoized name resolutions that remember what they were computed from.

The value flow learns parameter and field types in rounds. Each lesson changes the answer of only
the resolutions that used what it changed: the memo records, while a resolution is computed, the
learnt facts it read and the other resolutions it asked (including one still in progress, whose
answer it saw empty), so that forgetting a fact forgets exactly the resolutions built on it, and
the rest are kept for the next round instead of being computed again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

_Value = TypeVar("_Value")
# A resolution: (which cache, its key).
_Node = tuple[int, Hashable]

# The fact read by a resolution cut short at the depth limit: what it found depends on where it
# was first asked from, so it is forgotten at every lesson, as if computed afresh.
CUT_SHORT = ("cut short",)

# Outermost resolutions asked again once what was cut short under them is resolved (see
# `_deepened`), nested in one another, at most: each lets resolutions nest as deep again.
_MAX_DEEPENING = 16

# Passes over a cycle after its first, at most: answers only grow, and the cycles of real projects
# settle in one or two more.
_MAX_PASSES = 8


class Resolutions:
    """Caches of resolutions, with the dependencies between them while learning goes on."""

    def __init__(self, count: int, settled: Mapping[int, Callable[[Any, Any], bool]]) -> None:
        """`settled[which]`, for the caches whose answers only grow as the answers they use grow,
        tells whether an answer found in a pass over a cycle is the last pass's: those cycles are
        passed over until it is. A cycle entered by a resolution of another cache is passed over
        once."""
        self.caches: list[dict[Hashable, object]] = [{} for _ in range(count)]
        self._settled = settled
        self._computing: list[_Node] = []
        # The resolutions being computed, by their place in `_computing`.
        self._places: dict[_Node, int] = {}
        # Per resolution being computed: the lowest place of a resolution in progress that it, or
        # one it asked, saw unfinished (its own place if none).
        self._lowest: list[int] = []
        # Resolutions that saw an unfinished one, by the place of the one they saw.
        self._provisional: dict[int, list[_Node]] = {}
        # The place under which each of those is kept (a resolution using one is kept so too).
        self._provisional_at: dict[_Node, int] = {}
        # How many cycles are being passed over again: their answers so far are in the caches.
        self._passing = 0
        # A fact or a resolution -> the resolutions that used it.
        self._users: dict[Hashable, list[_Node]] = {}
        self._tracking = True
        # Per resolution being computed: how to compute it, and what it answers while it is.
        self._asked: list[tuple[Callable[[], Any], Any]] = []
        # Resolutions cut short at the depth limit under the outermost one being computed: how to
        # compute each again, and the depth it was cut short at.
        self._cut: dict[_Node, tuple[Callable[[], Any], Any, int]] = {}
        self._deepening = 0
        # The depth from which the depth limit counts: that of the resolution cut short that is
        # being computed again from the top (0 for the others).
        self._depth_base = 0

    def get(self, which: int, key: Hashable, compute: Callable[[], _Value], pending: _Value) -> _Value:
        """The cached resolution `key` of cache `which`, computed once. A computation that needs its
        own result (a cycle through names, returns or calls) sees `pending`; where `key`'s cache
        has a `settled` test, it is computed again, seeing its last answer, until that answer is
        settled, so that what the cycle feeds back into itself is the same wherever it was entered.
        What the cycle's other resolutions found with it unfinished is kept only until it is done:
        asked again, they are computed anew from its answer. An outermost resolution under which
        one was cut short at the depth limit answers as if there were no limit (see `_deepened`)."""
        cache = self.caches[which]
        cached = cache.get(key)
        node = (which, key)
        if self._tracking and self._computing:
            self._used(node)
        if cached is not None:
            # Most answers are asked for finished, with nothing provisional: no lookup then.
            if self._computing and (cached is pending or self._passing or self._provisional_at):
                self._saw(node, cached is pending or self._passing > 0)
            return cached  # type: ignore[return-value]
        cache[key] = pending
        place = len(self._computing)
        self._computing.append(node)
        self._asked.append((compute, pending))
        self._places[node] = place
        self._lowest.append(place)
        try:
            cached = compute()
            if self._lowest[-1] == place and (provisional := self._provisional.pop(place, None)):
                cached = self._pass_again(place, node, compute, cached, provisional)
        except BaseException:
            self._forget_now(self._provisional.pop(place, []))
            if not place:
                self._cut.clear()
            raise
        finally:
            self._computing.pop()
            self._asked.pop()
            del self._places[node]
            lowest = self._lowest.pop()
        cache[key] = cached
        if lowest < place:
            # Part of a cycle entered further out: this, and what saw this unfinished, are computed
            # anew once that one is done.
            provisional = self._provisional.setdefault(lowest, [])
            for seen in (*self._provisional.pop(place, ()), node):
                provisional.append(seen)
                self._provisional_at[seen] = lowest
            if lowest < self._lowest[-1]:
                self._lowest[-1] = lowest
        elif not place and self._cut:
            cached = self._deepened(node, compute, pending)
        return cached

    def _deepened(self, node: _Node, compute: Callable[[], _Value], pending: _Value) -> _Value:
        """The answer of the outermost resolution `node`, asked again once each resolution cut
        short under it has been computed from the top, as the outermost, with the depth limit
        counted from where it was cut short: then nothing under it is cut short, and what it finds
        does not depend on what was asked before it, which would have left the deep end of a
        chain of factories cached, or not. The Python stack never holds more than the limit's
        resolutions: a resolution cut short again in turn is asked again from the top, up to
        `_MAX_DEEPENING` times nested, beyond which it stays cut short."""
        cut, self._cut = self._cut, {}
        # Resolved from the top, they no longer depend on where they were asked: unless cut short
        # again, no lesson need forget them for it.
        if users := self._users.pop(CUT_SHORT, None):
            if kept := [user for user in users if user not in cut]:
                self._users[CUT_SHORT] = kept
        base = self._depth_base
        self._deepening += 1
        try:
            for (which, key), (cut_compute, cut_pending, depth) in cut.items():
                self.caches[which].pop(key, None)
                self._depth_base = depth
                self.get(which, key, cut_compute, cut_pending)
            self._depth_base = base
            self.caches[node[0]].pop(node[1], None)
            return self.get(node[0], node[1], compute, pending)
        finally:
            self._deepening -= 1
            self._depth_base = base

    def _saw(self, node: _Node, maybe_unfinished: bool) -> None:
        """Note that the resolution being computed used `node`'s answer: if that is unfinished, or
        was found from one that is, so is what this resolution finds."""
        place = self._places.get(node) if maybe_unfinished else None
        if place is None and self._provisional_at:
            place = self._provisional_at.get(node)
        if place is not None and place < self._lowest[-1]:
            self._lowest[-1] = place

    def _pass_again(
        self, place: int, node: _Node, compute: Callable[[], _Value], found: _Value, provisional: list[_Node]
    ) -> _Value:
        """The answer of the resolution that entered a cycle, from as many passes over it as its
        cache's `settled` test asks; what the cycle's others found from a pass is forgotten."""
        which, key = node
        cache = self.caches[which]
        settled = self._settled.get(which)
        self._passing += 1
        try:
            for _ in range(_MAX_PASSES):
                self._forget_now(provisional)
                if settled is None or settled(cache[key], found):
                    break
                cache[key] = found
                found = compute()
                if self._lowest[-1] < place or not (provisional := self._provisional.pop(place, [])):
                    break
            else:
                self._forget_now(provisional)
        finally:
            self._passing -= 1
        return found

    def _forget_now(self, nodes: list[_Node]) -> None:
        for node in nodes:
            self.caches[node[0]].pop(node[1], None)
            self._provisional_at.pop(node, None)

    def cut_short(self, depth: int, limit: int) -> bool:
        """Whether the resolution being computed, `depth` deep, stops here: past `limit`, counted
        from where a resolution cut short is being computed again from the top. What it finds then
        depends on where it was asked from, so it and those that asked for it are kept only until
        the outermost resolution asking is done, and are computed anew when asked again (from the
        top: see `_deepened`)."""
        if depth - self._depth_base <= limit:
            return False
        self.read(CUT_SHORT)
        if self._lowest:
            self._lowest[-1] = 0
            if self._deepening < _MAX_DEEPENING:
                self._cut.setdefault(self._computing[-1], (*self._asked[-1], depth))
        return True

    @property
    def idle(self) -> bool:
        """Whether no resolution is being computed: what is cached then is no unfinished answer."""
        return not self._computing

    def read(self, fact: Hashable) -> None:
        """Note that the resolution being computed read a learnt `fact`."""
        if self._tracking and self._computing:
            self._used(fact)

    def _used(self, used: Hashable) -> None:
        # A list, not a set: most are used by one resolution alone, and a resolution that asks
        # again at once is noted once (a repeat further apart costs a slot, never a wrong answer).
        user = self._computing[-1]
        users = self._users.get(used)
        if users is None:
            self._users[used] = [user]
        elif users[-1] is not user:
            users.append(user)

    def forget(self, facts: Iterable[Hashable]) -> None:
        """Forget every resolution that used one of `facts`, directly or through others, and every
        resolution cut short at the depth limit."""
        pending = [user for fact in (*facts, CUT_SHORT) for user in self._users.pop(fact, ())]
        forgotten: set[_Node] = set()
        while pending:
            node = pending.pop()
            if node in forgotten:
                continue
            forgotten.add(node)
            self.caches[node[0]].pop(node[1], None)
            pending.extend(self._users.pop(node, ()))

    def settle(self) -> None:
        """Learning is over: stop recording dependencies, and drop those recorded."""
        self._tracking = False
        self._users.clear()
