"""The call graph (networkx): resolved calls, constructors, properties, and marked hand-offs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from epochlint.frontend.facts import FLOW_ARG, FLOW_RECEIVER, Access, Arg, Call, FunctionFacts, Pos, Ref, Site
from epochlint.program.symbols import (
    PARTIAL,
    UNKNOWN,
    Entity,
    Symbols,
    bound_ahead,
    bound_arguments,
    function_id,
    may_name_a_method,
    receiver_path,
    star_elements,
    star_parameter_arguments,
)

# networkx is imported where a graph is built: a run that only moves earlier findings imports the
# rules, never builds a graph, and is spared its import (a sixth of such a run).
if TYPE_CHECKING:
    import networkx as nx

# Builtins that call a function argument on the spot, once per element: batch loops.
ITERATING_BUILTINS = frozenset(
    {
        "map", "filter", "sorted", "min", "max", "any", "all", "functools.reduce",
        # Java's `Collections.max(batch, comparator)` and the like.
        "java.util.Collections.max", "java.util.Collections.min", "java.util.Collections.sort",
    }
)
# Builtins that, given more than one positional argument, take them as the elements to compare.
_ELEMENTS_AS_ARGUMENTS = frozenset({"min", "max"})
# Calls whose coroutine argument runs later, as a task of its own (gather wraps each in one).
_TASK_SPAWNERS = frozenset({"create_task", "ensure_future", "run_coroutine_threadsafe", "gather"})
# Hand-offs that later call the function they are given with their further arguments, by the
# function's position (`executor.submit(fn, *args, **kwargs)`, `loop.call_later(delay, callback,
# *args)`, `loop.run_in_executor(executor, func, *args)`), and the keyword that is their own.
_FORWARDING_HAND_OFFS = {
    "submit": 0,
    "to_thread": 0,
    "call_soon": 0,
    "call_soon_threadsafe": 0,
    "call_later": 1,
    "call_at": 1,
    "run_in_executor": 1,
}
_HAND_OFF_KEYWORDS = frozenset({"context"})
# Functions of the standard library that take a function only to copy what names and documents it
# (`@functools.wraps(func)` on a decorator's wrapper), or to ask what it is (`callable(fn)`,
# `inspect.iscoroutinefunction(fn)`, `inspect.signature(fn)`): they never run it.
_INSPECTING_BUILTINS = ("callable", "isinstance", "issubclass", "hasattr", "getattr", "id", "type")
_INSPECTING_FUNCTIONS = (
    *(
        f"inspect.{name}"
        for name in (
            "isgenerator", "iscoroutine", "isawaitable", "isasyncgen", "isgeneratorfunction",
            "iscoroutinefunction", "isasyncgenfunction", "isfunction", "ismethod", "isroutine",
            "isbuiltin", "isclass", "signature", "getfullargspec", "getmodule", "getsource",
            "getsourcefile", "getdoc",
        )
    ),
    "asyncio.iscoroutinefunction",
    "asyncio.iscoroutine",
)
_NEVER_RUN = frozenset(
    {
        "functools.wraps",
        "functools.update_wrapper",
        *_INSPECTING_FUNCTIONS,
        *_INSPECTING_BUILTINS,
        *(f"builtins.{name}" for name in _INSPECTING_BUILTINS),
    }
)
# Functions of the standard library that do the same, known by what they are: the function's
# position (`atexit.register(func, *args, **kwargs)`, `weakref.finalize(obj, func, *args)`).
_FORWARDING_FUNCTIONS = {"atexit.register": 0, "weakref.finalize": 1}
# Classes that start a function later with the arguments they are given as a tuple and a dict:
# the function's, the tuple's and the dict's places among their own parameters (position, name).
_STARTED_WITH_ARGUMENTS = {
    "threading.Thread": ((1, "target"), (3, "args"), (4, "kwargs")),
    "threading.Timer": ((1, "function"), (2, "args"), (3, "kwargs")),
    "multiprocessing.Process": ((1, "target"), (3, "args"), (4, "kwargs")),
}
# The same classes: their `start()` runs the instance's `run()` in a thread or process of its own,
# so a project subclass overriding `run` is started by it.
_STARTS_RUN = frozenset(_STARTED_WITH_ARGUMENTS)
# Builtins that make a sort key of the function given them: the sort that uses it calls it.
_KEY_MAKING_BUILTINS = frozenset({"functools.cmp_to_key"})


class _LibraryCalls(NamedTuple):
    """The calls of one language's library, known by their method's name where the callee is no
    function of the project, that run a function argument on the spot or make something of it."""

    # Calls that run a function argument on the spot, once per element: batch loops.
    iterating: frozenset[str]
    # Methods of a list that run the function given as their `key` once per element, where the
    # object they are called on may be a list.
    list_sorts: frozenset[str]
    # Calls that run a function argument on the spot but are not batch loops.
    on_the_spot: frozenset[str]
    # Calls that make a comparator, a sort key or a collector of the functions given them: the sort
    # or the `collect` that uses what they make calls them.
    makers: frozenset[str]
    # Whether a maker's own call hands its functions off too (it runs none of them there).
    makers_hand_off: bool


# Python: `batch.sort(key=f)`, `Condition.wait_for`. Any other function given to a method of an
# unresolved receiver is a hand-off, whatever the method's name (`keys.comparing(f)`, `ranks.max(f)`
# too: no guessing by name, RULES.md, Reading through calls; `sorted`, `max` and `min` are builtins,
# resolved as such), and so is the one given to `functools.cmp_to_key` (RULES.md, Entry lockset),
# though the sort using the key it makes runs it.
_PYTHON_CALLS = _LibraryCalls(
    iterating=frozenset(),
    list_sorts=frozenset({"sort"}),
    on_the_spot=frozenset({"wait_for"}),
    makers=frozenset(),
    makers_hand_off=True,
)
# Java: `batch.stream().sorted(comparator)`, `max(comparator)`, `collect(collector)`; an `Optional`'s
# fallbacks (`or`'s supplier runs there where the `Optional` is empty, as `orElseGet`'s; a
# `Predicate`'s `or`, which `Call.composes` marks, runs nothing there) and a
# `Map`'s update of one key; `Comparator`'s makers and the `Collectors` (downstream ones too), whose
# functions run where what they make is used, with the locks held there.
_JAVA_CALLS = _LibraryCalls(
    iterating=frozenset({"sort", "sorted", "max", "min", "collect"}),
    list_sorts=frozenset(),
    on_the_spot=_PYTHON_CALLS.on_the_spot
    | {
        "ifPresentOrElse", "orElseGet", "orElseThrow", "or", "computeIfAbsent", "computeIfPresent", "compute",
        "merge",
    },
    makers=frozenset(
        {
            "comparing", "comparingInt", "comparingLong", "comparingDouble", "thenComparing", "thenComparingInt",
            "thenComparingLong", "thenComparingDouble", "toMap", "toUnmodifiableMap", "toConcurrentMap",
            "groupingBy", "groupingByConcurrent", "partitioningBy", "mapping", "filtering", "flatMapping",
            "reducing", "collectingAndThen", "teeing", "minBy", "maxBy", "summingInt", "summingLong",
            "summingDouble", "averagingInt", "averagingLong", "averagingDouble", "summarizingInt",
            "summarizingLong", "summarizingDouble",
        }
    ),
    makers_hand_off=False,
)
# Java's `Collectors` whose result (a map, a list, a reduced value) holds what the functions given
# them return for each element: not those that only compare, test or count (`maxBy`,
# `partitioningBy`, `filtering`, `summingLong`). Any collector holds what a collector given it makes.
_VALUE_COLLECTORS = frozenset(
    {
        "toMap", "toUnmodifiableMap", "toConcurrentMap", "groupingBy", "groupingByConcurrent", "mapping",
        "flatMapping", "reducing", "collectingAndThen", "teeing",
    }
)
# Java's stream operations that give the elements of the stream they are called on (a few, or in
# another order, or as a list), and the collectors that do given to `collect` (`Collectors.toList()`;
# not a count or a sum). A stream's `map(f)` and `filter(p)` are no calls: the frontend runs their
# function there, per element (a mapping's result is what the call gives).
_ELEMENT_KEEPING_OPERATIONS = frozenset(
    {"distinct", "sorted", "limit", "skip", "sequential", "parallel", "unordered", "toList", "findFirst", "findAny"}
)
_ELEMENT_COLLECTORS = frozenset({"toList", "toSet", "toUnmodifiableList", "toUnmodifiableSet", "toCollection"})
# Python's named constants: what a method called on one is, no import says.
_CONSTANTS = frozenset({"None", "True", "False", "Ellipsis", "NotImplemented"})

CALL = "call"
CONSTRUCTOR = "ctor"
PROPERTY = "property"
HANDOFF = "handoff"
# A function run on the spot by a builtin such as map(): it runs with the caller's locks.
ON_THE_SPOT = "spot"


# A parameter: the qualified name of the function it belongs to, and its name.
Parameter = tuple[str, str]
# Different states of one function that one search keeps (see `Contexts`): far more than the
# ways real code reaches a helper from one place.
MAX_CONTEXTS = 8


@dataclass(frozen=True)
class CallSite:
    """One edge of the call graph at one place in the caller."""

    caller: str
    callee: str
    kind: str
    site: Site
    call_id: int = -1
    # For ON_THE_SPOT edges of iterating builtins: the call is a batch loop.
    iterating: bool = False
    # The callee was passed as an argument (`submit(f)`, `map(f, xs)`), not called here.
    via_argument: bool = False
    # The parameter whose value is called here (`def retry(do): return do()`), or, with
    # `on_parameter`, whose method is (`def deliver(conn): return conn.send()`), where one is.
    through_parameter: Parameter | None = None
    on_parameter: bool = False
    # Positional arguments a `functools.partial` called here binds ahead of the call's own.
    bound_ahead: int = 0

    @property
    def pos(self) -> Pos:
        return self.site.pos

    @property
    def inherits_locks(self) -> bool:
        return self.kind != HANDOFF


# What the path parameters of a function hold on one path through calls, by parameter (see
# `CallGraph.passed_on`); a parameter that is not there holds whatever any caller passes.
Passed = tuple[tuple[Parameter, frozenset[Entity]], ...]
# A call handing a value on as one of its arguments: the function making it, the call, the argument.
HandOn = tuple[str, Call, Arg]


class CallGraph:
    """Resolved call sites of a unit, with a networkx DiGraph of functions over them."""

    def __init__(self, symbols: Symbols, iteration_helpers: frozenset[str]) -> None:
        # Indexes built on first use by the properties that return them: not cached_property,
        # which mypyc (see docs/speed.md) compiles into one that computes again at every use.
        self._defined_in_found: dict[str, list[str]] | None = None
        self._nested_in_found: dict[str, list[str]] | None = None
        self.symbols = symbols
        self.iteration_helpers = iteration_helpers
        import networkx as nx

        self.graph: nx.DiGraph = nx.DiGraph()
        self.sites_from: dict[str, list[CallSite]] = {}
        self.sites_to: dict[str, list[CallSite]] = {}
        # (caller, call id) -> the sites that call made, for rules that start from a call.
        self.sites_of_call: dict[tuple[str, int], list[CallSite]] = {}
        # Calls of imported names outside the unit (`ext.function`), by caller: not graph nodes.
        self.external_calls: dict[str, set[str]] = {}
        self._path_parameters: dict[str, frozenset[Parameter]] = {}
        self._used_parameters_of: dict[str, frozenset[Parameter]] = {}
        self._parameters_named: dict[tuple[str, str, str], Parameter | None] = {}
        self._values_cache: dict[tuple[str, Arg], frozenset[Entity] | None] = {}
        self.graph.add_nodes_from(symbols.functions)
        for fid in sorted(symbols.functions):
            for site in self._sites_in(fid):
                self._add(site)
        # The clones of wrappers that calls reach, and those their calls reach in turn.
        done: set[str] = set()
        while pending := sorted(fid for fid in symbols.clones if fid in self.graph and fid not in done):
            for fid in pending:
                done.add(fid)
                for site in self._sites_in(fid):
                    self._add(site)

    def _add(self, site: CallSite) -> None:
        self.sites_from.setdefault(site.caller, []).append(site)
        self.sites_to.setdefault(site.callee, []).append(site)
        if site.call_id >= 0:
            self.sites_of_call.setdefault((site.caller, site.call_id), []).append(site)
        if self.graph.has_edge(site.caller, site.callee):
            self.graph.edges[site.caller, site.callee]["sites"].append(site)
        else:
            self.graph.add_edge(site.caller, site.callee, sites=[site])

    def _sites_in(self, fid: str) -> list[CallSite]:
        function = self.symbols.function(fid)
        spawned = {
            given.call
            for call in function.calls
            if call.method in _TASK_SPAWNERS
            for arg in call.args
            for given in (arg.items if arg.kind == "star" else (arg,))
            if given.kind == "call"
        }
        sites: list[CallSite] = []
        for call in function.calls:
            sites.extend(self._call_sites(fid, call, handed_off=call.id in spawned))
        sites.extend(self._decorator_sites(fid))
        sites.extend(self._iteration_sites(fid))
        sites.extend(self._context_sites(fid))
        for raised in function.raised:
            for value in sorted(self.symbols.path_values(fid, raised.ref), key=lambda e: e.target):
                init = self.symbols.lookup_method(value.target, "__init__") if value.kind == "class" else ""
                if init:
                    sites.append(CallSite(fid, init, CONSTRUCTOR, raised.site))
        for access in function.accesses:
            for getter in self.symbols.property_reads(fid, access.ref, access.above):
                sites.append(CallSite(fid, getter, PROPERTY, access.site))
        for write in function.writes:
            setter = self.symbols.property_write(fid, write)
            if setter:
                sites.append(CallSite(fid, setter, PROPERTY, write.site))
        return sites

    def _iteration_sites(self, fid: str) -> list[CallSite]:
        """A loop over an instance of a project class runs its `__iter__`, and `__next__` on
        what that returns."""
        sites = []
        for bind in self.symbols.function(fid).binds:
            if bind.kind not in ("iter", "iter_part") or bind.index > 0:
                continue
            for _, method in self.symbols.iteration_methods(fid, bind):
                sites.append(CallSite(fid, method, CALL, bind.site))
        return sites

    def _context_sites(self, fid: str) -> list[CallSite]:
        """A `with` item of an instance of a project class runs its `__enter__` there, before the
        body, and its `__exit__` where the statement ends."""
        function = self.symbols.function(fid)
        regions = {region.id: region for region in function.regions}
        sites: list[CallSite] = []
        for entered in function.entered:
            for methods in self.symbols.context_methods(fid, regions[entered.region]):
                places = (entered.site, entered.exit)
                # An ExitStack's `pop_all()` may have taken the `__exit__` out of the function.
                called = [(method, site) for method, site in zip(methods, places) if method and site is not None]
                sites.extend(CallSite(fid, method, CALL, site) for method, site in called)
        return sites

    def _decorator_sites(self, fid: str) -> list[CallSite]:
        """The calls of the project decorators of the functions defined in `fid`, where they run."""
        sites = []
        for defined in self._defined_in.get(fid, ()):
            function = self.symbols.function(defined)
            for decorator in self.symbols.decorators(defined):
                for value in sorted(decorator, key=lambda e: e.target):
                    if value.kind == "function":
                        sites.append(CallSite(fid, value.target, CALL, Site(function.pos)))
        return sites

    @property
    def _defined_in(self) -> dict[str, list[str]]:
        if self._defined_in_found is None:
            self._defined_in_found = self._find_defined_in()
        return self._defined_in_found

    def _find_defined_in(self) -> dict[str, list[str]]:
        """Decorated functions by the function whose code defines them."""
        found: dict[str, list[str]] = {}
        for fid, (_, function) in sorted(self.symbols.functions.items()):
            if function.decorator_values:
                found.setdefault(self.symbols.defining_scope(fid), []).append(fid)
        return found

    def _call_sites(self, fid: str, call: Call, handed_off: bool) -> list[CallSite]:
        sites = []
        parameter = self._parameter_called(fid, call)
        on_parameter = parameter is not None and bool(call.callee and call.callee.attrs)
        for target, callee in call_targets(self.symbols, fid, call):
            kind = HANDOFF if handed_off else CONSTRUCTOR if callee.kind == "class" else CALL
            sites.append(
                CallSite(
                    fid,
                    target,
                    kind,
                    call.site,
                    call.id,
                    through_parameter=parameter,
                    on_parameter=on_parameter,
                    bound_ahead=bound_ahead(callee),
                )
            )
        for callee in self.symbols.callees(fid, call):
            # Builtins are named without a module (`print`): only imported names are kept, not the
            # method of a constant (`None.send`, where a field may hold None).
            imported = callee.kind == "external" and "." in callee.target
            if imported and callee.target.partition(".")[0] not in _CONSTANTS:
                self.external_calls.setdefault(fid, set()).add(callee.target)
            if callee.kind == "class" and not self.symbols.lookup_method(callee.target, "__init__"):
                for base in self.symbols.external_bases(callee.target)[:1]:
                    self.external_calls.setdefault(fid, set()).add(f"{base}.__init__")
        for run in self._runs_started(fid, call):
            sites.append(CallSite(fid, run, HANDOFF, call.site, call.id))
        callee = self.symbols.callee(fid, call)
        library = self._library_calls(fid)
        makes = self._is_maker(callee, call, library)
        if (callee.kind == "external" and callee.target in _NEVER_RUN) or (makes and not library.makers_hand_off):
            return sites
        runs_on_the_spot = callee.kind != "function" and call.method in library.on_the_spot and not call.composes
        per_element = self._iterates(fid, callee, call, library)
        # Once per element of a collection written out, a range or an `Optional`: on the spot, in no batch loop.
        batch_loop = per_element and not self._walks_no_batch(fid, callee, call)
        for index, arg in enumerate(call.args):
            for function in self._functions_passed(fid, arg):
                if index == 0 and not arg.keyword and self._decorates(fid, call, callee, function):
                    continue
                kind = ON_THE_SPOT if runs_on_the_spot or per_element else HANDOFF
                sites.append(CallSite(fid, function, kind, call.site, call.id, batch_loop, via_argument=True))
        return sites

    def _decorates(self, fid: str, call: Call, callee: Entity, function: str) -> bool:
        """Whether a project function given `function` first is a decorator of it: it returns the
        function or a wrapper calling it (`return _wrap(func)` in a decorator that hands its function
        to another), which runs it where the result is called, not here. An abstract stub returns
        nothing: the implementations `call` in `fid` may run in its place decide."""
        if callee.kind != "function":
            return False
        passed = frozenset({Entity("function", function)})
        return any(
            value.kind == "function"
            for decorator in {callee.target, *self.symbols.implementations_run(fid, call, callee)}
            for value in self.symbols.returned_given(decorator, passed)
        )

    def _runs_started(self, fid: str, call: Call) -> list[str]:
        """The `run` methods that a `start()` call starts, each in a thread or process of its own:
        those of the project's subclasses of a class in `_STARTS_RUN` that the receiver holds
        instances of (where the project defines no `start` of its own for them), or of `self`'s
        class and its subclasses for `super().start()` in a method of one."""
        if call.method != "start" or call.args:
            return []
        runs = set()
        for cid in self._classes_started(fid, call):
            run = self.symbols.lookup_method(cid, "run")
            if run and not set(self.symbols.external_bases(cid)).isdisjoint(_STARTS_RUN):
                runs.add(run)
        return sorted(runs)

    def _classes_started(self, fid: str, call: Call) -> list[str]:
        """The project classes whose instances a `start()` call is made on, and whose `start` is
        not the project's own; for `super().start()`, `self`'s class and its subclasses."""
        symbols = self.symbols
        receiver = symbols.call(fid, call.receiver_call) if call.receiver_call >= 0 else None
        if receiver is not None and (cls := symbols.super_class(fid, receiver)) is not None:
            return [cls, *symbols.subclasses_seen_from(cls, fid)] if cls else []
        return [
            value.target
            for value in self._receiver_values(fid, call) or ()
            if value.kind == "instance" and value.target in symbols.classes
            and not symbols.lookup_method(value.target, "start")
        ]

    def _receiver_values(self, fid: str, call: Call) -> frozenset[Entity] | None:
        """What the object a method call is made on may be (the result of the call it is made on,
        or the values of its path); None for a call made on no object (`f()`)."""
        symbols = self.symbols
        receiver = symbols.call(fid, call.receiver_call) if call.receiver_call >= 0 else None
        if receiver is not None:
            return frozenset({symbols.call_result(fid, receiver)})
        path = receiver_path(call)
        if path is None:
            return None
        at = (fid, call.site.pos, call.block) if call.callee_keys else None
        return symbols.path_values(fid, path, keys=call.callee_keys, at=at)

    def _may_sort_a_list(self, fid: str, call: Call) -> bool:
        """Whether a call may be `list.sort(key=f)`, which runs `f` once per element: it is given a
        `key` by keyword, on an object that may be a list. One that only holds instances of project
        classes deriving from no list is none: their `sort`, none of the project's, is a library
        base's or a `__getattr__`'s, which may keep the function (RULES.md, Reading through calls)."""
        if not any(arg.keyword == "key" for arg in call.args):
            return False
        values = self._receiver_values(fid, call)
        if values is None:
            return False
        classes = self.symbols.classes
        return not values or any(
            value.kind != "instance" or value.target not in classes or self.symbols.derives_from_list(value.target)
            for value in values
        )

    def _parameter_called(self, fid: str, call: Call) -> Parameter | None:
        """The path parameter that `call` calls as it is (`do()`, or through a local that holds it:
        `action = do; action()`), or calls a method of (`conn.send()`), if there is one."""
        callee = call.callee
        if callee is None or len(callee.attrs) > 1:
            return None
        parameter = self._parameter_named(self.symbols.module_of(fid).name, callee)
        return parameter if parameter in self.path_parameters(fid) else None

    def path_parameters(self, fid: str) -> frozenset[Parameter]:
        """The parameters, of `fid` or of a function it is nested in, that `fid` (or a function
        nested in it, for its own) calls, calls a method of, or passes on as an argument, as
        they are, and that are never bound to anything else (a method's `self` too, bound to the
        object the method is called on, where a call on it chooses between the methods of several
        classes): what they hold on a path is what the calls along it passed (see `passed_on`). A
        decorator's clone has none: its wrapper holds only its own function."""
        found = self._path_parameters.get(fid)
        if found is None:
            own = self.symbols.function(fid).qualname
            found = self._used_parameters(fid).union(
                param
                for nested in self._nested_in.get(fid, ())
                for param in self._used_parameters(nested)
                if param[0] == own
            )
            self._path_parameters[fid] = found
        return found

    def _used_parameters(self, fid: str) -> frozenset[Parameter]:
        """`_path_parameters` of `fid`, found once: a nested function's are asked for again by each
        function around it."""
        found = self._used_parameters_of.get(fid)
        if found is None:
            found = self._used_parameters_of[fid] = _path_parameters(self.symbols, fid, self._parameter_named)
        return found

    def _parameter_named(self, module: str, ref: Ref) -> Parameter | None:
        """`_parameter_named`, found once per name: the facts alone answer it, asked for the callee
        and the arguments of each call, and again at each call a search takes (see `passed_on`)."""
        if ref.attrs[1:] or not ref.scope:
            return None
        key = (module, ref.scope, ref.name)
        if key not in self._parameters_named:
            self._parameters_named[key] = _parameter_named(self.symbols, module, ref)
        return self._parameters_named[key]

    def handed_on(self, fid: str, name: str, called: bool) -> list[HandOn] | None:
        """The calls by which `fid` and the functions defined inside it hand the value of its
        parameter or local `name` on, whole, as an argument (`call(fn, action)`), where every other
        read of it is a call of it (none unless `called`: a parameter's are calls through it, see
        `_parameter_called`), or puts it in a local bound once, to it, read only in these ways
        (`f = fn; f(action)`). None where it is read any other way (stored, returned, compared, an
        attribute of it read): its value may then go anywhere."""
        # A copy of a parameter is called through it only where nothing binds the parameter again.
        copies = not called or self.symbols.only_a_parameter(fid, name)
        return self._hand_ons(fid, name, called, copies)

    def _hand_ons(self, fid: str, name: str, called: bool, copies: bool) -> list[HandOn] | None:
        """`handed_on`, following copies into locals (and copies of those) only where `copies`."""
        scope = self.symbols.function(fid).qualname
        functions = (fid, *self._nested_in.get(fid, ()))
        if not called and any(_calls_name(self.symbols.function(each), scope, name) for each in functions):
            return None
        found: list[HandOn] = []
        for each in functions:
            for access in self.symbols.function(each).accesses:
                if access.ref.scope != scope or access.ref.name != name or called and self._runs_read(each, access):
                    continue
                copy = _local_copied_to(self.symbols, fid, access) if copies and each == fid else None
                more = self._hand_ons(fid, copy, called, True) if copy else _handed_on_by(self.symbols, each, access)
                if more is None:
                    return None
                found.extend(hand_on for hand_on in more if hand_on not in found)
        return found

    def _runs_read(self, fid: str, access: Access) -> bool:
        """Whether `access` reads, in `fid`, the Java function that the call it is the receiver of
        runs (`fn.accept(act)`): a call of the value it reads, as `fn(act)` is."""
        if access.flow.kind != FLOW_RECEIVER or access.ref.attrs:
            return False
        # The functions the call is handed as arguments (`fn.accept(act)` hands `act` on) aside.
        sites = [site for site in self.sites_of_call.get((fid, access.flow.call), []) if not site.via_argument]
        return bool(sites) and all(self.runs_its_value(site) for site in sites)

    def runs_its_value(self, site: CallSite) -> bool:
        """Whether `site` calls the value of a parameter: `fn(act)`, or the Java lambda or method
        reference it holds through its interface's method (`fn.accept(act)`, a name not the
        referenced method's own); not a method of an object it holds (`conn.send()`)."""
        if site.through_parameter is None or site.via_argument:
            return False
        if not site.on_parameter:
            return True
        call = self.symbols.call(site.caller, site.call_id)
        return (
            call is not None
            and self.symbols.is_java_function(site.callee)
            and call.method != self.symbols.function(site.callee).name
        )

    @property
    def _nested_in(self) -> dict[str, list[str]]:
        if self._nested_in_found is None:
            self._nested_in_found = self._find_nested_in()
        return self._nested_in_found

    def _find_nested_in(self) -> dict[str, list[str]]:
        """The functions defined inside each function (at any depth): its parameters are theirs
        to call too."""
        found: dict[str, list[str]] = {}
        for fid, (module, function) in self.symbols.functions.items():
            scope = function.qualname.rpartition(".")[0]
            while scope:
                found.setdefault(function_id(module.name, scope), []).append(fid)
                scope = scope.rpartition(".")[0]
        return found

    def passed_on(self, site: CallSite, passed: Passed) -> Passed:
        """What the path parameters of `site.callee` hold on a path that takes `site`, when those
        its caller sees hold `passed` there: for its own, what the call passes each (to a method's
        `self`, the object it is called on), where all of
        it is known (functions, bound methods and lambdas; or instances of the project's classes;
        or a path parameter the path holds); for those of a function it is nested in (a closure
        called where it is defined), what they hold in the caller."""
        params = self.path_parameters(site.callee)
        if not params:
            return ()
        holds = dict(passed)
        scope = self.symbols.function(site.callee).qualname
        found = {param: holds[param] for param in params if param[0] != scope and param in holds}
        call = self.symbols.call(site.caller, site.call_id) if site.kind == CALL and not site.via_argument else None
        module = self.symbols.module_of(site.caller).name
        bound = bound_arguments(self.symbols.function(site.callee), call, site.bound_ahead) if call is not None else ()
        for name, arg in (*self._receiver_bound(site, call), *bound):
            param = (scope, name)
            if param not in params:
                continue
            handed_on = self._parameter_named(module, arg.ref) if arg.kind == "ref" and arg.ref else None
            if handed_on in holds:
                found[param] = holds[handed_on]
                continue
            values = self._values_passed(site.caller, arg)
            if values is not None:
                found[param] = values
        return tuple(sorted(found.items()))

    def _receiver_bound(self, site: CallSite, call: Call | None) -> tuple[tuple[str, Arg], ...]:
        """The `self` of the method `site` calls, bound by `call` to the object it is called on
        (`client.publish()`, `self.flush()`, and the caller's own `self` for `super().publish()`),
        as an argument; nothing where the call is not made on a named object."""
        self_name = self.symbols.self_param(site.callee)
        if call is None or not self_name or self.symbols.function(site.callee).kind != "method" or site.bound_ahead < 0:
            # A method taken from its class is given its `self` among the call's arguments.
            return ()
        receiver = self._receiver(site.caller, call)
        return ((self_name, Arg("", "ref", receiver, text=receiver.text())),) if receiver is not None else ()

    def _receiver(self, fid: str, call: Call) -> Ref | None:
        """The named object a method call in `fid` is made on, if it is one."""
        if call.callee is not None:
            path = receiver_path(call)
            return path if path is not None and "[]" not in call.callee.attrs else None
        receiver = self.symbols.call(fid, call.receiver_call) if call.receiver_call >= 0 else None
        own_self = self.symbols.self_param(fid)
        if receiver is None or not own_self or self.symbols.super_class(fid, receiver) is None:
            return None
        return Ref(self.symbols.function(fid).qualname, own_self)

    def runs_after(self, passed: Passed, site: CallSite) -> bool:
        """Whether a path on which the path parameters `site.caller` sees hold `passed` can go on
        through `site`: the call of a parameter runs only a function the path passed it, a method
        called on one only a method of the classes of the instances the path passed it (their
        own, inherited, or overridden below them)."""
        if site.through_parameter is None:
            return True
        values = next((held for param, held in passed if param == site.through_parameter), None)
        if values is None:
            return True
        if site.on_parameter and (not self._java_functions(values) or self.symbols.is_default_method(site.callee)):
            return self._method_of_any(site.callee, values)
        # A function from outside the project (`print`) runs none of the project's code; a Java
        # function called through its interface's method (`action.accept(m)`) runs only itself, but
        # a `default` one (`h.checked(m)`) its own body.
        return any(
            value.kind not in ("function", "external")
            or (value.target, bound_ahead(value)) == (site.callee, site.bound_ahead)
            for value in values
        )

    def _java_functions(self, values: frozenset[Entity]) -> bool:
        """Whether `values` are functions of which some are Java lambdas or method references, the
        others from outside the project: what a method called on them runs is one of them."""
        return all(value.kind in ("function", "external") for value in values) and any(
            value.kind == "function" and self.symbols.is_java_function(value.target) for value in values
        )

    def _method_of_any(self, method: str, values: frozenset[Entity]) -> bool:
        """Whether `method` can run on what `values` holds: a method of a class that is one of the
        instances' classes, above or below it; anything, where they are not all instances."""
        owner = self.symbols.class_of_function(method)
        if not owner or any(value.kind != "instance" for value in values):
            return True
        # The instance may be of a subclass, whose bases can bring the method in (a mixin).
        return any(
            owner in self.symbols.mro(cls)
            for value in values
            for cls in (value.target, *self.symbols.subclasses(value.target))
        )

    def _values_passed(self, fid: str, arg: Arg) -> frozenset[Entity] | None:
        """What an argument of a call in `fid` passes; None unless all of it is known: every value
        a plain function of the project (not a class, a decorated function's clone, anything
        unresolved) or a function from outside it (`print`, `time.sleep`), or every value an
        instance of one of the project's classes."""
        key = (fid, arg)
        if key not in self._values_cache:
            values = self.symbols.argument_values(fid, arg)
            functions = all(_is_plain_function(self.symbols, v) for v in values)
            instances = all(v.kind == "instance" and v.target in self.symbols.classes for v in values)
            self._values_cache[key] = values if values and (functions or instances) else None
        return self._values_cache[key]

    def _functions_passed(self, fid: str, arg: Arg) -> list[str]:
        """The functions an argument passes as they are: a function, bound method or lambda, or
        what a `functools.partial` made there wraps (`map(partial(self._deliver, topic), batch)`),
        or a comparator, a sort key or a collector made of (`Comparator.comparingLong(m -> ...)`,
        `cmp_to_key(f)`, `Collectors.toMap(m -> ..., m -> ...)`), which calls them where it is used;
        those of each arm of a conditional (`map(a if fast else b, batch)`)."""
        if arg.arms:
            return sorted({function for arm in arg.arms for function in self._functions_passed(fid, arm)})
        if (call := self.symbols.argument_call(fid, arg)) is not None:
            if self._is_maker(self.symbols.callee(fid, call), call, self._library_calls(fid)):
                return sorted({function for inner in call.args for function in self._functions_passed(fid, inner)})
            wrapped = self.symbols.partial_values(fid, call)
            return sorted({value.target for value in wrapped if value.kind == "function"})
        return self._function_given(fid, arg)

    def functions_held(self, fid: str, call: Call) -> list[str]:
        """The functions whose results make up what a Java `collect` call returns: those its
        collector maps each element to (`collect(Collectors.toMap(m -> key, m -> value))`), also
        through the collectors it is made of (`groupingBy(f, mapping(g, toList()))`)."""
        if call.method != "collect" or not self.symbols.is_java_function(fid):
            return []
        if self.symbols.callee(fid, call).kind == "function":
            return []
        return sorted({function for arg in call.args for function in self._collected_by(fid, arg)})

    def functions_mapped(self, fid: str, call: Call) -> list[tuple[str, int, Call]]:
        """The functions Python's builtin `map(f, *iterables)` runs (each one `f` may hold), and
        whose results make up what it returns, with the positional arguments bound ahead of its own
        (see `bound_ahead`) and the call as it binds their parameters: `f(*elements)`, one element
        of each iterable."""
        callee = self.symbols.callee(fid, call)
        if callee.kind != "external" or callee.target != "map" or self.symbols.is_java_function(fid):
            return []
        if not call.args or call.args[0].keyword or call.args[0].star:
            return []
        as_bound = call._replace(args=call.args[1:])
        given = [value for value in self.symbols.argument_values(fid, call.args[0]) if value.kind == "function"]
        given.sort(key=lambda e: (e.target, e.keys))
        return [(value.target, bound_ahead(value), as_bound) for value in given]

    def keeps_elements(self, fid: str, call: Call) -> bool:
        """Whether a Java call of no project function gives the elements of the stream it is called
        on: `sorted()`, `toList()`, `collect(Collectors.toList())` (see `_ELEMENT_KEEPING_OPERATIONS`)."""
        if not self.symbols.is_java_function(fid) or self.symbols.callee(fid, call).kind == "function":
            return False
        if call.method in _ELEMENT_KEEPING_OPERATIONS:
            return True
        collectors = [self.symbols.argument_call(fid, arg) for arg in call.args] if call.method == "collect" else []
        return any(made is not None and made.method in _ELEMENT_COLLECTORS for made in collectors)

    def _function_given(self, fid: str, arg: Arg) -> list[str]:
        """The functions an argument passes as they are (a lambda, a method reference), each one a
        name may hold, as a call of the name runs each: `check` of `for check in [self._a,
        self._b]: map(check, batch)`, a parameter bound to two functions."""
        if arg.kind != "ref" or arg.ref is None or arg.ref.attrs:
            # Only a local or a parameter takes several functions; every value of any other
            # argument of every call costs a quarter of a one-file run more.
            given = self.symbols.argument_value(fid, arg)
            return [given.target] if given.kind == "function" else []
        return sorted({value.target for value in self.symbols.argument_values(fid, arg) if value.kind == "function"})

    def _collected_by(self, fid: str, arg: Arg) -> set[str]:
        """The functions whose results the collector made by an argument holds (see `_VALUE_COLLECTORS`)."""
        made = self.symbols.argument_call(fid, arg)
        if made is None or not self._is_maker(self.symbols.callee(fid, made), made, _JAVA_CALLS):
            return set()
        found: set[str] = set()
        for inner in made.args:
            if made.method in _VALUE_COLLECTORS:
                found.update(self._function_given(fid, inner))
            found |= self._collected_by(fid, inner)
        return found

    def _library_calls(self, fid: str) -> _LibraryCalls:
        """The library calls known by name in the language `fid` is written in."""
        return _JAVA_CALLS if self.symbols.is_java_function(fid) else _PYTHON_CALLS

    def _iterates(self, fid: str, callee: Entity, call: Call, library: _LibraryCalls) -> bool:
        name = callee.target if callee.kind == "external" else ""
        if name in ITERATING_BUILTINS or (callee.kind != "function" and call.method in library.iterating):
            return True
        if callee.kind != "function" and call.method in library.list_sorts and self._may_sort_a_list(fid, call):
            return True
        return bool(self.iteration_helpers) and (
            name in self.iteration_helpers or call.method in self.iteration_helpers
        )

    def _walks_no_batch(self, fid: str, callee: Entity, call: Call) -> bool:
        """Whether a call running a function once per element walks no batch (RULES.md, Batch loop):
        it is called on a collection written out or a range of a count (`[a, b].sort(key=f)`, Java's
        `List.of(a, b).stream()`), or every positional argument passing no function is one
        (`sorted((a, b), key=f)`, `map(f, range(3))`), or they are the elements `min` and `max`
        compare, written out one by one (`max(a, b, key=f)`)."""
        if call.walks_no_batch:
            return True
        walked = [arg for arg in call.args if not arg.keyword and not self._functions_passed(fid, arg)]
        if callee.kind == "external" and callee.target in _ELEMENTS_AS_ARGUMENTS and len(walked) > 1:
            return not any(arg.star for arg in walked)
        return bool(walked) and all(arg.walks_no_batch for arg in walked)

    @staticmethod
    def _is_maker(callee: Entity, call: Call, library: _LibraryCalls) -> bool:
        """Whether `call` makes a comparator, a sort key or a collector of the functions it is given."""
        if callee.kind == "external" and callee.target in _KEY_MAKING_BUILTINS:
            return True
        return callee.kind != "function" and call.method in library.makers

    def handed_off(self, fid: str) -> bool:
        return any(site.kind == HANDOFF for site in self.sites_to.get(fid, ()))


