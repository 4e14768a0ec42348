"""The lock-order graph, and what happens through calls: lock acquisitions, epoch bumps, queue clears.

An edge L1 -> L2 of the lock-order graph (networkx) says that L2 is acquired while L1 is held, in
one function or through a chain of resolved calls that starts inside a held region of L1; the edge
keeps every place where that happens. Hand-offs run later, elsewhere, with no lock: they add no
edge. Re-acquiring the lock already held is not an edge: it is kept apart, for the reentrancy rule.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator, Set as AbstractSet
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from epochlint.frontend.facts import (
    FLOW_ARG,
    FLOW_ASSIGN,
    FLOW_RETURN,
    Arg,
    Branches,
    Call,
    Entered,
    Exit,
    FunctionFacts,
    Pos,
    Site,
    Write,
    within,
)
from epochlint.program.budget import WorkBudget, WorkLimitReached
from epochlint.program.callgraph import CALL, MAX_CONTEXTS, CallSite, Contexts, HandOn, Parameter, Passed
from epochlint.program.locks import NON_REENTRANT, REENTRANT, LockParameter
from epochlint.program.symbols import CONSTRUCTORS, PARTIAL, Entity, FieldId, function_id

if TYPE_CHECKING:  # networkx is imported where a graph is built (see callgraph.py)
    import networkx as nx

    from epochlint.program.model import FieldWrite, Program

# A lock decorator holds its lock for the whole body; the acquisition is located at the `def`.
DECORATOR = "decorator"
# A non-blocking or timed acquire whose result is tested: it never waits for the lock.
TRIED = "try_acquire"
# `with self._locked():` of a `@contextmanager` that takes the lock itself: held from there on, but
# the waiting is the context manager's own acquisition, reached through the call.
TAKEN_BY_CALLEE = "taken_by_callee"
# Acquisitions that never wait for their lock where they are.
NOT_WAITING = frozenset({TRIED, TAKEN_BY_CALLEE})
# What a function makes that the searches through calls look for (`LockOrder._makers`).
BUMP, CLEAR, ACQUIRE = "bump", "clear", "acquire"
# Steps the lock-order pairs made through calls may take in one unit: each function reached, each
# pair and each call on a pair's chain counts one. Nested lock-holding calls make a pair of every two
# locks on a chain, n*n/2 pairs with chains of up to n calls: 1,000,000 steps at 142 nested
# calls. The projects measured spend at most a few hundred.
LOCK_ORDER_STEPS = 1_000_000
# Steps the bumps and clears made through calls may take in one unit: each call on each event's
# chain counts one. Along a chain of n calls ending in a bump, every function has that bump as an
# event with the rest of the chain: n*n/2 calls, 1,000,000 at about 1,400 functions.
EVENT_STEPS = 1_000_000
# Attributes whose `.clear()`, or reassignment to an empty container, empties an incoming queue.
_QUEUE_ATTRIBUTE = re.compile("incoming|queue|buffer|pending", re.IGNORECASE)
# Containers, by what gives them items when built: (the position of the positional argument of
# items, whether keyword arguments are items). `deque(items, maxlen)`, `defaultdict(factory, items)`.
_CONTAINERS: dict[str, tuple[int, bool]] = {
    "list": (0, False),
    "set": (0, False),
    "collections.deque": (0, False),
    "dict": (0, True),
    "collections.OrderedDict": (0, True),
    "collections.defaultdict": (1, True),
}
# Literals of no items, as a container's items argument.
_EMPTY_LITERALS = frozenset({"[]", "()", "{}", "''", '""'})
# Queues never take items when they are built (their argument is a size).
_QUEUES = frozenset(
    {
        "queue.Queue",
        "queue.SimpleQueue",
        "queue.LifoQueue",
        "queue.PriorityQueue",
        "asyncio.Queue",
        "asyncio.LifoQueue",
        "asyncio.PriorityQueue",
        "multiprocessing.Queue",
    }
)


@dataclass(frozen=True)
class Acquisition:
    """A place where a lock is taken: a held region, or a lock decorator (at the `def` line)."""

    lock: FieldId
    function: str
    pos: Pos
    # The region's kind ("with", "async_with", "acquire", "try_acquire"), or DECORATOR.
    kind: str
    region: int = -1
    # The parameter of `function` whose lock it takes, where the calls of `function` bind it
    # different locks: `lock` is then the one that the calls of `OrderSite.bound_by` (or the call
    # chain of the pair) bind. "" for a lock known wherever `function` runs.
    parameter: str = ""


@dataclass(frozen=True)
class TakenParameter:
    """A held region of the lock a parameter of `function` holds, where the calls of `function`
    bind it different locks (`def both(first, second): with first: ...`): each call takes its own
    lock there, so the region becomes an acquisition only once a call's lock is bound to it."""

    parameter: LockParameter
    function: str
    pos: Pos
    kind: str
    region: int
    # The function whose calls bind the parameter: `function`, or for a closure holding a
    # parameter of the function around it, that function (its calls, not the closure's, bind it).
    binder: str

    def bound(self, lock: FieldId) -> Acquisition:
        return Acquisition(lock, self.function, self.pos, self.kind, self.region, self.parameter.name)


@dataclass(frozen=True)
class OrderSite:
    """`inner` is acquired while `outer` is held: in one function, or through `chain`.

    `chain` holds the call sites from the function of `outer` down to the function of `inner`,
    outermost first; it is empty when both are in the same function. `bound_by` holds the calls,
    outermost first, down to the function of `outer`, that bound the locks of parameters the pair
    takes (see `Acquisition.parameter`); it is empty when no parameter's lock was bound there.
    """

    outer: Acquisition
    inner: Acquisition
    chain: tuple[CallSite, ...] = ()
    bound_by: tuple[CallSite, ...] = ()


@dataclass(frozen=True)
class Event:
    """An epoch bump or a queue clear, as seen from the function `chain` starts in.

    It happens at `target` in `target_function`; `chain` holds the call sites that reach it,
    outermost first, and is empty when it happens in the function itself.
    """

    target_function: str
    target: Site
    chain: tuple[CallSite, ...] = ()
    # The bumped field, for a bump; what was cleared (`self.incoming_messages`), for a clear.
    field: FieldId | None = None
    what: str = ""

    @property
    def function(self) -> str:
        return self.chain[0].caller if self.chain else self.target_function

    @property
    def site(self) -> Site:
        """Where it happens in `function`: the event itself, or the call that leads to it."""
        return self.chain[0].site if self.chain else self.target


# A function as a search meets it: with what its path parameters hold on the path that
# reached it (what the calls along the path passed decides where it goes on).
_State = tuple[str, Passed]
# A question `LockOrder._bindings` answers: a function, and the parameters whose locks its calls bind.
_Question = tuple[str, frozenset[LockParameter]]


class _Binding(NamedTuple):
    """The locks one call binds to parameters of a function, by parameter; the calls that bind
    them, outermost first; and what the function's path parameters hold on that path of calls (a
    path that passes another callback runs other code: see `CallGraph.passed_on`); and the
    reentrant locks held where those calls are made, which the function, taking one again on that
    path, waits for nothing to take (`with R: both(L, R)` makes no edge L -> R)."""

    locks: dict[LockParameter, FieldId]
    calls: tuple[CallSite, ...]
    passed: Passed
    held: frozenset[FieldId] = frozenset()


# A call that binds parameters of the function a question asks about: its site, what it binds to
# each (a lock, or a parameter of its caller that it hands on) and the question its caller's
# callers answer for those it hands on (None: it hands none on).
_BindingCall = tuple[CallSite, dict[LockParameter, FieldId | LockParameter | None], _Question | None]
# The locks a binding binds, by parameter, as a key.
_BoundLocks = tuple[tuple[LockParameter, FieldId], ...]
# The bindings of a question found so far, by the locks they bind, what their path passes and the
# reentrant locks held along it.
_Found = dict[tuple[_BoundLocks, Passed, frozenset[FieldId]], _Binding]
# A path that binds no lock to the parameters a call hands on and passes nothing known: the call
# binds its own locks alone.
_UNBOUND = _Binding({}, (), ())
# An acquisition of a parameter's lock reached through calls: the chain that reaches it, and the
# lock the chain binds to it, or the parameter of the function the chain starts in that it hands on.
# None: a call through a parameter on the chain binds the lock nothing on the chain binds; a partial
# handed down from before the chain may (see `_bound_by_partial`).
_TakenThrough = tuple[TakenParameter, tuple[CallSite, ...], FieldId | LockParameter | None]
# The calls handing a partial's value on, one after another, to a parameter that calls it (see
# `LockOrder._routes_of`), and those chains by the parameter they end in, by module.
_Route = tuple[CallSite, ...]
_Routes = dict[tuple[str, Parameter], list[_Route]]


@dataclass(frozen=True)
class Reached:
    """Functions reached from a start, in breadth-first order (iterating gives them), each by the
    path that first reached it. A chain is rebuilt when asked for, never kept per function: along
    a call chain of n functions, that would keep n*n/2 call sites."""

    # The state each function was first reached in.
    first: dict[str, _State]
    # Per state: the call that reached it and the state that call was made in (None: the start).
    via: dict[_State, tuple[CallSite, _State] | None]

    def __iter__(self) -> Iterator[str]:
        return iter(self.first)

    def chain(self, fid: str) -> tuple[CallSite, ...]:
        """The calls from the start to `fid`, in order."""
        steps = []
        link = self.via[self.first[fid]]
        while link is not None:
            site, link_state = link
            steps.append(site)
            link = self.via[link_state]
        return tuple(reversed(steps))


