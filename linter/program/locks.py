"""Locks: which fields hold locks and of what kind, held regions, and entry locksets."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, NamedTuple, TypeVar, cast

from epochlint.frontend.facts import (
    FLOW_RETURN,
    MONITOR,
    RESOURCE,
    Access,
    Arg,
    Bind,
    Call,
    Exit,
    FunctionFacts,
    Param,
    Pos,
    Ref,
    Region,
    Site,
    within,
)
from epochlint.program.callgraph import (
    CALL,
    HANDOFF,
    CallGraph,
    CallSite,
    bound_for_later,
    call_targets,
    runs_while_built,
)
from epochlint.frontend.java.idioms import LOCK_METHODS, READ_WRITE_VIEWS, UNLOCK_METHODS
from epochlint.program.symbols import (
    Entity,
    FieldId,
    Symbols,
    bound_ahead,
    bound_arguments,
    function_id,
    receiver_path,
    spread_arguments,
)

REENTRANT = "reentrant"
NON_REENTRANT = "non-reentrant"
UNKNOWN_KIND = "unknown"

_LOCK_CONSTRUCTORS = {
    "threading.Lock": NON_REENTRANT,
    "threading.RLock": REENTRANT,
    "threading.Condition": REENTRANT,
    "threading.Semaphore": NON_REENTRANT,
    "threading.BoundedSemaphore": NON_REENTRANT,
    "multiprocessing.Lock": NON_REENTRANT,
    "multiprocessing.RLock": REENTRANT,
    "multiprocessing.Condition": REENTRANT,
    "asyncio.Lock": NON_REENTRANT,
    "asyncio.Condition": NON_REENTRANT,
    "asyncio.Semaphore": NON_REENTRANT,
    "asyncio.BoundedSemaphore": NON_REENTRANT,
    "java.util.concurrent.locks.ReentrantLock": REENTRANT,
    "java.util.concurrent.locks.ReentrantReadWriteLock": REENTRANT,
    "java.util.concurrent.locks.StampedLock": NON_REENTRANT,
    "java.util.concurrent.Semaphore": NON_REENTRANT,
}
_SEMAPHORES = frozenset(
    name for name in _LOCK_CONSTRUCTORS if name.rsplit(".", 1)[1].endswith("Semaphore")
)
_CONDITIONS = frozenset(name for name in _LOCK_CONSTRUCTORS if name.endswith("Condition"))
# Class-body fields that each instance gets from a factory (`field(default_factory=threading.Lock)`):
# the keyword that names the factory.
_FIELD_FACTORIES = {
    "dataclasses.field": "default_factory",
    "attrs.field": "factory",
    "attr.ib": "factory",
    "attr.attrib": "factory",
    "attr.field": "factory",
}


class LockParameter(NamedTuple):
    """A parameter of a function, as the lock its held regions take: the lock it holds (`with
    first:`, `first.lock()`), or in Java the monitor of the object it holds (`synchronized
    (first)`); or an element of a `*args` or `**kwargs` parameter that a function forwards to
    one holding it (`def mid(**kw): both(**kw)`: the element `first` of `kw`)."""

    name: str
    monitor: bool = False
    # Whether it is used after the statement giving it a fallback (`lock = lock or self._lock`): there a call
    # passing None holds the fallback's lock; before it, what the call passed only (see `Param.fallback_at`).
    after_fallback: bool = True
    # The element of the star parameter `name` (its position or keyword); "" for the parameter.
    element: str = ""
    # Where it is handed on to a function that gives the parameter there a fallback (`def outer(lock=None):
    # self.inner(lock)`, `inner` running `lock = lock or self._lock`): the lock a call passing None holds
    # there, the None going on to that fallback (see `Locks._fallback_lock`).
    none_holds: FieldId | None = None

    def lock_ref(self, argument: Ref) -> Ref:
        """The lock taken where `argument` is bound to the parameter: itself, or its monitor."""
        return argument._replace(attrs=(*argument.attrs, MONITOR)) if self.monitor else argument


@dataclass(frozen=True)
class LockInfo:
    field: FieldId
    kind: str
    # `Condition(L)` is the same lock as L.
    same_as: FieldId | None = None


# How many accessors and helper parameters a lock is followed through, one inside the next: code
# hands a lock down a few helpers, and each step costs Python frames (a chain of 400 would not fit).
_MAX_LOCK_HOPS = 16
# How many steps one question about a lock may take in all. A step's answer is kept once it is
# found whole, but inside call cycles (Kafka Streams' `init(context)` methods calling each other's
# through their interfaces) none is, and the steps multiply with each hop; real code asks a few
# dozen at most.
MAX_FOLLOWED_STEPS = 2_000
# The name path of `None`, as an argument or a default value.
_NONE = Ref("", "None")
# `functools.cached_property`, by the decorator's last name.
_CACHED_PROPERTY = re.compile(r"(?:^|\.)cached_property$")

_Followed = TypeVar("_Followed")


class Locks:
    """Lock identities of a unit and the locks held at every point of every function."""

    def __init__(
        self,
        symbols: Symbols,
        calls: CallGraph,
        lock_name: Callable[[str], bool],
        lock_decorators: dict[str, str],
        shapes_model: Callable[[str, str], bool],
    ) -> None:
        self.symbols = symbols
        # Whether a call from a function to another joins the callee's entry lockset and binds
        # locks to its parameters (test code calling in does not).
        self.shapes_model = shapes_model
        self.calls = calls
        self.lock_name = lock_name
        self.lock_decorators = lock_decorators
        self.constructed: dict[FieldId, LockInfo] = {}
        # Fields built by a constructor we know is not a lock: a semaphore with a larger count, or
        # another class (`threading.Event()`, a project class), whatever the field's name.
        self.not_locks: set[FieldId] = set()
        # Container fields filled with locks (`self._locks[tp] = Lock()`): each is one lock.
        self.elements: set[FieldId] = set()
        # The accessors whose returned lock, and the parameters whose bound lock, are being
        # followed, one inside the next (see `_followed`).
        self._following: set[str] = set()
        self._steps_followed = 0
        # The answers of steps followed to their end: none of the steps below them was cut short.
        self._followed_whole: dict[str, Any] = {}
        self._cuts = 0
        self._regions: dict[str, Mapping[int, Region]] = {}
        self._find_constructed()
        self._region_locks: dict[tuple[str, int], FieldId | None] = {}
        self._decorator_locks: dict[str, frozenset[FieldId]] = {}
        self._wrapper_holds: dict[str, frozenset[tuple[str, ...]]] = {}
        self.entry: dict[str, frozenset[FieldId]] = {}
        self._iterations: dict[str, dict[int, list[Bind]]] = {}
        self._compute_entry_locksets()

    # -- identities ------------------------------------------------------------------------

    def _find_constructed(self) -> None:
        """Fields built by a visible constructor: a lock of that kind, or (any other class) no lock."""
        built_otherwise: set[FieldId] = set()
        views: dict[FieldId, FieldId] = {}
        for fid, field, call, into_item in self._constructor_stores():
            viewed = self._lock_viewed(fid, call)
            if viewed is not None:
                views[field] = viewed
                continue
            callee = self._lock_constructor(fid, call)
            made = self._lock_factory_of(fid, callee, call)
            if made:
                # `defaultdict(threading.Lock)`: a container that fills itself with locks.
                self.elements.add(field)
                self.constructed[field] = LockInfo(field, _LOCK_CONSTRUCTORS[made])
                continue
            built = self._field_factory_of(fid, callee, call)
            if built:
                # Built without arguments: a semaphore of one permit, a Condition of its own lock.
                self.constructed[field] = LockInfo(field, _LOCK_CONSTRUCTORS[built])
                continue
            if callee.kind != "external" or callee.target not in _LOCK_CONSTRUCTORS:
                # A visible constructor that is no lock constructor makes no lock, whatever the
                # field's name (`contextlib.nullcontext()`, `open(path)`, `threading.Event()`); but
                # one named as a lock (`filelock.FileLock`, `anyio.Lock`) may be: its kind is
                # unknown and the field's name decides, as for an unseen constructor.
                if _builds_no_lock(callee) and not self.lock_name(callee.target.replace(":", ".")):
                    built_otherwise.add(field)
                continue
            if callee.target in _SEMAPHORES and not _count_is_one(call.args):
                self.not_locks.add(field)
                continue
            if into_item:
                self.elements.add(field)
            self.constructed[field] = self._lock_info(fid, field, callee.target, call)
        for field, viewed in views.items():
            if viewed in self.constructed:
                # `readLock = rw.readLock()`: held, it is the read-write lock itself (see idioms).
                self.constructed[field] = LockInfo(field, REENTRANT, viewed)
        self.not_locks.update(built_otherwise - self.constructed.keys())
        self._find_passed()

    def _lock_viewed(self, fid: str, call: Call) -> FieldId | None:
        """The field whose read or write view a call takes (`rw.readLock()`): a lock if that field is."""
        receiver = receiver_path(call) if call.method in READ_WRITE_VIEWS else None
        return self.symbols.field(fid, receiver) if receiver is not None else None

    def _lock_factory_of(self, fid: str, callee: Entity, call: Call) -> str:
        """The lock constructor a `defaultdict(...)` builds its missing items with, "" if none."""
        if callee.kind != "external" or callee.target != "collections.defaultdict" or not call.args:
            return ""
        first = call.args[0]
        made = self._lock_constructor_named(fid, first) if not first.keyword else ""
        return "" if made in _SEMAPHORES else made

    def _field_factory_of(self, fid: str, callee: Entity, call: Call) -> str:
        """The lock constructor a dataclass or attrs field is built with for each instance
        (`field(default_factory=threading.Lock)`, `attrs.field(factory=threading.Lock)`), "" if none."""
        keyword = _FIELD_FACTORIES.get(callee.target) if callee.kind == "external" else None
        factory = next((arg for arg in call.args if keyword and arg.keyword == keyword), None)
        return self._lock_constructor_named(fid, factory) if factory is not None else ""

    def _lock_constructor_named(self, fid: str, arg: Arg) -> str:
        """The lock constructor an argument names (`threading.Lock`, not called), "" if none."""
        factory = self.symbols.entity(fid, arg.ref) if arg.ref is not None else None
        if factory is None or factory.kind != "external" or factory.target not in _LOCK_CONSTRUCTORS:
            return ""
        return factory.target

    def _constructor_stores(self) -> Iterator[tuple[str, FieldId, Call, bool]]:
        """(function, field, value call, stored into an item) for each field assigned a call:
        writes of attribute paths and globals, and the names a class body binds."""
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            owner = self._class_of_body(fid)
            for write in function.writes:
                call = self.symbols.call(fid, write.value_call) if write.value_call >= 0 else None
                field = self.symbols.field(fid, write.ref) if call is not None else None
                if call is not None and field is not None:
                    yield fid, field, call, write.kind == "item"
            for bind in function.binds if owner else ():
                call = self.symbols.call(fid, bind.value_call) if bind.value_call >= 0 else None
                if call is not None and bind.kind == "assign":
                    yield fid, FieldId(owner, (bind.name,)), call, False
            cached = self._cached_field(fid)
            if cached is None:
                continue
            for call in function.calls:
                if call.flow.kind == FLOW_RETURN and call.flow.call < 0:
                    yield fid, cached, call, False

    def _cached_field(self, fid: str) -> FieldId | None:
        """For a `functools.cached_property` getter, the field of its name that keeps what it first
        returns on each instance (`_lock` returning `threading.Lock()`); None for another function."""
        function = self.symbols.function(fid)
        if not any(_CACHED_PROPERTY.search(name) for name in function.decorators):
            return None
        owner = self.symbols.class_of_function(fid)
        return FieldId(owner, (function.name,)) if owner else None

    def _class_of_body(self, fid: str) -> str:
        """The class whose body `fid` is, "" for any other function."""
        function = self.symbols.function(fid)
        if function.kind != "classbody":
            return ""
        cid = function_id(self.symbols.module_of(fid).name, function.qualname.rsplit(".", 1)[0])
        return cid if cid in self.symbols.classes else ""

    def _lock_info(self, fid: str, field: FieldId, constructor: str, call: Call) -> LockInfo:
        kind = _LOCK_CONSTRUCTORS[constructor]
        wrapped = _lock_of_condition(call) if constructor in _CONDITIONS else None
        if wrapped is None:
            return LockInfo(field, kind)
        same_as = None
        if wrapped.ref is not None:
            # A class body's own name (`Condition(_lock)`) is its class attribute.
            same_as = self.symbols.field(fid, wrapped.ref) or self._class_attribute(fid, wrapped.ref)
        if same_as is not None:
            # The field's kind, once every field's is known (a threading.Condition's own is reentrant).
            return LockInfo(field, UNKNOWN_KIND if constructor == "threading.Condition" else kind, same_as)
        # A lock built for it, there or in a local (`Condition(threading.Lock())`): that lock's kind.
        values = self.symbols.argument_values(fid, wrapped)
        if len(values) == 1 and (made := next(iter(values))).kind == "external_instance":
            if made.target in _LOCK_CONSTRUCTORS and made.target not in _CONDITIONS:
                kind = _LOCK_CONSTRUCTORS[made.target]
        return LockInfo(field, kind)

    def _lock_constructor(self, fid: str, call: Call) -> Entity:
        """The lock constructor a call runs: itself, or the one every project factory it may run
        returns. A factory typed as a `Protocol` or an ABC (`make_lock: LockFactory`) runs each
        implementation's `__call__`, whose returns say what it makes; the abstract stub returns none."""
        callee = self.symbols.callee(fid, call)
        if callee.kind != "function":
            return callee
        returned = {
            self.symbols.callee(factory.target, inner)
            for factory in self.symbols.callees(fid, call)
            if factory.kind == "function"
            for inner in self.symbols.function(factory.target).calls
            if inner.flow.kind == FLOW_RETURN
        }
        return returned.pop() if len(returned) == 1 else callee

    def _find_passed(self) -> None:
        """A field set from a parameter (`self._pool_lock = pool_lock`) is the lock every
        resolved call binds to that parameter (`Connection(pool_lock=self._lock)`)."""
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            params = {param.name for param in function.params}
            for write in function.writes:
                value = write.value_ref
                if value is None or value.attrs or value.scope != function.qualname or value.name not in params:
                    continue
                field = self.symbols.field(fid, write.ref)
                if field is None or field in self.constructed:
                    continue
                passed = self._locks_passed(fid, LockParameter(value.name))
                if len(passed) == 1:
                    (lock,) = passed
                    self._learn(LockInfo(field, self.kind(lock), lock))
                elif not passed and len(built := self._locks_built_for(fid, value.name)) == 1:
                    # `Base(threading.Lock())`: a lock of the field's own, of that constructor's kind.
                    self._learn(LockInfo(field, _LOCK_CONSTRUCTORS[built.pop()]))

    def _learn(self, info: LockInfo) -> None:
        """A field found to be a lock while the fields set from parameters are worked out: answers
        kept before may have asked about it, so none is kept."""
        self.constructed[info.field] = info
        self._followed_whole.clear()

    def _locks_passed(self, fid: str, param: LockParameter) -> frozenset[FieldId]:
        """The locks bound to parameter `param` of `fid` at its resolved call sites and by the calls
        that bind its parameters for a later call (`partial(Connection, self._lock)`); a call that
        binds something else (or nothing known) adds None. Test code's calls are left out: a test
        that builds the object with a lock of its own does not make the product's lock another."""
        passed: set[FieldId | None] = set()
        for site, call in self.calls_binding(fid):
            bound = self._argument_bound(site, call, param)
            if bound is not None:
                passed.add(self._argument_lock(site, param, *bound))
            elif self._may_run_default(site, call, param):
                # Where a keyword partial may bind the parameter in its place, the partial adds that.
                passed.add(self._default_value_lock(site.callee, param))
        return frozenset() if None in passed else frozenset(lock for lock in passed if lock is not None)

    def _may_run_default(self, site: CallSite, call: Call, param: LockParameter) -> bool:
        """Whether `call`, made at `site` and binding `param` no argument, may run its callee with the
        parameter's default: it has one, and the call is no partial's (which binds it for its later
        calls) nor one of a partial that bound arguments ahead, nor starred (binding what it holds)."""
        if site.via_argument or site.bound_ahead > 0 or any(arg.kind == "star" for arg in call.args):
            return False
        declared = self._declared(site.callee, param)
        return declared is not None and declared.default is not None

    def _locks_built_for(self, fid: str, param: str) -> set[str]:
        """The lock constructors whose new locks the resolved calls bind to parameter `param` of
        `fid` (`Base(threading.Lock())`, or a local built so); none where a call binds anything
        else (a semaphore too: its count is not followed here)."""
        built: set[str] = set()
        function = self.symbols.function(fid)
        for site, call in self.calls_binding(fid):
            for name, arg in bound_arguments(function, call, site.bound_ahead):
                if name != param:
                    continue
                values = self.symbols.argument_values(site.caller, arg)
                made = next(iter(values)) if len(values) == 1 else None
                if made is None or made.kind != "external_instance" or made.target not in _LOCK_CONSTRUCTORS:
                    return set()
                if made.target in _SEMAPHORES:
                    return set()
                built.add(made.target)
        return built

    def calls_binding(self, fid: str) -> Iterator[tuple[CallSite, Call]]:
        """The calls that bind `fid`'s parameters, each with its site (its `bound_ahead`: the
        positional arguments a partial binds ahead of the call's own) and the call as it binds
        them; test code's left out."""
        for site in self.calls.sites_to.get(fid, ()):
            call = self.symbols.call(site.caller, site.call_id) if site.call_id >= 0 else None
            if call is not None and not site.via_argument and self.shapes_model(site.caller, fid):
                yield site, call
        for caller, call, ahead in self._bound_for_later.get(fid, ()):
            if self.shapes_model(caller, fid):
                yield CallSite(caller, fid, HANDOFF, call.site, call.id, via_argument=True, bound_ahead=ahead), call

    def lock_bound_at(self, site: CallSite, call: Call, param: LockParameter) -> FieldId | LockParameter | None:
        """What `call`, made at `site`, binds to parameter `param` of its callee as a lock: the
        caller's own parameter it hands on (whose lock the caller's callers bind, each its own, see
        `_handed_on`); or the lock its argument denotes in the caller (see `_argument_lock`), or
        the parameter's default; None for anything else. The object the caller runs on
        (`hold(this)`) is no parameter it hands on: its class is the caller's, as for its own
        regions."""
        bound = self._argument_bound(site, call, param)
        if bound is None:
            return self._default_bound(site, call, param)
        arg, element = bound
        handed = None
        ref = self._path_of(site.caller, arg)
        if ref is not None and ref.name != self.symbols.self_param(site.caller):
            handed = self._handed_on(site.caller, ref, site.pos[0])
        if handed:
            return self._handed_to(site, handed, param, element)
        return self._argument_lock(site, param, arg, element)

    def handed_from_around(
        self, site: CallSite, call: Call, param: LockParameter
    ) -> tuple[str, LockParameter] | None:
        """Where the caller of `site` is a closure whose `call` hands `param` of its callee a parameter
        of the function around it (`def outer(lock=None): def go(): self.inner(lock)`): that function,
        with its parameter as the call hands it on (see `_handed_to`). Each call of that function binds
        its own, as for a call it makes itself; a None its callers pass goes on to the callee's
        fallback. None for any other argument."""
        bound = self._argument_bound(site, call, param)
        ref = self._path_of(site.caller, bound[0]) if bound is not None else None
        binder = self._enclosing_binder(site.caller, ref, site.pos[0]) if ref is not None else ""
        handed = self._handed_on(binder, ref, site.pos[0]) if binder and ref is not None else None
        return (binder, self._handed_to(site, handed, param, bound[1])) if handed and bound else None

    def _handed_to(
        self, site: CallSite, handed: LockParameter, param: LockParameter, element: str = ""
    ) -> LockParameter:
        """The caller's parameter `handed` (its `element`, for a starred argument), as the call made at
        `site` hands it on to `param` of its callee: taken as `param` is, and holding where the
        caller's callers pass None what the callee puts in `param` then."""
        none_holds = self._fallback_lock(site.callee, param)
        return handed._replace(monitor=param.monitor, element=element, none_holds=none_holds)

    def _handed_on(self, fid: str, ref: Ref, line: int | None = None) -> LockParameter | None:
        """The parameter of `fid` that `ref`, used on `line`, names, where calls bind `fid`'s
        parameters: the lock each binds is its own. None where no call does: the parameter's lock
        is then what `fid` knows of it (its declared class's monitor for `void check(Pair other)`),
        as in its own regions (see `lock_of`)."""
        return self._parameter_named(fid, ref, line) if next(self.calls_binding(fid), None) is not None else None

    def _argument_bound(self, site: CallSite, call: Call, param: LockParameter) -> tuple[Arg, str] | None:
        """The argument `call`, made at `site`, binds to parameter `param` of its callee (or to its
        element), with the element of that argument that lands there ("" for the argument itself):
        a starred argument forwards the elements of the caller's star parameter (`both(**kw)`,
        `both(*args)`). None where it binds nothing, or only for some lengths of a `*` argument."""
        for spread in spread_arguments(self.symbols.function(site.callee), call, site.bound_ahead):
            if spread.param != param.name or spread.maybe:
                continue
            if spread.first < 0 and spread.param_element == param.element:
                return spread.arg, spread.arg_element
            if spread.first >= 0 and param.element:
                # A star parameter taking on a starred argument: its elements from `first` on.
                if not param.element.isdigit():
                    return spread.arg, param.element
                if int(param.element) >= spread.first:
                    return spread.arg, str(int(param.element) + spread.shift)
        return None

    def _path_of(self, fid: str, arg: Arg) -> Ref | None:
        """The name path an argument of a call in `fid` is: its own, or for a starred name (`**kw`),
        that name of `fid`."""
        if arg.ref is None and arg.star and arg.text.isidentifier():
            return Ref(self.symbols.function(fid).qualname, arg.text)
        return arg.ref

    def _argument_lock(self, site: CallSite, param: LockParameter, arg: Arg, element: str = "") -> FieldId | None:
        """The lock an argument bound to `param` at `site` denotes in the caller (its `element`, for
        a starred argument: that element of the caller's star parameter it names, see
        `_lock_bound_to`); for `None`, the lock the callee's body puts in the parameter then (see
        `_fallback_lock`), which is also what a parameter of the caller handed on holds where the
        caller's own callers pass None (Java: null); for a conditional, the lock its arms agree on."""
        if element:
            ref = self._path_of(site.caller, arg)
            named = self._parameter_named(site.caller, ref, site.pos[0]) if ref is not None else None
            return self._lock_of_parameter(site.caller, self._handed_to(site, named, param, element)) if named else None
        none_holds = self._fallback_lock(site.callee, param)
        if arg.arms:
            # `take(flag ? null : lock)`: either arm's, where they agree; `shared and lock` may pass
            # a falsy value, which the fallback replaces.
            arm_locks = {self._argument_lock(site, param, arm) for arm in arg.arms}
            arm_locks |= {none_holds} if arg.passes_null else set()
            return arm_locks.pop() if len(arm_locks) == 1 else None
        if _passes_none(arg):
            return none_holds
        if arg.ref is None:
            return None
        return self.lock_of(site.caller, param.lock_ref(arg.ref), site.pos[0], none_holds)

    def _default_bound(self, site: CallSite, call: Call, param: LockParameter) -> FieldId | LockParameter | None:
        """What the default value of `param` binds for a call that binds it nothing: where the call
        is made by the function whose code runs the callee's `def`, the parameter of its own that
        the default names, handed on (`def outer(lock): def inner(held=lock): ...` called in `outer`);
        else the lock the default names (see `_default_lock`)."""
        default = self._default_given(site, call, param)
        where = self.symbols.defining_scope(site.callee)
        handed = self._handed_on(where, default) if default is not None and where == site.caller else None
        return self._handed_to(site, handed, param) if handed else self._default_lock(site, call, param)

    def _default_lock(self, site: CallSite, call: Call, param: LockParameter) -> FieldId | None:
        """The lock the default value of `param` names (see `_default_value_lock`), for a call that
        binds it nothing; None where it has none, or where the call may bind it out of sight (see
        `_default_given`)."""
        if self._default_given(site, call, param) is None:
            return None
        return self._default_value_lock(site.callee, param)

    def _default_given(self, site: CallSite, call: Call, param: LockParameter) -> Ref | None:
        """The default value of `param` where the call made at `site` binds it nothing. None where
        it has none, or where the call may bind it out of sight: a starred argument, or a call
        binding the function's parameters for a later call (`partial(locked, lock=_IO_LOCK)`, see
        `bound_for_later`)."""
        if site.bound_ahead or site.callee in self._bound_for_later or any(arg.kind == "star" for arg in call.args):
            return None
        declared = self._declared(site.callee, param)
        return declared.default if declared is not None else None

    def _declared(self, fid: str, param: LockParameter) -> Param | None:
        """The declaration of `param` among the parameters of `fid`: its default and fallback."""
        return next((declared for declared in self.symbols.function(fid).params if declared.name == param.name), None)

    def _default_value_lock(self, fid: str, param: LockParameter) -> FieldId | None:
        """The lock the default value of `param` of `fid` names, read where `fid`'s `def` runs
        (`def locked(action, lock=_STATE_LOCK)`, a class attribute `_lock` named in its class body,
        a parameter of the function around it); for a default of None, the lock the body puts in
        the parameter then (see `_fallback_lock`); None for no default, or no lock."""
        declared = self._declared(fid, param)
        default = declared.default if declared is not None else None
        if default == _NONE:
            return self._fallback_lock(fid, param)
        where = self.symbols.defining_scope(fid)
        if default is None or where not in self.symbols.functions:
            return None
        return self.lock_of(where, param.lock_ref(default))

    def _fallback_lock(self, fid: str, param: LockParameter) -> FieldId | None:
        """The lock `fid` puts in parameter `param` where it is given None (`lock = lock or
        self._lock`, `if lock is None: lock = self._lock`: `Param.fallback`), if any, and if `param`
        is used after that statement. A use before it, or in a function giving it none, holds None
        there: no lock, or where it is handed on, what the function it goes to puts in it then
        (`param.none_holds`)."""
        declared = self._declared(fid, param)
        if declared is None or declared.fallback_at is None or not param.after_fallback:
            return param.none_holds
        if declared.fallback is not None:
            return self.lock_of(fid, param.lock_ref(declared.fallback))
        call = self.symbols.call(fid, declared.fallback_call) if declared.fallback_call >= 0 else None
        if call is None:
            return None  # a value of its own (`lock = lock or threading.Lock()`): a new lock, no field's
        # `if (held == null) held = lock();`: the one lock the method returns, however many `return`s give it.
        return self._lock_returned_by([target for target, _ in call_targets(self.symbols, fid, call)], param)

    def lock_parameter(self, fid: str, region: Region) -> tuple[str, LockParameter] | None:
        """The parameter whose lock `region` of `fid` holds where the calls binding it bind different
        locks (`def both(first, second): with first: ...`), so that each call holds its own, with
        the function those calls call: `fid`, or for a closure, the function around it whose
        parameter it holds (`def make(first): def run(): with first: ...`). None where the
        region's lock is known wherever `fid` runs, or is no parameter's."""
        if region.call >= 0 or self.region_lock(fid, region) is not None:
            return None
        binder = self._enclosing_binder(fid, region.lock, region.pos[0]) or fid
        param = self._lock_parameter(binder, region.lock, region.pos[0])
        return (binder, param) if param is not None else None

    def _enclosing_binder(self, fid: str, ref: Ref, line: int | None = None) -> str:
        """The function around `fid` whose parameter `ref`, used on `line` (None: anywhere), names,
        where `fid` is a closure reading it (`first` in `def make(first): def run(): with first:
        ...`); "" for any other name."""
        function = self.symbols.function(fid)
        if not ref.scope or ref.scope == function.qualname or ref.attrs not in ((), (MONITOR,)):
            return ""
        if any(line is None or bind.site.pos[0] < line for bind in self.symbols.binds(fid).get(ref.name, ())):
            # `nonlocal first` and `first = threading.Lock()`: what the closure holds from there is
            # its own; above it, what the calls of the function around it pass.
            return ""
        around = function_id(self.symbols.module_of(fid).name, ref.scope)
        return around if around in self.symbols.functions and self._lock_parameter(around, ref) else ""

    def _lock_parameter(self, fid: str, ref: Ref, line: int | None = None) -> LockParameter | None:
        """The parameter of `fid` whose lock `ref`, used on `line`, names (`synchronized (first)`:
        its monitor)."""
        monitor = ref.attrs[-1:] == (MONITOR,)
        param = self._parameter_named(fid, ref._replace(attrs=ref.attrs[:-1]) if monitor else ref, line)
        return param._replace(monitor=monitor) if param else None

    def _parameter_named(self, fid: str, ref: Ref, line: int | None = None) -> LockParameter | None:
        """The parameter of `fid` that `ref`, used on `line` (None: anywhere), names, through simple
        local aliases; None for another. A parameter given a fallback where it holds None (`if lock
        is None: lock = self._lock`) is still the parameter: the fallback is no alias, but what a
        call passing None binds from where that statement ends; a use before it, or an alias made
        before it (`guard = lock`), holds what the call passed only."""
        function = self.symbols.function(fid)
        params = {param.name: param for param in function.params}
        for named, alias in self.symbols.alias_steps(fid, ref):
            line = alias.pos[0] if alias is not None else line
            param = params.get(named.name) if not named.attrs and named.scope == function.qualname else None
            if param is not None and self._rebound_before(fid, param, line):
                return None
            if param is not None and param.fallback_at is not None:
                return LockParameter(param.name, after_fallback=_after(param.fallback_at, param.fallback_within, line))
        if named.attrs or named.scope != function.qualname or named.name not in params:
            return None
        return LockParameter(named.name)

    def _rebound_before(self, fid: str, param: Param, line: int | None) -> bool:
        """Whether `fid` puts a value of its own in `param` above `line` (None: anywhere), by a
        statement other than its fallbacks (`lock = threading.Lock()`) that every pass runs and whose
        value reads nothing of the parameter: from there the name holds that value, not what the
        calls pass. Not one in a branch (`if fresh: lock = threading.Lock()`) or one keeping the
        parameter (`lock = threading.Lock() if fresh else lock`), after which it may still hold it."""
        function = self.symbols.function(fid)
        # A read on the rebinding's own line flowing back into the name: the value may be the one passed.
        kept_on = {access.site.pos[0] for access in function.accesses if _flows_into_itself(access, param.name)}
        return any(
            bind.kind != "param"
            and (line is None or bind.site.pos[0] < line)
            and not any(within(bind.site.pos, at) for at in _fallbacks_of(param))
            and bind.site.pos[0] not in kept_on
            and not _may_be_skipped(function, bind.site.pos)
            for bind in self.symbols.binds(fid).get(param.name, ())
        )

    @cached_property
    def _bound_for_later(self) -> dict[str, list[tuple[str, Call, int]]]:
        """By function: the calls that bind its parameters for a later call (see
        `bound_for_later`), each with its caller, the call as it binds them and the positional
        arguments a partial bound ahead of it."""
        found: dict[str, list[tuple[str, Call, int]]] = {}
        for caller, (_, function) in sorted(self.symbols.functions.items()):
            for call in function.calls:
                for target, wrapped, as_bound in bound_for_later(self.symbols, caller, call):
                    found.setdefault(target, []).append((caller, as_bound, bound_ahead(wrapped)))
        return found

    def canonical(self, field: FieldId) -> FieldId:
        seen = set()
        while field in self.constructed and self.constructed[field].same_as is not None:
            if field in seen:
                break
            seen.add(field)
            field = self.constructed[field].same_as  # type: ignore[assignment]
        return field

    def is_lock(self, field: FieldId) -> bool:
        if field in self.not_locks:
            return False
        return field in self.constructed or field.leaf == MONITOR or self.lock_name(field.leaf)

    def is_element(self, lock: FieldId) -> bool:
        """Whether `lock` stands for the elements of a container of locks (or is acquired as one)."""
        return lock in self.elements or lock in self._subscripted

    @cached_property
    def _subscripted(self) -> frozenset[FieldId]:
        """Locks acquired as an item of a container: `with self._locks[tp]:`."""
        found = set()
        for fid, (_, function) in self.symbols.functions.items():
            for region in function.regions:
                lock = self.region_lock(fid, region) if "[]" in region.lock.attrs else None
                if lock is not None:
                    found.add(lock)
        return frozenset(found)

    def kind(self, lock: FieldId) -> str:
        if lock.leaf == MONITOR:
            return REENTRANT  # a Java monitor: `synchronized` re-enters what its thread holds
        info = self.constructed.get(lock)
        return info.kind if info is not None else UNKNOWN_KIND

    def lock_of(
        self, fid: str, ref: Ref, line: int | None = None, none_holds: FieldId | None = None
    ) -> FieldId | None:
        """The lock a name path denotes in `fid`, used on `line` (None: anywhere): a field, a class
        attribute named in a class body, or what a property's getter returns; the lock of a
        parameter that calls bind, the one they all bind (see `_bound_by_calls`), also where a
        closure reads it, where one passing None binds `none_holds` (see `LockParameter.none_holds`)."""
        binder = self._enclosing_binder(fid, ref, line)
        if binder:
            return self.lock_of(binder, ref, line, none_holds)
        if self._bound_by_calls(fid, ref, line):
            return self._lock_bound_to(fid, ref, line, none_holds)
        field = self.symbols.field(fid, ref, objects_only=False) or self._class_attribute(fid, ref)
        if field is None:
            getter = self.symbols.property_read(fid, ref)
            if not getter:
                return self._lock_bound_to(fid, ref, none_holds=none_holds) or self._condition_built_here(fid, ref)
            cached = self._cached_field(getter)
            if cached is not None and cached in self.constructed:
                return self.canonical(cached)
            return self._lock_returned_by([getter])
        if not self.is_lock(field):
            return None
        return self.canonical(field)

    def _class_attribute(self, fid: str, ref: Ref) -> FieldId | None:
        """The class attribute a name of a class body `fid` denotes there (`_lock`, read by a
        method's default `lock=_lock`); None for any other name path or function."""
        owner = self._class_of_body(fid)
        if not owner or ref.attrs or ref.scope != self.symbols.function(fid).qualname:
            return None
        return FieldId(owner, (ref.name,))

    def _bound_by_calls(self, fid: str, ref: Ref, line: int | None) -> bool:
        """Whether `ref`, used on `line`, names the lock of a parameter of `fid` that calls bind, or
        that has a fallback: it is the lock each call binds, whatever the class typing the parameter
        (`hold(this)` types `Object monitor`, and would make the class's monitor that of
        `hold(stats)` too) or its fallback's alias (`if lock is None: lock = self._lock`) would make
        it wherever `fid` runs. Not the object's own `self` (`this`): its class is the method's."""
        if ref.attrs not in ((), (MONITOR,)) or ref.name == self.symbols.self_param(fid):
            return False
        param = self._lock_parameter(fid, ref, line)
        if param is None:
            return False
        declared = self._declared(fid, param)
        has_fallback = declared is not None and declared.fallback_at is not None
        return has_fallback or next(self.calls_binding(fid), None) is not None

    def region_lock(self, fid: str, region: Region) -> FieldId | None:
        key = (fid, region.id)
        if key not in self._region_locks:
            self._region_locks[key] = (
                self._lock_called(fid, region)
                if region.call >= 0
                else self.lock_of(fid, region.lock, region.pos[0]) or self._lock_entered(fid, region)
            )
        return self._region_locks[key]

    def _lock_entered(self, fid: str, region: Region) -> FieldId | None:
        """For `with state:` over an object of a project class whose `__enter__` (or `__aenter__`)
        acquires one lock (`self._lock.acquire()`, released by its `__exit__`): that lock."""
        if region.kind not in ("with", "async_with"):
            return None
        entity = self.symbols.entity(fid, region.lock)
        entered = self._enter_method(entity.target) if entity.kind == "instance" else ""
        if not entered:
            return None
        acquired = {self.lock_of(entered, receiver) for receiver in self._acquired_in(entered)}
        return acquired.pop() if len(acquired) == 1 else None

    def _enter_method(self, cid: str) -> str:
        """The `__enter__` (or `__aenter__`) of class `cid`, or ""."""
        return next(filter(None, (self.symbols.lookup_method(cid, name) for name in ("__enter__", "__aenter__"))), "")

    def _acquired_in(self, fid: str) -> list[Ref]:
        """What `fid` acquires by a plain `acquire()` (in Java, `lock()` and its kin) and keeps, each
        once however often it takes it: a timed or non-blocking acquire may fail, and the body
        would run without the lock; a lock `fid` releases itself (`lock(); try { ... } finally {
        unlock(); }` in a resource's factory) is no longer held when it returns, nor one it releases
        on every path that returns through branches (both arms of an `if` ... `else`, a `try` body
        and its handler); one it releases only on the way to a `raise`, or in one branch
        (`finally: if not ready: release()`, undoing a set-up that failed), still is, as is one it
        takes back after each release on the path that releases it (`release(); acquire()` in a
        loop's turn, letting others in)."""
        java = self.symbols.is_java_function(fid)
        taking, releasing = (LOCK_METHODS, UNLOCK_METHODS) if java else (("acquire",), ("release",))
        function = self.symbols.function(fid)
        paths = _ReturnPaths.of(function)
        acquires: dict[Ref, list[Pos]] = {}
        for call in function.calls:
            if call.method in taking and not call.args and (receiver := receiver_path(call)) is not None:
                acquires.setdefault(receiver, []).append(call.site.pos)
        releases: dict[Ref, list[Pos]] = {}
        for call in function.calls:
            if (
                call.method in releasing
                and (receiver := receiver_path(call)) is not None
                and not _ends_in_a_raise(call.site, function.exits)
                and not paths.taken_back(call.site.pos, acquires.get(receiver, []))
            ):
                releases.setdefault(receiver, []).append(call.site.pos)
        released = {receiver for receiver, sites in releases.items() if paths.covered(None, sites)}
        return [receiver for receiver in acquires if receiver not in released]

    def _lock_called(self, fid: str, region: Region) -> FieldId | None:
        """The lock that the call of `region` in `fid` returns (`with self._lock_for(tp):`) or gives
        to the lock guard it builds (`with LockGuard(self._lock):`), if any."""
        call = self.symbols.call(fid, region.call)
        if call is None:
            return None
        targets = call_targets(self.symbols, fid, call)
        returned = self._lock_returned_by([target for target, _ in targets])
        return returned or self._lock_guarded(fid, call, targets, region.kind)

    def _lock_guarded(self, fid: str, call: Call, targets: list[tuple[str, Entity]], kind: str) -> FieldId | None:
        """For `with LockGuard(self._lock):` building an object of a project class whose
        `__enter__` acquires one lock (for a Java resource, `try (LockHolder h = new
        LockHolder(lock))`, whose constructor or factory does): the lock this call gives the
        constructor parameter that lock is kept from (`self._held = lock`), or else the lock it
        acquires."""
        if len(targets) != 1:
            return None
        constructor, built = targets[0]
        entered = self._guard_taking(constructor, built, kind)
        acquired = self._acquired_in(entered) if entered else []
        if len(acquired) != 1:
            return None
        kept = self.symbols.field(entered, acquired[0])
        given = self._lock_given(fid, call, constructor, kept) if kept is not None else None
        return given or self.lock_of(entered, acquired[0])

    def _guard_taking(self, target: str, called: Entity, kind: str) -> str:
        """The function that takes the lock of a guard object made by calling `called` (running
        `target`): the `__enter__` of the class a `with` item builds; for a Java resource, the
        constructor or factory the call runs, since the resource is held from there to `close()`."""
        if kind == RESOURCE:
            return self._constructor_taking(target)
        return self._enter_method(called.target) if called.kind == "class" else ""

    def _constructor_taking(self, fid: str) -> str:
        """The Java constructor or factory `fid` that takes a resource's lock: `fid`, or where it
        takes none itself, the constructor it hands its set-up to by `this(...)` (`Holder(Lock
        lock) { this(lock, DEFAULT); }`), followed so."""
        seen = {fid}
        while not self._acquired_in(fid):
            delegated = next(
                (
                    target
                    for call in self.symbols.function(fid).calls
                    if _delegates_set_up(call)
                    for target, _ in call_targets(self.symbols, fid, call)
                ),
                "",
            )
            if not delegated or delegated in seen:
                break
            seen.add(delegated)
            fid = delegated
        return fid

    def _lock_given(self, fid: str, call: Call, constructor: str, kept: FieldId) -> FieldId | None:
        """The lock that `call` in `fid` passes for the one parameter `constructor` stores in `kept`."""
        params = self._params_kept(constructor, kept, frozenset())
        if len(params) != 1:
            return None
        init = self.symbols.function(constructor)
        given = {self.lock_of(fid, arg.ref) for name, arg in bound_arguments(init, call) if name in params and arg.ref}
        return given.pop() if len(given) == 1 else None

    def _params_kept(self, constructor: str, kept: FieldId, seen: frozenset[str]) -> set[str]:
        """The parameters of `constructor` it stores in field `kept`, itself or through the Java
        constructor it hands them to by `this(...)` (`Holder(Lock lock) { this(lock, DEFAULT); }`)."""
        init = self.symbols.function(constructor)
        params = {
            write.value_ref.name
            for write in init.writes
            if write.value_ref is not None
            and not write.value_ref.attrs
            and self.symbols.field(constructor, write.ref) == kept
        }
        for call in init.calls:
            if not _delegates_set_up(call):
                continue
            for target, _ in call_targets(self.symbols, constructor, call):
                if target in seen:
                    continue
                inner = self._params_kept(target, kept, seen | {constructor})
                bound = bound_arguments(self.symbols.function(target), call)
                params.update(arg.ref.name for name, arg in bound if name in inner and arg.ref and not arg.ref.attrs)
        return params

    def _lock_bound_to(
        self, fid: str, ref: Ref, line: int | None = None, none_holds: FieldId | None = None
    ) -> FieldId | None:
        """The lock that every resolved call binds to a parameter of `fid` that `ref`, used on
        `line`, names (`def locked(lock, fn): with lock: ...` called as `locked(self._lock, ...)`),
        if they agree, a call passing None binding `none_holds` where `fid` gives it no fallback;
        for a Java monitor of a parameter (`synchronized (monitor)`), the monitor of what they
        bind."""
        param = self._lock_parameter(fid, ref, line)
        return self._lock_of_parameter(fid, param._replace(none_holds=none_holds)) if param is not None else None

    def _lock_of_parameter(self, fid: str, param: LockParameter) -> FieldId | None:
        """The lock that every resolved call binds to `param` of `fid`, if they agree. Where no call
        binds it, a call from outside passing nothing: its fallback's."""
        if next(self.calls_binding(fid), None) is None:
            return self._fallback_lock(fid, param)
        key = f"{fid}\0{param.name}\0{param.monitor}\0{param.after_fallback}\0{param.element}\0{param.none_holds}"
        passed = self._followed(key, partial(self._locks_passed, fid, param))
        return next(iter(passed)) if passed is not None and len(passed) == 1 else None

    def _condition_built_here(self, fid: str, ref: Ref) -> FieldId | None:
        """The lock of a local Condition built on it (`cond = threading.Condition(self._lock)`):
        `Condition(L)` is the same lock as L. None where the local may hold anything else."""
        binds = self.symbols.binds(fid).get(ref.name, []) if not ref.attrs and ref.scope else []
        calls = [self.symbols.call(fid, bind.value_call) for bind in binds if bind.kind == "assign"]
        if not binds or len(calls) != len(binds):
            return None
        wrapped: set[Ref] = set()
        for call in calls:
            if call is None:
                return None
            callee = self.symbols.callee(fid, call)
            lock = _lock_of_condition(call)
            if callee.kind != "external" or callee.target not in _CONDITIONS:
                return None
            if lock is None or lock.ref is None or lock.kind != "ref" or lock.ref == ref:
                return None
            wrapped.add(lock.ref)
        locks = {self.lock_of(fid, lock) for lock in wrapped}
        return locks.pop() if len(locks) == 1 else None

    def _lock_returned_by(self, functions: list[str], param: LockParameter = LockParameter("")) -> FieldId | None:
        """The one lock that every function of `functions` returns (`return self._lock`), if they
        are accessors of the same lock; None otherwise (or while it is being worked out: an
        accessor that returns itself returns no lock). Taken by `param`, a Java monitor's
        parameter, the monitor of what they return."""
        found: set[FieldId | None] = set()
        # An abstract stub returns nothing of what the call gives: the implementations run with it do.
        for target in (function for function in functions if not self.symbols.function(function).stub_body):
            step = f"{target}\0{MONITOR}" if param.monitor else target
            returned = self._followed(step, partial(self._locks_returned, target, param))
            if returned is None:
                return None
            found.update(returned or [None])
        return found.pop() if len(found) == 1 else None

    def taken_by_callee(self, fid: str, region: Region) -> bool:
        """Whether the lock a `with` region holds is taken by the `@contextmanager` it calls, not
        by the region itself (`with self._locked():`)."""
        call = self.symbols.call(fid, region.call) if region.call >= 0 else None
        if call is None:
            return self.lock_of(fid, region.lock) is None and self._lock_entered(fid, region) is not None
        return any(self.symbols.is_context_manager(target) for target, _ in call_targets(self.symbols, fid, call))

    def _locks_returned(self, fid: str, param: LockParameter) -> list[FieldId | None]:
        """The lock each `return` of a name path in `fid` returns (None where it is no lock), as
        `param` takes it; for a `@contextmanager` generator, the lock held at each `yield` (`with
        self._lock: yield`)."""
        function = self.symbols.function(fid)
        if self.symbols.is_context_manager(fid):
            return [self._lock_held_at(fid, site) for site in function.yields]
        return [
            self.lock_of(fid, param.lock_ref(access.ref))
            for access in function.accesses
            if access.flow.kind == FLOW_RETURN and access.flow.call < 0
        ]

    def _lock_held_at(self, fid: str, site: Site) -> FieldId | None:
        """The one lock that `fid` holds at `site` (None for none, or for several); a region that
        holds no lock (`with ExitStack() as stack:` around `stack.enter_context(L)`) holds none."""
        held = self._locks_of_regions(fid, site)
        return held.pop() if len(held) == 1 else None

    def _followed(self, step: str, compute: Callable[[], _Followed]) -> _Followed | None:
        """`compute()`, a lock followed one step further (into an accessor, or up to the callers
        binding a parameter); None when `step` is already being followed (a recursive function
        passing its lock along), the steps go deeper than _MAX_LOCK_HOPS, or the question has taken
        MAX_FOLLOWED_STEPS already."""
        if step in self._followed_whole:
            return cast(_Followed, self._followed_whole[step])
        self._steps_followed = self._steps_followed + 1 if self._following else 1
        cut_short = len(self._following) >= _MAX_LOCK_HOPS or self._steps_followed > MAX_FOLLOWED_STEPS
        if step in self._following or cut_short:
            self._cuts += 1
            return None
        cuts = self._cuts
        self._following.add(step)
        try:
            found = compute()
        finally:
            self._following.discard(step)
        if self._cuts == cuts:
            self._followed_whole[step] = found
        return found

    def decorator_locks(self, fid: str) -> frozenset[FieldId]:
        cached = self._decorator_locks.get(fid)
        if cached is not None:
            return cached
        function = self.symbols.function(fid)
        self_name = self.symbols.self_param(fid)
        found = set()
        for decorator in function.decorators:
            attribute = self.lock_decorators.get(decorator) or self.lock_decorators.get(
                decorator.rsplit(".", 1)[-1]
            )
            if attribute and self_name:
                lock = self.lock_of(fid, Ref(function.qualname, self_name, (attribute,)))
                if lock is not None:
                    found.add(lock)
        for applied in self.symbols.decorators(fid) if self_name else ():
            for value in applied:
                for attrs in self._wrapper_holds_around_call(value.target) if value.kind == "function" else ():
                    lock = self.lock_of(fid, Ref(function.qualname, self_name, attrs))
                    if lock is not None:
                        found.add(lock)
        result = frozenset(found)
        self._decorator_locks[fid] = result
        return result

    def _wrapper_holds_around_call(self, decorator: str) -> frozenset[tuple[str, ...]]:
        """The attributes of its first parameter (`self`) that the wrapper a project decorator
        returns holds around its call of the decorated function: `with self._lock: return
        method(self, ...)` holds `_lock`, as a lock decorator does for the method's whole body."""
        cached = self._wrapper_holds.get(decorator)
        if cached is not None:
            return cached
        facts = self.symbols.function(decorator)
        decorated = self.symbols.first_parameter(decorator)
        found: set[tuple[str, ...]] = set()
        for wrapper in self.symbols.return_values(decorator) if decorated else ():
            function = self.symbols.function(wrapper.target) if wrapper.kind == "function" else None
            if function is None or not function.params:
                continue
            receiver = Ref(function.qualname, function.params[0].name)
            regions = self.regions_by_id(wrapper.target)
            for call in function.calls:
                if call.callee != Ref(facts.qualname, decorated):
                    continue
                for region in (regions[region_id] for region_id in call.site.regions):
                    if Ref(region.lock.scope, region.lock.name) == receiver and region.lock.attrs:
                        found.add(region.lock.attrs)
        result = self._wrapper_holds[decorator] = frozenset(found)
        return result

    # -- held locks ---------------------------------------------------------------------------

    def regions_by_id(self, fid: str) -> Mapping[int, Region]:
        # Asked per call site and per lock acquired: made once per function.
        found = self._regions.get(fid)
        if found is None:
            found = self._regions[fid] = {region.id: region for region in self.symbols.function(fid).regions}
        return found

    def local_locks(self, fid: str, site: Site) -> frozenset[FieldId]:
        """Locks held at `site` by the function itself: its held regions and lock decorators."""
        return frozenset(self._locks_of_regions(fid, site) | self.decorator_locks(fid))

    def _locks_of_regions(self, fid: str, site: Site) -> set[FieldId]:
        """The locks of the held regions of `fid` that `site` is in (not its lock decorators')."""
        regions = self.regions_by_id(fid)
        return {lock for region_id in site.regions if (lock := self.region_lock(fid, regions[region_id])) is not None}

    def held(self, fid: str, site: Site) -> frozenset[FieldId]:
        """Locks held at `site`: the local ones plus the function's entry lockset."""
        return self.local_locks(fid, site) | self.entry.get(fid, frozenset())

    def _compute_entry_locksets(self) -> None:
        """Entry lockset = intersection over resolved call sites of the locks held there.

        Empty for a function with no known caller and for any function handed off. Solved over
        the condensation of the call graph, callers first; inside a cycle, iterated to a fixpoint
        from the top of the lattice.
        """
        import networkx as nx

        graph = self.calls.graph
        condensed = nx.condensation(graph)
        top: frozenset[FieldId] | None = None
        for component in nx.topological_sort(condensed):
            members = sorted(condensed.nodes[component]["members"])
            state: dict[str, frozenset[FieldId] | None] = {fid: top for fid in members}
            # What each call contributes besides its caller's entry lockset is the same every pass.
            callers = {fid: self._callers_handing_locks(fid) for fid in members}
            changed = True
            while changed:
                changed = False
                for fid in members:
                    value = self._entry_from_callers(callers[fid], state)
                    if value != state[fid]:
                        state[fid] = value
                        changed = True
            for fid in members:
                self.entry[fid] = state[fid] or frozenset()

    def _callers_handing_locks(self, fid: str) -> list[tuple[CallSite, frozenset[FieldId]]]:
        """The calls of `fid` that its entry lockset is the intersection over, each with the
        caller's own locks where `fid` runs; none where `fid` has no such call or one of them
        does not pass its locks on (its entry lockset is empty)."""
        # A constructor's call of a method of the object it builds (`self.reset()`) runs before
        # the object is shared: the locks held there say nothing of what the method needs.
        sites = [
            site
            for site in self.calls.sites_to.get(fid, [])
            if self.shapes_model(site.caller, site.callee) and not runs_while_built(self.symbols, site)
        ]
        if any(not site.inherits_locks for site in sites):
            return []
        return [(site, self._locks_where_run(site)) for site in sites]

    def _entry_from_callers(
        self, callers: list[tuple[CallSite, frozenset[FieldId]]], state: dict[str, frozenset[FieldId] | None]
    ) -> frozenset[FieldId] | None:
        if not callers:
            return frozenset()
        result: frozenset[FieldId] | None = None
        for site, where_run in callers:
            caller_entry = state.get(site.caller, self.entry.get(site.caller, frozenset()))
            if caller_entry is None:
                continue  # not yet known in this cycle: the top element
            at_site = where_run | caller_entry
            result = at_site if result is None else result & at_site
        return result

    def _locks_where_run(self, site: CallSite) -> frozenset[FieldId]:
        """The caller's locks where the callee's body runs: at the call, or, for a generator whose
        result the caller iterates (`for m in gen(...)`, `xs = gen(...)` then `for m in xs`), at
        the loops that iterate it."""
        loops = self.generator_iterations(site)
        if loops:
            return frozenset.intersection(*(self.local_locks(site.caller, bind.site) for bind in loops))
        return self.local_locks(site.caller, site.site)

    def generator_iterations(self, site: CallSite) -> list[Bind]:
        """For a call of a generator function, the targets of the caller's loops that iterate its
        result, where its body runs (`for m in gen(...)`, `xs = gen(...)` then `for m in xs`)."""
        if site.kind != CALL or site.call_id < 0 or not self.symbols.function(site.callee).is_generator:
            return []
        iterations = self._iterations.get(site.caller)
        if iterations is None:
            iterations = self._iterations[site.caller] = _iterations(self.symbols.function(site.caller))
        return iterations.get(site.call_id, [])