class Contexts:
    """What one search keeps of what its paths pass (see `CallGraph.passed_on`): at most
    `MAX_CONTEXTS` different states of one function; beyond, the function is entered as if the
    path had passed nothing known (its parameters hold what every caller passes). Helpers handing
    several callbacks on through each other could otherwise give a function one state per
    combination of them, and a search as many."""

    def __init__(self, calls: CallGraph) -> None:
        self._calls = calls
        self._met: dict[str, set[Passed]] = {}

    def entering(self, site: CallSite, passed: Passed) -> Passed:
        """What the path parameters of `site.callee` hold on a path that takes `site`, its
        caller's holding `passed`, as this search keeps it."""
        return self.kept(site.callee, self._calls.passed_on(site, passed))

    def kept(self, fid: str, passed: Passed) -> Passed:
        """`passed`, the state of `fid` on a path, as this search keeps it."""
        if not passed:
            return passed
        met = self._met.setdefault(fid, set())
        if passed not in met:
            if len(met) >= MAX_CONTEXTS:
                return ()
            met.add(passed)
        return passed


def _path_parameters(
    symbols: Symbols, fid: str, parameter_named: Callable[[str, Ref], Parameter | None]
) -> frozenset[Parameter]:
    """The parameters, of `fid` or of a function around it, that `fid`'s own calls call, call a
    method of, or pass on, as they are (see `CallGraph.path_parameters`), by `parameter_named`
    (see `_parameter_named`)."""
    if fid in symbols.clones:
        return frozenset()
    function = symbols.function(fid)
    module = symbols.module_of(fid).name
    found: set[Parameter] = set()
    for call in function.calls:
        callee = call.callee if call.callee is not None and len(call.callee.attrs) <= 1 else None
        for ref in (callee, *(arg.ref for arg in call.args if arg.kind == "ref" and arg.ref and not arg.ref.attrs)):
            if ref is None or not ref.scope:
                continue
            own_or_enclosing = ref.scope == function.qualname or function.qualname.startswith(f"{ref.scope}.")
            parameter = parameter_named(module, ref) if own_or_enclosing else None
            # A method's `self` only where a call on it chooses a class: elsewhere what a path passes
            # it decides nothing, and would only multiply the states of a search (redis-py's, past
            # their bound).
            if parameter is not None and (
                not _is_self(symbols, module, parameter) or (ref is callee and _chooses_a_class(symbols, fid, call))
            ):
                found.add(parameter)
    return frozenset(found)