class LockOrder:
    """Acquisitions, the lock-order graph, and bumps and clears reached through calls."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.symbols = program.symbols
        self.calls = program.calls
        self.locks = program.locks
        self._reach: dict[tuple[_State, bool, FieldId | None, str], Reached] = {}
        self._acquired_from: dict[tuple[_State, FieldId | None], dict[Acquisition, tuple[CallSite, ...]]] = {}
        self._taken_of: dict[tuple[_State, FieldId | None], list[_TakenThrough]] = {}
        self._bindings_of: dict[_Question, list[_Binding]] = {}
        self._passed_later_of: dict[tuple[str, int, str, Passed], Passed] = {}
        self._routes_of_partial: dict[tuple[str, int], _Routes] = {}
        self._runs_as_value_of: dict[str, list[_Binding]] = {}
        self._makers_of: dict[str, frozenset[str]] = {}
        self._distance_of: dict[str, dict[str, int]] = {}
        self._nearer_of: dict[tuple[str, str], CallSite] = {}
        self._generator_events_of: dict[tuple[str, str], list[Event]] = {}
        self._entered_generators_of: dict[str, dict[int, Entered]] = {}
        self._budget = WorkBudget("the lock order through calls", LOCK_ORDER_STEPS)
        self._events_budget = WorkBudget("the search for epoch bumps and queue clears through calls", EVENT_STEPS)

    # -- reachability ----------------------------------------------------------------------------

    def reach(
        self, start: str, handoffs: bool = False, free: FieldId | None = None, passed: Passed = (), toward: str = ""
    ) -> Reached:
        """Functions reached from `start` through resolved calls, each by a shortest chain.

        Hand-offs are followed only when asked: they run the callee, but later and elsewhere.
        With `free`, calls that run only where a non-blocking acquire of that lock succeeded are
        not followed: a path that holds the lock cannot get past that test. A function that calls
        a parameter (or a method of one) goes on, on each path, only to what the calls along that
        path passed it (`start`'s own parameters holding `passed`). With `toward` (BUMP, CLEAR or
        ACQUIRE, and no hand-off: see `_makers`), only the functions that can reach one are
        entered: the others are on no chain to one, and leaving them out changes neither the order
        in which the search meets the rest nor what their paths pass (in redis-py, the searches
        from each call of a command mixin's method, its `self` bound to the client called on, took
        7 s whole).
        """
        contexts = Contexts(self.calls)
        first_state = (start, contexts.kept(start, passed))
        key = (first_state, handoffs, free, toward)
        cached = self._reach.get(key)
        if cached is not None:
            return cached
        within = self._distance(toward) if toward else None
        via: dict[_State, tuple[CallSite, _State] | None] = {first_state: None}
        first = {start: first_state}
        pending = deque([first_state])
        while pending:
            state = pending.popleft()
            fid, passed = state
            for site in self.calls.sites_from.get(fid, ()):
                if not self._goes_on(site, passed, free, handoffs):
                    continue
                if within is not None and site.callee not in within:
                    continue
                if toward in (BUMP, CLEAR) and self._kept_manager(site):
                    continue  # the generator's body runs where the manager is entered
                next_state = (site.callee, contexts.entering(site, passed))
                if next_state in via:
                    continue
                via[next_state] = (site, state)
                first.setdefault(site.callee, next_state)
                pending.append(next_state)
        reached = self._reach[key] = Reached(first, via)
        return reached

    def _goes_on(self, site: CallSite, passed: Passed, free: FieldId | None, handoffs: bool = False) -> bool:
        """Whether a search whose path parameters hold `passed` goes on through `site` (see `reach`)."""
        if not (handoffs or site.inherits_locks) or not self.calls.runs_after(passed, site):
            return False
        if self.unreachable(site.caller, site.pos):
            return False  # left after a return: no path makes the call
        return free is None or not self._probed(site, free)

    def _probed(self, site: CallSite, lock: FieldId, held: int = -1) -> bool:
        """Whether `site` runs only in the branch where a tested acquire of `lock` succeeded
        (other than the region `held`, which is the one holding the lock)."""
        for region in self.symbols.function(site.caller).regions:
            if region.kind != TRIED or region.id == held or not region.pos[:2] <= site.pos[:2]:
                continue
            if site.pos[0] <= region.end_line and self.locks.region_lock(site.caller, region) == lock:
                return True
        return False

    # -- acquisitions ------------------------------------------------------------------------------

    @cached_property
    def acquisitions(self) -> dict[str, tuple[Acquisition, ...]]:
        """Every acquisition of a lock, by function: its held regions and lock decorators."""
        found: dict[str, tuple[Acquisition, ...]] = {}
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            mine = [
                Acquisition(lock, fid, function.pos, DECORATOR)
                for lock in sorted(self.locks.decorator_locks(fid))
            ]
            for region in function.regions:
                lock = self.locks.region_lock(fid, region)
                if lock is not None:
                    kind = TAKEN_BY_CALLEE if self.locks.taken_by_callee(fid, region) else region.kind
                    mine.append(Acquisition(lock, fid, region.pos, kind, region.id))
            if mine:
                found[fid] = tuple(mine)
        return found

    @cached_property
    def taken_parameters(self) -> dict[str, tuple[TakenParameter, ...]]:
        """The held regions of the locks parameters hold where the calls bind them different locks,
        by function (see `Locks.lock_parameter`). No `with` of theirs enters a context manager
        that takes a lock itself: that would be the region's lock, wherever it runs."""
        found: dict[str, tuple[TakenParameter, ...]] = {}
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            mine = tuple(
                TakenParameter(bound[1], fid, region.pos, region.kind, region.id, bound[0])
                for region in function.regions
                if (bound := self.locks.lock_parameter(fid, region))
            )
            if mine:
                found[fid] = mine
        return found

    def acquired_from(
        self, site: CallSite, free: FieldId | None = None, passed: Passed = ()
    ) -> dict[Acquisition, tuple[CallSite, ...]]:
        """Blocking acquisitions made by the callee of `site` and what it calls (no hand-off), with
        the chains; with `free`, only on paths that can run while that lock is held (see `reach`);
        the path parameters of the caller of `site` holding `passed`. The work is spent from the
        lock order's budget, at `site`."""
        state = (site.callee, self.calls.passed_on(site, passed))
        key = (state, free)
        cached = self._acquired_from.get(key)
        if cached is None:
            cached = {}
            reached = self.reach(site.callee, free=free, passed=state[1], toward=ACQUIRE)
            self._budget.spend(len(reached.via), site.caller, site.pos)
            for fid in reached:
                for acquisition in self.acquisitions.get(fid, ()):
                    if acquisition.kind not in NOT_WAITING and acquisition not in cached:
                        cached[acquisition] = chain = reached.chain(fid)
                        self._budget.spend(1 + len(chain), site.caller, site.pos)
            self._acquired_from[key] = cached
        return cached

    def _taken_through(self, site: CallSite, free: FieldId | None, passed: Passed) -> Iterator[_TakenThrough]:
        """The blocking acquisitions of parameters' locks that the callee of `site` makes, itself
        or through calls (as `acquired_from` finds the others), each with the chain from `site`
        and what the chain binds to it: a lock, or a parameter of the caller of `site` it hands on.
        Each call that can reach one (`g` calling `helper(self._b)` and `helper(self._c)`) binds
        its own."""
        late: set[tuple[TakenParameter, FieldId | LockParameter]] = set()
        for taken, chain, handed in self._taken_from(site, free, passed):
            if handed is None:
                bound = self._pulled_back((site, *chain), taken.parameter)
                if bound is None or (taken, bound) in late:
                    continue
                late.add((taken, bound))
            else:
                bound = handed if isinstance(handed, FieldId) else self._bound_at(site, handed)
            if bound is not None:
                yield taken, (site, *chain), bound

    def _taken_from(self, site: CallSite, free: FieldId | None, passed: Passed) -> list[_TakenThrough]:
        """`_taken_through`, from the callee of `site` on: the parameter the chain hands on is one
        of the callee's."""
        state = (site.callee, self.calls.passed_on(site, passed))
        key = (state, free)
        cached = self._taken_of.get(key)
        if cached is None:
            cached = []
            seen: set[tuple[TakenParameter, FieldId | LockParameter]] = set()
            reached = self.reach(site.callee, free=free, passed=state[1], toward=ACQUIRE)
            for fid in reached:
                waiting = [taken for taken in self._taken_by_calls_of(fid) if taken.kind not in NOT_WAITING]
                for chain in self._chains_into(reached, fid, free) if waiting else ():
                    self._budget.spend(1 + len(chain), site.caller, site.pos)
                    for taken in waiting:
                        bound = self._pulled_back(chain, taken.parameter)
                        if bound is None and any(_calls_a_parameter(step) for step in chain):
                            cached.append((taken, chain, None))  # bound by a partial handed down from above
                        elif bound is not None and (taken, bound) not in seen:
                            seen.add((taken, bound))
                            cached.append((taken, chain, bound))
            self._taken_of[key] = cached
        return cached

    def _chains_into(self, reached: Reached, fid: str, free: FieldId | None) -> Iterator[tuple[CallSite, ...]]:
        """The chains from the start of `reached` to `fid` through each call of `fid` that a
        function reached makes (where the search would go on through it), each call's own."""
        start = next(iter(reached))
        if fid == start:
            yield ()
        for site in sorted(self.calls.sites_to.get(fid, ()), key=self._source_place):
            state = reached.first.get(site.caller)
            if state is not None and self._goes_on(site, state[1], free):
                yield (*reached.chain(site.caller), site)

    def _pulled_back(self, chain: tuple[CallSite, ...], parameter: LockParameter) -> FieldId | LockParameter | None:
        """The lock the calls of `chain` bind to `parameter` of the function it ends in, or the
        parameter of the function it starts in that they hand on to it (`parameter` itself for no
        call); None where a call binds it something else."""
        handed: FieldId | LockParameter | None = parameter
        end = len(chain)
        while end and isinstance(handed, LockParameter):
            end -= 1
            bound = self._bound_at(chain[end], handed)
            if bound is None:
                # A call through a parameter (`fn(act)`) binds the lock a partial handed down to it does.
                by_partial = self._bound_by_partial(chain[:end], chain[end], handed)
                bound, end = by_partial if by_partial is not None else (None, 0)
            handed = bound
        return handed

    def _bound_by_partial(
        self, before: tuple[CallSite, ...], site: CallSite, parameter: LockParameter
    ) -> tuple[FieldId | LockParameter, int] | None:
        """What a `functools.partial` of the function `site` calls through a parameter binds to
        its `parameter`, where the calls `before` end with those handing that partial's value to
        that parameter (see `_routes_of`: `call(partial(guarded, self._z), act)` then `fn(act)`),
        with the place in `before` of the call handing it first: a lock parameter bound is one of
        its caller's. None where no such partial binds one, or two bind different ones."""
        if not _calls_a_parameter(site):
            return None
        found: set[tuple[FieldId | LockParameter, int]] = set()
        for partial, call in self.locks.calls_binding(site.callee):
            made = (partial.caller, partial.call_id)
            if not partial.via_argument or not self._makes_a_partial(*made):
                continue
            starts = _starts_of_routes(before, self._routes_to_call(site, self._routes_of(made)))
            # What the partial binds is asked only of one handed down: asking each is quadratic in partials.
            bound = self.locks.lock_bound_at(partial, call, parameter) if starts else None
            found.update((bound, start) for start in starts if bound is not None)
        return found.pop() if len(found) == 1 else None

    def _bound_at(self, site: CallSite, parameter: LockParameter) -> FieldId | LockParameter | None:
        """What the call made at `site` binds to `parameter` of its callee (see `Locks.lock_bound_at`);
        None where it binds nothing (it passes the callee as an argument)."""
        call = self.symbols.call(site.caller, site.call_id) if site.call_id >= 0 and not site.via_argument else None
        return self.locks.lock_bound_at(site, call, parameter) if call is not None else None

    def _source_place(self, site: CallSite) -> tuple[str, Pos, str]:
        """Where the call at `site` is in the source: its file, then its place there (then its
        caller, for the calls that share a place: the clones of a decorated function's)."""
        return self.program.rel_path(site.caller), site.pos, site.caller

    def _bindings(self, fid: str, parameters: frozenset[LockParameter]) -> list[_Binding]:
        """The locks that the calls of `fid` bind to `parameters`, one binding per different set of
        locks and of what the path passes, each with the calls that first bind it so. A call
        handing on a parameter of its own (`def take(a, b): both(a, b)`) binds the locks its own
        callers bind. The paths binding none of them locks are kept for the calls `fid` makes
        (those hand on what such a path passes, with locks of their own), not given here."""
        question = (fid, parameters)
        if question not in self._bindings_of:
            self._answer_bindings(question)
        return [binding for binding in self._bindings_of[question] if binding.locks]

    def _answer_bindings(self, start: _Question) -> None:
        """Answers `start` and the questions it asks of the callers that hand parameters on, callers
        first, again and again until no call binds more: around a cycle of calls (a recursion
        handing its locks on swapped, `both(b, a)`) each answer needs the others'."""
        import networkx as nx

        asked = self._binding_calls(start)
        graph = nx.DiGraph()
        graph.add_nodes_from(asked)
        for question, calls in asked.items():
            graph.add_edges_from((question, above) for *_, above in calls if above in asked)
        callers_first = list(nx.dfs_postorder_nodes(graph, start))
        found: dict[_Question, _Found] = {question: {} for question in callers_first}
        used = {question: [0] * len(asked[question]) for question in callers_first}
        grown = True
        while grown:
            grown = False
            for question in callers_first:
                grown = self._bind_calls(asked[question], found[question], found, used[question]) or grown
        for question in callers_first:
            self._bindings_of[question] = list(found[question].values())

    def _binding_calls(self, start: _Question) -> dict[_Question, list[_BindingCall]]:
        """The calls that bind the parameters of each question, from `start` up the callers that
        hand parameters on: all those not answered before."""
        asked: dict[_Question, list[_BindingCall]] = {}
        pending = deque([start])
        while pending:
            question = pending.popleft()
            if question in asked or question in self._bindings_of:
                continue
            fid, parameters = question
            calls = asked[question] = []
            # In source order: the calls that first bind a set of locks are the same in any part.
            for site, call in sorted(self.locks.calls_binding(fid), key=lambda bound: self._source_place(bound[0])):
                self._budget.spend(1, site.caller, site.pos)
                bound, above = self._bound_by_call(site, call, parameters)
                calls.append((site, bound, above))
                if above:
                    pending.append(above)
        return asked

    def _bound_by_call(
        self, site: CallSite, call: Call, parameters: frozenset[LockParameter]
    ) -> tuple[dict[LockParameter, FieldId | LockParameter | None], _Question | None]:
        """What the call made at `site` binds to `parameters` of its callee (see
        `Locks.lock_bound_at`), with the question it asks of the function whose parameters it hands
        on: its caller; or, for a closure handing on none of its own, the function around it whose
        parameters it reads (see `Locks.handed_from_around`), each call of which binds its own.
        None where it hands none on."""
        ordered = sorted(parameters, key=_in_order)
        bound = {parameter: self.locks.lock_bound_at(site, call, parameter) for parameter in ordered}
        handed = frozenset(lock for lock in bound.values() if isinstance(lock, LockParameter))
        if handed:
            return bound, (site.caller, handed)
        around = {
            parameter: found
            for parameter in ordered
            if (found := self.locks.handed_from_around(site, call, parameter)) is not None
        }
        binders = {binder for binder, _ in around.values()}
        if len(binders) != 1:
            # None handed on, or parameters of functions at different depths: the locks their calls agree on.
            return bound, None
        bound.update((parameter, handed_on) for parameter, (_, handed_on) in around.items())
        return bound, (binders.pop(), frozenset(handed_on for _, handed_on in around.values()))

    def _bind_calls(
        self, calls: list[_BindingCall], mine: _Found, found: dict[_Question, _Found], used: list[int]
    ) -> bool:
        """Adds to `mine` the bindings that `calls` make with those found so far above them;
        whether one is new. `used` counts, by call, the bindings above it that it has bound with
        already: they would bind nothing new again (found bindings are only ever added to), and
        going through them again on each round of a cycle would cost rounds times as much. Each
        call looked at counts one step on each round, so that the budget bounds the rounds too."""
        added = False
        for index, (site, bound, above) in enumerate(calls):
            self._budget.spend(1, site.caller, site.pos)
            outers = self._found_above(above, found, site.caller)
            # Before the bindings above are found (a call cycle's first round), or where none is
            # (no caller), the call binds its own locks alone: a path only where it binds one.
            fresh, used[index] = (outers[used[index] :], len(outers)) if outers else ([_UNBOUND], 0)
            for outer in fresh:
                self._budget.spend(1 + len(outer.calls), site.caller, site.pos)
                locks = {
                    parameter: outer.locks.get(lock) if isinstance(lock, LockParameter) else lock
                    for parameter, lock in bound.items()
                }
                binding = tuple((parameter, lock) for parameter, lock in locks.items() if lock is not None)
                passed = _kept_passed(mine, binding, self._passed_binding(site, outer.passed))
                key = (binding, passed, outer.held | self._reentrant_held_at(site, outer.locks))
                if (binding or outers) and key not in mine:
                    mine[key] = _Binding(dict(binding), (*outer.calls, site), passed, key[2])
                    added = True
        return added

    def _passed_binding(self, site: CallSite, passed: Passed) -> Passed:
        """What the path parameters of the callee of `site` hold on a path through that call binding
        its parameters, when those its caller sees hold `passed` (see `CallGraph.passed_on`); for a
        `functools.partial`, those it leaves to the calls of its value hold what those calls pass
        (see `_passed_later`)."""
        own = self.calls.passed_on(site, passed)
        if not site.via_argument:
            return own
        later = dict(self._passed_later(site, passed))
        return tuple(sorted({**later, **dict(own)}.items())) if later else own

    def _passed_later(self, site: CallSite, passed: Passed) -> Passed:
        """For `site`, a `functools.partial` binding arguments of its callee: what the path
        parameters of the callee hold on the calls that may call that partial's value, each
        parameter to which every one of those calls passes something known (`a = partial(locked,
        self._x)` then `a(self.take_y)`: `take_y`, and not what the calls of another partial of
        `locked`, `b(self.take_z)`, pass), where those the caller of `site` sees hold `passed`.
        Nothing for another call, or one whose value no call calls."""
        made = (site.caller, site.call_id)
        if not self._makes_a_partial(*made):
            return ()
        # What the caller's parameters hold counts only where the value is handed on from them.
        seen = passed if self._routes_of(made) else ()
        key = (*made, site.callee, seen)
        if key not in self._passed_later_of:
            self._passed_later_of[key] = self._passed_by_calls_of(made, site.callee, seen)
        return self._passed_later_of[key]

    def _passed_by_calls_of(self, made: tuple[str, int], fid: str, passed: Passed) -> Passed:
        """What the path parameters of `fid` hold on the calls of `fid` that may call the value of the
        partial call `made`, each parameter to which every one of them passes something known, where
        those the function making it sees hold `passed`."""
        passing = [dict(self.calls.passed_on(later, held)) for later, held in self._calls_of_value(made, fid, passed)]
        known = set.intersection(*(set(each) for each in passing)) if passing else set()
        return tuple(sorted((param, frozenset().union(*(each[param] for each in passing))) for param in known))

    def _calls_of_value(self, made: tuple[str, int], fid: str, passed: Passed) -> Iterator[tuple[CallSite, Passed]]:
        """The calls of `fid` that may call the value of the partial call `made`, each with what the
        path parameters of its caller hold there: where that value is handed only to parameters
        only ever called or handed on so (see `_routes_of`), the calls through those, holding what
        the calls handing it there pass, those of the function making it holding `passed`; else
        every call but those `_may_call` rules out, holding whatever any caller passes."""
        routes = self._routes_of(made)
        for later in self.calls.sites_to.get(fid, ()):
            if later.kind != CALL or later.via_argument:
                continue
            if not routes:
                if self._may_call(later, made):
                    yield later, ()
                continue
            for route in self._routes_to_call(later, routes):
                yield later, self._passed_along(route, passed)

    def _routes_of(self, made: tuple[str, int]) -> _Routes:
        """Where the value of the `functools.partial` call `made` goes when it is handed on as an
        argument (`call(partial(locked, self._x), self.take_y)`), itself or from a local bound once
        to it (`g = partial(...)` then `call(g, self.take_y)`): the parameters of the functions the
        calls handing it on run that take it, by those functions' modules, each with the chains of
        calls that hand it there (`relay(fn, action)` handing its `fn` on to `call`). Only where
        each of those parameters is only ever called or handed on so (`def call(fn, action):
        fn(action)`, see `CallGraph.handed_on`): the value is then called through them alone, in the
        runs the handing calls make. Empty otherwise."""
        if made not in self._routes_of_partial:
            self._routes_of_partial[made] = self._routes_from(self._hand_ons_of_partial(*made) or [])
        return self._routes_of_partial[made]

    def _routes_from(self, hand_ons: list[HandOn]) -> _Routes:
        """The routes (see `_routes_of`) of a value that `hand_ons` hand on; none where one of the
        parameters they reach may do anything else with it."""
        routes: _Routes = {}
        complete = bool(hand_ons) and self._follow(hand_ons, (), frozenset(), routes)
        return routes if complete else {}

    def _runs_as_value(self, fid: str) -> list[_Binding]:
        """The paths that run `fid` where it is only ever handed on as a value and called through
        the parameters its routes hand it to (`call(lambda a: guarded(self._x, a), self.take_y)`
        with `def call(fn, act): fn(act)`): each such call, with what it passes `fid`'s parameters
        along the route handing `fid` there (`take_y`, not what other calls of `call` pass `act`).
        The path that binds and passes nothing where `fid` is run any other way."""
        if fid not in self._runs_as_value_of:
            self._runs_as_value_of[fid] = self._runs_through_routes(fid) or [_UNBOUND]
        return self._runs_as_value_of[fid]

    def _runs_through_routes(self, fid: str) -> list[_Binding]:
        """`_runs_as_value`'s paths; none where a call runs `fid` otherwise."""
        sites = self.calls.sites_to.get(fid, ())
        handing = [site for site in sites if site.via_argument]
        calls = {site for site in sites if not site.via_argument}
        if not handing or any(site.kind != CALL or not self.calls.runs_its_value(site) for site in calls):
            return []
        runs: dict[Passed, _Binding] = {}
        covered: set[CallSite] = set()
        # Calls handing on a parameter holding `fid` (a recursion's `self._call(fn, arg, n - 1)`)
        # must be those by which the routes of the calls handing `fid` itself go on: what they do is
        # then said by those routes.
        relaying: set[tuple[str, int]] = set()
        routed: set[tuple[str, Parameter]] = set()
        for hand in handing:
            call = self.symbols.call(hand.caller, hand.call_id)
            if call is None:
                return []
            hand_ons = [(hand.caller, call, arg) for arg in call.args if self._passes(hand.caller, arg, fid)]
            if not hand_ons:
                relaying.add((hand.caller, hand.call_id))
                continue
            routes = self._routes_from(hand_ons)
            if not routes:
                return []
            routed.update(routes)
            for later in calls:
                for route in self._routes_to_call(later, routes):
                    covered.add(later)
                    self._budget.spend(1 + len(route), later.caller, later.pos)
                    passed = self.calls.passed_on(later, self._passed_along(route, ()))
                    runs.setdefault(passed, _Binding({}, (), passed))
        if covered != calls or (relaying and not relaying <= self._relayed_by(routed)):
            return []
        return list(runs.values())

    def _relayed_by(self, routed: Iterable[tuple[str, Parameter]]) -> set[tuple[str, int]]:
        """The calls (function, call id) by which the parameters `routed` (by module) hand on their value."""
        return {
            (caller, call.id)
            for module, (qualname, name) in routed
            for caller, call, _ in self.calls.handed_on(function_id(module, qualname), name, called=True) or ()
        }

    def _passes(self, fid: str, arg: Arg, function: str) -> bool:
        """Whether the argument `arg` of a call in `fid` is `function` itself: a lambda, or a name of it."""
        if arg.kind not in ("lambda", "ref") or arg.star:
            return False
        value = self.symbols.argument_value(fid, arg)
        return value.kind == "function" and value.target == function

    def _hand_ons_of_partial(self, fid: str, made_id: int) -> list[HandOn] | None:
        """The calls handing on, as an argument, the value of the `functools.partial` call `made_id`
        of `fid`: the one it is an argument of, or those handing on the local bound once to it."""
        made = self.symbols.call(fid, made_id)
        flow = made.flow if made is not None else None
        handing = self.symbols.call(fid, flow.call) if flow is not None and flow.kind == FLOW_ARG else None
        if handing is not None:
            return [(fid, handing, arg) for arg in handing.args if arg.kind == "call" and arg.call == made_id] or None
        bind = self.symbols.local_bound_once(fid, flow) if flow is not None else None
        if bind is None or bind.value_call != made_id:
            return None
        return self.calls.handed_on(fid, bind.name, called=False)

    def _follow(
        self, hand_ons: list[HandOn], route: _Route, through: frozenset[tuple[str, str]], routes: _Routes
    ) -> bool:
        """Adds to `routes` the parameters that `hand_ons`, reached by the calls `route`, hand a
        value to, and those these hand it on to in turn; whether every one of them is only ever
        called or handed on so, by calls that run only the project's functions. `through` holds the
        parameters `route` hands it through: one handing it back to one of those (a recursion)
        would call it with what no single chain passes."""
        for caller, call, arg in hand_ons:
            callees = self.symbols.callees(caller, call)
            if not callees or any(callee.kind != "function" for callee in callees):
                return False  # a class or code outside the project may keep the value, or call it with anything
            for site in self.calls.sites_of_call.get((caller, call.id), []):
                if site.via_argument:
                    continue  # a function the call passes, not the one it runs
                self._budget.spend(1, site.caller, site.pos)
                names = self._bound_to(site, call, arg) if site.kind == CALL else []
                if not names or not self._follow_into(site, names, (*route, site), through, routes):
                    return False
        return True

    def _follow_into(
        self, site: CallSite, names: list[str], route: _Route, through: frozenset[tuple[str, str]], routes: _Routes
    ) -> bool:
        """`_follow` for the parameters `names` of the function `site` calls, which take the value
        that the calls `route`, ending with `site`, hand it."""
        qualname = self.symbols.function(site.callee).qualname
        module = self.symbols.module_of(site.callee).name
        for name in names:
            if (site.callee, name) in through:
                if self._loops_unchanged(route):
                    continue  # each run of the recursion calls the value with what the first run holds
                return False
            further = self.calls.handed_on(site.callee, name, called=True)
            if further is None:
                return False
            routes.setdefault((module, (qualname, name)), []).append(route)
            if not self._follow(further, route, through | {(site.callee, name)}, routes):
                return False
        return True

    def _loops_unchanged(self, route: _Route) -> bool:
        """Whether the calls of `route` since it first entered the function its last call runs
        again (a recursion: `r1(fn, act)` calling `r2(fn, act)` calling `r1(fn, act)`) hand every
        path parameter of that function back to itself: a run of the recursion then calls a value
        handed round it with what the first run's parameters hold, and the routes without it say
        all it does."""
        again = route[-1].callee
        loop = route[next(index for index, site in enumerate(route) if site.callee == again) + 1 :]
        # Each parameter holds a stand-in naming it, which only handing it on whole keeps.
        itself = tuple(
            (param, frozenset({Entity("unknown", f"{param[0]}({param[1]})")}))
            for param in sorted(self.calls.path_parameters(again))
        )
        return self._passed_along(loop, itself) == itself

    def _bound_to(self, site: CallSite, call: Call, handed: Arg) -> list[str]:
        """The parameters of the function `call` runs at `site` that take its argument `handed`
        whole; none where only a `*args` one does."""
        bound = self.program.bound_arguments(site.callee, call, site.bound_ahead)
        return [name for name, arg in bound if arg == handed]

    def _routes_to_call(self, later: CallSite, routes: _Routes) -> list[_Route]:
        """The chains of calls that hand a partial's value to the parameter through which `later`
        calls it (see `_routes_of`); none where `later` calls no such parameter: it never calls
        that value."""
        parameter = later.through_parameter
        if parameter is None or not self.calls.runs_its_value(later):
            return []
        return routes.get((self.symbols.module_of(later.caller).name, parameter), [])

    def _passed_along(self, route: _Route, passed: Passed) -> Passed:
        """What the path parameters of the function the last call of `route` runs hold, where those
        of the function making its first call hold `passed` (`relay(fn, action)` handing `fn` and
        `action` on to `call`: `call`'s `action` holds what was handed to `relay`'s)."""
        for site in route:
            passed = self.calls.passed_on(site, passed)
        return passed

    def _may_call(self, site: CallSite, made: tuple[str, int]) -> bool:
        """Whether the call at `site` may call the value of the `functools.partial` call `made`
        (function, call id): not where it calls a local or a field only ever assigned other
        partials (`b = partial(...)`, `self.b = partial(...)`)."""
        call = self.symbols.call(site.caller, site.call_id)
        called = call.callee if call is not None else None
        if called is None:
            return True
        if not called.attrs and called.scope == self.symbols.function(site.caller).qualname:
            binds = self.symbols.binds(site.caller).get(called.name, [])
            makers = [(site.caller, bind.value_call if bind.kind == "assign" else -1) for bind in binds]
        else:
            field = self.symbols.field(site.caller, called)
            writes = self.program.field_writes.get(field, []) if field is not None else []
            makers = [(write.function, write.write.value_call) for write in writes]
        return made in makers or not makers or not all(self._makes_a_partial(*maker) for maker in makers)

    def _makes_a_partial(self, fid: str, call_id: int) -> bool:
        """Whether the call `call_id` of `fid` is one of `functools.partial`."""
        call = self.symbols.call(fid, call_id) if call_id >= 0 else None
        return call is not None and self.symbols.callee(fid, call) == PARTIAL

    def _reentrant_held_at(self, site: CallSite, locks: dict[LockParameter, FieldId]) -> frozenset[FieldId]:
        """The reentrant locks held where the call at `site` is made: its caller's own and entry
        locks, and the locks of its caller's parameters held around it that `locks` binds."""
        held = self.locks.held(site.caller, site.site) | {a.lock for a in _bound(self._taken_around(site), locks)}
        return frozenset(lock for lock in held if self.locks.kind(lock) == REENTRANT)

    def _taken_around(self, site: CallSite) -> list[TakenParameter]:
        """The held regions of its parameters' locks that the caller of `site` holds around it."""
        return [t for t in self._taken_by_calls_of(site.caller) if t.region in site.site.regions]

    def _taken_by_calls_of(self, fid: str) -> list[TakenParameter]:
        """The held regions of `fid`'s parameters' locks that the calls of `fid` bind: not those of
        a closure's enclosing function, whose calls are on no chain through `fid`."""
        return [t for t in self.taken_parameters.get(fid, ()) if t.binder == fid]

    def _found_above(self, above: _Question | None, found: dict[_Question, _Found], fid: str) -> list[_Binding]:
        """The bindings found so far for the question `above` that a call in `fid` asks of its caller
        (a copy: a recursion's call adds to the very bindings it reads); for a call handing none on,
        the paths that run `fid`, binding nothing (see `_runs_as_value`)."""
        if above is None:
            return self._runs_as_value(fid)
        return list(found[above].values()) if above in found else self._bindings_of[above]

    def hands_off_to_acquire(self, sites: Iterable[CallSite], lock: FieldId) -> bool:
        """Whether one of `sites`, or a call they make there and then, hands work to another thread
        (or task) that takes `lock` blocking, itself or through any call: holding `lock` around
        `sites` would keep that work waiting, and deadlock a caller that waits for it."""
        handoffs: list[CallSite] = []
        for site in sites:
            if not site.inherits_locks:
                handoffs.append(site)
                continue
            reached = self.reach(site.callee)
            handoffs.extend(
                handoff
                for fid in reached
                for handoff in self.calls.sites_from.get(fid, ())
                if not handoff.inherits_locks
            )
        return any(
            acquisition.lock == lock and acquisition.kind not in NOT_WAITING
            for handoff in handoffs
            for fid in self.reach(handoff.callee, handoffs=True)
            for acquisition in self.acquisitions.get(fid, ())
        )

    def _held(self, fid: str, region_ids: Iterable[int]) -> list[Acquisition]:
        """The acquisitions of `fid` that hold at a point inside `region_ids` (and its decorators)."""
        return _held_of(self.acquisitions.get(fid, ()), region_ids)

    @property
    def order_sites(self) -> tuple[OrderSite, ...]:
        """Every (held, acquired) pair of the program, the same lock twice included.

        A non-blocking acquire never waits, so it is never the acquired side of a pair; nor is a
        reentrant lock that the path already holds, for any lock but itself: it waits for nothing.
        A parameter's lock that the calls bind different locks to makes a pair with the locks each
        call binds (`both(self._in, self._out)` and `both(self._out, self._in)`: both orders).
        Raises WorkLimitReached, every time it is asked, when the pairs take more than the budget.
        """
        found = self._order_sites_or_limit
        if isinstance(found, WorkLimitReached):
            raise found
        return found

    @cached_property
    def _order_sites_or_limit(self) -> tuple[OrderSite, ...] | WorkLimitReached:
        try:
            return self._all_order_sites()
        except WorkLimitReached as limit:
            return limit

    def _all_order_sites(self) -> tuple[OrderSite, ...]:
        found: list[OrderSite] = []
        for fid in sorted(self.acquisitions.keys() | self.taken_parameters.keys()):
            own = self.acquisitions.get(fid, ())
            found.extend(self._order_sites_in(fid, own))
            for binder, taken in _by_binder(self.taken_parameters.get(fid, ())):
                bound_pairs = (
                    (binding, pair)
                    for binding in self._bindings(binder, frozenset(t.parameter for t in taken))
                    for pair in self._order_sites_in(fid, (*own, *_bound(taken, binding.locks)), binding)
                    if pair.outer.parameter or pair.inner.parameter
                )
                found.extend(_once_per_locks(bound_pairs))
        for fid in sorted(self.calls.sites_from):
            for site in self.calls.sites_from[fid]:
                if site.inherits_locks:
                    found.extend(self._order_sites_through(site))
        return tuple(found)

    def _order_sites_in(
        self, fid: str, mine: tuple[Acquisition, ...], binding: _Binding = _UNBOUND
    ) -> Iterator[OrderSite]:
        """The pairs that the acquisitions `mine` of `fid` make in `fid` itself, on the path of
        calls of `binding` (none: wherever `fid` runs)."""
        regions = self.locks.regions_by_id(fid)
        for inner in mine:
            if inner.kind != DECORATOR and inner.kind not in NOT_WAITING:
                outers = _held_of(mine, regions[inner.region].outer)
                held = {a.lock for a in outers} | self.locks.entry.get(fid, frozenset()) | binding.held
                waiting = (outer for outer in outers if self._waits(outer, inner, held))
                yield from (OrderSite(outer, inner, (), binding.calls) for outer in waiting)

    def _waits(self, outer: Acquisition, inner: Acquisition, held: AbstractSet[FieldId]) -> bool:
        """Whether taking `inner` can wait while `outer` is held, on a path that holds `held`."""
        if outer.lock == inner.lock:
            return True
        return not (self.locks.kind(inner.lock) == REENTRANT and inner.lock in held)

    def _order_sites_through(self, site: CallSite) -> Iterator[OrderSite]:
        """The pairs of a lock held around `site` and one taken through it: with the locks the
        caller holds wherever it runs; then, where it holds a parameter's lock around `site` or
        hands one on to what takes it, with those each call of the caller binds (see `_bindings`),
        each on the paths that call takes."""
        own = self.acquisitions.get(site.caller, ())
        yield from self._order_sites_around(site, own)
        taken = self._taken_around(site)
        # The searches the locks held around `site` made already; where it holds only parameters'
        # locks, one that frees none.
        frees = {free for _, free in self._runs_under(site, _held_of(own, site.site.regions))}
        if taken and not frees:
            frees.add(None)
        held_parameters = {t.parameter for t in taken}
        taken_through = (lock for free in frees for *_, lock in self._taken_through(site, free, ()))
        handed = {lock for lock in taken_through if isinstance(lock, LockParameter)}
        if not (held_parameters or handed):
            return
        bindings = self._bindings(site.caller, frozenset(held_parameters | handed))
        yield from _once_per_locks(
            (binding, pair)
            for binding in bindings
            if self.calls.runs_after(binding.passed, site)
            for pair in self._order_sites_around(site, (*own, *_bound(taken, binding.locks)), binding)
        )

    def _order_sites_around(
        self, site: CallSite, mine: tuple[Acquisition, ...], binding: _Binding | None = None
    ) -> Iterator[OrderSite]:
        """The pairs of the acquisitions `mine` of the caller of `site`, held around it, and those
        made through it. With the `binding` of the caller's parameters, only the pairs that take a
        lock it binds: the others are those made without it."""
        outers = _held_of(mine, site.site.regions)
        if not outers:
            return
        held_here = {a.lock for a in outers} | self.locks.entry.get(site.caller, frozenset())
        held_here |= binding.held if binding is not None else frozenset()
        for outer, free in self._runs_under(site, outers):
            for inner, chain in self._acquired_around(site, free, binding, bool(outer.parameter)):
                held = held_here | self._held_along(chain, inner)
                if self._waits(outer, inner, held):
                    self._budget.spend(2 + len(chain), site.caller, site.pos)
                    yield OrderSite(outer, inner, (site, *chain), binding.calls if binding else ())

    def _runs_under(
        self, site: CallSite, outers: list[Acquisition]
    ) -> Iterator[tuple[Acquisition, FieldId | None]]:
        """The acquisitions of `outers` (held around `site`) that can be held where `site` runs,
        each with the lock the searches through `site` keep free (see `reach`): a non-reentrant
        lock that is held fails every non-blocking acquire of itself."""
        for outer in outers:
            free = outer.lock if self.locks.kind(outer.lock) == NON_REENTRANT else None
            if free is None or not self._probed(site, free, outer.region):
                yield outer, free

    def _acquired_around(
        self, site: CallSite, free: FieldId | None, binding: _Binding | None, outer_bound: bool
    ) -> Iterator[tuple[Acquisition, tuple[CallSite, ...]]]:
        """The blocking acquisitions made through `site` (see `_order_sites_around`), with the
        chains from the callee of `site`, on the path of calls of the `binding`."""
        locks, passed = (binding.locks, binding.passed) if binding is not None else ({}, ())
        if binding is None or outer_bound:
            yield from self.acquired_from(site, free, passed).items()
        for taken, chain, bound in self._taken_through(site, free, passed):
            if isinstance(bound, FieldId) and (binding is None or outer_bound):
                yield taken.bound(bound), chain[1:]
            elif isinstance(bound, LockParameter) and bound in locks:
                yield taken.bound(locks[bound]), chain[1:]

    def _held_along(self, chain: tuple[CallSite, ...], inner: Acquisition) -> set[FieldId]:
        """Locks the callees of a chain hold on the way down to `inner`, and around it."""
        held = {lock for step in chain for lock in self.locks.local_locks(step.caller, step.site)}
        if inner.region >= 0:
            region = self.locks.regions_by_id(inner.function)[inner.region]
            held.update(a.lock for a in self._held(inner.function, region.outer))
        return held

    @cached_property
    def graph(self) -> nx.DiGraph:
        """Locks as nodes (with their kind), an edge L1 -> L2 for two distinct locks taken in that
        order, with every OrderSite that makes it in `sites`."""
        import networkx as nx

        graph = nx.DiGraph()
        for mine in self.acquisitions.values():
            for acquisition in mine:
                graph.add_node(acquisition.lock, kind=self.locks.kind(acquisition.lock))
        for site in self.order_sites:
            first, then = site.outer.lock, site.inner.lock
            if first == then:
                continue
            if graph.has_edge(first, then):
                graph.edges[first, then]["sites"].append(site)
            else:
                graph.add_edge(first, then, sites=[site])
        return graph

    def release(self) -> None:
        """Drop the lock-order graph and what was derived (see `Program.release`)."""
        graph = vars(self).get("graph")
        if graph is not None:
            vars(graph).clear()
        vars(self).clear()

    def reacquisitions(self) -> Iterator[OrderSite]:
        """A lock acquired while that same lock is held."""
        return (site for site in self.order_sites if site.outer.lock == site.inner.lock)

    def cycles(self) -> list[list[FieldId]]:
        """Groups of two or more locks that can each be taken while another of them is held.

        Element locks (one node for every lock of a container) are left out: the graph cannot
        tell their instances apart, so a cycle through one is not known to be a cycle.
        """
        import networkx as nx

        distinct = self.graph.subgraph(n for n in self.graph if not self.locks.is_element(n))
        groups = [sorted(g) for g in nx.strongly_connected_components(distinct) if len(g) > 1]
        return sorted(groups)

    # -- bumps and clears --------------------------------------------------------------------------

    @cached_property
    def _bumps(self) -> dict[str, list[FieldWrite]]:
        """Epoch bumps (initial values aside), by the function that makes them."""
        found: dict[str, list[FieldWrite]] = {}
        for field, writes in self.program.field_writes.items():
            if not self.program.is_epoch(field):
                continue
            for write in writes:
                if write.bump and not write.initial:
                    found.setdefault(write.function, []).append(write)
        for caller, bumps in self.program.bumps_by_setter_calls.items():
            found.setdefault(caller, []).extend(bump for bump in bumps if self.program.is_epoch(bump.field))
        return found

    @cached_property
    def bumped_fields(self) -> frozenset[FieldId]:
        """Epoch fields that some function bumps: the counters the program itself advances."""
        return frozenset(write.field for writes in self._bumps.values() for write in writes)

    def bumps_in(self, fid: str) -> list[Event]:
        """Bumps made by `fid` itself."""
        return [
            Event(fid, write.write.site, field=write.field)
            for write in sorted(self._bumps.get(fid, ()), key=lambda w: w.write.site.pos)
            if not self.unreachable(fid, write.write.site.pos)
        ]

    def clears_in(self, fid: str) -> list[Event]:
        """Incoming queues and buffers that `fid` itself empties: `.clear()` or an empty container."""
        function = self.symbols.function(fid)
        in_constructor = function.name in CONSTRUCTORS
        self_name = self.symbols.self_param(fid)
        found = []
        for call in function.calls:
            cleared = _cleared_attribute(call)
            if cleared and not (in_constructor and call.callee and call.callee.name == self_name):
                found.append(Event(fid, call.site, what=cleared))
        for write in function.writes:
            if self._empties(fid, write) and not (in_constructor and write.ref.name == self_name):
                found.append(Event(fid, write.site, what=write.ref.text()))
        return sorted((e for e in found if not self.unreachable(fid, e.target.pos)), key=lambda e: e.target.pos)

    def _empties(self, fid: str, write: Write) -> bool:
        names = [a for a in write.ref.attrs if a != "[]"]
        if write.kind != "assign" or not names or not _QUEUE_ATTRIBUTE.search(names[-1]):
            return False
        if write.value_empty:
            return True
        call = self.symbols.call(fid, write.value_call) if write.value_call >= 0 else None
        if call is None:
            return False
        callee = self.symbols.callee(fid, call)
        if callee.kind != "external":
            return False
        if callee.target in _QUEUES:
            return True
        if callee.target not in _CONTAINERS:
            return False
        at, keywords_are_items = _CONTAINERS[callee.target]
        positional = [arg for arg in call.args if not arg.keyword]
        keywords = len(call.args) - len(positional)
        # `deque([])`, `deque([], 100)`, `list(())`: built from no items.
        items = positional[at : at + 1]
        if any(arg.kind == "star" or "".join(arg.text.split()) not in _EMPTY_LITERALS for arg in items):
            return False
        return not (keywords_are_items and keywords)

    def events(self, fid: str, kind: str) -> list[Event]:
        """Bumps (BUMP) or clears (CLEAR) of `fid`, made there or by what it calls (no
        hand-off): one event per place in `fid`, in source order. A `@contextmanager` generator
        entered by a `with` item makes its events up to its `yield` at the item, and the rest
        where the statement ends, as an `__exit__` does (see `_entered_events`); one called and
        kept (`cm = self.gen()`) makes none where it is called (see `_kept_manager`)."""
        direct = self.bumps_in if kind == BUMP else self.clears_in
        found = list(direct(fid))
        # A call of several callees (a name two functions may hold) is one place: its event is the
        # one reached by the fewest calls, the first of those.
        through: dict[Site, Event] = {}
        for site, item in self._sites_entering(fid):
            if item is not None:
                events = self._entered_events(site, item, kind)
            else:
                events = self._event_through(site, kind)
            for event in events:
                kept = through.get(event.site)
                if kept is None or len(event.chain) < len(kept.chain):
                    through[event.site] = event
        return sorted([*found, *through.values()], key=lambda e: e.site.pos)

    def _sites_entering(self, fid: str) -> Iterator[tuple[CallSite, Entered | None]]:
        """The calls of `fid`, each with the `with` item that enters the `@contextmanager`
        generator it calls (None for another call); then, at each item over a field bound to such
        a generator's call (`with self._cm:`), that generator, called there (see `_entered_fields`)."""
        entered = self._entered_generators(fid)
        for site in self.calls.sites_from.get(fid, ()):
            generator = self.symbols.is_context_manager(site.callee)
            yield site, entered.get(site.call_id) if generator else None
        yield from self._entered_fields(fid)

    def _event_through(self, site: CallSite, kind: str) -> list[Event]:
        """The event of `kind` that the call at `site` leads to by the fewest calls (none or one)."""
        reaches = self._runs_for(site, kind) and site.callee in self._distance(kind)
        chain = self._toward_maker(site, kind) if reaches else ()
        if not chain:
            return []
        maker = chain[-1].callee
        first = (self.bumps_in if kind == BUMP else self.clears_in)(maker)[0]
        if kind == CLEAR and self._empties_object_being_built(chain, first.target):
            return []
        return [Event(maker, first.target, chain, first.field, first.what)]

    def _entered_events(self, site: CallSite, item: Entered, kind: str) -> list[Event]:
        """The events of `kind` that the `@contextmanager` generator `site` calls makes for the
        `with` item `item`: the first (by the fewest calls) of those it makes up to its `yield`,
        at the item; the first of those after it, where the item is exited (none where that is
        not in this function). Generators that the generator enters are split in turn."""
        if not (self._runs_with_locks(site) and site.callee in self._distance(kind)):
            return []
        made = self._generator_events(site.callee, kind)
        on_exit = [event for event in made if self._after_yield(site.callee, event.site.pos)]
        on_entry = [event for event in made if event not in on_exit]
        places = [(replace(site, site=item.site), on_entry)]
        if item.exit is not None:
            places.append((replace(site, site=item.exit), on_exit))
        return [_called_at(place, min(events, key=lambda e: len(e.chain))) for place, events in places if events]

    def _after_yield(self, generator: str, place: Pos) -> bool:
        """Whether some path through `generator` runs `place` after a `yield`: it runs when the
        context manager is exited, not entered."""
        return any(
            point.pos[2:] <= place[:2] and not self.exclusive(generator, point.pos, place)
            for point in self.symbols.function(generator).yields
        )

    def _generator_events(self, generator: str, kind: str) -> list[Event]:
        """`events` of a `@contextmanager` generator, found once; none for one that enters itself
        while they are being found."""
        key = (generator, kind)
        if key not in self._generator_events_of:
            self._generator_events_of[key] = []
            self._generator_events_of[key] = self.events(generator, kind)
        return self._generator_events_of[key]

    def _entered_generators(self, fid: str) -> dict[int, Entered]:
        """The `with` items of `fid` (or items entered on an ExitStack) that enter what a call of
        `fid` gives, by call id: the item's own call, or a call assigned to the local it names
        (`cm = self.gen()`, then `with cm:`)."""
        if fid not in self._entered_generators_of:
            function = self.symbols.function(fid)
            regions = self.locks.regions_by_id(fid)
            found: dict[int, Entered] = {}
            for item in function.entered:
                region = regions[item.region]
                if region.call >= 0:
                    found[region.call] = item
                elif not region.lock.attrs and region.lock.scope == function.qualname:
                    found.update(dict.fromkeys(_calls_assigned_to(function, region.lock.name), item))
            self._entered_generators_of[fid] = found
        return self._entered_generators_of[fid]

    def _entered_fields(self, fid: str) -> Iterator[tuple[CallSite, Entered]]:
        """A `with` item of `fid` over a field that a method binds to a call of a `@contextmanager`
        generator (`self._cm = self.gen()`, then `with self._cm:`): that generator, as called at
        the item (the call that bound it only built the manager, see `_kept_manager`)."""
        function = self.symbols.function(fid)
        regions = self.locks.regions_by_id(fid)
        for item in function.entered:
            region = regions[item.region]
            field = self.symbols.field(fid, region.lock) if region.call < 0 and region.lock.attrs else None
            for write in self.program.field_writes.get(field, []) if field is not None else []:
                for site in self.calls.sites_from.get(write.function, ()):
                    if site.call_id == write.write.value_call and self.symbols.is_context_manager(site.callee):
                        yield CallSite(fid, site.callee, site.kind, item.site), item

    def entered_item(self, site: CallSite) -> Entered | None:
        """The `with` item whose `@contextmanager` generator the call at `site` (the first of an
        event's chain) runs, split at its `yield` (see `events`); None for another call."""
        if not self.symbols.is_context_manager(site.callee):
            return None
        if site.call_id >= 0:
            return self._entered_generators(site.caller).get(site.call_id)
        entering = self._entered_fields(site.caller)
        ends = ((item, (item.site, item.exit)) for at, item in entering if at.callee == site.callee)
        return next((item for item, places in ends if site.site in places), None)

    def _kept_manager(self, site: CallSite) -> bool:
        """Whether `site` calls a `@contextmanager` generator and assigns the manager that builds
        (`cm = self.gen()`, `self._cm = self.gen()`) with no `with` of the caller entering it: none
        of the generator's body runs there, but where a `with` enters the manager. A local that
        leaves the function (returned, or handed to a call) may be entered anywhere: its manager
        runs at the call, as `return self.gen()`'s does."""
        if site.call_id < 0 or not self.symbols.is_context_manager(site.callee):
            return False
        call = self.symbols.call(site.caller, site.call_id)
        if call is None or call.flow.kind != FLOW_ASSIGN or site.call_id in self._entered_generators(site.caller):
            return False
        leaving = (FLOW_RETURN, FLOW_ARG)
        return not any(
            access.flow.kind in leaving and not access.ref.attrs and access.ref.name in call.flow.targets
            for access in self.symbols.function(site.caller).accesses
        )

    def _empties_object_being_built(self, chain: tuple[CallSite, ...], clear: Site) -> bool:
        """Whether the clear at `clear`, reached through `chain`, empties a field of an object the
        chain is building: the chain enters a constructor (`Sub()`), then goes on only through the
        constructors it calls and calls on `self` (`self.reset()`) to a clear of a field of
        `self`. That is an initial value, as the constructor's own clears are."""
        entered = next((i for i, site in enumerate(chain) if self.symbols.is_constructor(site.callee)), -1)
        if entered < 0:
            return False
        onward = chain[entered + 1 :]
        if not all(
            self.symbols.is_constructor(site.callee) or self.symbols.calls_own_method(site.caller, site.call_id)
            for site in onward
        ):
            return False
        maker = chain[-1].callee
        function, own = self.symbols.function(maker), self.symbols.self_param(maker)
        cleared = [call.callee for call in function.calls if call.site == clear and call.callee is not None]
        cleared += [write.ref for write in function.writes if write.site == clear]
        return bool(cleared) and all(ref.name == own for ref in cleared)

    def _toward_maker(self, site: CallSite, kind: str) -> tuple[CallSite, ...]:
        """`site`, then the calls to the function making an event of `kind` that a breadth-first
        search from the callee of `site` meets first (through calls, no hand-off); () when no path
        from `site` reaches one.

        That search meets, at each depth, first the first callee (in call order) of the function it
        met first one depth up that is one call nearer a maker: so following that callee from
        function to function finds the same maker by the same chain, without the search. Only a
        chain through a call of a parameter (or of its method) that runs what the path did not
        pass it (see `CallGraph.runs_after`) needs the search itself, over what the paths pass."""
        chain = [site]
        distance = self._distance(kind)
        self._events_budget.spend(1 + distance[site.callee], site.caller, site.pos)
        while distance[chain[-1].callee]:
            chain.append(self._nearer(chain[-1].callee, kind))
        if self._runs_along(chain):
            return tuple(chain)
        return self._searched_toward_maker(site, kind)

    def _runs_along(self, chain: list[CallSite]) -> bool:
        """Whether each call of a parameter (or of its method) on `chain` runs what the chain passed it."""
        passed = self.calls.passed_on(chain[0], ())
        for site in chain[1:]:
            if not self.calls.runs_after(passed, site):
                return False
            passed = self.calls.passed_on(site, passed)
        return True

    def _searched_toward_maker(self, site: CallSite, kind: str) -> tuple[CallSite, ...]:
        """`_toward_maker` by the search itself, over what the paths from `site` pass."""
        reached = self.reach(site.callee, passed=self.calls.passed_on(site, ()), toward=kind)
        self._events_budget.spend(len(reached.via), site.caller, site.pos)
        distance = self._distance(kind)
        maker = next((fid for fid in reached if distance.get(fid) == 0), None)
        return (site, *reached.chain(maker)) if maker is not None else ()

    def _nearer(self, fid: str, kind: str) -> CallSite:
        """The first call (no hand-off) of `fid` to a function one call nearer a maker of `kind`."""
        key = (fid, kind)
        if key not in self._nearer_of:
            distance = self._distance(kind)
            self._nearer_of[key] = next(
                site
                for site in self.calls.sites_from[fid]
                if self._runs_for(site, kind) and distance.get(site.callee) == distance[fid] - 1
            )
        return self._nearer_of[key]

    def _makers(self, kind: str) -> frozenset[str]:
        """Functions that themselves make a bump (BUMP), a clear (CLEAR) or a blocking acquisition
        (ACQUIRE)."""
        if kind not in self._makers_of:
            if kind == ACQUIRE:
                taking: list[tuple[str, tuple[Acquisition | TakenParameter, ...]]] = [
                    *self.acquisitions.items(),
                    *self.taken_parameters.items(),
                ]
                made = {fid for fid, mine in taking if any(a.kind not in NOT_WAITING for a in mine)}
            else:
                direct = self.bumps_in if kind == BUMP else self.clears_in
                made = {fid for fid in self.symbols.functions if direct(fid)}
            self._makers_of[kind] = frozenset(made)
        return self._makers_of[kind]

    def _distance(self, kind: str) -> dict[str, int]:
        """Calls (no hand-off) from each function that can reach a maker of `kind` to the nearest
        one (0 for a maker), found once by walking the callers back from every maker at once."""
        if kind not in self._distance_of:
            distance = dict.fromkeys(sorted(self._makers(kind)), 0)
            pending = deque(distance)
            while pending:
                fid = pending.popleft()
                for site in self.calls.sites_to.get(fid, ()):
                    if self._runs_for(site, kind) and site.caller not in distance:
                        distance[site.caller] = distance[fid] + 1
                        pending.append(site.caller)
            self._distance_of[kind] = distance
        return self._distance_of[kind]

    def _runs_with_locks(self, site: CallSite) -> bool:
        """Whether a path runs the call at `site`, in its caller's thread (no hand-off)."""
        return site.inherits_locks and not self.unreachable(site.caller, site.pos)

    def _runs_for(self, site: CallSite, kind: str) -> bool:
        """Whether a path runs the call at `site` in its caller's thread and its callee's body
        there, for the events of `kind`: a bump or clear of a kept `@contextmanager` generator's
        body is made where a `with` enters the manager (see `_kept_manager`)."""
        return self._runs_with_locks(site) and (kind == ACQUIRE or not self._kept_manager(site))

    def bumps_reached(self, fid: str) -> Iterator[Event]:
        """Every bump `fid` can make, itself or through any call, hand-offs included."""
        reached = self.reach(fid, handoffs=True)
        for callee in reached:
            bumps = self.bumps_in(callee)
            if bumps:
                chain = reached.chain(callee)
                yield from (Event(callee, event.target, chain, event.field) for event in bumps)

    def exclusive(self, fid: str, first: Pos, then: Pos) -> bool:
        """Whether no path through `fid` runs `then` after `first`: they lie in different arms of
        one `if` or `match`, or an exit in a suite holding `first` comes between (see `_cuts`)."""
        function = self.symbols.function(fid)
        if _in_other_arms(function.branches, first, then):
            return True
        return any(
            first[:2] < end.pos[:2] < then[:2]
            and within(first, end.block)
            and _cuts(end, then)
            and not _broken_out_before(function, first, end, then)
            for end in function.exits
            if self._ends_paths(fid, end)
        )

    def runs_after(self, fid: str, first: Site, then: Site) -> bool:
        """Whether `then` runs after `first` in `fid` by source order; but the `__exit__`s of `with`
        items that end at one place run the latest entered first: an inner `with`'s before the
        outer one's, a later item's before an earlier one's (whose region is held around it)."""
        if then.pos[:2] != first.pos[:2]:
            return then.pos[:2] > first.pos[:2]
        entered = self.symbols.function(fid).entered
        exits = {item.exit: item.region for item in entered if item.exit is not None}
        return first in exits and exits.get(then, -1) in first.regions

    def unreachable(self, fid: str, place: Pos) -> bool:
        """Whether no path through `fid` reaches `place`: it follows a `return`, `raise`, `break`
        or `continue` (or an `if` every arm of which returns or raises) in a block that holds it,
        and is not in a `finally` suite that the exit runs (a context manager's `__exit__`)."""
        return any(
            end.pos[2:] <= place[:2]
            and within(place, end.block)
            and not any(within(place, block) for block in end.finally_blocks)
            and self._ends_paths(fid, end)
            for end in self.symbols.function(fid).exits
        )

    def _ends_paths(self, fid: str, end: Exit) -> bool:
        """Whether exit `end` ends the paths of its block: a `raise` that leaves `with` statements
        does where each of their context managers is a lock (`with self._errors:` holding a
        `suppress(...)` may swallow it, and the path goes on after the `with`)."""
        if not end.raised_through:
            return True
        regions = self.locks.regions_by_id(fid)
        return all(self.locks.region_lock(fid, regions[held]) is not None for held in end.raised_through)

    # -- asyncio -------------------------------------------------------------------------------------

    def interleaves_between(self, first: Event, then: Event) -> bool:
        """Whether a coroutine can be interleaved after `first` and before `then` (one function).

        The interleaving points are the function's awaits between the two (not the one that awaits
        the call making `then`: that one interleaves only inside the callee), the awaits after
        `first` in the callees that make it, and those before `then` in the callees that make it.
        """
        start, end = first.site.pos, then.site.pos
        awaited = then.chain[0].call_id if then.chain else -1
        for point in self.symbols.function(first.function).awaits:
            if (
                start[2:] <= point.site.pos[:2] < end[:2]
                and (point.call < 0 or point.call != awaited)
                and not point.runs_inside(start)
            ):
                return True
        return self._awaits_on_chain(first, after=True) or self._awaits_on_chain(then, after=False)

    def _awaits_on_chain(self, event: Event, after: bool) -> bool:
        """Whether a callee on the event's chain awaits after (or before) the point it goes on from."""
        steps = [(site.callee, nxt.site.pos, nxt.call_id) for site, nxt in zip(event.chain, event.chain[1:])]
        if event.chain:
            steps.append((event.target_function, event.target.pos, -1))
        for index, (fid, pos, awaited) in enumerate(steps):
            # A generator split at its `yield`: only its awaits on the side that runs between the events.
            split = index == 0 and self.entered_item(event.chain[0]) is not None
            on_exit = self._after_yield(fid, pos) if split else None
            for point in self.symbols.function(fid).awaits:
                if (point.call >= 0 and point.call == awaited) or point.runs_inside(pos):
                    continue
                if on_exit is not None and self._after_yield(fid, point.site.pos) != on_exit:
                    continue  # at the other end of the `with`: not between the two events
                if (point.site.pos[:2] >= pos[2:]) if after else (point.site.pos[:2] < pos[:2]):
                    return True
        return False