def _iterations(function: FunctionFacts) -> dict[int, list[Bind]]:
    """Call id -> the loop targets that iterate the call's result, directly or through a local."""
    assigned = {b.name: b.value_call for b in function.binds if b.kind == "assign" and b.value_call >= 0}
    result: dict[int, list[Bind]] = {}
    for bind in function.binds:
        if bind.kind not in ("iter", "iter_part"):
            continue
        call_id = bind.value_call
        ref = bind.value_ref
        if call_id < 0 and ref is not None and not ref.attrs and ref.scope == function.qualname:
            call_id = assigned.get(ref.name, -1)
        if call_id >= 0:
            result.setdefault(call_id, []).append(bind)
    return result


def _builds_no_lock(callee: Entity) -> bool:
    """A call of a project class, of an outside name spelt as a class (`threading.Event`), or of an
    outside function known to make no lock (`contextlib.nullcontext()`, `open()`)."""
    if callee.kind == "class":
        return True
    name = callee.target.rsplit(".", 1)[-1]
    return callee.kind == "external" and (name[:1].isupper() or callee.target in _NO_LOCK_FUNCTIONS)


# Outside functions that build an object that is no lock, whatever the field keeping it is named.
_NO_LOCK_FUNCTIONS = frozenset({"contextlib.nullcontext", "open", "io.open", "builtins.open"})