def _calls_name(function: FunctionFacts, scope: str, name: str) -> bool:
    """Whether `function` calls the local or parameter `name` of the function `scope`, or calls
    something on it."""
    callees = (call.callee for call in function.calls if call.callee is not None)
    return any(callee.scope == scope and callee.name == name for callee in callees)


def _local_copied_to(symbols: Symbols, fid: str, access: Access) -> str | None:
    """The local of `fid` that `access` is the whole value of, where nothing else binds it
    (`f = fn`, and no other `f = ...`); None for any other read."""
    bind = symbols.local_bound_once(fid, access.flow) if not access.ref.attrs else None
    return bind.name if bind is not None and bind.value_ref == access.ref else None


def _handed_on_by(symbols: Symbols, fid: str, access: Access) -> list[HandOn] | None:
    """The call of `fid` that `access` hands the value it reads to, whole, as an argument, with
    that argument; None where it is no such read (an attribute of it, or put in a list)."""
    flow = access.flow
    call = symbols.call(fid, flow.call) if flow.kind == FLOW_ARG and len(flow.targets) == 1 else None
    if access.ref.attrs or call is None:
        return None
    arg = next((arg for arg in call.args if arg.kind == "ref" and arg.ref == access.ref and not arg.star), None)
    return [(fid, call, arg)] if arg is not None else None