def _held_of(mine: tuple[Acquisition, ...], region_ids: Iterable[int]) -> list[Acquisition]:
    """The acquisitions of `mine` (one function's) that hold at a point inside `region_ids`, and
    its lock decorators."""
    by_region = {a.region: a for a in mine if a.region >= 0}
    held = [a for a in mine if a.kind == DECORATOR]
    held.extend(by_region[r] for r in region_ids if r in by_region)
    return held


def _bound(taken: Iterable[TakenParameter], locks: dict[LockParameter, FieldId]) -> tuple[Acquisition, ...]:
    """The acquisitions `taken` makes where a call binds `locks` to its parameters."""
    return tuple(t.bound(locks[t.parameter]) for t in taken if t.parameter in locks)


def _by_binder(taken: Iterable[TakenParameter]) -> Iterator[tuple[str, list[TakenParameter]]]:
    """`taken` (one function's), grouped by the function whose calls bind their parameters."""
    groups: dict[str, list[TakenParameter]] = {}
    for one in taken:
        groups.setdefault(one.binder, []).append(one)
    yield from sorted(groups.items())


def _once_per_locks(made: Iterable[tuple[_Binding, OrderSite]]) -> Iterator[OrderSite]:
    """The pairs that bindings make, each once per set of locks bound: bindings that differ only in
    what their paths pass (see `_Binding.passed`) make many of the same pairs."""
    seen: set[tuple[_BoundLocks, OrderSite]] = set()
    for binding, pair in made:
        key = (tuple(binding.locks.items()), replace(pair, bound_by=()))
        if key not in seen:
            seen.add(key)
            yield pair