def _flows_into_itself(access: Access, name: str) -> bool:
    """Whether `access` reads local `name` into a value assigned to `name` again (`lock = new if
    fresh else lock`)."""
    return access.ref.name == name and not access.ref.attrs and name in access.flow.targets


def _may_be_skipped(function: FunctionFacts, pos: Pos) -> bool:
    """Whether code at `pos` in `function` may not run on a pass through it: in an arm of a
    branching, in an `if` or `while` statement past its test, in a loop's body, or in an operand
    evaluated only on a condition."""
    return next(function.conditions_around(pos), None) is not None or any(
        loop.body is not None and within(pos, loop.body) for loop in function.loops
    )


def _lock_of_condition(call: Call) -> Arg | None:
    """The lock a Condition is built on (`Condition(L)`, `Condition(lock=L)`), None for its own."""
    named = [arg for arg in call.args if arg.keyword == "lock"]
    if named:
        return named[0]
    return call.args[0] if call.args and not call.args[0].keyword and call.args[0].kind != "star" else None


def _count_is_one(args: tuple) -> bool:
    """A semaphore is a lock only when its count is 1 (the default)."""
    positional = [arg for arg in args if not arg.keyword or arg.keyword == "value"]
    return not positional or positional[0].text == "1"


def _delegates_set_up(call: Call) -> bool:
    """Whether `call` is a Java constructor's `this(...)` or `super(...)`, or Python's
    `super().__init__(...)` (`super(Cls, self).__init__(...)`), which runs another constructor of
    its class or its parent class's."""
    if call.method != "__init__":
        return False
    return call.text in ("this", "super") or call.text.startswith("super(") and call.text.endswith(").__init__")