def _chooses_a_class(symbols: Symbols, fid: str, call: Call) -> bool:
    """Whether `call` is of a method that several classes define (`self.execute_command()`, where
    subclasses override it), where the class of the object called on decides which runs."""
    if receiver_path(call) is None:
        return False
    return len({symbols.class_of_function(target) for target, _ in call_targets(symbols, fid, call)}) > 1


def _is_self(symbols: Symbols, module: str, parameter: Parameter) -> bool:
    scope, name = parameter
    return symbols.only_its_self(function_id(module, scope), name)


def _parameter_named(symbols: Symbols, module: str, ref: Ref) -> Parameter | None:
    """The parameter that the name `ref` starts with (`do`, or `conn` of `conn.send`; in a
    function of `module`) holds as it is: the parameter itself, or a local bound once, to it or to
    such a local, and never again (`action = do`, `again = action`); None for any other name or a
    longer path."""
    if ref.attrs[1:] or not ref.scope:
        return None
    scope = function_id(module, ref.scope)
    if symbols.only_a_parameter(scope, ref.name) or symbols.only_its_self(scope, ref.name):
        return (ref.scope, ref.name)
    if scope not in symbols.functions:
        return None
    # Through copies of copies (`f = do; g = f`); `seen` stops at locals copied from each other.
    name, seen = ref.name, {ref.name}
    while True:
        binds = symbols.binds(scope).get(name, [])
        value = binds[0].value_ref if len(binds) == 1 and binds[0].kind == "assign" else None
        if value is None or value.attrs or value.scope != ref.scope or value.name in seen:
            return None
        if symbols.only_a_parameter(scope, value.name):
            return (value.scope, value.name)
        name = value.name
        seen.add(name)


