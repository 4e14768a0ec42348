"""The facts of one function while a frontend reads it: lists that grow, frozen at the end."""

from __future__ import annotations

from dataclasses import dataclass, field

from epochlint.frontend.facts import (
    Access,
    Arg,
    Await,
    Bind,
    Branches,
    Call,
    Choice,
    Entered,
    Exit,
    Fallback,
    FunctionFacts,
    Governs,
    Held,
    LeavingArm,
    Loop,
    Param,
    Pos,
    RanThrough,
    Ref,
    Region,
    Site,
    Stored,
    Write,
)


@dataclass
class FunctionBuilder:
    """The facts of one function while it is being read."""

    qualname: str
    name: str
    kind: str
    pos: Pos
    locals: frozenset[str]
    globals_declared: frozenset[str]
    class_name: str = ""
    parent: str = ""
    is_async: bool = False
    is_property: bool = False
    params: tuple[Param, ...] = ()
    decorators: tuple[str, ...] = ()
    decorator_values: tuple[Arg, ...] = ()
    returns: str = ""
    returns_type: str = ""
    type_parameters: tuple[str, ...] = ()
    stub_body: bool = False
    visibility: str = ""
    accesses: list[Access] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    binds: list[Bind] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)
    entered: list[Entered] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    awaits: list[Await] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    branches: list[Branches] = field(default_factory=list)
    exits: list[Exit] = field(default_factory=list)
    fallbacks: list[Fallback] = field(default_factory=list)
    comparisons: list[Pos] = field(default_factory=list)
    governs: list[Governs] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)
    leaving_arms: list[LeavingArm] = field(default_factory=list)
    ran_through: list[RanThrough] = field(default_factory=list)
    is_generator: bool = False
    yields: list[Site] = field(default_factory=list)
    stored: list[Stored] = field(default_factory=list)
    raised: list[Access] = field(default_factory=list)
    region_stack: list[int] = field(default_factory=list)
    loop_stack: list[int] = field(default_factory=list)
    # The enclosing `with ExitStack() as name:` blocks, innermost last.
    exit_stacks: list[OpenStack] = field(default_factory=list)
    # The held regions that end where a stack's block ends, or past it, not where the block that
    # opened them does (`L.acquire(); stack.callback(L.release)`, what `stack.pop_all()` kept).
    stack_kept: set[int] = field(default_factory=set)
    # The regions a stack's `pop_all()` moved to the new stack it returned, by the text of where
    # that was kept (`self._stack`): its `close()` ends them.
    popped_stacks: dict[str, list[tuple[Ref, int]]] = field(default_factory=dict)
    # Locals assigned the result of a lock's non-blocking or timed acquire (`got =
    # L.acquire(timeout=1)`, `boolean got = l.tryLock();`), with the lock and the call: testing the
    # local tests the acquire.
    acquire_results: dict[str, tuple[Ref, object]] = field(default_factory=dict)
    # The enclosing loops where each of those locals was assigned: a `while got:` at another depth
    # may be entered again by an outer loop's pass after the lock was released.
    acquire_result_loops: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # The lock each lock expression through a call's result names, by its text (`self.state().lock`):
    # each call's result is a local of its own, so without this the release of a lock would name
    # another lock than its acquire.
    call_result_locks: dict[str, Ref] = field(default_factory=dict)
    # The variables of the comprehensions being read, innermost last, by their name in the code.
    # Each comprehension is a scope of its own (as in Python 3): where the function binds the same
    # name elsewhere, its variable takes a name of its own here (`m<2>`), so that the two never
    # share a value.
    comprehension_scopes: list[dict[str, str]] = field(default_factory=list)
    comprehension_locals: set[str] = field(default_factory=set)

    def forget_acquire_results(self, lock: Ref) -> None:
        """`lock` is released: a later test of a local that held its acquire's result is stale."""
        for name in [name for name, (held, _) in self.acquire_results.items() if held == lock]:
            del self.acquire_results[name]

    def lock_through_call(self, text: str, lock: Ref) -> Ref:
        """The lock that `lock`, a path on a call's result written `text`, names: that of the first
        expression written the same way in the function, spaces aside. `self.state().lock.release()`
        lets go of what `self.state().lock.acquire()` took; `other.state().lock` is another lock."""
        return self.call_result_locks.setdefault("".join(text.split()), lock)

    def comprehension_local(self, name: str) -> str | None:
        """The function's name for the variable `name` of a comprehension being read, if any."""
        for scope in reversed(self.comprehension_scopes):
            local = scope.get(name)
            if local is not None:
                return local
        return None

    def bind_in_comprehension(self, name: str) -> str:
        """Make `name` a variable of the innermost comprehension; its name in the function."""
        scope = self.comprehension_scopes[-1]
        local = scope.get(name)
        if local is None:
            local = name
            if local in self.locals or local in self.comprehension_locals:
                local = f"{name}<{len(self.comprehension_locals) + 1}>"
            self.comprehension_locals.add(local)
            scope[name] = local
        return local

    def suspend_acquired(self, lock: Ref | None, suspended: list[tuple[int, int]]) -> None:
        """A release in a nested block (`if x: L.release(); wait(); L.acquire()`) lets go of the
        lock an enclosing block acquired, for the rest of the nested block: its region leaves the
        stack, noted in `suspended` with its place there."""
        acquired = {region.id for region in self.regions if region.kind == "acquire" and region.lock == lock}
        for index in range(len(self.region_stack) - 1, -1, -1):
            if self.region_stack[index] in acquired:
                suspended.append((index, self.region_stack.pop(index)))
                return

    def acquired_region(self, lock: Ref) -> int | None:
        """The innermost held region of an acquire of `lock`, tested or not, that is open."""
        kinds = ("acquire", "try_acquire")
        acquired = {region.id for region in self.regions if region.kind in kinds and region.lock == lock}
        return next((region_id for region_id in reversed(self.region_stack) if region_id in acquired), None)

    def move_exits(self, region_ids: set[int], exited: Pos | None) -> None:
        """The context managers entered with these regions are exited at `exited` (with the locks
        held where they were entered, as a `with` item's are), or by no code of the function (None)."""
        self.entered = [
            entered._replace(exit=entered.site._replace(pos=exited) if exited is not None else None)
            if entered.region in region_ids
            else entered
            for entered in self.entered
        ]

    def resume(self, suspended: list[tuple[int, int]]) -> None:
        """The end of the nested block has the lock held again, as the enclosing block's release
        expects (a path that did not take it again left the block)."""
        for index, region_id in reversed(suspended):
            self.region_stack.insert(index, region_id)

    def freeze(self) -> FunctionFacts:
        return FunctionFacts(
            qualname=self.qualname,
            name=self.name,
            kind=self.kind,
            pos=self.pos,
            class_name=self.class_name,
            parent=self.parent,
            is_async=self.is_async,
            is_property=self.is_property,
            params=self.params,
            decorators=self.decorators,
            returns=self.returns,
            returns_type=self.returns_type,
            type_parameters=self.type_parameters,
            stub_body=self.stub_body,
            visibility=self.visibility,
            globals_declared=tuple(sorted(self.globals_declared)),
            accesses=tuple(self.accesses),
            writes=tuple(self.writes),
            binds=tuple(self.binds),
            calls=tuple(self.calls),
            regions=tuple(self.regions),
            entered=tuple(self.entered),
            loops=tuple(self.loops),
            awaits=tuple(self.awaits),
            choices=tuple(self.choices),
            branches=tuple(self.branches),
            exits=tuple(self.exits),
            fallbacks=tuple(self.fallbacks),
            comparisons=tuple(self.comparisons),
            governs=tuple(self.governs),
            held=tuple(self.held),
            leaving_arms=tuple(self.leaving_arms),
            ran_through=tuple(self.ran_through),
            is_generator=self.is_generator,
            yields=tuple(self.yields),
            stored=tuple(self.stored),
            decorator_values=self.decorator_values,
            raised=tuple(self.raised),
        )