def _in_order(parameter: LockParameter) -> tuple[str, str, bool, bool, tuple[FieldId, ...]]:
    """A key ordering parameters, by `none_holds` too: that may be None, which no lock compares with."""
    held = (parameter.none_holds,) if parameter.none_holds is not None else ()
    return parameter.name, parameter.element, parameter.monitor, parameter.after_fallback, held


def _starts_of_routes(before: tuple[CallSite, ...], routes: list[_Route]) -> set[int]:
    """The places in `before` where one of `routes` starts and runs to its end."""
    return {len(before) - len(route) for route in routes if before[len(before) - len(route) :] == route}


def _calls_a_parameter(site: CallSite) -> bool:
    """Whether `site` calls the value of a parameter (`fn(act)`), not a method on it."""
    return site.through_parameter is not None and not site.on_parameter


def _kept_passed(found: _Found, binding: _BoundLocks, passed: Passed) -> Passed:
    """`passed`, what a path that makes `binding` passes, as `found` keeps it: at most MAX_CONTEXTS
    different ones per binding (as a search keeps states, see `Contexts`); beyond, nothing known."""
    kept = [other for locks, other, _ in found if locks == binding]
    return passed if passed in kept or len(kept) < MAX_CONTEXTS else ()


def _calls_assigned_to(function: FunctionFacts, name: str) -> list[int]:
    """The calls of `function` whose result is assigned to its local `name` whole (`cm = self.gen()`)."""
    return [
        call.id
        for call in function.calls
        if call.flow.kind == FLOW_ASSIGN and name in call.flow.targets and not call.flow.element
    ]