def runs_while_built(symbols: Symbols, site: CallSite) -> bool:
    """Whether `site` is a constructor calling a method of the object it builds (`self.reset()` in
    `__init__`): the callee runs there before the object is shared."""
    caller = site.caller
    return site.kind == CALL and symbols.is_constructor(caller) and symbols.calls_own_method(caller, site.call_id)


def call_targets(symbols: Symbols, fid: str, call: Call) -> list[tuple[str, Entity]]:
    """The functions a call site runs (a class's constructor for a class), with what was called."""
    called = sorted(symbols.callees(fid, call), key=lambda e: (e.kind, e.target))
    return [(target, callee) for callee in called for target in _functions_run_by(symbols, callee, fid, call.args)]


def _functions_run_by(symbols: Symbols, called: Entity, fid: str, args: tuple[Arg, ...]) -> tuple[str, ...]:
    """The functions a call of `called` in `fid` with `args` may run: itself, or a class's
    constructor (in Java, the overloads the arguments fit); none for another value."""
    if called.kind in ("function", "property"):
        return (called.target,)
    return symbols.constructors(called.target, fid, args) if called.kind == "class" else ()


_MAX_ROUNDS = 3


def learn_bound_values(symbols: Symbols, counts: Callable[[str, str], bool]) -> None:
    """Solve the flow of arguments into parameters over the whole unit, once, before the call
    graph is built: classes of instances passed (where every call site agrees), and functions
    and classes passed as values (all of them). Rounds go on while something new is learnt. Only
    the calls from a caller to a callee that `counts` shape what the callee's parameters hold
    (test code calling in does not)."""
    for _ in range(_MAX_ROUNDS):
        types, values = _bound_values(symbols, counts)
        new_types = {k: v for k, v in types.items() if k not in symbols.param_types}
        new_values = {
            k: v - symbols.param_values.get(k, frozenset())
            for k, v in values.items()
            if v - symbols.param_values.get(k, frozenset())
        }
        if not new_types and not new_values:
            return
        symbols.learn_parameter_types(new_types, new_values)