def _ends_in_a_raise(site: Site, exits: tuple[Exit, ...]) -> bool:
    """Whether the code at `site` lies in a block a `raise` ends (`except: lock.release(); raise`)
    and no exit that goes on (a `return`, `break` or `continue`) lies between them (`if closed:
    raise ...` / `else: return self` ends its block by a `raise` on one path only): undoing a
    set-up that failed, on a path that never returns."""
    return any(
        end.raised
        and within(site.pos, end.block)
        and not any(
            not other.raised and within(other.pos, end.block) and site.pos[2:] <= other.pos[:2] <= end.pos[:2]
            for other in exits
        )
        for end in exits
    )


@dataclass(frozen=True)
class _ReturnPaths:
    """What of a function runs on every path through it that returns: code in no arm a pass may
    skip or leave part-way (see `Branches`: a branch of an `if` or a `switch`, a `try`'s handler or
    body; a Python `if` statement, the body of a loop that may run no turn), or code each arm of a
    split runs; and, for a path that leaves early (by a `return`, or a `break` or `continue` out of
    its arm), code it runs before it leaves."""

    exits: tuple[Exit, ...]
    arms: tuple[Pos, ...]
    # Python `if` statements without `else`, `while` statements, and the bodies of loops that may
    # run no turn: a pass may skip all of one, also where it is an `elif` that fills its parent's arm.
    skippable: tuple[Pos, ...]
    # Where a pass runs one of the arms, or leaves by a `raise`, before it goes on: an exhaustive
    # branching (`if` ... `else`, a `match` ending in `case _:`, a `switch` with a `default`, also
    # each rest of an arm from a `case:` group fallen into, where a pass may enter), and
    # a `try` with handlers, whose body runs to its end or else one of its handlers runs; a loop
    # that runs its body at least once (`while True:`, `for (;;)`, `do`), left by its `break`s.
    splits: tuple[tuple[Pos, tuple[Pos, ...]], ...]
    # A Python `try` body, and the `else` that runs after it where it ran to its end.
    followed_by: dict[Pos, Pos]

    @classmethod
    def of(cls, function: FunctionFacts) -> _ReturnPaths:
        arms = tuple(arm for branches in function.branches for arm in branches.arms)
        # A pass entering an arm at a `case` fallen into runs the rest only: that rest is one more arm.
        exhaustive = [
            (branches.pos, (*branches.arms, *branches.fallen_into))
            for branches in function.branches
            if branches.exhaustive
        ]
        once = [(loop.site.pos, (loop.body,)) for loop in function.loops if loop.body is not None and loop.runs_once]
        split = {pos for pos, _ in (*exhaustive, *once)}
        skippable = (
            *(governs.statement for governs in function.governs if governs.statement not in split),
            *(loop.body for loop in function.loops if loop.body is not None and not loop.runs_once),
        )
        tries = list(_tries(function))
        splits = (*exhaustive, *((pos, arms) for pos, arms, _ in tries), *once)
        followed_by = {arms[0]: orelse for _, arms, orelse in tries if orelse is not None}
        return cls(function.exits, (*arms, *(body for _, (body,) in once)), skippable, splits, followed_by)

    def covered(self, span: Pos | None, sites: list[Pos]) -> bool:
        """Whether one of `sites` runs on every path through `span` (None: the whole function) that
        goes on after it, or returns from it: one lies in no arm inside it, or each arm of a split
        that does either ends in a `raise` or is covered so itself; a `try` body is also covered
        by its `else`. A path that leaves `span` early runs one of them before it leaves."""
        ends = (
            self._raises(span)
            or self._passes(span, sites)
            or (span in self.followed_by and self.covered(self.followed_by[span], sites))
        )
        return ends and all(self._released_before(jump, span, sites) for jump in self._leaving(span))

    def taken_back(self, release: Pos, acquires: list[Pos]) -> bool:
        """Whether one of `acquires` runs after the `release` at that place on every path from it
        that goes on: one follows it in a span holding both (the function, an arm, a loop's turn),
        in no arm inside that span, and nothing between them may leave that path."""
        spans = (None, *self.arms, *self.skippable)
        return any(
            release[2:] <= acquire[:2]
            and not any(self._may_skip(exit, release, acquire) for exit in self.exits)
            and any(_inside(release, span) and self._always_runs(acquire, span, True) for span in spans)
            for acquire in acquires
        )

    @staticmethod
    def _may_skip(exit: Exit, start: Pos, end: Pos) -> bool:
        """Whether `exit`, between `start` and `end`, may leave a path that goes on, skipping `end`:
        any but a `raise` nothing catches, which ends the path, and but a jump out of a statement
        that lies between them, whose path goes on after it, before `end` (a `break` or `continue`
        of a loop there, a `return` of a lambda run there on the spot)."""
        ends_the_path = exit.raised and exit.caught_by is None and not exit.leaves_loop
        left = exit.ended_loop or exit.continued
        goes_on_before = left is not None and start[2:] <= left[:2] and left[2:] <= end[:2]
        return not ends_the_path and not goes_on_before and start[2:] <= exit.pos[:2] and exit.pos[2:] <= end[:2]

    def _passes(self, span: Pos | None, sites: list[Pos], until: Pos | None = None) -> bool:
        """Whether one of `sites` runs on every path through `span` to its end (`until`: to that
        place in it, which the path enters `span` to reach), leaving out the paths that leave early."""
        entered = until is not None
        return any(self._always_runs(site, span, entered) for site in sites) or any(
            (until is None or pos[2:] <= until[:2])
            and self._always_runs(pos, span, entered)
            and all(self.covered(arm, sites) for arm in arms)
            for pos, arms in self.splits
        )

    def _released_before(self, jump: Exit, span: Pos | None, sites: list[Pos]) -> bool:
        """Whether one of `sites` runs on every path through `span` to `jump`, or in a `finally`
        inside `span` that the jump runs on its way out."""
        earlier = [site for site in sites if site[2:] <= jump.pos[:2]]
        finals = (block for block in jump.finally_blocks if _inside(block, span))
        around = (outer for outer in (*self.arms, *self.skippable) if outer != span and _inside(outer, span))
        return (
            any(self.covered(block, sites) for block in finals)
            or any(self._passes(outer, earlier, jump.pos) for outer in (span, *around) if _inside(jump.pos, outer))
            or any(within(jump.pos, after) and self.covered(body, earlier) for body, after in self.followed_by.items())
        )

    def _leaving(self, span: Pos | None) -> list[Exit]:
        """The exits in `span` whose paths leave it early and go on (None: the `return`s of the
        function): a `break` of a statement around `span`, a `continue` of a loop whose body holds
        it (or is it: a `do`'s turn may be the last). A `raise` goes on, if at all, in a handler,
        another arm of the split around."""
        if span is None:
            return [exit for exit in self.exits if not exit.raised and not exit.leaves_loop]
        return [
            exit
            for exit in self.exits
            if not exit.raised
            and within(exit.pos, span)
            and (
                (exit.ended_loop is not None and not within(exit.ended_loop, span))
                or (exit.continued is not None and within(span, exit.continued))
            )
        ]

    def _always_runs(self, pos: Pos, span: Pos | None, entered: bool = False) -> bool:
        """Whether the code at `pos` lies in `span`, and in no arm inside it (a statement that may
        be skipped whole counts where it is `span` itself, unless the path has `entered` it)."""
        return (
            _inside(pos, span)
            and not any(arm != span and within(pos, arm) and _inside(arm, span) for arm in self.arms)
            and not any(
                (not entered or skipped != span) and within(pos, skipped) and _inside(skipped, span)
                for skipped in self.skippable
            )
        )

    def _raises(self, span: Pos | None) -> bool:
        """Whether every pass through `span` ends in a `raise` there."""
        return any(exit.raised and self._always_runs(exit.pos, span) for exit in self.exits)