def _called_at(site: CallSite, event: Event) -> Event:
    """`event` of the callee of `site`, as the caller of `site` makes it through that call."""
    return Event(event.target_function, event.target, (site, *event.chain), event.field, event.what)


def _cuts(end: Exit, then: Pos) -> bool:
    """Whether the path through the exit `end` never runs `then`, a place after it: a `return` or
    `raise` runs only the `finally` suites it lies in (a `raise` also the `except` handlers of the
    `try` statements whose body holds it, and what follows the one it may go on after), a `break`
    nothing more of the loop it ends (its `else` included) but those `finally` suites; a
    `continue` nothing more of its loop's body on this turn (the order is judged along one pass
    through the body: the next turn is not after it), but the loop's `else` and what follows it."""
    if any(within(then, block) for block in (*end.finally_blocks, *end.handler_blocks)):
        return False
    if end.caught_by is not None and not within(then, end.caught_by):
        return False
    if end.ended_loop is not None:
        return within(then, end.ended_loop)
    if end.continued is not None:
        return within(then, end.continued)
    return not end.leaves_loop


def _in_other_arms(branches: Iterable[Branches], first: Pos, then: Pos) -> bool:
    """Whether `first` and `then` lie in different arms of one `if`, `match` or `switch`."""
    return any(
        len({i for place in (first, then) for i, arm in enumerate(branch.arms) if within(place, arm)}) == 2
        for branch in branches
    )


def _broken_out_before(function: FunctionFacts, first: Pos, end: Exit, then: Pos) -> bool:
    """Whether a `break` (a `continue`) after `first`, before exit `end` in the suite that `end`
    ends, leaves a statement (a loop's turn) that holds `end` but not `then` (`done: { if (c) break
    done; return; }`, `for m in ms: if c: continue; return`): a path from `first` goes on past `end`
    to `then`. A `break` in another arm than `first` (`if c: clear() else: break`) is on no path
    from it."""
    return any(
        first[:2] < jump.pos[:2] < end.pos[:2]
        and within(jump.pos, end.block)
        and _cuts(jump, end.pos)
        and not _cuts(jump, then)
        and not _in_other_arms(function.branches, first, jump.pos)
        for jump in function.exits
        if jump.leaves_loop
    )


def _cleared_attribute(call: Call) -> str:
    """`self.incoming_messages` for `self.incoming_messages.clear()`; "" for any other call."""
    if call.method != "clear" or call.callee is None:
        return ""
    names = [a for a in call.callee.attrs[:-1] if a != "[]"]
    if not names or not _QUEUE_ATTRIBUTE.search(names[-1]):
        return ""
    return call.text.rsplit(".", 1)[0]