# What one function's calls bind: (callee, parameter) -> classes of the instances passed, and
# -> every value passed that the parameter learns.
_Bound = tuple[dict[tuple[str, str], set[str]], dict[tuple[str, str], set[Entity]]]


def _bound_values(
    symbols: Symbols, counts: Callable[[str, str], bool]
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], frozenset[Entity]]]:
    classes: dict[tuple[str, str], set[str]] = {}
    values: dict[tuple[str, str], set[Entity]] = {}
    for fid in sorted(symbols.functions):
        # Kept from the round before unless something it resolved was learnt meanwhile.
        found_classes, found_values = symbols.remembered(("bound by", fid), partial(_bound_in, symbols, fid, counts))
        for key, found in found_classes.items():
            classes.setdefault(key, set()).update(found)
        for key, entities in found_values.items():
            values.setdefault(key, set()).update(entities)
    types = {key: next(iter(found)) for key, found in classes.items() if len(found) == 1}
    return types, {key: frozenset(found) for key, found in values.items() if found}


def _bound_in(symbols: Symbols, fid: str, counts: Callable[[str, str], bool]) -> _Bound:
    """What the calls of function `fid`, and the decorators of the functions it defines, bind."""
    classes: dict[tuple[str, str], set[str]] = {}
    values: dict[tuple[str, str], set[Entity]] = {}
    for call in symbols.function(fid).calls:
        for target, callee, call_as_bound in _bindings(symbols, fid, call):
            if not counts(fid, target):
                continue
            for param, arg in bound_arguments(symbols.function(target), call_as_bound, bound_ahead(callee)):
                key = (target, param)
                passed = symbols.argument_values(fid, arg)
                instance = _instance_passed(symbols, fid, arg, passed)
                if instance:
                    classes.setdefault(key, set()).add(instance)
                values.setdefault(key, set()).update(value for value in passed if _passes_on(value))
            _bind_star_parameter(symbols, fid, target, call_as_bound, bound_ahead(callee), (classes, values))
            # `self.CURRENT(m)` of `CURRENT = lambda self, m: ...`: the first parameter is the instance.
            instance = symbols.instance_bound_to(fid, call, callee)
            if instance:
                classes.setdefault((target, symbols.first_parameter(target)), set()).add(instance)
    _bind_decorated(symbols, fid, values)
    _bind_elements(symbols, fid, counts, classes, values)
    return classes, values