@dataclass
class OpenStack:
    """A `with ExitStack() as name:` block being read."""

    name: str
    # Where the block ends (twice, as a position): the stack exits there what was entered on it.
    exited: Pos
    # The block's body.
    body: Pos
    # The held regions the stack lets go of where its block ends: the locks entered on it, and the
    # acquired locks whose release it was given (`stack.callback(L.release)`).
    held: list[tuple[Ref, int]] = field(default_factory=list)
    # Those `stack.pop_all()` moved to a new stack, which holds them past the block, and the text of
    # where that stack is kept (`self._stack`; "" for nowhere).
    popped: list[tuple[Ref, int]] = field(default_factory=list)
    popped_to: str = ""


@dataclass(frozen=True)
class Catch:
    """Where a `raise` (a `throw`) in the body of a `try` statement goes on after the handler that
    catches it: after the statement (`after`, a handler that ends there), after the statement a
    handler's `break` ends (`broken`: the loop around it; in Java also a `switch` or a labelled
    statement), or at the next turn of the loop around it (`continued`, that loop's body, for a
    handler ending in `continue`)."""

    after: Pos | None
    broken: Pos | None
    continued: Pos | None

    def goes_on(self, end: Exit) -> Exit:
        """The exit of a `raise` this statement catches, which ends the loop's turn as a handler's
        `continue` does (the next turn runs the body again), or the loop as its `break` does."""
        if self.continued is not None:
            return end._replace(caught_by=self.after, leaves_loop=True, continued=self.continued)
        return end._replace(caught_by=self.after, leaves_loop=self.broken is not None, ended_loop=self.broken)