def _inside(pos: Pos, span: Pos | None) -> bool:
    """Whether `pos` lies in `span` (None: the whole function)."""
    return span is None or within(pos, span)


def _tries(function: FunctionFacts) -> Iterator[tuple[Pos, tuple[Pos, ...], Pos | None]]:
    """The `try` statements with handlers of `function`, each with its body and then its handlers,
    and its `else` (Python) or None: the body is the first arm alone at the statement's position,
    the handlers the arms of the other branching there, then its `else` where it ends in one."""
    bodies: dict[Pos, Pos] = {}
    for branches in function.branches:
        if len(branches.arms) == 1:
            arm = branches.arms[0]
            bodies[branches.pos] = min(bodies.get(branches.pos, arm), arm)
    for branches in function.branches:
        body = bodies.get(branches.pos)
        if body is not None and body[2:] <= branches.arms[0][:2]:
            handlers = branches.arms[:-1] if branches.ends_in_else else branches.arms
            yield branches.pos, (body, *handlers), branches.arms[-1] if branches.ends_in_else else None


def _fallbacks_of(param: Param) -> tuple[Pos, ...]:
    """Where the statements giving `param` a value where it holds None are: its fallback's, and the
    later ones, which keep what it holds (Java's `held = Objects.requireNonNullElse(held, other);`
    after `if (held == null) held = lock;`)."""
    return (param.fallback_at, *param.fallback_again_at) if param.fallback_at is not None else ()


def _after(fallback_at: Pos, within: Pos | None, line: int | None) -> bool:
    """Whether a use of a parameter on `line` (None: anywhere) comes after its fallback's statement
    at `fallback_at`, and where that is nested in the block `within` (Java: `if (ready) { if (held ==
    null) held = lock; ... }`), inside it: after the block, a pass may not have run the statement."""
    return line is None or line > fallback_at[2] and (within is None or line <= within[2])


def _passes_none(arg: Arg) -> bool:
    """Whether an argument is None (Java: `null`, cast or not)."""
    return arg.ref == _NONE or arg.passes_null