def _bind_star_parameter(symbols: Symbols, fid: str, target: str, call: Call, ahead: int, bound: _Bound) -> None:
    """A `*xs` parameter (Java's `Drain... xs`) is a container of the arguments beyond the others:
    of their class where they are instances (`all(m, SlowDrain())`), or of the elements of what a
    starred argument holds (`all(m, *drains)`). A lone Java argument there is the array itself
    where it is one (`all(m, arr)` of a `Drain[] arr`), as Java passes an array to a `...`
    parameter. As for an instance passed, the class holds where every call site agrees on it. A
    Java one holds every function given too (`all(m, this::check)`), as a parameter learns them."""
    name, elements, starred = star_parameter_arguments(symbols.function(target), call, ahead)
    if not name:
        return
    java = symbols.is_java_function(target)
    if len(elements) == 1 and java:
        starred.append(elements[0])
    held = [value for arg in elements for value in symbols.argument_values(fid, arg)]
    held += [value for arg in starred for value in symbols.iterated_argument_values(fid, arg)]
    classes, values = bound
    found = {value.target for value in held if value.kind == "instance"}
    if found:
        classes.setdefault((target, star_elements(name)), set()).update(found)
    functions = {value for value in held if value.kind == "function"}
    if functions and java:
        values.setdefault((target, star_elements(name)), set()).update(functions)


# The builtins that call a function on each element of an iterable, there: the function's and the
# iterable's parameter, as (position, name); None for a keyword-only one.
_ELEMENT_FUNCTIONS: dict[str, tuple[tuple[int | None, str], tuple[int | None, str]]] = {
    "map": ((0, "function"), (1, "iterable")),
    "filter": ((0, "function"), (1, "iterable")),
    "sorted": ((None, "key"), (0, "iterable")),
    "min": ((None, "key"), (0, "iterable")),
    "max": ((None, "key"), (0, "iterable")),
}


def _bind_elements(
    symbols: Symbols,
    fid: str,
    counts: Callable[[str, str], bool],
    classes: dict[tuple[str, str], set[str]],
    values: dict[tuple[str, str], set[Entity]],
) -> None:
    """`max(self._states, key=lambda state: state.epoch)`, `filter(is_current, batch)`: the function
    is called with each element of the iterable, so its first parameter holds the elements, as a
    loop's target would: their class where they are instances of one class, and each value a
    parameter learns (`map(lambda check: check(m), self._checks)` calls the functions kept there)."""
    for call in symbols.function(fid).calls:
        callee = symbols.callee(fid, call) if call.method in _ELEMENT_FUNCTIONS else UNKNOWN
        places = _ELEMENT_FUNCTIONS.get(callee.target) if callee.kind == "external" else None
        function = _argument_at(call, *places[0]) if places else None
        iterable = _argument_at(call, *places[1]) if places else None
        if function is None or iterable is None:
            continue
        iterated = symbols.iterated_argument_values(fid, iterable)
        elements = {value.target for value in iterated if value.kind == "instance"}
        for value in symbols.argument_values(fid, function):
            target = value.target if value.kind == "function" else ""
            params = symbols.function(target).params if target in symbols.functions else ()
            if not (params and symbols.function(target).kind in ("function", "lambda") and counts(fid, target)):
                continue
            key = (target, params[0].name)
            values.setdefault(key, set()).update(element for element in iterated if _passes_on(element))
            if len(elements) == 1:
                classes.setdefault(key, set()).update(elements)


def _bindings(symbols: Symbols, fid: str, call: Call) -> Iterator[tuple[str, Entity, Call]]:
    """The functions whose parameters `call` binds arguments to, with what was called and the
    call as it binds them: its targets, and the functions it binds arguments of for a later call
    (`functools.partial(f, *args)`, `executor.submit(f, *args)`: see `bound_for_later`)."""
    for target, callee in call_targets(symbols, fid, call):
        yield target, callee, call
    yield from bound_for_later(symbols, fid, call)


def bound_for_later(symbols: Symbols, fid: str, call: Call) -> Iterator[tuple[str, Entity, Call]]:
    """The functions (a class's constructor) a call binds arguments of without running them: those
    `functools.partial(f, *args, **keywords)` wraps, those a hand-off that forwards its further
    arguments is given (`executor.submit(f, *args, **kwargs)`, `loop.call_soon(f, *args)`), and
    those a thread, timer or process starts with the literal tuple and dict it is given
    (`Thread(target=f, args=(a,), kwargs={"b": b})`): each with `f` as passed, and the call as it
    binds their parameters: the arguments (or elements of them) it binds. Nothing for another call."""
    found = function_bound_at(symbols, fid, call)
    if found is None:
        return
    function, bound = found
    as_bound = call._replace(args=bound)
    for wrapped in symbols.argument_values(fid, function):
        if wrapped.kind in ("function", "class"):
            yield from ((target, wrapped, as_bound) for target in _functions_run_by(symbols, wrapped, fid, bound))


def function_bound_at(symbols: Symbols, fid: str, call: Call) -> tuple[Arg, tuple[Arg, ...]] | None:
    """The argument that is the function a call binds others to, and those others: for a call of
    `functools.partial` (all of them), of a hand-off that forwards its arguments (not one of the
    project's own functions: those after the function but its own keywords) or of a standard
    library function that does (`_FORWARDING_FUNCTIONS`: those after the function), or of a class in
    `_STARTED_WITH_ARGUMENTS` (the elements of its literal tuple and dict); None for another call."""
    if not call.args:
        return None  # given no function: asked of every call, this spares many a callee's resolution
    callee = symbols.callee(fid, call)
    if callee == PARTIAL:
        return call.args[0], call.args[1:]
    if callee.kind == "external" and callee.target in _STARTED_WITH_ARGUMENTS:
        return _started_with(call, *_STARTED_WITH_ARGUMENTS[callee.target])
    position = _FORWARDING_FUNCTIONS.get(callee.target) if callee.kind == "external" else None
    own_keywords: frozenset[str] = frozenset()
    if position is None and callee.kind != "function":
        position, own_keywords = _FORWARDING_HAND_OFFS.get(call.method), _HAND_OFF_KEYWORDS
    if position is None or len(call.args) <= position:
        return None
    if any(arg.keyword or arg.kind == "star" for arg in call.args[: position + 1]):
        return None
    return call.args[position], tuple(arg for arg in call.args[position + 1 :] if arg.keyword not in own_keywords)


def _started_with(
    call: Call, function: tuple[int, str], positional: tuple[int, str], keywords: tuple[int, str]
) -> tuple[Arg, tuple[Arg, ...]] | None:
    """The function a thread-like class is given and the elements of the tuple and the dict it
    starts the function with (each at its position or under its name among the call's arguments)."""
    started = _argument_at(call, *function)
    if started is None:
        return None
    tuple_given, dict_given = _argument_at(call, *positional), _argument_at(call, *keywords)
    by_position = tuple(item for item in tuple_given.items if not item.keyword) if tuple_given else ()
    by_keyword = tuple(item for item in dict_given.items if item.keyword) if dict_given else ()
    return started, by_position + by_keyword


def _argument_at(call: Call, position: int | None, keyword: str) -> Arg | None:
    """The argument given for a parameter of the called function or class, by its name or by its
    position (where no starred or keyword argument comes before; None: keyword-only)."""
    named = [arg for arg in call.args if arg.keyword == keyword]
    if named:
        return named[0]
    if position is None:
        return None
    before = call.args[: position + 1]
    if len(before) <= position or any(arg.keyword or arg.kind == "star" for arg in before):
        return None
    return call.args[position]


def _instance_passed(symbols: Symbols, fid: str, arg: Arg, passed: frozenset[Entity]) -> str:
    """The class of the instance an argument passes, where it is one: a name path that holds an
    instance, or a call whose one value is (`drain(Fetcher())`, `drain(new_fetcher())`)."""
    if arg.kind == "ref" and arg.ref is not None:
        entity = symbols.entity(fid, arg.ref, called=may_name_a_method(arg))
        if entity.kind == "global":
            entity = symbols.global_value(entity.target)
    elif arg.kind == "call" and len(passed) == 1:
        (entity,) = passed
    else:
        return ""
    return entity.target if entity.kind == "instance" else ""


def _is_plain_function(symbols: Symbols, value: Entity) -> bool:
    """Whether `value` is a plain function of the project or a function from outside it."""
    return value.kind == "external" or (value.kind == "function" and value.target in symbols.functions)


def _passes_on(value: Entity) -> bool:
    """Whether an argument's value is learnt by the parameter: the project's functions, classes,
    containers and instances, and what is imported from outside (a method of an external
    instance, `fn(client.close)`), not builtins."""
    if value.kind == "external":
        return "." in value.target
    return value.kind in ("function", "class", "elements", "instance")


def _bind_decorated(symbols: Symbols, fid: str, values: dict[tuple[str, str], set[Entity]]) -> None:
    """A decorator is called with the function (or with what the decorator below returned)."""
    passed = frozenset({Entity("function", fid)})
    for decorator in reversed(symbols.decorators(fid)):
        returned: set[Entity] = set()
        for value in decorator:
            if value.kind != "function":
                continue
            first = symbols.decorated_parameter(value.target)
            if first:
                values.setdefault((value.target, first), set()).update(passed)
            returned.update(symbols.applied(value.target, passed))
        passed = frozenset(returned) or passed
