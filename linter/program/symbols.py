"""Names to things: modules, classes and their MRO, functions, fields, and what a name path denotes.

Resolution is static and conservative: a name path is resolved when its target is known (a
definition or import of the project, a receiver whose class is known); never by guessing from a
method name alone.
"""

from __future__ import annotations

import posixpath
import re
import zlib
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import partial
from itertools import chain
from typing import NamedTuple, TypeVar

from epochlint.frontend.facts import (
    FLOW_ASSIGN,
    FLOW_YIELD,
    FLOW_YIELD_FROM,
    MONITOR,
    RESOURCE,
    Arg,
    Bind,
    Call,
    ClassFacts,
    Entered,
    Flow,
    FunctionFacts,
    Import,
    Param,
    Pos,
    Ref,
    Region,
    Site,
    Stored,
    Write,
    within,
)
from epochlint.frontend.java import is_java
from epochlint.frontend.java.idioms import (
    COLLECTION_STREAMS,
    FUNCTION_COMBINATORS,
    KNOWN_PACKAGE_CLASSES,
    LITERAL_COLLECTIONS,
    OPTIONAL_TYPES,
    PRIMITIVE_TYPES,
)
from epochlint.program.modules import ModuleInfo, ModuleLocator, absolute_import_module, java_top_level_classes
from epochlint.program.overloads import (
    EXACT,
    WIDER,
    ArgumentType,
    Overload,
    ParameterType,
    conversion,
    most_specific,
)
from epochlint.program.resolutions import Resolutions

CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__", "__attrs_post_init__"})
_INIT = frozenset({"__init__"})
_CONTAINER_ELEMENT_METHODS = frozenset({"get", "pop", "setdefault", "__getitem__"})
# Java's besides: a `Deque`'s, a `Queue`'s, a `LinkedList`'s, a `List`'s `remove(index)`, a `Vector`'s.
_JAVA_ELEMENT_METHODS = _CONTAINER_ELEMENT_METHODS | {
    "peek", "poll", "element", "remove", "take", "getFirst", "getLast", "peekFirst", "peekLast", "pollFirst",
    "pollLast", "removeFirst", "removeLast", "firstElement", "lastElement", "elementAt",
}
# The methods a loop over an object runs, by whether it is Java's: the one giving an iterator, and
# the iterator's one giving each element.
_ITERATION_METHODS = {False: ("__iter__", "__next__"), True: ("iterator", "next")}
_STEPPING_METHODS = frozenset(stepping for _, stepping in _ITERATION_METHODS.values())
# Views of a container's elements: Python's and Java's (a `Map`'s values, a collection's stream).
_CONTAINER_VIEW_METHODS = frozenset({"values", "copy", *COLLECTION_STREAMS})
# A Java collection's `iterator()` besides, over the elements stored in it (no Python container has one).
_ELEMENTS_VIEW_METHODS = _CONTAINER_VIEW_METHODS | {"iterator"}
# A Java stream's methods giving an `Optional` of one of its elements, and an `Optional`'s giving its
# value (or throwing where it has none).
_STREAM_FINDERS = frozenset({"findFirst", "findAny"})
_OPTIONAL_GETTERS = frozenset({"get", "orElseThrow"})
# Methods that add their argument at this position to a container, with no key known.
_ADDING_METHODS = {"append": 0, "appendleft": 0, "add": 0, "insert": 1, "setdefault": 1}
# Java's besides `add` (a `Deque`'s, a `Queue`'s, a `Stack`'s, a `Vector`'s): in Python, no container
# has them, so there they are only other classes' methods (`steps.push(f)` of a project's `Steps`).
_JAVA_ADDING_METHODS = _ADDING_METHODS | dict.fromkeys(
    ("addFirst", "addLast", "offer", "offerFirst", "offerLast", "push", "addElement"), 0
)
# By the kind of a write into a property's name, the accessor it runs.
_PROPERTY_ACCESSORS = {"assign": "setter", "augassign": "setter", "delete": "deleter"}
# The functions that copy a record (a dataclass, an attrs class) with the keyword fields replaced.
_RECORD_COPIER_NAMES = frozenset({"dataclasses.replace", "attrs.evolve", "attr.evolve", "copy.replace"})
_RECORD_COPIERS = frozenset(name.rsplit(".", 1)[1] for name in _RECORD_COPIER_NAMES)
# Builtins whose result holds the elements of their first argument: a copy (`for cb in
# list(self._callbacks)`), or an iterator over it.
_COPYING_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})
# The classes whose subclasses are lists.
_LIST_CLASSES = frozenset({"list", "typing.List", "collections.UserList"})
# Resolutions nested in one another before the innermost is cut short (see `_cut_short`) and asked
# again from the top once the outermost is done (`Resolutions._deepened`): it bounds the Python
# stack, not how far a value is followed. A value returned through a chain of factories (`make0()`
# returning `make1()`, ..., the last `Consumer()`) takes two per factory.
_MAX_DEPTH = 24
# Steps of a chain of local aliases followed (`lock = self._lock`, `held = lock`).
_MAX_ALIASES = 12
# `contextlib.contextmanager` and `asynccontextmanager`, by the decorator's last name.
_CONTEXT_MANAGERS = re.compile(r"(?:^|\.)(?:async)?contextmanager$")
# Annotation forms that stand for their one argument (besides `None` in a union).
_ANNOTATION_WRAPPERS = frozenset({"Optional", "Final", "ClassVar", "Annotated", "Union"})
# Java's collection classes whose `add` keeps what it is given, which a class extending one inherits
# (an interface such as `Iterable` or `List` gives its implementations no `add` of its own).
_JDK_COLLECTION_CLASSES = frozenset(
    {
        "ArrayList", "LinkedList", "Vector", "Stack", "HashSet", "LinkedHashSet", "TreeSet", "ArrayDeque",
        "PriorityQueue", "LinkedBlockingQueue", "LinkedBlockingDeque", "ArrayBlockingQueue", "PriorityBlockingQueue",
        "ConcurrentLinkedQueue", "ConcurrentLinkedDeque", "CopyOnWriteArrayList", "CopyOnWriteArraySet",
        "ConcurrentSkipListSet",
    }
)
# Declared collections whose elements are their one type argument (Python's and Java's)...
_SEQUENCE_ANNOTATIONS = frozenset(
    {
        "list", "List", "set", "Set", "frozenset", "FrozenSet", "deque", "Deque", "Sequence", "MutableSequence",
        "AbstractSet", "MutableSet", "Collection", "Iterable", "Iterator", "ArrayList", "LinkedList", "HashSet",
        "LinkedHashSet", "TreeSet", "SortedSet", "NavigableSet", "Queue", "ArrayDeque", "BlockingQueue",
        "BlockingDeque", "LinkedBlockingQueue", "LinkedBlockingDeque", "ArrayBlockingQueue", "PriorityQueue",
        "PriorityBlockingQueue", "ConcurrentLinkedQueue", "ConcurrentLinkedDeque", "CopyOnWriteArrayList",
        "CopyOnWriteArraySet", "ConcurrentSkipListSet", "tuple", "Tuple",
    }
)
# ...and those whose elements are the values of their last type argument (the first is the key's).
_MAPPING_ANNOTATIONS = frozenset(
    {
        "dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict", "Map", "HashMap",
        "LinkedHashMap", "TreeMap", "SortedMap", "NavigableMap", "ConcurrentMap", "ConcurrentHashMap",
        "ConcurrentNavigableMap", "ConcurrentSkipListMap", "EnumMap", "WeakHashMap", "IdentityHashMap", "Hashtable",
    }
)
# A Java overload's id ends in its number of parameters, `seek~0` (`seek~1~2` for a second of one).
OVERLOAD_TAIL = re.compile(r"(?:~\d+)+$")
# The entities whose elements (a container's, a mapping's values) are instances of their target.
_HOLDING_KINDS = ("container", "mapping")
# The entities of a Java map that may know the class of its keys (see `Entity.keys`).
_KEYED_KINDS = ("mapping", "entries", "entry")
# What a Java map's entries give their own entries by: a stream of them, an iterator over them.
_ENTRY_VIEWS = frozenset({*COLLECTION_STREAMS, "iterator"})
# What an entered region's value runs by its kind, where the region opens and where it ends.
_CONTEXT_METHODS = {
    "with": ("__enter__", "__exit__"),
    "async_with": ("__aenter__", "__aexit__"),
    RESOURCE: ("", "close"),
}
_Learnt = TypeVar("_Learnt")
_Derived = TypeVar("_Derived")
# What a derived value is while it is computed (never asked for then: derived values are not
# resolutions, nothing they compute asks for them).
_PENDING = object()
# Where a value is looked up: (function, position, innermost block) of a call.
Point = tuple[str, Pos, Pos]


@dataclass(frozen=True)
class Entity:
    """What an expression denotes.

    kind: "module", "class" (the class object), "instance", "container" (of instances of
    `target`), "mapping" (a declared map whose values are instances of `target`: iterated, it gives
    its keys), "entries" (a Java map's `entrySet()`) and "entry" (one of them, a `Map.Entry`, whose
    value is an instance of `target`; for these three, `keys` holds the class of the map's keys
    where it is one of the project, and `target` is "" where only that one is), "function",
    "property", "external" (a dotted name outside the project), "super" (what `super()` gives in a
    method of class `target`: its methods are looked up above that class), or "unknown". For
    "elements" (the stored elements of a named container), `keys` are the constant keys already
    taken into it (`d["a"]` of `d = {"a": {"b": f}}` is the container at "'a'");
    "element_pairs" are its `.items()`, whose second halves are those elements.
    For a "function" or "class" wrapped by `functools.partial`, `keys` holds how many positional
    arguments the partial binds ahead of a call's own (see `bound_ahead`), where it binds any.
    """

    kind: str
    target: str = ""
    keys: tuple[str, ...] = ()

    # Not the seeded hash of strings: the value flow enters a cycle of resolutions where it first
    # meets it, in the order sets of entities are iterated, and the resolution it entered by
    # answers from one pass of the cycle; that order must not change from one process to the next.
    # Computed once: entities are hashed hundreds of thousands of times in a program's build.
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", zlib.crc32("\0".join((self.kind, self.target, *self.keys)).encode()))

    def __hash__(self) -> int:
        return self._hash


UNKNOWN = Entity("unknown")
PARTIAL = Entity("external", "functools.partial")
_NOTHING: frozenset[Entity] = frozenset()
# An element a container's method may add (`self._listeners.append(f)`): its key in the stored
# index, the function adding it, and what it stores.
_Addition = tuple[tuple[str, str], str, Stored]
# What the stores into one field give, by the class whose code stores it (classes that store
# nothing it learns left out).
_StoresByClass = dict[str, frozenset[Entity]]
# The keys of a method taken from its class (`Base.__init__`), called with its `self` among the
# arguments (`Base.__init__(self, transport)`): one positional argument fewer is bound ahead of the
# call's own than for a call on an object (see `bound_ahead`, `bound_arguments`).
_SELF_PASSED = ("-1",)


class _Cache(IntEnum):
    """The memoized resolutions of a unit."""

    ENTITY = 0
    ROOT = 1
    RETURN = 2
    CALLEES = 3
    PATH = 4
    RETURNS = 5
    # Values derived from resolutions by the value flow's rounds.
    DERIVED = 6
    ELEMENTS = 7
    YIELDS = 8
    CALL_RESULT = 9


# The resolutions that answer a set of values, which grows as the answers it uses grow: a cycle of
# them is passed over until its answer is settled.
_VALUE_SETS = (_Cache.CALLEES, _Cache.PATH, _Cache.RETURNS, _Cache.ELEMENTS, _Cache.YIELDS)
_EXTERNAL_KINDS = frozenset({"external", "external_instance"})


def _settled(last: frozenset[Entity], found: frozenset[Entity]) -> bool:
    """Whether another pass over a cycle could find more of the project. Values fed back into
    themselves can grow without end while meaning nothing new: a chain of calls on an external
    names ever longer chains (`x = x.rechunk()` and `x = x.map_blocks()` in a loop), a partial of
    a name the partial is bound to binds ever more arguments (`migrate = partial(migrate, ...)`)."""
    return _what_in_project(found) == _what_in_project(last)


def _what_in_project(values: frozenset[Entity]) -> set[tuple[str, str]]:
    return {(value.kind, value.target) for value in values if value.kind not in _EXTERNAL_KINDS}


@dataclass(frozen=True, order=True)
class FieldId:
    """A shared location: (owner class id or module name, attribute path)."""

    owner: str
    path: tuple[str, ...]
    is_global: bool = False

    @property
    def leaf(self) -> str:
        return self.path[-1]

    def display(self) -> str:
        owner = self.owner.split(":")[-1] if not self.is_global else self.owner
        if self.path == (MONITOR,):
            return f"{owner}.this"  # a Java object's own monitor, as Java names it
        return ".".join((owner, *(name for name in self.path if name != MONITOR)))


_GETATTR = Entity("external", "getattr")
_NONE = Entity("external", "None")
# The bases that make a class abstract: a receiver typed as one runs the project's implementations.
_ABSTRACT_BASES = frozenset(
    Entity("external", name) for name in ("abc.ABC", "typing.Protocol", "typing_extensions.Protocol")
)


def function_id(module: str, qualname: str) -> str:
    return f"{module}:{qualname}"


# The fact read by resolutions that went through a decorated function's name: once wrappers are
# cloned per decoration, such a name holds the clones too.
_DECORATED = ("decorated",)


@dataclass(frozen=True)
class Clone:
    """A decorator's wrapper as one decoration made it: in its body, the decorator's parameter
    `param` (of the decorator, qualname `scope`) holds only the function decorated there,
    `passed`, not every function the decorator is applied to."""

    wrapper: str
    scope: str
    param: str
    passed: frozenset[Entity]


class Symbols:
    """The symbol tables of one analysis unit, and name resolution over them."""

    def __init__(
        self, modules: list[ModuleInfo], test_modules: frozenset[str], locator: ModuleLocator | None = None
    ) -> None:
        # Indexes built on first use by the properties that return them: not cached_property,
        # which mypyc (see docs/speed.md) compiles into one that computes again at every use.
        self._bases_found: dict[str, tuple[str, ...]] | None = None
        self._method_aliases_found: dict[str, dict[str, str]] | None = None
        self._class_fields_found: dict[str, set[str]] | None = None
        self._updaters_found: dict[str, dict[str, str]] | None = None
        self._property_names_found: frozenset[str] | None = None
        self._defaults_found: dict[str, dict[str, Ref]] | None = None
        self._stored_index_found: dict[tuple[str, str], list[tuple[str, Stored]]] | None = None
        self._stores_and_additions_found: (
            tuple[dict[tuple[str, str], list[tuple[str, Stored]]], list[_Addition]] | None
        ) = None
        self._empty_container_fields_found: frozenset[tuple[str, str]] | None = None
        self._abstract_classes_found: frozenset[str] | None = None
        self._self_field_writes_found: dict[str, tuple[str, list[Write]]] | None = None
        self._writes_into_other_objects_found: dict[str, list[Write]] | None = None
        self._static_field_stores_found: dict[str, list[tuple[str, Write]]] | None = None
        self._overloads_found: dict[str, tuple[str, ...]] | None = None
        self._overloads_in_reach_cache: dict[str, tuple[str, ...]] = {}
        self._subclasses_found: dict[str, tuple[str, ...]] | None = None
        self._java_top_level_classes_found: dict[str, tuple[str, ...]] | None = None
        self.modules: dict[str, ModuleInfo] = {m.name: m for m in modules}
        self._locator = locator or ModuleLocator({m.rel: m.name for m in modules})
        # Test code is analysed like any code, but never shapes the model of the rest: code outside
        # it never runs on its classes (see `subclasses_seen_from`).
        self.test_modules = test_modules
        self.functions: dict[str, tuple[ModuleInfo, FunctionFacts]] = {}
        self.classes: dict[str, tuple[ModuleInfo, ClassFacts]] = {}
        # Each module's global names as a set: a module of many thousand globals asks for each.
        self._globals_of = {module.name: frozenset(module.facts.globals) for module in modules}
        for module in modules:
            for function in module.facts.functions:
                self.functions[function_id(module.name, function.qualname)] = (module, function)
            for cls in module.facts.classes:
                self.classes[function_id(module.name, cls.qualname)] = (module, cls)
        self._class_of: dict[str, str] = {}
        self._self_of: dict[str, str] = {}
        for fid, (module, function) in self.functions.items():
            self._class_of[fid] = function_id(module.name, function.class_name) if function.class_name else ""
            has_self = function.kind in ("method", "classmethod") and function.params
            self._self_of[fid] = function.params[0].name if has_self else ""
        # Asked for every name path resolved (see `_fields_within`) and field read: set lookups.
        self._java_functions = frozenset(fid for fid, (module, _) in self.functions.items() if is_java(module.rel))
        self._java_classes = frozenset(cid for cid, (module, _) in self.classes.items() if is_java(module.rel))
        # The module of each Python function, where its module-level names are resolved (see
        # `_resolved_for`): a dict lookup per name path resolved.
        self._python_module_names = {
            fid: module.name for fid, (module, _) in self.functions.items() if fid not in self._java_functions
        }
        # Asked for both ends of every call that may shape the model: a set lookup.
        self._test_functions = frozenset(
            fid for fid, (module, _) in self.functions.items() if module.name in test_modules
        )
        # Parameter classes learnt from the arguments at resolved call sites.
        self.param_types: dict[tuple[str, str], str] = {}
        # Functions and classes passed as arguments, by (function id, parameter).
        self.param_values: dict[tuple[str, str], frozenset[Entity]] = {}
        self._returned_parameters: dict[str, str] = {}
        # Field types are computed in two passes; while the first runs, fields are untyped. Each is
        # kept as every store gives it, and by the class whose method stores (see `_seen_from`).
        self._field_types: dict[tuple[str, str], Entity] = {}
        self._field_values: dict[tuple[str, str], frozenset[Entity]] = {}
        self._typed_stores: dict[tuple[str, str], _StoresByClass] = {}
        self._value_stores: dict[tuple[str, str], _StoresByClass] = {}
        self._seen_from_cache: dict[tuple[str, str, str, bool], frozenset[Entity] | None] = {}
        # Resolutions and value sets, each forgotten when a field or parameter type it used changes.
        self._resolutions = Resolutions(len(_Cache), dict.fromkeys(_VALUE_SETS, _settled))
        # Shared locations by (function, name path, objects only), once learning is over.
        self._fields: dict[tuple[str, Ref, bool], FieldId | None] | None = None
        # What each call site calls, with the call asked about, once learning is over (see `callee`).
        self._callees_settled: dict[tuple[str, int], tuple[Call, Entity]] | None = None
        self._member_stack: set[tuple[str, str]] = set()
        self._member_cache: dict[tuple[str, str], Entity] = {}
        self._binds_cache: dict[str, dict[str, list[Bind]]] = {}
        self._calls_cache: dict[str, dict[int, Call]] = {}
        self._mro_cache: dict[str, tuple[str, ...]] = {}
        self._resolved_bases_cache: dict[str, tuple[Entity, ...]] = {}
        self._external_bases_cache: dict[str, tuple[str, ...]] = {}
        # Method lookups depend only on the class hierarchy, which learning never changes: kept
        # across the value flow's rounds (asked about a hundred thousand times per round).
        self._method_cache: dict[tuple[str, str, str], str] = {}
        # The same for the class owning each field and the fields constructors set: asked for each
        # store and member read in every round of the value flow and every pass typing fields.
        self._defining_class_cache: dict[tuple[str, str], str] = {}
        self._initialised_cache: dict[tuple[str, frozenset[str], str], frozenset[str]] = {}
        self._class_attribute_owner_cache: dict[tuple[str, str], str] = {}
        self._self_values_cache: dict[str, frozenset[Entity]] = {}
        # Wrappers cloned per decoration, by clone id; a clone is not in `functions` (it is no
        # function of its own to report on), but is one wherever a call reaches it.
        self.clones: dict[str, Clone] = {}
        # Per wrapper: what its decorator's parameter no longer holds in the wrapper itself, the
        # functions whose decorations have clones (where each is called).
        self._cloned_away: dict[str, frozenset[Entity]] = {}
        self._cloning = False

    # -- basic lookups ----------------------------------------------------------------------

    def function(self, fid: str) -> FunctionFacts:
        return self.function_entry(fid)[1]

    def module_of(self, fid: str) -> ModuleInfo:
        return self.function_entry(fid)[0]

    def is_test(self, fid: str) -> bool:
        """Whether function `fid` (or the wrapper a clone `fid` was made of) is test code."""
        return self._function_or_wrapper(fid) in self._test_functions

    def _function_or_wrapper(self, fid: str) -> str:
        """`fid`, or the wrapper a clone `fid` was made of: the function whose facts it has."""
        return fid if fid in self.functions else self.clones[fid].wrapper

    def function_entry(self, fid: str) -> tuple[ModuleInfo, FunctionFacts]:
        """The module and facts of a function, or of the wrapper a clone was made of."""
        try:
            return self.functions[fid]
        except KeyError:
            return self.functions[self.clones[fid].wrapper]

    def is_parameter(self, scope: str, name: str) -> bool:
        """Whether `name` is a parameter of function `scope`."""
        return scope in self.functions and any(param.name == name for param in self.function(scope).params)

    def only_a_parameter(self, scope: str, name: str) -> bool:
        """Whether `name` is a parameter of function `scope`, not its `self`, that nothing in it
        binds again."""
        if not self.is_parameter(scope, name) or name == self.self_param(scope):
            return False
        return self._never_bound_again(scope, name)

    def only_its_self(self, scope: str, name: str) -> bool:
        """Whether `name` is the `self` of method `scope`, and nothing in it binds it again."""
        if scope not in self.functions or not name or name != self.self_param(scope):
            return False
        return self.function(scope).kind == "method" and self._never_bound_again(scope, name)

    def _never_bound_again(self, scope: str, name: str) -> bool:
        return all(bind.kind == "param" for bind in self.binds(scope).get(name, ()))

    def binds(self, fid: str) -> dict[str, list[Bind]]:
        cached = self._binds_cache.get(fid)
        if cached is None:
            cached = {}
            for bind in self.function(fid).binds:
                cached.setdefault(bind.name, []).append(bind)
            self._binds_cache[fid] = cached
        return cached

    def local_bound_once(self, fid: str, flow: Flow) -> Bind | None:
        """The one bind of the local of `fid` that `flow` assigns a value to, alone (`f = fn`, `g =
        partial(...)`), where nothing else binds that local; None for another flow."""
        if flow.kind != FLOW_ASSIGN or len(flow.targets) != 1 or flow.stores:
            return None
        binds = self.binds(fid).get(flow.targets[0], [])
        return binds[0] if len(binds) == 1 else None

    def call(self, fid: str, call_id: int) -> Call | None:
        cached = self._calls_cache.get(fid)
        if cached is None:
            cached = {call.id: call for call in self.function(fid).calls}
            self._calls_cache[fid] = cached
        return cached.get(call_id)

    def class_of_function(self, fid: str) -> str:
        return self._class_of[fid]

    def self_param(self, fid: str) -> str:
        return self._self_of[fid]

    def is_constructor(self, fid: str) -> bool:
        """Whether `fid` builds its `self` (`__init__`, a Java constructor): code that runs before
        the object is shared."""
        function = self.function(fid)
        return function.name in CONSTRUCTORS and function.kind == "method"

    def calls_own_method(self, fid: str, call_id: int) -> bool:
        """Whether call `call_id` of `fid` calls a method of `fid`'s own `self` (`self.reset()`)."""
        call = self.call(fid, call_id) if call_id >= 0 else None
        callee = call.callee if call is not None else None
        own = self.self_param(fid)
        return callee is not None and bool(own) and callee.name == own and len(callee.attrs) == 1

    def learn_parameter_types(
        self, learnt: dict[tuple[str, str], str], values: dict[tuple[str, str], frozenset[Entity]]
    ) -> None:
        """Add parameter classes and values learnt from call sites; what was resolved from those
        parameters is forgotten."""
        self.param_types.update(learnt)
        for key, entities in values.items():
            self.param_values[key] = self.param_values.get(key, frozenset()) | entities
        self._resolutions.forget(_parameter_fact(key) for key in (*learnt, *values))
        self.type_fields()

    def _cut_short(self, depth: int) -> bool:
        """Whether a resolution this deep stops here (see `Resolutions.cut_short`)."""
        return self._resolutions.cut_short(depth, _MAX_DEPTH)

    def remembered(self, key: Hashable, compute: Callable[[], _Derived]) -> _Derived:
        """`compute()`, a value derived from resolutions, kept until something it used is
        learnt anew."""
        return self._resolutions.get(_Cache.DERIVED, key, compute, _PENDING)  # type: ignore[arg-type,return-value]

    def clone_wrappers(self) -> None:
        """From now on, a project decorator that returns a wrapper defined inside it gives, for
        each function it decorates, a clone of that wrapper calling only that function (besides
        the wrapper itself, which no longer calls it): a call of one decorated function then
        runs its own wrapper, not every function the decorator wraps. Learning is over: what was
        learnt through the shared wrapper stays, as it holds for every clone."""
        self._cloning = True
        self._resolutions.forget([_DECORATED])
        for fid, (_, function) in sorted(self.functions.items()):
            if function.decorator_values:
                self.decorated_values(fid)
        away: dict[str, set[Entity]] = {}
        for clone in self.clones.values():
            away.setdefault(clone.wrapper, set()).update(clone.passed)
        self._cloned_away = {wrapper: frozenset(passed) for wrapper, passed in away.items()}
        self._resolutions.forget(
            _parameter_fact((function_id(self.module_of(c.wrapper).name, c.scope), c.param))
            for c in self.clones.values()
        )

    def settle(self) -> None:
        """Nothing more is learnt: resolutions stop recording what they depend on, and the
        fields that name paths denote, asked again and again by the rules, are kept."""
        self._resolutions.settle()
        self._fields = {}
        self._callees_settled = {}

    def _parameter_types(self, scope: str, name: str) -> tuple[str | None, frozenset[Entity]]:
        """The class learnt for parameter `name` of `scope`, and the values passed to it."""
        key = (scope, name)
        self._resolutions.read(_parameter_fact(key))
        return self.param_types.get(key), self.param_values.get(key, frozenset())

    # -- classes -----------------------------------------------------------------------------

    @property
    def _bases(self) -> dict[str, tuple[str, ...]]:
        if self._bases_found is None:
            self._bases_found = self._find_bases()
        return self._bases_found

    def _find_bases(self) -> dict[str, tuple[str, ...]]:
        bases: dict[str, tuple[str, ...]] = {}
        for cid in self.classes:
            bases[cid] = tuple(entity.target for entity in self._resolved_bases(cid) if entity.kind == "class")
        return bases

    def external_bases(self, cid: str) -> tuple[str, ...]:
        """The imported classes outside the unit that `cid` or its project bases derive from."""
        # Kept for the whole run, as the bases are (asked for each member of an instance that its
        # class does not define).
        found = self._external_bases_cache.get(cid)
        if found is None:
            found = self._external_bases_cache[cid] = tuple(base for base in self._library_bases(cid) if "." in base)
        return found

    def derives_from_list(self, cid: str) -> bool:
        """Whether class `cid` or a project base of it derives from `list` (`typing.List`,
        `collections.UserList`): its instances sort as a list does."""
        return not _LIST_CLASSES.isdisjoint(self._library_bases(cid))

    def _library_bases(self, cid: str) -> Iterator[str]:
        """The classes outside the unit, builtins too, that `cid` or its project bases derive from."""
        for klass in self.mro(cid):
            yield from (entity.target for entity in self._resolved_bases(klass) if entity.kind == "external")

    def _resolved_bases(self, cid: str) -> tuple[Entity, ...]:
        """What each base of class `cid` names, type arguments aside (`Base[str]` is `Base`)."""
        # Names alone resolve bases (see `resolve_dotted`), never learnt types: kept for the whole
        # run, as the class hierarchy built from them is (asked for each field read of an instance).
        found = self._resolved_bases_cache.get(cid)
        if found is None:
            module, cls = self.classes[cid]
            found = self._resolved_bases_cache[cid] = tuple(
                self._base_named(module, cls, _generic_origin(base)) for base in cls.bases
            )
        return found

    def _base_named(self, module: ModuleInfo, cls: ClassFacts, name: str) -> Entity:
        """The class a base of `cls` names: in Java, first a class nested in a class around it,
        named by its own name (`static class Child extends Base`), as Java looks there before the
        imports; else through the module. Found by the names alone: the classes nested in the
        bases of those around are left out, as looking there needs their MRO."""
        around = list(_enclosing_classes(function_id(module.name, cls.qualname)))[1:] if is_java(module.rel) else []
        nested = next((nested for outer in around if (nested := f"{outer}.{name}") in self.classes), "")
        if not nested and is_java(module.rel) and function_id(module.name, name) in self.classes:
            nested = function_id(module.name, name)  # a local class, named by its qualified name
        return Entity("class", nested) if nested else self.resolve_dotted(module, name, classes_as_namespaces=False)

    def generated_init_parameters(self, cid: str) -> tuple[str, ...]:
        """The parameters, in order, of the `__init__` that `@dataclass` (or attrs' `@define`,
        `@attr.s`) writes for class `cid`, or that a `typing.NamedTuple` class has: its fields
        declared with annotations, its bases' first; () for a class of neither kind, or with an
        `__init__` (or a NamedTuple `__new__`) of its own."""
        if self.lookup_method(cid, "__init__") or self.lookup_method(cid, "__new__"):
            return ()
        named_tuple = "typing.NamedTuple" in self.external_bases(cid)
        if not named_tuple and not self._decorated_as_record(cid):
            return ()
        fields: dict[str, None] = {}
        for klass in reversed(self.mro(cid)):
            module, cls = self.classes[klass]
            body = function_id(module.name, f"{cls.qualname}.<body>")
            for name, binds in self.binds(body).items() if body in self.functions else ():
                declared = any(bind.annotation and not _is_class_variable(bind.annotation) for bind in binds)
                if declared and not any(self._left_out_of_init(body, bind) for bind in binds):
                    fields.setdefault(name)
        return tuple(fields)

    def _left_out_of_init(self, body: str, bind: Bind) -> bool:
        """Whether a field is declared `field(init=False)` (or attrs' `init=False`): no parameter."""
        call = self.call(body, bind.value_call) if bind.value_call >= 0 else None
        return call is not None and any(arg.keyword == "init" and arg.text == "False" for arg in call.args)

    def _decorated_as_record(self, cid: str) -> bool:
        """Whether class `cid` is decorated by `dataclasses.dataclass` or an attrs class decorator."""
        module, cls = self.classes[cid]
        return any(
            self.resolve_dotted(module, decorator.split("(", 1)[0]).target in _RECORD_DECORATORS
            for decorator in cls.decorators
        )

    def mro(self, cid: str) -> tuple[str, ...]:
        cached = self._mro_cache.get(cid)
        if cached is None:
            self._linearize_ancestry(cid)
            cached = self._mro_cache[cid]
        return cached

    def _linearize_ancestry(self, start: str) -> None:
        """Linearize `start` and each of its ancestors not yet linearized, parents first, once each.

        Without recursion: an inheritance chain may be thousands of classes long. A parent still
        being linearized (a cycle of bases, which Python refuses) contributes nothing."""
        in_progress = {start}
        stack = [(start, iter(self._bases.get(start, ())))]
        while stack:
            cid, parents = stack[-1]
            parent = next((p for p in parents if p not in self._mro_cache and p not in in_progress), None)
            if parent is not None:
                in_progress.add(parent)
                stack.append((parent, iter(self._bases.get(parent, ()))))
                continue
            stack.pop()
            in_progress.discard(cid)
            bases = self._bases.get(cid, ())
            self._mro_cache[cid] = _c3_merge(cid, [*(self._mro_cache.get(p, ()) for p in bases), bases])

    def lookup_method(self, cid: str, name: str, after: str = "") -> str:
        """The function id of method `name` on class `cid` by MRO (after class `after` for super())."""
        key = (cid, name, after)
        found = self._method_cache.get(key)
        if found is None:
            found = self._method_cache[key] = self._lookup_method(cid, name, after)
        return found

    def _lookup_method(self, cid: str, name: str, after: str) -> str:
        order = self.mro(cid)
        if after and after in order:
            order = order[order.index(after) + 1 :]
        for klass in order:
            module, cls = self.classes[klass]
            method = self._method_aliases[klass].get(name, name)
            if method in cls.methods:
                return function_id(module.name, f"{cls.qualname}.{method}")
        return ""

    @property
    def _method_aliases(self) -> dict[str, dict[str, str]]:
        if self._method_aliases_found is None:
            self._method_aliases_found = self._find_method_aliases()
        return self._method_aliases_found

    def _find_method_aliases(self) -> dict[str, dict[str, str]]:
        """Class-body aliases of methods (`again = bump`), by class: alias -> method name."""
        aliases: dict[str, dict[str, str]] = {}
        for cid, (module, cls) in self.classes.items():
            body = function_id(module.name, f"{cls.qualname}.<body>")
            found = aliases[cid] = {}
            if body not in self.functions:
                continue
            for name, binds in self.binds(body).items():
                values = {bind.value_ref for bind in binds}
                value = values.pop() if len(values) == 1 else None
                if value is not None and not value.attrs and value.name in cls.methods and name not in cls.methods:
                    found[name] = value.name
        return aliases

    @property
    def _class_fields(self) -> dict[str, set[str]]:
        if self._class_fields_found is None:
            self._class_fields_found = self._find_class_fields()
        return self._class_fields_found

    def _find_class_fields(self) -> dict[str, set[str]]:
        """Attribute names each class defines: class-body names and `self.x = ...` in its methods,
        and a Java object's MONITOR where its methods synchronize on `this` (an object has one
        monitor, whichever class's methods take it: the base-most such class's)."""
        fields: dict[str, set[str]] = {cid: set(cls.attributes) for cid, (_, cls) in self.classes.items()}
        for fid, (module, function) in self.functions.items():
            cls = self.class_of_function(fid)
            self_name = self.self_param(fid)
            if not cls or not self_name or cls not in fields:
                continue
            own_monitor = Ref(function.qualname, self_name, (MONITOR,))
            fields[cls].update(self._self_attributes_written(fid))
            if any(region.lock == own_monitor for region in function.regions):
                fields[cls].add(MONITOR)
        return fields

    @property
    def _updaters(self) -> dict[str, dict[str, str]]:
        if self._updaters_found is None:
            self._updaters_found = self._find_updaters()
        return self._updaters_found

    def _find_updaters(self) -> dict[str, dict[str, str]]:
        return {cid: dict(cls.updaters) for cid, (_, cls) in self.classes.items() if cls.updaters}

    def updated_field(self, cid: str, attr: str) -> str:
        """The field a Java field updater of the class (or a base) updates; `attr` itself otherwise."""
        if self._updaters:
            for klass in self.mro(cid):
                updated = self._updaters.get(klass, {}).get(attr)
                if updated:
                    return updated
        return attr

    def defining_class(self, cid: str, attr: str) -> str:
        """The class whose field `attr` is: the base-most class of the MRO that assigns it.

        A subclass assigning an inherited field (`self.consumer_epoch += 1` in ConsumerImpl)
        writes the base class's field, not a field of its own. A private name is the nearest
        class's instead: Python renames `self.__epoch` after the class whose code writes it
        (`_Sub__epoch`, `_Base__epoch`), so each class that writes one has its own.
        """
        key = (cid, attr)
        found = self._defining_class_cache.get(key)
        if found is None:
            found = self._defining_class_cache[key] = self._find_defining_class(cid, attr)
        return found

    def _find_defining_class(self, cid: str, attr: str) -> str:
        mro = self.mro(cid)
        if self._private_to_class(cid, attr):
            return next((klass for klass in mro if attr in self._class_fields.get(klass, ())), cid)
        outer = self._java_enclosing_declarer(cid, attr)
        if outer:
            return self.defining_class(outer, attr)
        own = next((klass for klass in reversed(mro) if attr in self._class_fields.get(klass, ())), cid)
        if own != cid:
            return own
        return self._host_class(cid, attr) or cid

    def _java_enclosing_declarer(self, cid: str, attr: str) -> str:
        """In Java, for a field an inner class uses by its name but neither it nor its bases
        declare: the class around it whose own or inherited declaration the name finds (a field of
        the enclosing instance); "" otherwise."""
        if not self._is_java_class(cid) or self._declares(cid, attr):
            return ""
        around = (klass for klass in _enclosing_classes(cid) if klass != cid and klass in self.classes)
        return next((klass for klass in around if self._declares(klass, attr)), "")

    def _declares(self, cid: str, attr: str) -> bool:
        """Whether class `cid` or one of its bases declares field `attr` (Java's declarations)."""
        return any(attr in self.classes[klass][1].attributes for klass in self.mro(cid) if klass in self.classes)

    def _host_class(self, cid: str, attr: str) -> str:
        """For a mixin that uses `attr` without defining it in its own `__init__` (nor its bases
        anywhere): the class that defines it in the MRO of every product class it is mixed into,
        where they agree on one outside the mixin's own MRO (`class Consumer(EpochMixin,
        BaseConsumer)`: the mixin's `self._epoch` is BaseConsumer's). "" otherwise."""
        if attr in self._initialised_fields(cid):
            return ""
        own_mro = set(self.mro(cid))
        definers = {
            next((klass for klass in reversed(self.mro(sub)) if attr in self._class_fields.get(klass, ())), sub)
            for sub in self.subclasses_seen_from(cid, "")
        }
        if len(definers) != 1:
            return ""
        (host,) = definers
        return host if host not in own_mro else ""

    def _initialised_fields(
        self, cid: str, constructors: frozenset[str] = _INIT, instance: str = ""
    ) -> frozenset[str]:
        """The attributes the class's own `__init__` (or its other methods named `constructors`)
        assigns on its instance, itself or in the methods it calls on `self` (`self._setup()`), those
        the MRO of the instance's class `instance` (default `cid`) finds: a subclass's override runs."""
        key = (cid, constructors, instance)
        found = self._initialised_cache.get(key)
        if found is None:
            found = self._initialised_cache[key] = self._find_initialised_fields(cid, constructors, instance)
        return found

    def _find_initialised_fields(self, cid: str, constructors: frozenset[str], instance: str) -> frozenset[str]:
        own = (fid for name in constructors if (fid := self.lookup_method(cid, name)))
        run = self._run_on_self(instance or cid, [fid for fid in own if self.class_of_function(fid) == cid])
        return frozenset(attr for fid in run for attr in self._attributes_written(fid, self._instances_made(fid)))

    def _run_on_self(self, cid: str, methods: list[str]) -> set[str]:
        """`methods` and the methods of class `cid` they call on their `self`, transitively."""
        run, pending = set(methods), list(methods)
        while pending:
            fid = pending.pop()
            for name in self._own_methods_called(fid):
                called = self.lookup_method(cid, name)
                if called and called not in run:
                    run.add(called)
                    pending.append(called)
        return run

    def _own_methods_called(self, fid: str) -> Iterator[str]:
        """The names of the methods `fid` calls on its own `self` (`self._setup()`: `_setup`)."""
        for call in self.function(fid).calls:
            if call.callee is not None and self.calls_own_method(fid, call.id):
                yield call.callee.attrs[0]

    def _instances_made(self, fid: str) -> frozenset[str]:
        """The names method `fid` gives the instance it sets up: its `self`, or in `__new__` the
        locals bound to the instance it makes (`made = super().__new__(cls)`)."""
        if self.function(fid).name != "__new__":
            return frozenset({self.self_param(fid)})
        return frozenset(
            name
            for name, binds in self.binds(fid).items()
            if any((call := self.call(fid, bind.value_call)) and call.method == "__new__" for bind in binds)
        )

    def _self_attributes_written(self, fid: str) -> Iterator[str]:
        """The attributes method `fid` assigns on its own `self` (`self.x = ...`: `x`)."""
        return self._attributes_written(fid, frozenset({self.self_param(fid)}))

    def _attributes_written(self, fid: str, names: frozenset[str]) -> Iterator[str]:
        """The attributes function `fid` assigns on its locals `names` (`self.x = ...`: `x`)."""
        function = self.function(fid)
        for write in function.writes:
            if write.ref.name in names and write.ref.scope == function.qualname and write.ref.attrs:
                yield write.ref.attrs[0]

    def _private_to_class(self, cid: str, attr: str) -> bool:
        """Whether `attr`, named in the code of class `cid`, is that class's own: Python renames a
        private name after the class (`__epoch` is `_Consumer__epoch`); Java renames nothing."""
        entry = self.classes.get(cid)
        return _is_private(attr) and not (entry is not None and is_java(entry[0].rel))

    def type_fields(self) -> None:
        """Compute field types: a second pass types the fields whose values come from typed fields."""
        for _ in range(2):
            stores = self._infer_field_types()
            types = {key: typed for key, by_class in stores.items() if (typed := _one_type(_all_stored(by_class)))}
            changes = (_changed(self._field_types, types), _changed_apart(self._typed_stores, stores))
            self._forget_fields(*changes)
            self._field_types, self._typed_stores = types, stores
            if not any(changes):
                break  # a second pass would read the very types this one did
        stores = self._infer_field_values()
        values = {key: _all_stored(by_class) for key, by_class in stores.items()}
        self._forget_fields(_changed(self._field_values, values), _changed_apart(self._value_stores, stores))
        self._field_values, self._value_stores = values, stores

    def _forget_fields(self, *changes: set[tuple[str, str]]) -> None:
        self._seen_from_cache.clear()
        self._resolutions.forget(_field_fact(key) for key in set().union(*changes))

    def field_type(self, owner: str, attr: str, reader: str = "") -> Entity | None:
        """The class of the value a field holds, where its stores agree on one; as an instance of
        class `reader` (a subclass of `owner`) sees it, where given (see `_seen_from`)."""
        self._resolutions.read(_field_fact((owner, attr)))
        if reader and (seen := self._seen_from(owner, attr, reader, typed=True)) is not None:
            return _one_type(seen)
        return self._field_types.get((owner, attr))

    def _field_value_set(self, owner: str, attr: str, reader: str) -> frozenset[Entity]:
        """Every value stored into a field, with its one class where the stores agree on one, and
        the container its elements make where its class's methods store some: as an instance of
        class `reader` sees them."""
        typed = self.field_type(owner, attr, reader)
        key = _field_elements(owner, attr)
        kept = {Entity("elements", "|".join(key))} if key in self._stored_index else set()
        seen = self._seen_from(owner, attr, reader, typed=False)
        values = self._field_values.get((owner, attr), frozenset()) if seen is None else seen
        return values | ({typed} if typed else set()) | kept

    def _seen_from(self, owner: str, attr: str, reader: str, typed: bool) -> frozenset[Entity] | None:
        """What the stores into field `attr` of class `owner` give an instance of class `reader`:
        only the stores by methods of its own classes (its bases and itself) and of its subclasses,
        where these store anything known. A sibling's methods never run on it: where a base is
        shared by a synchronous client and an asynchronous one, each of them stores its own kind of
        connection manager into the base's field. But where its own classes store only what is not
        known (a parameter no caller types), what its siblings store stands for it, as an untyped
        store does not contradict a typed one. None where that is every store."""
        stores = (self._typed_stores if typed else self._value_stores).get((owner, attr))
        if reader == owner or stores is None or len(stores) < 2:
            return None
        key = (owner, attr, reader, typed)
        if key not in self._seen_from_cache:
            related = {klass: stored for klass, stored in stores.items() if self._related(reader, klass)}
            self._seen_from_cache[key] = _all_stored(related) if related and len(related) < len(stores) else None
        return self._seen_from_cache[key]

    def _related(self, cid: str, other: str) -> bool:
        """Whether an instance of class `cid` may run methods of class `other`: one derives from
        the other (or they are the same)."""
        return other in self.mro(cid) or cid in self.mro(other)

    def _infer_field_types(self) -> dict[tuple[str, str], _StoresByClass]:
        """The classes of the values stored into each field, by the class whose code stores them
        (a field is typed where they agree on one: see `_one_type`)."""
        seen: dict[tuple[str, str], dict[str, set[Entity]]] = {}
        declared: dict[tuple[str, str], set[Entity]] = {}
        # What each store may give, resolved only for a field declared as an interface (see
        # `_declared_given_functions`): a few fields, against every store of every pass.
        given: dict[tuple[str, str], list[Callable[[], frozenset[Entity]]]] = {}
        for fid, storer, write, entity in self._field_stores():
            key = (self.defining_class(storer, write.ref.attrs[0]), write.ref.attrs[0])
            given.setdefault(key, []).append(partial(self._stored_functions, fid, write, entity))
            if write.kind == "item":
                entity = Entity("container", entity.target) if entity.kind == "instance" else UNKNOWN
            seen.setdefault(key, {}).setdefault(storer, set()).add(entity)
            if write.annotation:  # `self.state: State = make()`
                annotated = self._annotation_entity(self.module_of(fid), write.annotation, storer)
                declared.setdefault(key, set()).add(annotated)
        for cid, (module, cls) in self.classes.items():
            body = function_id(module.name, f"{cls.qualname}.<body>")
            for name, binds in self.binds(body).items() if body in self.functions else ():
                for bind in binds:
                    if bind.annotation:
                        declared.setdefault((cid, name), set()).add(
                            self._annotation_entity(module, bind.annotation, cid)
                        )
                        if (built := self._built_at_declaration(body, name, bind)) is not None:
                            seen.setdefault((cid, name), {}).setdefault(cid, set()).add(built)
                    elif (named := self._class_named(body, bind)) is not None:
                        seen.setdefault((cid, name), {}).setdefault(cid, set()).add(named)
        # A declaration (`_state: PartitionState`, a Java field's type) types a field no store types:
        # a typed store is the more precise (an instance of a subclass of the declared class). Its
        # stores of `None` (`self._states: list[State] | None = None`) are what it lets the field
        # hold besides: they type nothing.
        for _, owner, write, entity in self._stores_into_other_objects():
            key = (self.defining_class(owner, write.ref.attrs[-1]), write.ref.attrs[-1])
            given.setdefault(key, []).append(partial(_known, entity))
        for key, types in declared.items():
            stores = seen.setdefault(key, {})
            for entities in stores.values():
                entities.discard(_NONE)
            if not any(_typed_only(entities) for entities in stores.values()) and not self._declared_given_functions(
                types, given.get(key, [])
            ):
                stores.setdefault(key[0], set()).update(types)
        # Untyped stores (`self.assignment = {}`, `= None`, a literal container passed in) do not
        # contradict a typed one.
        return {
            key: {cls: typed for cls, entities in by_class.items() if (typed := _typed_only(entities))}
            for key, by_class in seen.items()
        }

    def _declared_given_functions(
        self, declared: set[Entity], given: list[Callable[[], frozenset[Entity]]]
    ) -> bool:
        """Whether a field declared as the project's interface (`private final Handler h = m ->
        check(m);`) is given functions, and besides them only objects of that interface, by every
        store: it holds those, not each implementation, as such a local does (see
        `_given_functions`). Not one with a `default` method, which keeps the interface (see
        `_has_default_methods`)."""
        if len(declared) != 1:
            return False
        (interface,) = declared
        return (
            interface.kind == "instance"
            and interface.target in self._abstract_classes
            and not self._has_default_methods(interface.target)
            and self._functions_and_implementations([give() for give in given], interface.target)
        )

    def _built_at_declaration(self, body: str, name: str, bind: Bind) -> Entity | None:
        """The instance of a project class a declaration initialises its field with (`x: Source =
        ConstantSource()`, Java's `private final Source source = new ConstantSource();`, which is
        a store into the field): a store more precise than the declared type."""
        calls = [bind.value_call] if bind.value_call >= 0 else []
        calls += [w.value_call for w in self.function(body).writes if w.ref.attrs == (name,) and w.value_call >= 0]
        for call in (self.call(body, call_id) for call_id in calls):
            built = self.call_result(body, call) if call is not None else UNKNOWN
            if built.kind == "instance":
                return built
        return None

    def _class_named(self, body: str, bind: Bind) -> Entity | None:
        """The class a class attribute names (`dispatcher_class = Dispatcher`): a factory the
        class's methods call through `self`, where it is one."""
        if bind.kind != "assign" or bind.value_ref is None:
            return None
        named = self.entity(body, bind.value_ref)
        return named if named.kind == "class" else None

    def _stored_entity(self, fid: str, value_call: int, value_ref: Ref | None) -> Entity:
        if value_call >= 0:
            call = self.call(fid, value_call)
            return self.call_result(fid, call) if call is not None else UNKNOWN
        if value_ref is not None:
            return self.entity(fid, value_ref)
        return UNKNOWN

    # -- name resolution -----------------------------------------------------------------------

    def resolve_dotted(
        self, module: ModuleInfo, text: str, classes_as_namespaces: bool = True
    ) -> Entity:
        """A dotted name as written in `module` (a base class, a decorator, an annotation).

        Base classes are resolved through modules only: looking inside a class needs its MRO,
        which needs the bases being resolved.
        """
        text = _unwrap_annotation(text)
        parts = text.split(".")
        if not all(part.isidentifier() for part in parts):
            return UNKNOWN
        entity = self.module_member(module.name, parts[0])
        for part in parts[1:]:
            if entity.kind == "class" and not classes_as_namespaces:
                # A class nested in the class body (`class C(A.B)`) needs no MRO to be found.
                nested = f"{entity.target}.{part}"
                entity = Entity("class", nested) if nested in self.classes else UNKNOWN
                continue
            entity = self.member(entity, part)
        return entity

    def module_member(self, module_name: str, name: str) -> Entity:
        """What `name` denotes in a module: its own definition, an import, a submodule, a global."""
        key = (module_name, name)
        cached = self._member_cache.get(key)
        if cached is not None:
            return cached
        if key in self._member_stack:
            return UNKNOWN
        outermost = not self._member_stack
        self._member_stack.add(key)
        try:
            result = self._module_member(module_name, name)
        finally:
            self._member_stack.discard(key)
        # Names depend on the modules alone, never on learnt types: kept for the whole run. Only
        # an outermost lookup is kept, as one inside an import cycle saw the cycle cut short.
        if outermost:
            self._member_cache[key] = result
        return result

    def _module_member(self, module_name: str, name: str) -> Entity:
        module = self.modules.get(module_name)
        if module is None:
            return Entity("external", f"{module_name}.{name}")
        if function_id(module_name, name) in self.classes:
            return Entity("class", function_id(module_name, name))
        if function_id(module_name, name) in self.functions:
            return Entity("function", function_id(module_name, name))
        for imported in reversed(module.facts.imports):
            if imported.local:
                continue
            if imported.alias == name:
                entity = self._import_entity(module, imported.module, imported.name, imported.level)
                if imported.implicit and entity.kind == "external":
                    return self._java_on_demand_class(module, name) or entity
                return entity
            if imported.alias == "*":
                source = self._imported_module(module, imported.level, imported.module)
                if source in self.modules:
                    entity = self.module_member(source, name)
                    if entity.kind not in ("unknown", "external"):
                        return entity
        submodule = f"{module_name}.{name}"
        if submodule in self.modules:
            return Entity("module", submodule)
        if name in self._globals_of[module_name]:
            return Entity("global", function_id(module_name, name))
        return Entity("external", name)

    def _imported_module(self, module: ModuleInfo, level: int, target: str, name: str = "") -> str:
        """The module an import in `module` names: below the file's own import root where a module
        of that name there is named after its folders (see ModuleLocator), else by its name, else
        by its path (a relative import), else the name (a module outside the unit)."""
        located = self._locator.located(module.rel, level, target)
        if level == 0 and located is not None:
            return located
        absolute = absolute_import_module(module, Import("", target, name, level))
        if absolute in self.modules or (name and f"{absolute}.{name}" in self.modules):
            return absolute
        return located or absolute

    def _import_entity(self, module: ModuleInfo, target: str, name: str, level: int) -> Entity:
        absolute = self._imported_module(module, level, target, name)
        if not name:
            return Entity("module", absolute) if absolute in self.modules else Entity("external", absolute)
        if self._sees_module(module, absolute):
            entity = self.module_member(absolute, name)
            if entity.kind == "external" and self._sees_module(module, f"{absolute}.{name}"):
                return Entity("module", f"{absolute}.{name}")
            if entity.kind == "external" and entity.target == name:
                return Entity("external", f"{absolute}.{name}")
            return entity
        if self._sees_module(module, f"{absolute}.{name}"):
            return Entity("module", f"{absolute}.{name}")
        declared = self._java_package_class(module, absolute) if is_java(module.rel) else ""
        if declared:
            return Entity("class", declared)
        if is_java(module.rel) and absolute.endswith(f".{name}"):
            return Entity("external", absolute)  # Java's `import a.b.C;` names the class a.b.C
        return Entity("external", f"{absolute}.{name}" if absolute else name)

    def _java_package_class(self, module: ModuleInfo, dotted: str) -> str:
        """The top-level class of the unit whose full name is `dotted` (`p.SlowDrain`, or `SlowDrain`
        in the default package), in whichever file declares it: one of no access modifier may sit in
        a file of another name (Java sees its package's classes in any of its files), and files of
        one package and name in several source folders (two modules of a build) are each named by
        their paths. Where files of several source folders declare it, the one in the importer's; ""
        where that leaves none or several."""
        declared = [cid for cid in self._java_top_level_classes.get(dotted, ()) if self._sees_class(module, cid)]
        root = _java_source_root(module)
        beside = [cid for cid in declared if _java_source_root(self.classes[cid][0]) == root]
        found = beside or declared
        return found[0] if len(found) == 1 else ""

    def _sees_module(self, module: ModuleInfo, name: str) -> bool:
        """Whether the unit has a module `name` that `module`'s code sees (see `_java_sees`)."""
        found = self.modules.get(name)
        return found is not None and _java_sees(module, found)

    def _sees_class(self, module: ModuleInfo, cid: str) -> bool:
        """Whether `module`'s code sees the class `cid` (see `_java_sees`)."""
        return _java_sees(module, self.classes[cid][0])

    def _java_on_demand_class(self, module: ModuleInfo, name: str) -> Entity | None:
        """The class a Java file names `name` where neither it, its single-type imports nor its own
        package declares one: the one of a package it imports whole (`import q.*;`), a class of
        the unit that package declares, else a JDK class whose meaning the analysis knows (a lock);
        None where no package gives one, or several do (JLS 7.5.2)."""
        packages = [imported.module for imported in module.facts.imports if imported.alias == "*"]
        found = [cid for package in packages if (cid := self._java_package_class(module, f"{package}.{name}"))]
        if found:
            return Entity("class", found[0]) if len(found) == 1 else None
        known = [package for package in packages if name in KNOWN_PACKAGE_CLASSES.get(package, ())]
        return Entity("external", f"{known[0]}.{name}") if known else None

    @property
    def _java_top_level_classes(self) -> dict[str, tuple[str, ...]]:
        """The top-level classes of the Java files, by full name (package and class name)."""
        if self._java_top_level_classes_found is None:
            found: dict[str, list[str]] = {}
            for module in self.modules.values():
                if is_java(module.rel):
                    for full_name, qualname in java_top_level_classes(module.facts).items():
                        found.setdefault(full_name, []).append(function_id(module.name, qualname))
            self._java_top_level_classes_found = {name: tuple(cids) for name, cids in found.items()}
        return self._java_top_level_classes_found

    def member(self, entity: Entity, attr: str, field_first: bool = False) -> Entity:
        """What `entity.attr` denotes; with `field_first`, an instance's field before a method of
        the same name (Java, where `state.commit()` reads the field `state` even beside a method
        `state()`: the two never share a namespace)."""
        if entity.kind == "global":
            entity = self.global_value(entity.target)
        if entity.kind == "module":
            return self.module_member(entity.target, attr)
        if entity.kind == "external":
            return Entity("external", f"{entity.target}.{attr}")
        if entity.kind == "function" and attr not in FUNCTION_COMBINATORS and self.is_java_function(entity.target):
            # A Java lambda or method reference called through its interface (`current.test(m)`).
            return entity
        if entity.kind in ("class", "instance"):
            method = self._method_named(entity.target, attr, field_first and entity.kind == "instance")
            if method:
                if entity.kind == "instance" and self.function(method).is_property:
                    return Entity("property", method)
                if entity.kind == "class" and self.function(method).kind == "method":
                    # Taken from the class, a method is a plain function: its call names its self.
                    return Entity("function", method, _SELF_PASSED)
                return Entity("function", method)
            nested = self._nested_class(entity.target, attr)
            if nested:
                return Entity("class", nested)
            if entity.kind == "instance":
                return self._instance_field(entity.target, attr)
        if entity.kind == "super":
            # `super().handle`: the method above the class, else the object's own field.
            method = self.lookup_method(entity.target, attr, after=entity.target)
            if not method:
                return self._instance_field(entity.target, attr)
            return Entity("property" if self.function(method).is_property else "function", method)
        if entity.kind == "elements" and attr in _ELEMENTS_VIEW_METHODS:
            return Entity("elements_view", entity.target, entity.keys)
        if entity.kind == "elements" and attr == "items":
            return Entity("elements_items", entity.target, entity.keys)
        if _holds_instances(entity) and attr in _CONTAINER_VIEW_METHODS:
            return Entity("container_method", entity.target)
        if _holds_instances(entity) and attr == "items":
            return Entity("items_method", entity.target)
        if _holds_instances(entity) and attr in _CONTAINER_ELEMENT_METHODS:
            return Entity("element_method", entity.target)
        return _java_collection_member(entity, attr)

    def _instance_field(self, cid: str, attr: str) -> Entity:
        """What the field `attr` of an instance of class `cid` holds, by its stores."""
        return self.field_type(self.defining_class(cid, attr), attr, cid) or UNKNOWN

    def is_java_function(self, fid: str) -> bool:
        return fid in self._java_functions

    def _in_java(self, fid: str) -> bool:
        """Whether function `fid` (or the wrapper a clone `fid` was made of) is Java code."""
        return self._function_or_wrapper(fid) in self._java_functions

    def is_default_method(self, fid: str) -> bool:
        """Whether `fid` is an instance method with a body of a project interface (`default`): called
        on a lambda or method reference given as that interface, it runs its own body."""
        owner = self.class_of_function(fid)
        function = self.function(fid)
        is_interface = owner in self.classes and self.classes[owner][1].interface
        return is_interface and not function.stub_body and function.kind == "method"

    def property_read(self, fid: str, ref: Ref, above: bool = False) -> str:
        """The getter of the property a name path reads in `fid`, or "". Only a path ending in a
        property's name (or a class-body alias of one) can read one: the others are not resolved.
        With `above`, the path is read through `super()` (see `Access.above`)."""
        if not ref.attrs or ref.attrs[-1] not in self._property_names:
            return ""
        entity = self._entity_above(fid, ref) if above else self.entity(fid, ref)
        return entity.target if entity.kind == "property" else ""

    def property_reads(self, fid: str, ref: Ref, above: bool = False) -> tuple[str, ...]:
        """The getters a name path may run in `fid`: `property_read`'s, and where the object may be
        of a subclass that overrides the property (`self.epoch` in a base class, a receiver typed
        as an abstract class), theirs too, as a method call on it resolves (RULES.md, calls).
        Through `super()` (`above`), the one getter above the method's class."""
        getter = self.property_read(fid, ref, above)
        if not getter or above:
            return (getter,) if getter else ()
        found = {value.target for value in self.path_values(fid, ref) if value.kind == "property"}
        return tuple(sorted(found | {getter}))

    def _nested_class(self, cid: str, attr: str) -> str:
        """The class defined as `attr` in the body of class `cid` or of one of its bases
        (`self.State()`, `Consumer.State`), "" if none."""
        return next((nested for klass in self.mro(cid) if (nested := f"{klass}.{attr}") in self.classes), "")

    def property_write(self, fid: str, write: Write) -> str:
        """The setter that a store into a property's name runs in `fid` (`self.epoch = e`,
        `self.epoch += 1`), or the deleter that `del self.epoch` runs; "" if none."""
        accessor = _PROPERTY_ACCESSORS.get(write.kind)
        getter = self.property_read(fid, write.ref) if accessor else ""
        run = f"{getter}<{accessor}>" if getter else ""
        return run if run in self.functions else ""

    @property
    def _property_names(self) -> frozenset[str]:
        if self._property_names_found is None:
            self._property_names_found = self._find_property_names()
        return self._property_names_found

    def _find_property_names(self) -> frozenset[str]:
        names = {function.name for _, function in self.functions.values() if function.is_property}
        aliases = {
            alias for found in self._method_aliases.values() for alias, method in found.items() if method in names
        }
        return frozenset(names | aliases)

    def entity(self, fid: str, ref: Ref, depth: int = 0, called: bool = False) -> Entity:
        """What a name path denotes inside function `fid`; with `called`, where its last name is
        called (see `_fields_within`)."""
        called = called and self._called_apart(fid, ref)
        return self._resolutions.get(
            _Cache.ENTITY,
            (self._resolved_for(fid, ref), ref, called),
            lambda: self._entity(fid, ref, depth, called),
            UNKNOWN,
        )

    def _entity(self, fid: str, ref: Ref, depth: int, called: bool, root: Entity | None = None) -> Entity:
        if self._cut_short(depth):
            return UNKNOWN
        entity = root if root is not None else self.root_entity(fid, ref, depth)
        fields_within = self._fields_within(fid, ref, called)
        for index, attr in enumerate(ref.attrs):
            if entity.kind == "property":
                # `self.state.epoch` with `state` a property: what the getter returns.
                entity = self.return_entity(entity.target, depth + 1)
            if attr == "[]" and _holds_instances(entity):
                entity = Entity("instance", entity.target)
            elif attr == "[]":
                # An element of a container the value flow follows (`by_topic[topic]` of a local
                # dict filled by subscript): of the one class its elements agree on.
                entity = self._taken_element(fid, ref._replace(attrs=ref.attrs[:index]), depth)
            elif entity.kind != "unknown":
                entity = self.member(entity, attr, field_first=index < fields_within)
            if entity.kind == "unknown" and ref.attrs[index + 1 : index + 2] != ("[]",):
                # A container of no one type (`self._partitions`, a list filled by `append`) may
                # still hold elements the value flow knows: its subscript is asked next.
                break
        return entity

    def _entity_above(self, fid: str, ref: Ref) -> Entity:
        """What a path read through `super()` in `fid` denotes (`super().epoch`, written `self.epoch`
        in the facts): its first name looked up above the method's class. Rare: not cached."""
        above = self._own_class(fid)
        return self._entity(fid, ref, 0, False, Entity("super", above)) if above else UNKNOWN

    def root_entity(self, fid: str, ref: Ref, depth: int = 0) -> Entity:
        """What the first name of a path denotes in `fid` (a parameter, a local, a global)."""
        return self._resolutions.get(
            _Cache.ROOT,
            (self._resolved_for(fid, ref), ref.scope, ref.name),
            lambda: self._root_entity(fid, ref, depth),
            UNKNOWN,
        )

    def _resolved_for(self, fid: str, ref: Ref) -> str:
        """Whom a resolution of path `ref` read in `fid` is kept for. A Python module-level name
        (a global, an import, a builtin) and the path on it resolve alike in every function of
        the module: only the module, and whether it is test code, which is a module's, are read
        (the subclasses an abstract receiver runs, see `subclasses_seen_from`), so once per module
        (no function id, which holds a colon, is a module's name); any other path, and any path
        of a wrapper's clone, for `fid`."""
        return fid if ref.scope else self._python_module_names.get(fid, fid)

    def _root_entity(self, fid: str, ref: Ref, depth: int) -> Entity:
        module = self.module_of(fid)
        if not ref.scope:
            # Java: a class nested in the method's class, one around it or their bases (inherited)
            # shadows one imported or of the file's package (JLS 6.4.1), as in a declared type.
            nested = self._java_nested_class(module, self.class_of_function(fid), ref.name)
            return Entity("class", nested) if nested else self.module_member(module.name, ref.name)
        scope = function_id(module.name, ref.scope)
        if scope not in self.functions:
            return UNKNOWN
        decorated = self._decorated_here(fid, ref)
        if decorated is not None:
            return next(iter(decorated)) if len(decorated) == 1 else UNKNOWN
        if ref.name == self.self_param(scope):
            return Entity(self._self_kind(scope), self.class_of_function(scope))
        nested = function_id(module.name, f"{ref.scope}.{ref.name}")
        if nested in self.functions:
            return Entity("function", nested)
        if nested in self.classes:
            return Entity("class", nested)
        candidates = self.local_values(scope, ref.name, depth)
        away = self._cloned_away.get(fid)
        if away and self._names_decorated(fid, ref):
            candidates -= away
        if len(candidates) == 1:
            return next(iter(candidates))
        return UNKNOWN

    def local_values(self, scope: str, name: str, depth: int = 0) -> frozenset[Entity]:
        """Every known value of local `name` of function `scope`: its bindings, and the classes
        and functions bound to it as a parameter at resolved call sites."""
        candidates = {self._bind_entity(scope, bind, depth) for bind in self.binds(scope).get(name, ())}
        learnt, passed = self._parameter_types(scope, name)
        if learnt:
            # The class every call site passes refines an annotation naming it or one of its
            # bases, or an abstract one it implements without deriving from it (a `Protocol`):
            # one value, not two that disagree.
            ancestry = self.mro(learnt)
            candidates = {
                c
                for c in candidates
                if c.kind != "instance" or c.target not in ancestry and c.target not in self._abstract_classes
            }
            candidates.add(Entity("instance", learnt))
        # Instances passed are typed by param_types, where every call site agrees.
        candidates.update(v for v in passed if v.kind != "instance")
        element_class, elements_passed = self._parameter_types(scope, star_elements(name))
        if element_class:
            candidates.add(Entity("container", element_class))
        if elements_passed:
            # Java's `Consumer<Msg>... cs` given functions: their container (see `_stored_elements`).
            candidates.add(Entity("elements", f"{scope}|{star_elements(name)}"))
        # A class or function given as the default (`factory=Dispatcher`) of a parameter that no
        # call passes anything known and nothing binds again: what it holds. Most locals have no
        # default: asked first, it spares the parameter check at every lookup.
        has_default = name in self._defaults.get(scope, {})
        if has_default and not learnt and not passed and self.only_a_parameter(scope, name):
            candidates.update(v for v in self._default_values(scope, name, depth) if v.kind in ("class", "function"))
        candidates.discard(UNKNOWN)
        return frozenset(candidates)

    def global_values(self, target: str) -> frozenset[Entity]:
        """The values module-level code binds to global `module:name` (module code is its
        module's function, its locals typed like any function's)."""
        module, name = target.split(":", 1)
        body = function_id(module, "")
        if body not in self.functions:
            return frozenset()
        return frozenset(
            value
            for bind in self.binds(body).get(name, ())
            if (value := self._bind_entity(body, bind, 0)) not in (UNKNOWN,)
            and value.kind != "global"
        )

    def global_value(self, target: str) -> Entity:
        """The one value of a module-level name, where every binding agrees."""
        values = self.global_values(target)
        return next(iter(values)) if len(values) == 1 else UNKNOWN

    def _bind_entity(self, fid: str, bind: Bind, depth: int) -> Entity:
        module = self.module_of(fid)
        if bind.kind == "component":
            return self._component_entity(fid, bind)
        if bind.annotation:
            # A lambda's parameters and locals name the classes nested in the class around it, too.
            declared = self._annotation_entity(module, bind.annotation, self._own_class(fid))
            if declared.kind == "instance" and declared.target in self._abstract_classes:
                bound = self._bound_implementation(fid, bind, declared.target, depth)
                if bound != UNKNOWN or self._given_functions(fid, bind, declared.target, depth):
                    return bound
            if declared.kind != "instance" and bind.kind == "assign":
                # `Predicate<Msg> p = this::isCurrent`: the function bound, which an annotation
                # naming no class of the project (an interface of the JDK, `Callable`) leaves out;
                # `Predicate<Msg> p = stale();`: the lambda, or the object, the call returns.
                bound = self._assigned_entity(fid, bind, depth)
                if bound.kind == "function" or bound.kind == "instance" and bind.value_call >= 0:
                    return bound
            return declared
        if bind.kind == "import":
            imported = module.facts.imports[bind.index]
            return self._import_entity(module, imported.module, imported.name, imported.level)
        if bind.kind == "assign":
            return self._assigned_entity(fid, bind, depth)
        if bind.kind == "with":
            return self._entered_entity(fid, bind, depth)
        if bind.kind == "unpack":
            unpacked = self._unpacked_values(fid, bind, depth)
            return next(iter(unpacked)) if len(unpacked) == 1 else UNKNOWN
        if bind.kind in ("iter", "iter_part"):
            iterable = self._iterable_entity(fid, bind, depth)
            element = self._declared_element(fid, bind, iterable)
            if element != UNKNOWN:
                return element
            # `for key, value in d.items()` and `for i, x in enumerate(xs)`: the second name.
            if bind.kind == "iter_part" and bind.index == 1 and iterable.kind == "pairs":
                return Entity("instance", iterable.target)
            return self._iterated_instance(fid, bind, depth)
        return UNKNOWN

    def _declared_element(self, fid: str, bind: Bind, iterable: Entity) -> Entity:
        """What a loop variable's binding (or a lambda's parameter's run per element) takes of the
        declared collection `iterable` it walks: an element, an entry of a map's `entrySet()`, a
        key or a value of a Java map's `forEach((key, value) -> ...)`; unknown for anything else."""
        if bind.kind == "iter" and iterable.kind == "container":
            return Entity("instance", iterable.target)
        if bind.kind == "iter" and iterable.kind == "entries":
            return Entity("entry", iterable.target, iterable.keys)
        if bind.kind == "iter_part" and iterable.kind == "mapping" and self._in_java(fid):
            held = (_key_class(iterable), iterable.target)[bind.index] if bind.index in (0, 1) else ""
            return Entity("instance", held) if held else UNKNOWN
        return UNKNOWN

    def _iterable_entity(self, fid: str, bind: Bind, depth: int) -> Entity:
        """What a loop variable's (or a lambda's parameter's run per element) binding walks."""
        if bind.value_call >= 0:
            call = self._bound_call(fid, bind)
            return self.call_result(fid, call, depth + 1) if call is not None else UNKNOWN
        return self.entity(fid, bind.value_ref, depth + 1) if bind.value_ref is not None else UNKNOWN

    def _bound_implementation(self, fid: str, bind: Bind, abstract: str, depth: int) -> Entity:
        """What a name declared as the project's abstract class or interface `abstract` is bound
        to, where that says more than every implementation: the class built (`Source source = new
        ConstantSource();`), the method referenced (`Handler h = this::drainSlow;`, which runs where
        `h.handle(m)` is called); else unknown."""
        if bind.value_call >= 0:
            call = self._bound_call(fid, bind)
            built = self.call_result(fid, call, depth + 1) if call is not None else UNKNOWN
            return built if built.kind == "instance" and abstract in self.mro(built.target) else UNKNOWN
        referenced = self._assigned_entity(fid, bind, depth) if bind.kind == "assign" else UNKNOWN
        if referenced.kind != "function" or self._has_default_methods(abstract):
            return UNKNOWN
        return referenced

    def _has_default_methods(self, interface: str) -> bool:
        """Whether a project interface declares, or takes from one it extends, an instance method
        besides the one a lambda or a method reference given to it implements: a `default` one,
        which, called on a name holding such a function (`h.label()`), runs its own body, not the
        function. A name declared as such an interface keeps it, its implementations and its
        methods, as one given a lambda does."""
        methods: set[str] = set()
        for cid in self.mro(interface):
            module, cls = self.classes[cid]
            declared = (function_id(module.name, f"{cls.qualname}.{name}") for name in cls.methods)
            methods.update(
                fid for fid in declared if fid in self.functions and self.function(fid).kind != "staticmethod"
            )
        return len(methods) > 1

    def _declared_with_default_methods(self, scope: str, name: str) -> bool:
        """Whether local `name` of `scope` is declared as a project interface with a `default`
        method (see `_has_default_methods`)."""
        return any(self._has_default_methods(interface) for interface in self._declared_interfaces(scope, name))

    def _declared_interfaces(self, scope: str, name: str) -> Iterator[str]:
        """The project's abstract classes and interfaces local `name` of `scope` is declared as."""
        module, within = self.module_of(scope), self._own_class(scope)
        for bind in self.binds(scope).get(name, ()):
            declared = self._annotation_entity(module, bind.annotation, within) if bind.annotation else UNKNOWN
            if declared.kind == "instance" and declared.target in self._abstract_classes:
                yield declared.target

    def _default_method_runner(self, fid: str, ref: Ref) -> str:
        """The project interface whose `default` method a local's path names (`h.label` of `Handler
        h = m -> drain(m);`), where the local is declared as it: that method runs its own body, not
        the lambda or method the local holds, which implements the interface's abstract one. ""
        for any other path."""
        if not ref.scope or not ref.attrs:
            return ""
        scope = function_id(self.module_of(fid).name, ref.scope)
        if not self.is_java_function(scope):
            return ""
        return next(
            (
                interface
                for interface in self._declared_interfaces(scope, ref.name)
                if (method := self.lookup_method(interface, ref.attrs[0])) and not self.function(method).stub_body
            ),
            "",
        )

    def _given_functions(self, fid: str, bind: Bind, abstract: str, depth: int) -> bool:
        """Whether a local declared as the project's abstract class or interface `abstract`, by a
        bind of no one value of its own (`Handler h = m -> drainFast(m);`, `Handler h;` then `h =
        this::drainFast;`), is given functions, and besides them only objects of that type: it
        holds those, not each implementation. A value of no class known (`h = factory.get();`, `h =
        (Handler) o;`, an arm kept with no value, `fast ? m -> a(m) : handlers[0]`) may be any
        implementation, as its declaration says."""
        if bind.kind != "assign" or bind.value_call >= 0 or bind.value_ref is not None:
            return False
        return self._functions_and_implementations(list(self._values_given(fid, bind.name, depth + 1)), abstract)

    def _functions_and_implementations(self, given: list[frozenset[Entity]], abstract: str) -> bool:
        """Whether each of `given` (what each assignment may give) is known and holds functions or
        objects of `abstract`, and some give functions."""
        values = [value for each in given for value in each]
        known = all(given) and all(
            value.kind == "function" or value.kind == "instance" and value.target in self.classes
            and abstract in self.mro(value.target)
            for value in values
        )
        return known and any(value.kind == "function" for value in values)

    def _values_given(self, fid: str, name: str, depth: int) -> Iterator[frozenset[Entity]]:
        """What each assignment of a value to local `name` of `fid` (`h = f();`, `h = other;`) and
        each function or arm of a conditional stored under it may give, one set for each."""
        for bind in self.binds(fid).get(name, ()):
            if bind.kind == "assign" and (bind.value_call >= 0 or bind.value_ref is not None):
                yield self._bound_source_values(fid, bind, depth)
        for stored_in, stored in self._stored_index.get((fid, name), ()):
            if not stored.element:
                yield self._stored_value(stored_in, stored, depth)

    def _component_entity(self, fid: str, bind: Bind) -> Entity:
        """What a `var` component of a Java record pattern holds (`mark` of `Held(var mark, var
        topic)`): the record's component at its place, of the class the record declares it."""
        record = self._annotation_entity(self.module_of(fid), bind.annotation, self._own_class(fid))
        components = self.classes[record.target][1].components if record.kind == "instance" else ()
        return self._instance_field(record.target, components[bind.index]) if bind.index < len(components) else UNKNOWN

    def _assigned_entity(self, fid: str, bind: Bind, depth: int) -> Entity:
        """The value an assignment (`x = f()`, `x = self.state`) binds."""
        if bind.value_call >= 0:
            call = self._bound_call(fid, bind)
            return self.call_result(fid, call, depth + 1) if call is not None else UNKNOWN
        if bind.value_ref is not None:
            value = self.entity(fid, bind.value_ref, depth + 1)
            # `current = self.epoch` with a property: the local holds the getter's result.
            if value.kind == "property":
                return self.return_entity(value.target, depth + 1)
            return value
        return UNKNOWN

    def _entered_entity(self, fid: str, bind: Bind, depth: int) -> Entity:
        """What `with cm as x:` binds to `x`: what a `@contextmanager` generator `cm` calls yields,
        or what `cm.__enter__()` (`__aenter__` in an `async with`) returns, `cm` itself where that
        returns `self`. Where no `__enter__` is known (`cm` of no project class), `cm` itself. A
        name of a tuple target (`with cm as (a, b):`) takes its element of a tuple or list that
        `__enter__` returns written out, and nothing known otherwise."""
        call = self._bound_call(fid, bind)
        generators = self._context_generators(fid, call, depth) if call is not None else []
        if generators:
            yielded = frozenset(chain.from_iterable(self._yielded_values(g, depth + 1) for g in generators))
            return next(iter(yielded)) if len(yielded) == 1 and bind.index < 0 else UNKNOWN
        manager = self._assigned_entity(fid, bind, depth)
        enter = self._enter_method(fid, bind, manager)
        if bind.index >= 0:
            return self._returned_element(enter, bind.index, depth) if enter else UNKNOWN
        if not enter or self._returned_parameter(enter) == self.self_param(enter):
            return manager
        return self.return_entity(enter, depth + 1)

    def _returned_element(self, fid: str, position: int, depth: int) -> Entity:
        """What the element at `position` of the tuple or list that `fid` returns written out
        holds, where every such return agrees (`return self._consumer, self._epoch`); else unknown."""
        elements = self._returned_elements(fid, position, depth)
        return next(iter(elements)) if len(elements) == 1 else UNKNOWN

    def _returned_elements(self, fid: str, position: int, depth: int) -> frozenset[Entity]:
        """Every value the element at `position` of a tuple or list `fid` returns written out holds."""
        return frozenset(
            value
            for stored in self.function(fid).stored
            if stored.target is None and stored.element and stored.keys == (str(position),)
            for value in self._stored_value(fid, stored, depth + 1)
        )

    def _unpacked_values(self, fid: str, bind: Bind, depth: int) -> frozenset[Entity]:
        """What one name of a tuple target assigned a call's result (`consumer, _ = self.session()`)
        holds: its element of the tuples or lists the functions called return written out; one
        assigned a name path's value (`consumer, _ = self.pair`), its element of the tuples or lists
        written out that the path holds (`self.pair = (self._consumer, connection)`)."""
        if bind.value_ref is not None:
            return frozenset(
                value
                for held in self.path_values(fid, bind.value_ref, depth + 1)
                if held.kind == "elements"
                for value in self._element_values(held, str(bind.index), depth + 1, None)
            )
        call = self._bound_call(fid, bind)
        callees = self.callees(fid, call, depth + 1) if call is not None else frozenset()
        return frozenset(
            value
            for callee in callees
            if callee.kind == "function"
            for value in self._returned_elements(callee.target, bind.index, depth + 1)
        )

    def _context_generators(self, fid: str, call: Call, depth: int) -> list[str]:
        """The `@contextmanager` generators that `call` calls."""
        return [
            callee.target
            for callee in self.callees(fid, call, depth + 1)
            if callee.kind == "function" and self.is_context_manager(callee.target)
        ]

    def is_context_manager(self, fid: str) -> bool:
        """Whether `fid` is a generator made a context manager by `contextlib.contextmanager` or
        `asynccontextmanager`."""
        function = self.function(fid)
        return function.is_generator and any(_CONTEXT_MANAGERS.search(name) for name in function.decorators)

    def _enter_method(self, fid: str, bind: Bind, manager: Entity) -> str:
        """The `__enter__` (`__aenter__` in an `async with`) that the `with` item binding `bind`
        runs on `manager`, where it is an instance of a project class; "" for none known."""
        entered = self.item_binding(fid, bind)
        if entered is None or manager.kind != "instance" or manager.target not in self.classes:
            return ""
        return self._context_method(manager.target, _context_method_names(self._region_entered(fid, entered))[0])

    def item_binding(self, fid: str, bind: Bind) -> Entered | None:
        """The `with` item that binds `bind` (`with cm as x:`), where `cm` is a name path or a call."""
        return next((item for item in self.function(fid).entered if within(bind.site.pos, item.site.pos)), None)

    def _region_entered(self, fid: str, entered: Entered) -> Region:
        """The held region that a `with` item opens."""
        return next(region for region in self.function(fid).regions if region.id == entered.region)

    def _iterated_instance(self, fid: str, bind: Bind, depth: int) -> Entity:
        """The class of what a loop variable holds where the value flow finds instances of one
        class alone (a list filled by `append`, a local dict's `.items()`); else unknown."""
        sources = self._bound_source_values(fid, bind, depth)
        if bind.kind == "iter":
            values = self._iterating(fid, self._bound_call(fid, bind), sources, depth)
        elif bind.index == 1:
            values = self._second_halves(sources, depth)
        else:
            return UNKNOWN
        return self._element_instance(sources, values)

    def _taken_element(self, fid: str, container: Ref, depth: int) -> Entity:
        """The class of an element taken from the container at path `container` of `fid` (by
        subscript, `get` or `pop`), as `_element_instance` finds it."""
        containers = self.path_values(fid, container, depth + 1)
        elements = self.path_values(fid, container._replace(attrs=(*container.attrs, "[]")), depth + 1)
        return self._element_instance(containers, elements)

    def _element_instance(self, containers: frozenset[Entity], elements: frozenset[Entity]) -> Entity:
        """The class of an element taken from `containers`, where its values (`elements`) are
        instances of one class, and every container among them is filled where the value flow sees
        it: a field's, or a local's that is only ever bound to a literal. A parameter's holds what
        its callers put in besides (`conf["logger"]` read before `conf["logger"] = Wrapper(...)`)."""
        for container in containers:
            if container.kind in ("elements", "element_pairs") and not self._filled_in_sight(container.target):
                return UNKNOWN
        return _one_instance(elements)

    def _filled_in_sight(self, container: str) -> bool:
        """Whether the value flow sees what is put into the container indexed as `container`."""
        scope, name = container.split("|", 1)
        if name.startswith("."):
            return True  # a field's elements (`_field_elements`): what its class stores
        if scope not in self.functions or self.is_parameter(scope, name):
            return False
        binds = self.binds(scope).get(name, ())
        return bool(binds) and all(
            bind.kind == "assign" and bind.value_call < 0 and bind.value_ref is None for bind in binds
        )

    def argument_call(self, fid: str, arg: Arg) -> Call | None:
        """The call an argument is (`iter(self._partitions)` of `next(iter(...))`), if it is one."""
        return self.call(fid, arg.call) if arg.kind == "call" else None

    def _argument_entity(self, fid: str, arg: Arg, depth: int) -> Entity:
        if arg.kind == "ref" and arg.ref is not None:
            return self.entity(fid, arg.ref, depth, called=may_name_a_method(arg))
        call = self.argument_call(fid, arg)
        return self.call_result(fid, call, depth) if call is not None else UNKNOWN

    def _annotation_entity(
        self, module: ModuleInfo, annotation: str, within: str = "", bound: Mapping[str, Entity] | None = None
    ) -> Entity:
        """The class a declared type names, in `module`; in Java, a class nested in class `within`
        or around it (or in their bases) is named by its own name (`State state;` in `C`). A
        declared collection of instances of one class (`list[State]`, `Map<String, State>`) holds
        them as a container filled with them does. A type variable of `bound` stands for what it
        gives (`T` of `List<T>`, of a `Box<Message>`: a `Message`)."""
        element, kind, key = _collection_element(annotation)
        if element:
            held = self._annotation_entity(module, element, within, bound)
            target = held.target if held.kind == "instance" else ""
            keyed = self._annotation_entity(module, key, within, bound) if key else UNKNOWN
            keys = (keyed.target,) if keyed.kind == "instance" else ()
            return Entity(kind, target, keys) if target or keys else UNKNOWN
        if "|" in annotation and is_java(module.rel):
            return self._caught_class(module, annotation, within)
        origin = _generic_origin(annotation)
        if bound and origin in bound:
            return bound[origin]
        first, _, rest = origin.partition(".")
        nested = self._java_nested_class(module, within, first)
        if nested:
            entity = self.member(Entity("class", nested), rest) if rest else Entity("class", nested)
        else:
            entity = self.resolve_dotted(module, origin)
        if entity.kind != "class" and is_java(module.rel) and function_id(module.name, origin) in self.classes:
            # A local class, which the Java frontend names by its qualified name (`Consumer.run.Judge`).
            entity = Entity("class", function_id(module.name, origin))
        return Entity("instance", entity.target) if entity.kind == "class" else UNKNOWN

    def _caught_class(self, module: ModuleInfo, annotation: str, within: str) -> Entity:
        """The class of a Java multi-catch parameter (`StaleFetch | FencedFetch e`): the first of
        the first alternative's classes, in the order of its bases, that every other derives
        from; unknown where an alternative is no class of the project, or where they share none."""
        alternatives = [self._annotation_entity(module, part, within) for part in _top_level_split(annotation, "|")]
        return self._common_supertype(alternatives)

    def _common_supertype(self, instances: Sequence[Entity]) -> Entity:
        """What `instances` all are: the one value they agree on, else an instance of the first of
        the first one's classes, in the order of its bases, that every other one's class derives
        from (of a multi-catch parameter's alternatives, of the arguments a type variable is given);
        unknown where one is of no class of the project, or where they share none."""
        if len(set(instances)) == 1:
            return instances[0]
        if any(instance.kind != "instance" or instance.target not in self.classes for instance in instances):
            return UNKNOWN
        common = next(self._shared_supertypes(instances), "")
        return Entity("instance", common) if common else UNKNOWN

    def _shared_supertypes(self, instances: Sequence[Entity]) -> Iterator[str]:
        """The classes every one of `instances` (instances of the project's classes) is, in the
        order of the first one's bases."""
        first, *others = (instance.target for instance in instances)
        return (cid for cid in self.mro(first) if all(cid in self.mro(other) for other in others))

    def _java_nested_class(self, module: ModuleInfo, within: str, name: str) -> str:
        """In Java, the class nested in class `within`, or in a class around it (or in their
        bases), that a plain `name` names there; "" if none (or in Python, where a class's body is
        no scope of its methods)."""
        if not within or not is_java(module.rel):
            return ""
        around = (klass for klass in _enclosing_classes(within) if klass in self.classes)
        return next((nested for klass in around if (nested := self._nested_class(klass, name))), "")

    def callee(self, fid: str, call: Call, depth: int = 0) -> Entity:
        """What a call site calls: a function, a class (its constructor), or something external;
        the first of the Java overloads its arguments may run. Once learning is over, kept per
        call site where asked from outside any resolution (the call graph, the lock analysis and
        the rules ask it again and again): what it reads is settled then, as `Resolutions.idle`
        says; one unfinished inside a resolution, or cut short at a depth, is not kept."""
        settled = self._callees_settled
        if settled is None or depth or not self._resolutions.idle:
            return self._callee_run(fid, call, depth)
        key = (fid, call.id)
        kept = settled.get(key)
        # A copy of the call binding other arguments (`bound_for_later`) may pick other Java overloads.
        if kept is None or kept[0] is not call:
            kept = settled[key] = (call, self._callee_run(fid, call, 0))
        return kept[1]

    def _callee_run(self, fid: str, call: Call, depth: int) -> Entity:
        return self._overloads(self._called(self._callee(fid, call, depth)), fid, call.args, depth)[0]

    def _called(self, callee: Entity) -> Entity:
        """What calling `callee` runs: for an instance of a project class, its `__call__`."""
        if callee.kind != "instance":
            return callee
        method = self.lookup_method(callee.target, "__call__")
        return Entity("function", method) if method else callee

    def _all_called(self, callee: Entity, fid: str) -> frozenset[Entity]:
        """Everything calling `callee` in `fid` may run: its `__call__` (see `_called`), and for an
        instance of an abstract class (a `Protocol`, an ABC) each implementation's, as a method
        called on it runs them (RULES.md, calls)."""
        called = self._called(callee)
        if called == callee or callee.target not in self._abstract_classes:
            return frozenset({called})
        return frozenset({called}) | self._overrides_seen_from(callee.target, "__call__", called.kind, fid)

    def constructors(self, cid: str, fid: str, args: tuple[Arg, ...]) -> tuple[str, ...]:
        """The constructors a call of class `cid` in `fid` with `args` may run (`__init__`; in Java
        the overloads these fit), none where the class has none of its own or inherited."""
        init = self.lookup_method(cid, "__init__")
        if not init:
            return ()
        return tuple(overload.target for overload in self._overloads(Entity("function", init), fid, args))

    def _overloads(self, callee: Entity, fid: str, args: tuple[Arg, ...], depth: int = 0) -> tuple[Entity, ...]:
        """The Java overloads of the resolved method (the one of the most parameters, named
        plainly; the Java frontend names the others `name~n`, `name~n~2`...), and those its class
        inherits (see `_overloads_in_reach`), that a call in `fid` with `args` may run: of those
        taking that many parameters (one whose last parameter takes any number of arguments,
        `long... offsets`, given an array there), else of those that spread the arguments into that
        parameter and have no more others, the ones the arguments' types fit (see
        `overloads.most_specific`); where their types fit none, the first taking that many; the
        method found where none does."""
        overloads = self._overloads_in_reach(callee.target) if callee.kind == "function" else ()
        if len(overloads) < 2:
            return (callee,)
        arity = len(args)
        # Java tries the overloads of that many parameters first, a `T... rest` one given an array
        # `T[]` there (JLS 15.12.2.2-3), and the ones spreading the arguments only where none fits.
        fixed = [overload for overload in overloads if self._parameter_count(overload)[0] == arity]
        spread = [
            overload
            for overload in overloads
            if (taken := self._parameter_count(overload))[1] and taken[0] - 1 <= arity
        ]
        types = [self._argument_type(fid, arg, depth) for arg in args] if len(fixed) + len(spread) > 1 else []
        given = [self._overload_taking(overload, types, False) for overload in fixed]
        fitting = most_specific([overload for overload in given if self._given_as_written(overload)]) or (
            most_specific([self._overload_taking(overload, types, True) for overload in spread])
        )
        exact = [overload for overload in fixed if not self._parameter_count(overload)[1]]
        return tuple(Entity("function", overload) for overload in fitting or [*exact, *spread, callee.target][:1])

    def _given_as_written(self, overload: Overload) -> bool:
        """Whether a call gives `overload` its arguments as they are: it has no `T... rest`
        parameter, or the last argument surely is an array (or `null`) it takes. An argument of no
        known type is taken for no array: `sensor(name, level)` runs `sensor(String, Level)`, not
        `sensor(String, Sensor...)`."""
        spreads = self._parameter_count(overload.name)[1]
        return not spreads or bool(overload.levels) and overload.levels[-1] in (EXACT, WIDER)

    def _overload_taking(self, fid: str, types: list[ArgumentType], spreading: bool) -> Overload:
        """Overload `fid` given arguments of `types`: each with its parameter and how it converts to
        it. Its `T... rest` parameter takes each argument from its position on as a `T` where they
        are `spreading`, else one array, a `T[]`."""
        params = []
        for param in self._declared_params(fid):
            written = param.primitive or param.array or param.annotation
            if param.kind == "vararg" and written and not spreading:
                written = f"{written}[]"
            as_argument = self._type_named(fid, written)
            params.append((as_argument, ParameterType(as_argument.name, as_argument.project)))
        taken = [params[min(index, len(params) - 1)] for index in range(len(types))]
        return Overload(fid, [conversion(argument, param) for argument, (_, param) in zip(types, taken)], taken)

    def _argument_type(self, fid: str, arg: Arg, depth: int) -> ArgumentType:
        """A Java argument's static type (see `Arg.static_type`); where that is unknown, the type
        the method a call runs is declared to return, of the argument's call (`note(pending())` of
        `Msg[] pending()`) or of the one that declared the `var` local it names (`var m =
        polled();`, see `Arg.typed_by_call`), or of the elements of what the `var` loop variable
        or the lambda's parameter of no declared type it names walks (`for (var m : batch)` of a
        `List<Msg> batch`)."""
        if arg.static_type:
            return self._type_named(fid, arg.static_type)
        if arg.kind == "call":
            return self._returned_type(fid, arg.call, depth)
        if arg.ref is None or arg.ref.attrs:
            return ArgumentType("")
        declaring = function_id(self.module_of(fid).name, arg.ref.scope)
        if arg.typed_by_call >= 0:
            return self._returned_type(declaring, arg.typed_by_call, depth)
        return self._element_type(declaring, arg.ref.name, depth)

    def _element_type(self, fid: str, name: str, depth: int) -> ArgumentType:
        """The type of local `name` of `fid` where each of its bindings is a `var` loop variable's,
        or a lambda's parameter of no declared type run per element, over a collection declared
        with the class of its elements (`List<Msg>`), or over a map declared with the classes of
        its keys and values (`(key, value) ->` of `Map<String, Msg>`'s `forEach`): javac infers
        it so. Unknown else."""
        binds = self.binds(fid).get(name, ()) if fid in self.functions else ()
        if not binds or any(bind.kind not in ("iter", "iter_part") or bind.annotation for bind in binds):
            return ArgumentType("")
        taken = {self._declared_element(fid, bind, self._iterable_entity(fid, bind, depth)) for bind in binds}
        element = taken.pop() if len(taken) == 1 else UNKNOWN
        return self._class_type(element.target) if element.kind == "instance" else ArgumentType("")

    def _returned_type(self, fid: str, call_id: int, depth: int) -> ArgumentType:
        """The type each method call `call_id` of `fid` may run is declared to return (see
        `FunctionFacts.returns_type`), where they all declare the same (an override may return a
        subclass); unknown else."""
        call = self.call(fid, call_id) if fid in self.functions else None
        if call is None:
            return ArgumentType("")
        callees = self.callees(fid, call, depth + 1)
        returned = {self._declared_return(fid, call, callee, depth + 1) for callee in callees}
        return returned.pop() if len(returned) == 1 else ArgumentType("")

    def _declared_return(self, fid: str, call: Call, callee: Entity, depth: int) -> ArgumentType:
        """The type `callee`, which `call` in `fid` may run, is declared to return; for a type
        variable, the class the call's receiver's type arguments, or its arguments, put in its place
        (`box.get()` of a `Box<Msg> box`, see `_returned_for_call`); for a method of a declared
        collection returning one of its elements, their class (`entry.getValue()` of a
        `Map.Entry<String, Msg>`, see `_java_collection_member`)."""
        if callee.kind == "element_method":
            return self._class_type(callee.target)
        if callee.kind != "function":
            return ArgumentType("")
        written = self.function(callee.target).returns_type
        if written:
            return self._type_named(callee.target, written)
        returned = self._returned_for_call(fid, call, callee.target, depth)
        return self._class_type(returned.target) if returned.kind == "instance" else ArgumentType("")

    def _type_named(self, fid: str, written: str) -> ArgumentType:
        """A type written in function `fid` (an argument's static type, a parameter's), with its
        supertypes where it is a class of the project; an array by its elements' simple name
        (`Msg[]`), with their class's supertypes."""
        if "[]" in written:
            element_written, dimensions = _array_parts(written)
            element = self._type_named(fid, element_written)
            return element._replace(name=element.name + dimensions)
        name = _simple_name(written)
        cid = self._project_class_named(fid, written) if name else ""
        return self._class_type(cid) if cid else ArgumentType(name)

    def _class_type(self, cid: str) -> ArgumentType:
        """Class `cid` of the project as an argument's type, with its supertypes; unknown for
        another class."""
        if cid not in self.classes:
            return ArgumentType("")
        supertypes, open_ended = self._supertypes(cid)
        return ArgumentType(_simple_name(self.classes[cid][1].name), True, supertypes, open_ended)

    def _project_class_named(self, fid: str, annotation: str) -> str:
        """The class of the project a type declared in function `fid` names, or ""."""
        declared = self._annotation_entity(self.module_of(fid), annotation, self.class_of_function(fid))
        return declared.target if declared.kind == "instance" and declared.target in self.classes else ""

    def _supertypes(self, cid: str) -> tuple[frozenset[str], bool]:
        """The simple names of class `cid`, of its bases and theirs, and whether one of these is
        outside the project (whose own supertypes are unknown)."""
        names: set[str] = set()
        open_ended = False
        for klass in self.mro(cid):
            cls = self.classes[klass][1]
            names.add(_simple_name(cls.name))
            for base, entity in zip(cls.bases, self._resolved_bases(klass)):
                names.add(_simple_name(base))
                open_ended = open_ended or entity.kind != "class"
        return frozenset(names), open_ended

    def _overloads_in_reach(self, method: str) -> tuple[str, ...]:
        """The Java overloads a call resolved to `method` chooses among: those of its class (see
        `overloads`), then those of its name its class inherits, each base's in MRO order but
        those a class before it overrides (see `_overrides`) and those it does not inherit (see
        `_inherits`). Javac chooses among inherited overloads too:
        `s.commit(epoch)` with a `long epoch` runs `Base.commit(long)` beside `Sub.commit(String)`.
        A constructor is not inherited."""
        cached = self._overloads_in_reach_cache.get(method)
        if cached is None:
            cached = self._overloads_in_reach_cache[method] = self._find_overloads_in_reach(method)
        return cached

    def _find_overloads_in_reach(self, method: str) -> tuple[str, ...]:
        own = self.overloads.get(method, (method,))
        cid = self.class_of_function(method) if method in self.functions else ""
        if not cid or cid not in self.classes or not self.is_java_function(method) or self.is_constructor(method):
            return own
        name = OVERLOAD_TAIL.sub("", method).rsplit(".", 1)[-1]
        found = list(own)
        for base in self.mro(cid)[1:]:
            module, cls = self.classes[base]
            plain = function_id(module.name, f"{cls.qualname}.{name}")
            for inherited in self.overloads.get(plain, (plain,)) if plain in self.functions else ():
                if self._inherits(cid, inherited) and not any(self._overrides(mine, inherited) for mine in found):
                    found.append(inherited)
        return tuple(found)

    def _inherits(self, cid: str, method: str) -> bool:
        """Whether Java class `cid` inherits `method` of a base: not a `private` one, nor one of no
        access modifier declared in another package, nor a static method of an interface (JLS
        8.4.8, 9.4.1: only the interface's name calls it)."""
        function = self.function(method)
        if function.kind == "staticmethod" and self.classes[self.class_of_function(method)][1].interface:
            return False
        visibility = function.visibility
        if visibility == "package":
            return self.module_of(method).facts.package == self.classes[cid][0].facts.package
        return visibility != "private"

    def _overrides(self, method: str, inherited: str) -> bool:
        """Whether Java method `method` overrides (or repeats) `inherited`, a base's of its name: its
        parameters are of the same kinds and types, arrays of the same elements (`f(String[])` does
        not override `f(long[])`), any class where `inherited` declares a type variable (`put(Bytes
        key)` of `S implements Store<Bytes>` overrides `Store<K>`'s `put(K key)`, `put(Bytes[] keys)`
        its `put(K[] keys)`)."""
        mine, theirs = self._declared_params(method), self._declared_params(inherited)
        return len(mine) == len(theirs) and all(map(_overrides_param, mine, theirs))

    def _declared_params(self, fid: str) -> tuple[Param, ...]:
        """The parameters of function `fid` but its `self` (Java's `this`)."""
        return self.function(fid).params[bool(self.self_param(fid)):]

    def _parameter_count(self, fid: str) -> tuple[int, bool]:
        """How many parameters function `fid` has but its `self` (Java's `this`), and whether its
        last takes any number of arguments."""
        params = self.function(fid).params
        return len(params) - (1 if self.self_param(fid) else 0), bool(params) and params[-1].kind == "vararg"

    @property
    def overloads(self) -> dict[str, tuple[str, ...]]:
        if self._overloads_found is None:
            self._overloads_found = self._find_overloads()
        return self._overloads_found

    def _find_overloads(self) -> dict[str, tuple[str, ...]]:
        """The Java methods that have overloads, by the id of the one named plainly: it, then the
        others in the order of their names."""
        found: dict[str, list[str]] = {}
        for fid in sorted(self.functions):
            if OVERLOAD_TAIL.search(fid):
                found.setdefault(OVERLOAD_TAIL.sub("", fid), []).append(fid)
        return {plain: (plain, *others) for plain, others in found.items() if plain in self.functions}

    def _callee(self, fid: str, call: Call, depth: int) -> Entity:
        if not self._supplier_runs(fid, call):
            return UNKNOWN
        if call.callee is not None:
            return self.entity(fid, call.callee, depth, called=True)
        if call.receiver_call >= 0:
            receiver = self.call(fid, call.receiver_call)
            if receiver is None:
                return UNKNOWN
            # The depth goes on: `a().b().c()` chains through returns that can loop back.
            return self.member(self.call_result(fid, receiver, depth + 1), call.method)
        return UNKNOWN

    def _supplier_runs(self, fid: str, call: Call) -> bool:
        """Whether `call` runs: any call but a supplier given to the `or` of a call's result that
        is not known to be an `Optional`, a `Predicate`'s `or` then, perhaps (see `Call.or_of_call`)."""
        return call.or_of_call < 0 or self.returns_optional(fid, call.or_of_call)

    def returns_optional(self, fid: str, call_id: int) -> bool:
        """Whether call `call_id` of `fid` runs only methods declared to return an `Optional` (an
        interface's method and its implementations alike: Java lets no override return another)."""
        call = self.call(fid, call_id) if call_id >= 0 else None
        callees = self.callees(fid, call) if call is not None else frozenset()
        methods = [self.function(callee.target) for callee in callees if callee.kind == "function"]
        return bool(methods) and all(method.returns.partition("[")[0] in OPTIONAL_TYPES for method in methods)

    def super_class(self, fid: str, receiver: Call) -> str | None:
        """For a method called on `receiver`, a call in `fid`: the class above which `super()`
        looks for it (that of the method `fid` is, or is defined in; "" for none), or None where
        `receiver` is not `super()`."""
        if receiver.callee is None or receiver.callee != Ref("", "super"):
            return None
        return self._own_class(fid)

    def _own_class(self, fid: str) -> str:
        """The class method `fid` is of, or the one it is defined in (a nested function's), ""."""
        return self.class_of_function(fid) or self._enclosing_class(fid)

    def callees(self, fid: str, call: Call, depth: int = 0) -> frozenset[Entity]:
        """Everything a call site may call: every value the called path may hold (a parameter
        bound to two functions calls both, a field two subclasses set holds both), with class
        hierarchy analysis on `self`/`cls`. A method of an unknown receiver stays unknown."""
        return self._resolutions.get(
            _Cache.CALLEES,
            (fid, call.id),
            lambda: frozenset(
                overload
                for value in self._callees(fid, call, depth)
                for called in self._all_called(value, fid)
                for overload in self._overloads(called, fid, call.args, depth)
            ),
            _NOTHING,
        )

    def implementations_run(self, fid: str, call: Call, callee: Entity) -> frozenset[str]:
        """The functions with a body that `call` in `fid` may run in place of `callee`, what it
        resolves to, where that is an abstract stub (a `Protocol`'s or an ABC's method, whose body
        is `...`): the project's implementations of it, as `callees` chooses them; none for another."""
        if callee.kind not in ("function", "property") or not self.function(callee.target).stub_body:
            return frozenset()
        return frozenset(
            run.target
            for run in self.callees(fid, call)
            if run.kind in ("function", "property") and not self.function(run.target).stub_body
        )

    def _callees(self, fid: str, call: Call, depth: int) -> frozenset[Entity]:
        if self._cut_short(depth):
            return frozenset()
        if call.callee_call >= 0:
            inner = self.call(fid, call.callee_call)
            if inner is None:
                return frozenset()
            called_inside = self.callees(fid, inner, depth + 1)
            keys = call.callee_keys  # `self.handlers()[0](m)`: the element of the result called
            returned = frozenset(
                self._object_run(value, call.method)
                for called in called_inside
                if called.kind == "function"
                for value in self._subscripted(self.return_values(called.target, depth + 1), keys, depth)
            )
            if _GETATTR in called_inside:
                return returned | self._subscripted(self._named_members(fid, inner, depth + 1), keys, depth)
            return returned or self._subscripted(self._default_function(fid, inner, depth + 1), keys, depth)
        found: frozenset[Entity] = frozenset()
        if call.callee is not None and self._supplier_runs(fid, call):
            at = (fid, call.site.pos, call.block) if call.callee_keys else None
            found = self.path_values(fid, call.callee, depth, call.callee_keys, at, called=True)
        if not found:
            found = frozenset({self.callee(fid, call)}) - {UNKNOWN}
        if not found and call.receiver_call >= 0:
            found = self._returned_functions_run(fid, call, depth)
        if call.receiver_call >= 0:
            found |= self._element_methods_run(fid, call, depth)
        return found

    def _element_methods_run(self, fid: str, call: Call, depth: int) -> frozenset[Entity]:
        """What a method called on an element taken from a container runs (`ds.get(0).drain(m)`):
        that method of each object the container's elements may be, not only of the class its
        declaration names (a `List<Drain>` given a `SlowDrain`); in Java, each function it holds
        too, called through its interface's method (`drains.poll().accept(m)`, see `member`)."""
        receiver = self.call(fid, call.receiver_call)
        taken_from = receiver_path(receiver) if receiver is not None else None
        java = self._in_java(fid)
        taking = _JAVA_ELEMENT_METHODS if java else _CONTAINER_ELEMENT_METHODS
        if receiver is None or taken_from is None or receiver.method not in taking:
            return frozenset()
        elements = self.path_values(fid, taken_from._replace(attrs=(*taken_from.attrs, "[]")), depth + 1)
        functions_run = java and not self._default_method_of_elements(fid, taken_from, call.method, depth)
        kinds = ("instance", "function") if functions_run else ("instance",)
        return frozenset(
            run
            for value in elements
            if value.kind in kinds and (run := self.member(value, call.method)).kind == "function"
        )

    def _stream_finder_taken(self, fid: str, taking: Call) -> Call | None:
        """The stream's `findFirst()` or `findAny()` whose `Optional` a Java call in `fid` takes the
        value of (see `_OPTIONAL_GETTERS`), or None."""
        if taking.method not in _OPTIONAL_GETTERS or taking.receiver_call < 0 or not self.is_java_function(fid):
            return None
        found = self.call(fid, taking.receiver_call)
        return found if found is not None and found.method in _STREAM_FINDERS else None

    def _elements_found(self, fid: str, found: Call, depth: int) -> frozenset[Entity]:
        """What the value of the `Optional` a stream's `findFirst()` or `findAny()` finds, a Java call
        in `fid`, may be: what iterating the stream gives, a call's (`plain.stream().findFirst()`)
        or a name's (`s.findAny()`)."""
        stream = self.call(fid, found.receiver_call)
        if stream is not None:
            return self._iterating(fid, stream, self.call_values(fid, stream, depth + 1), depth + 1)
        named = receiver_path(found)
        return self._iterating(fid, None, self.path_values(fid, named, depth + 1), depth + 1) if named else frozenset()

    def _default_method_of_elements(self, fid: str, taken_from: Ref, method: str, depth: int) -> bool:
        """Whether `method` is a `default` method of the project interface the collection `taken_from`
        names is declared to hold (`handlers.peek().label()` of a `Deque<Handler>`): called on a
        function held, it runs its own body, not the function, as on a name declared so."""
        declared = self.entity(fid, taken_from, depth + 1)
        found = self.lookup_method(declared.target, method) if declared.kind == "container" else ""
        return bool(found) and self.is_default_method(found)

    def _returned_functions_run(self, fid: str, call: Call, depth: int) -> frozenset[Entity]:
        """What a method called on a call's result runs where that call returns functions its
        returns disagree on (`pick(fast).accept(m)` of `return fast ? this::a : this::b;`, or of two
        `return`s): each function, called through its interface's method (see `member`)."""
        receiver = self.call(fid, call.receiver_call)
        returned = self.call_values(fid, receiver, depth + 1) if receiver is not None else frozenset()
        return frozenset(
            run
            for value in returned
            if value.kind == "function" and (run := self.member(value, call.method)).kind == "function"
        )

    def _subscripted(self, values: frozenset[Entity], keys: tuple[str, ...], depth: int) -> frozenset[Entity]:
        """What subscripting `values` by `keys` in turn gives (`[0]` of a returned `[self._drain]`)."""
        for key in keys:
            values = frozenset(found for value in values for found in self._member_values(value, "[]", depth + 1, key))
        return values

    def _object_run(self, value: Entity, interface_method: str) -> Entity:
        """What a call of `value`, which a call returned, runs: a Java object given where its
        interface's method is called (`removeIf(stale())`, `test`) runs that method of its class;
        anything else is called itself (a Python object by its `__call__`: `f()()` names no method)."""
        if value.kind != "instance" or not interface_method:
            return value
        method = self.lookup_method(value.target, interface_method)
        return Entity("function", method) if method else value

    def path_values(
        self,
        fid: str,
        ref: Ref,
        depth: int = 0,
        keys: tuple[str, ...] = (),
        at: Point | None = None,
        called: bool = False,
    ) -> frozenset[Entity]:
        """Every value a name path may hold in `fid`, flow-insensitively: the union over the
        values of its name, then of each attribute or element. `keys` are the constant keys of
        its subscripts, where known: an element is then only what is stored at its key, and
        looked up `at` a call, not what a later store there replaced before the call. With
        `called`, its last name is called (see `_fields_within`)."""
        called = called and self._called_apart(fid, ref)
        return self._resolutions.get(
            _Cache.PATH,
            (self._resolved_for(fid, ref), ref, keys, at, called),
            lambda: self._path_values(fid, ref, depth, keys, at, called),
            _NOTHING,
        )

    def _path_values(
        self, fid: str, ref: Ref, depth: int, keys: tuple[str, ...], at: Point | None, called: bool
    ) -> frozenset[Entity]:
        if self._cut_short(depth):
            return frozenset()
        values = self._name_values(fid, ref, depth)
        if interface := self._default_method_runner(fid, ref):
            values = frozenset(value for value in values if value.kind != "function") | {Entity("instance", interface)}
        subscripts = iter(keys) if keys else None
        fields_within = self._fields_within(fid, ref, called)
        for index, attr in enumerate(ref.attrs):
            key = next(subscripts, "") if subscripts is not None and attr == "[]" else ""
            field_first = index < fields_within
            values = frozenset(
                found
                for value in values
                for found in self._member_values(value, attr, depth + 1, key, at, field_first, fid)
            )
        return values

    def _called_apart(self, fid: str, ref: Ref) -> bool:
        """Whether path `ref` called in `fid` may denote another thing than read: a Java path with
        an attribute alone (see `_fields_within`). Resolutions keyed by `called` so find a Python
        path's values once, whether a call's callee or an argument asks for them."""
        return bool(ref.attrs) and self._in_java(fid)

    def _fields_within(self, fid: str, ref: Ref, called: bool) -> int:
        """How many of a path's first attributes are fields whatever methods share their names: in
        Java, all of them (`long e = current;`, `var s = this.state;`, `counts.merge(current, ...)`
        take the field beside a method `current()`), but the last of a path `called` (a call's
        callee, a method reference), which names its method: the two never share a namespace."""
        if not self._in_java(fid):
            return 0
        return len(ref.attrs) - 1 if called else len(ref.attrs)

    def _method_named(self, cid: str, attr: str, fields_first: bool) -> str:
        """The method `attr` of class `cid`; with `fields_first` (Java), "" where a field has the name."""
        if fields_first and any(attr in self._class_fields.get(klass, ()) for klass in self.mro(cid)):
            return ""
        return self.lookup_method(cid, attr)

    def _name_values(self, fid: str, ref: Ref, depth: int) -> frozenset[Entity]:
        module = self.module_of(fid).name
        if not ref.scope:
            entity = self.module_member(module, ref.name)
            if entity.kind == "global":
                return self._global_values_all(entity.target, depth)
            if entity.kind == "function":
                return self.decorated_values(entity.target, depth)
            if entity.kind in ("unknown", "external"):
                entity = self.root_entity(fid, ref, depth)  # Java: a nested class by its own name
            return frozenset({entity}) - {UNKNOWN}
        scope = function_id(module, ref.scope)
        if scope not in self.functions:
            return frozenset()
        if ref.name == self.self_param(scope):
            cls = self.class_of_function(scope)
            if ref.attrs and self._private_to_class(cls, ref.attrs[0]):
                # No subclass overrides `self.__check`: it is this class's own.
                return frozenset({Entity(self._self_kind(scope), cls)})
            return self._self_values(scope)
        nested = function_id(module, f"{ref.scope}.{ref.name}")
        if nested in self.functions:
            return self.decorated_values(nested, depth)
        decorated = self._decorated_here(fid, ref)
        if decorated is not None:
            return decorated
        root = self.root_entity(fid, Ref(ref.scope, ref.name), depth)
        values = set(self.local_values(scope, ref.name, depth)) | self._assigned_values(scope, ref.name, depth)
        if root.kind != "unknown":
            values.add(root)
        found = self._globals_expanded(frozenset(values), depth)
        away = self._cloned_away.get(fid)
        if away and self._names_decorated(fid, ref):
            return found - away
        return found

    def _self_values(self, scope: str) -> frozenset[Entity]:
        """What the `self` of method `scope` (a classmethod's `cls`) may be: of its class, or of a
        subclass whose objects code there may run on (see `subclasses_seen_from`)."""
        # The class hierarchy alone answers, which learning never changes: kept for the whole run
        # (asked for each path on `self` resolved, with an object for each subclass).
        found = self._self_values_cache.get(scope)
        if found is None:
            cls, kind = self.class_of_function(scope), self._self_kind(scope)
            found = self._self_values_cache[scope] = frozenset(
                Entity(kind, c) for c in (cls, *self.subclasses_seen_from(cls, scope))
            )
        return found

    def _self_kind(self, scope: str) -> str:
        """What the `self` of method `scope` is: an instance, or for a classmethod's `cls`, a class."""
        return "class" if self.function(scope).kind == "classmethod" else "instance"

    def _decorated_here(self, fid: str, ref: Ref) -> frozenset[Entity] | None:
        """In a clone, what its decorator's parameter holds (`func` of `return func(*args)`); None
        for any other name."""
        clone = self.clones.get(fid)
        if clone is None or (ref.scope, ref.name) != (clone.scope, clone.param):
            return None
        return clone.passed

    def _names_decorated(self, fid: str, ref: Ref) -> bool:
        """Whether `ref` names, in wrapper `fid`, the parameter of the decorator around it that
        holds the function decorated."""
        scope, _, _ = self.function(fid).qualname.rpartition(".")
        return ref.scope == scope and ref.name == self.first_parameter(function_id(self.module_of(fid).name, scope))

    def decorated_values(self, fid: str, depth: int = 0) -> frozenset[Entity]:
        """What the name a `def` binds holds: the function, or what its project decorators
        return for it (a wrapper that calls it, or the function itself)."""
        values = frozenset({Entity("function", fid)})
        decorators = self.decorators(fid, depth)
        if decorators:
            self._resolutions.read(_DECORATED)
        for decorator in reversed(decorators):
            returned = frozenset(
                value for d in decorator if d.kind == "function" for value in self.applied(d.target, values, depth + 1)
            )
            if returned:
                values = returned
        return values

    def applied(self, decorator: str, passed: frozenset[Entity], depth: int = 0) -> frozenset[Entity]:
        """What function `decorator` returns when it decorates `passed` (its first positional
        parameter's value), with a clone of each wrapper it defines for `passed` (see `_clone`)."""
        returned = self.returned_given(decorator, passed, depth)
        first = self.first_parameter(decorator)
        if not first or not self._cloning or not passed:
            return returned
        clones = set()
        for wrapper in returned:
            if wrapper.kind != "function" or wrapper in passed:
                continue
            if self._nested_in(wrapper.target, decorator):
                clones.add(self._clone(wrapper.target, decorator, first, passed))
            elif (maker := self._maker_given(wrapper.target, passed)) is not None:
                clones.add(self._clone(wrapper.target, maker, self.first_parameter(maker), passed))
        return returned | frozenset(clones)

    def returned_given(self, function: str, passed: frozenset[Entity], depth: int = 0) -> frozenset[Entity]:
        """What `function` returns when its first positional parameter holds `passed`, making no
        clone: whether it returns a function at all asks no more."""
        first = self.first_parameter(function)
        if not first:
            return self.return_values(function, depth)
        return self.passed_through(function, first, passed, depth)

    def _maker_given(self, wrapper: str, passed: frozenset[Entity]) -> str | None:
        """The function that defines `wrapper`, where its first parameter is given `passed`: the
        decorator a decorator hands its function to (`def guard(func): return _wrap(func)`)."""
        if wrapper not in self.functions:
            return None
        outer = function_id(self.module_of(wrapper).name, self.function(wrapper).qualname.rpartition(".")[0])
        first = self.first_parameter(outer) if outer in self.functions else ""
        if not first:
            return None
        _, learnt = self._parameter_types(outer, first)
        return outer if passed <= learnt else None

    def _nested_in(self, fid: str, outer: str) -> bool:
        """Whether function `fid` is defined inside function `outer` (directly), as a closure."""
        if fid not in self.functions or self.module_of(fid) is not self.module_of(outer):
            return False
        return self.function(fid).qualname.rpartition(".")[0] == self.function(outer).qualname

    def _clone(self, wrapper: str, decorator: str, param: str, passed: frozenset[Entity]) -> Entity:
        """The clone of `wrapper` for the decoration that passed `passed` to `decorator`."""
        fid = f"{wrapper}@" + ",".join(sorted(f"{value.kind} {value.target}" for value in passed))
        if fid not in self.clones:
            self.clones[fid] = Clone(wrapper, self.function(decorator).qualname, param, passed)
            self._class_of[fid] = self._class_of[wrapper]
            self._self_of[fid] = self._self_of[wrapper]
        return Entity("function", fid)

    def first_parameter(self, fid: str) -> str:
        """The first positional parameter of `fid` (what a decorator is called with), or ""."""
        return next((p.name for p in self.function(fid).params if p.kind == "positional"), "")

    def decorated_parameter(self, fid: str) -> str:
        """The parameter a decorator `fid` is called with the function in: its first, after the
        `self` of a method (`@router.handler` calls the router's method), or ""."""
        own = self.self_param(fid)
        return next((p.name for p in self.function(fid).params if p.kind == "positional" and p.name != own), "")

    def passed_through(self, function: str, param: str, passed: frozenset[Entity], depth: int = 0) -> frozenset[Entity]:
        """What `function` returns when its parameter `param` holds `passed`. A function that gives
        back what it is given (`return test_item`, or through a helper that does:
        `return impl_detail()(test)`) gives back `passed`, not all that is ever passed to it: else
        every name an identity decorator decorates would stand for all the names it decorates,
        and a program that uses one on thousands of tests would grow with their square."""
        returned = self.return_values(function, depth)
        if not passed or not (self._returned_parameter(function) == param or passed <= returned):
            return returned
        _, learnt = self._parameter_types(function, param)
        return (returned - learnt) | passed

    def _returned_parameter(self, fid: str) -> str:
        """The first positional parameter of `fid` if `fid` returns it as it is somewhere; "" if not."""
        found = self._returned_parameters.get(fid)
        if found is None:
            function = self.function(fid)
            first = self.first_parameter(fid)
            own = Ref(function.qualname, first)
            returns_it = any(
                access.flow.returns_it() and access.flow.call < 0 and access.ref == own
                for access in function.accesses
            )
            found = self._returned_parameters[fid] = first if first and returns_it else ""
        return found

    def argument_value(self, fid: str, arg: Arg) -> Entity:
        """What an argument passes, where it is a name path or a lambda."""
        if arg.kind == "lambda":
            return Entity("function", function_id(self.module_of(fid).name, arg.function))
        if arg.kind == "ref" and arg.ref is not None:
            entity = self.entity(fid, arg.ref, called=may_name_a_method(arg))
            return self.global_value(entity.target) if entity.kind == "global" else entity
        return UNKNOWN

    def argument_values(self, fid: str, arg: Arg, depth: int = 0) -> frozenset[Entity]:
        """Every value an argument may pass: each arm's of a conditional (`a if fast else b`, `a or b`)."""
        if arg.arms:
            return frozenset(value for arm in arg.arms for value in self.argument_values(fid, arm, depth))
        if arg.kind == "ref" and arg.ref is not None:
            return self.path_values(fid, arg.ref, depth, called=may_name_a_method(arg))
        if arg.kind == "call":
            call = self.argument_call(fid, arg)
            return self.call_values(fid, call, depth) if call is not None else frozenset()
        return frozenset({self.argument_value(fid, arg)})

    def decorators(self, fid: str, depth: int = 0) -> list[frozenset[Entity]]:
        """The values of a function's decorators, outermost first, as they are where it is defined."""
        decorator_values = self.function(fid).decorator_values
        where = self.defining_scope(fid) if decorator_values else ""
        if where not in self.functions:
            return []
        found = []
        for arg in decorator_values:
            if arg.kind == "ref" and arg.ref is not None:
                found.append(self.path_values(where, arg.ref, depth + 1))
            elif (call := self.argument_call(where, arg)) is not None:
                found.append(self.call_values(where, call, depth + 1))
            else:
                found.append(frozenset())
        return found

    def defining_scope(self, fid: str) -> str:
        """The function (a class body, module code) whose code runs the `def` of `fid`."""
        function = self.function(fid)
        parent = f"{function.class_name}.<body>" if function.class_name else function.parent
        return function_id(self.module_of(fid).name, parent)

    def _default_values(self, fid: str, name: str, depth: int) -> frozenset[Entity]:
        """What the default of parameter `name` of `fid` holds, read where its `def` runs."""
        default = self._defaults.get(fid, {}).get(name)
        where = self.defining_scope(fid) if default is not None else ""
        if default is None or where not in self.functions:
            return frozenset()
        return self.path_values(where, default, depth + 1)

    @property
    def _defaults(self) -> dict[str, dict[str, Ref]]:
        if self._defaults_found is None:
            self._defaults_found = self._find_defaults()
        return self._defaults_found

    def _find_defaults(self) -> dict[str, dict[str, Ref]]:
        """Parameter defaults that are name paths, by function (few functions have any)."""
        return {
            fid: defaults
            for fid, (_, function) in self.functions.items()
            if (defaults := {p.name: p.default for p in function.params if p.default is not None})
        }

    def _global_values_all(self, target: str, depth: int) -> frozenset[Entity]:
        module, name = target.split(":", 1)
        body = function_id(module, "")
        values = set(self.global_values(target))
        if body in self.functions:
            values |= self._assigned_values(body, name, depth)
        return frozenset(values)

    def _assigned_values(self, scope: str, name: str, depth: int) -> frozenset[Entity]:
        """Every value the assignments and loops binding local `name` of `scope` may bind, and
        what is stored."""
        values = set(self._stored_values(scope, name, depth))
        values.update(self._parameter_types(scope, name)[1])
        values.update(self._default_values(scope, name, depth))
        for bind in self.binds(scope).get(name, ()):
            if bind.annotation:
                # `Consumer<Msg> c = pick(fast);`, `for (Consumer<Msg> c : drains)`: every function
                # the value or the walked collection's element may be (and every object, for
                # `for (Runnable r : tasks)` of `tasks.add(new Checker())`), which the one value of
                # its bind (see `_bind_entity`) leaves out where they are several, and the elements
                # a Java collection given it holds (`Stream<Consumer<Msg>> s = plain.stream();`); not
                # one declared as an interface with a `default` method, which keeps the interface.
                if bind.kind in ("assign", "iter") and not self._declared_with_default_methods(scope, name):
                    given = self._bound_source_values if bind.kind == "assign" else self._iterated_values
                    assigned = ("function", "elements") if self.is_java_function(scope) else ("function",)
                    kept = ("function", "instance") if bind.kind == "iter" else assigned
                    values.update(v for v in given(scope, bind, depth) if v.kind in kept)
                continue
            if bind.kind == "assign":
                values.update(self._bound_source_values(scope, bind, depth))
            elif bind.kind == "unpack":
                values.update(self._unpacked_values(scope, bind, depth))
            elif bind.kind == "iter":
                values.update(self._iterated_values(scope, bind, depth))
            elif bind.kind == "iter_part" and bind.index == 1:
                values.update(self._paired_values(scope, bind, depth))
        return frozenset(values)

    def _paired_values(self, fid: str, bind: Bind, depth: int) -> frozenset[Entity]:
        """What the second name of `for key, value in d.items()` holds: the elements of `d`."""
        return self._second_halves(self._bound_source_values(fid, bind, depth), depth)

    def _second_halves(self, pairs: frozenset[Entity], depth: int) -> frozenset[Entity]:
        """The second halves of the pairs among `pairs` (`d.items()`): the elements of `d`."""
        return frozenset(
            value
            for source in pairs
            if source.kind == "element_pairs"
            for value in self._member_values(Entity("elements", source.target, source.keys), "[]", depth + 1)
        )

    def _bound_call(self, fid: str, bind: Bind) -> Call | None:
        """The call whose result `bind` binds (`x = f()`, `for x in f():`), if one."""
        return self.call(fid, bind.value_call) if bind.value_call >= 0 else None

    def _bound_source_values(self, fid: str, bind: Bind, depth: int) -> frozenset[Entity]:
        if bind.value_call >= 0:
            call = self._bound_call(fid, bind)
            return self.call_values(fid, call, depth + 1) if call is not None else frozenset()
        if bind.value_ref is not None:
            return self.path_values(fid, bind.value_ref, depth + 1)
        return frozenset()

    def iterated_argument_values(self, fid: str, arg: Arg) -> frozenset[Entity]:
        """What iterating an argument of a call in `fid` gives (`batch` of `max(batch, key=f)`)."""
        return self._iterating(fid, self.argument_call(fid, arg), self.argument_values(fid, arg), 0)

    def _iterated_values(self, fid: str, bind: Bind, depth: int) -> frozenset[Entity]:
        """What a loop variable holds: what iterating its loop's iterable gives."""
        return self._iterating(fid, self._bound_call(fid, bind), self._bound_source_values(fid, bind, depth), depth)

    def _iterating(self, fid: str, call: Call | None, iterables: frozenset[Entity], depth: int) -> frozenset[Entity]:
        """What iterating an expression of `fid` gives (in a loop or a `yield from`), from its values
        (`iterables`) and the call it is, if one: the elements of a container, what a generator it
        calls yields, what `__next__` of a project object's iterator returns."""
        values: set[Entity] = set()
        if call is not None:
            for called in self.callees(fid, call, depth + 1):
                if called.kind == "function":
                    values.update(self._yielded_values(called.target, depth + 1))
            # Java's collection written out (`Stream.of(this::a, this::b).forEach(...)`, or streamed:
            # `List.of(this::a, this::b).stream()`): its arguments.
            java = self._in_java(fid)
            streamed = self._streamed_call(fid, call)
            listed = self._elements_of_call(fid, streamed, depth) if java else ()
            for element in listed:
                values.update(self.argument_values(fid, element, depth + 1))
            # A JDK collection copied inline (`new ArrayList<>(plain).stream()`): what the copied one gives.
            if java and (copied := self._copy_argument(fid, streamed)) is not None:
                given = self.argument_values(fid, copied, depth + 1)
                values.update(self._iterating(fid, self.argument_call(fid, copied), given, depth + 1))
        for iterable in self._read_through_properties(iterables, depth):
            if iterable.kind != "mapping":  # a map gives its keys, of no class declared here
                values.update(self._member_values(iterable, "[]", depth + 1))
            values.update(self._elements_declared_by_bases(iterable, depth))
        for getter in (value.target for value in iterables if value.kind == "property"):
            # A property written as a generator (`yield self._drain_slow`): iterating it runs its yields.
            values.update(self._yielded_values(getter, depth + 1))
        for _, method in self._iteration_methods_of(iterables, depth):
            if self.function(method).name in _STEPPING_METHODS:
                values.update(self.return_values(method, depth + 1))
            else:
                # An `__iter__` written as a generator, or returning an iterator over a container.
                values.update(self._yielded_values(method, depth + 1))
                for returned in self.return_values(method, depth + 1):
                    values.update(self._member_values(returned, "[]", depth + 1))
        return frozenset(values)

    def _elements_declared_by_bases(self, iterable: Entity, depth: int) -> frozenset[Entity]:
        """What a Java for-each over an object of a project class gives as its class declares it:
        the elements of the JDK collection type it or a base of it extends (`Drain` of `interface
        Drains extends Iterable<Drain>`)."""
        if iterable.kind != "instance" or iterable.target not in self.classes:
            return frozenset()
        values: set[Entity] = set()
        for cid in self.mro(iterable.target):
            module, cls = self.classes[cid]
            for base in cls.base_annotations:
                declared = self._annotation_entity(module, base, cid)
                if declared.kind == "container":
                    values.update(self._member_values(declared, "[]", depth + 1))
        return frozenset(values)

    def _copy_argument(self, fid: str, call: Call) -> Arg | None:
        """The collection a Java call in `fid` copies into a JDK collection it makes (`plain` of `new
        ArrayList<>(plain)`, of `List.copyOf(plain)`); None for another call, or one of a project's
        class of that name (a class of the file's package shadows a JDK one imported on demand)."""
        made = call.callee
        if made is None or made.scope or made.attrs not in ((), ("copyOf",)) or len(call.args) != 1:
            return None
        if made.name not in _SEQUENCE_ANNOTATIONS or self._project_class_named(fid, made.name):
            return None
        return call.args[0]

    def _streamed_call(self, fid: str, call: Call) -> Call:
        """The call whose result a call in `fid` streams (`List.of(f, g)` of `List.of(f,
        g).stream()`), or the call itself where it streams no call's result."""
        receiver = self.call(fid, call.receiver_call) if call.method in COLLECTION_STREAMS else None
        return receiver if receiver is not None else call

    def _read_through_properties(self, values: frozenset[Entity], depth: int) -> frozenset[Entity]:
        """`values`, each property among them replaced by what its getter returns: a loop over
        `self.handlers` walks the list the getter builds."""
        return frozenset(
            found
            for value in values
            for found in (self.return_values(value.target, depth + 1) if value.kind == "property" else (value,))
        )

    def _yielded_values(self, fid: str, depth: int) -> frozenset[Entity]:
        """What generator `fid` yields: the values of its `yield`s (name paths and calls), and what
        iterating what it yields from gives."""
        return self._resolutions.get(_Cache.YIELDS, fid, lambda: self._yields(fid, depth), _NOTHING)

    def _yields(self, fid: str, depth: int) -> frozenset[Entity]:
        if self._cut_short(depth):
            return frozenset()
        function = self.function(fid)
        values: set[Entity] = set()
        for access in function.accesses:
            if access.flow.kind == FLOW_YIELD:
                values.update(self.path_values(fid, access.ref, depth + 1))
            elif access.flow.kind == FLOW_YIELD_FROM:
                values.update(self._iterating(fid, None, self.path_values(fid, access.ref, depth + 1), depth))
        for call in function.calls:
            if call.flow.kind == FLOW_YIELD:
                values.update(self.call_values(fid, call, depth + 1))
            elif call.flow.kind == FLOW_YIELD_FROM:
                values.update(self._iterating(fid, call, self.call_values(fid, call, depth + 1), depth))
        return frozenset(values)

    def iteration_methods(self, fid: str, bind: Bind, depth: int = 0) -> list[tuple[str, str]]:
        """(class, method) of the `__iter__` and `__next__` a loop binding `bind` runs."""
        return self._iteration_methods_of(self._bound_source_values(fid, bind, depth), depth)

    def context_methods(self, fid: str, region: Region) -> list[tuple[str, str]]:
        """The `__enter__` and `__exit__` (`__aenter__` and `__aexit__` for `async with`) of each
        project class whose instances the `with` item of `region` enters, either missing as "";
        for a Java resource, none and its `close()`."""
        call = self.call(fid, region.call) if region.call >= 0 else None
        values = self.call_values(fid, call) if call is not None else self.path_values(fid, region.lock)
        names = _context_method_names(region)
        return [
            (self._context_method(value.target, names[0]), self._context_method(value.target, names[1]))
            for value in sorted(values, key=lambda e: e.target)
            if value.kind == "instance" and value.target in self.classes
        ]

    def _context_method(self, cid: str, name: str) -> str:
        """Method `name` of class `cid` as a context manager's protocol calls it, with no argument
        but its own (Java's `close()` beside a `close(Duration)`), or ""."""
        method = self.lookup_method(cid, name) if name else ""
        return self._overloads(Entity("function", method), "", ())[0].target if method else ""

    def enter_methods(self, fid: str, entered: Entered) -> list[str]:
        """The `__enter__` (`__aenter__`) of each project class whose instances a `with` item
        enters; none where it enters none known."""
        return [enter for enter, _ in self.context_methods(fid, self._region_entered(fid, entered)) if enter]

    def _iteration_methods_of(self, iterables: frozenset[Entity], depth: int) -> list[tuple[str, str]]:
        """(class, method) of the `__iter__` and `__next__` iterating `iterables` runs (a Java
        for-each: `iterator()`, and `next()` of what it returns)."""
        found = []
        for source in sorted(iterables, key=lambda e: (e.kind, e.target)):
            if source.kind != "instance" or source.target not in self.classes:
                continue
            iterating, stepping = _ITERATION_METHODS[is_java(self.classes[source.target][0].rel)]
            iterate = self.lookup_method(source.target, iterating)
            if not iterate:
                continue
            found.append((source.target, iterate))
            for iterator in sorted(self.return_values(iterate, depth + 1), key=lambda e: e.target):
                step = self.lookup_method(iterator.target, stepping) if iterator.kind == "instance" else ""
                if step:
                    found.append((iterator.target, step))
        return found

    def _globals_expanded(self, values: frozenset[Entity], depth: int) -> frozenset[Entity]:
        found: set[Entity] = set()
        for value in values:
            if value.kind == "global":
                found.update(self._global_values_all(value.target, depth + 1))
            else:
                found.add(value)
        return frozenset(found)

    def _stored_values(self, scope: str, name: str, depth: int) -> frozenset[Entity]:
        """Lambdas bound to local `name` of `scope` (and the methods a Java conditional's arms
        name), and the container its elements make."""
        values: set[Entity] = set()
        for fid, stored in self._stored_index.get((scope, name), ()):
            if stored.element:
                values.add(Entity("elements", f"{scope}|{name}"))
            elif stored.value_ref is None or not self._declared_with_default_methods(scope, name):
                values.update(self._stored_value(fid, stored, depth + 1))
        return frozenset(values)

    @property
    def _stored_index(self) -> dict[tuple[str, str], list[tuple[str, Stored]]]:
        if self._stored_index_found is None:
            self._stored_index_found = self._find_stored_index()
        return self._stored_index_found

    def _find_stored_index(self) -> dict[tuple[str, str], list[tuple[str, Stored]]]:
        """Stored values by the (scope, name) they are kept under; None targets (returns) by "";
        the elements of a field's container (`self.handlers["a"] = f`) by `_field_elements_key`.
        What a container's methods add (`self._listeners.append(f)`) counts only for a name or
        field that holds a literal container: `append` and `add` are also other classes' methods."""
        stores, additions = self._stores_and_additions
        containers = set(stores) | self._empty_container_fields
        index = {key: list(stored) for key, stored in stores.items()}
        for key, fid, adding in additions:
            if key in containers:
                index.setdefault(key, []).append((fid, adding))
        return index

    @property
    def _stores_and_additions(self) -> tuple[dict[tuple[str, str], list[tuple[str, Stored]]], list[_Addition]]:
        # Built once: finding the fields set to an empty container asks for callees, whose
        # resolution may read the stored index being built, which is then built again inside.
        if self._stores_and_additions_found is None:
            self._stores_and_additions_found = self._find_stores_and_additions()
        return self._stores_and_additions_found

    def _find_stores_and_additions(self) -> tuple[dict[tuple[str, str], list[tuple[str, Stored]]], list[_Addition]]:
        """The stored values `_stored_index` keeps, by their key, and every element a container's
        method may add, with its key, before the containers these count for are known."""
        stores: dict[tuple[str, str], list[tuple[str, Stored]]] = {}
        additions: list[_Addition] = []
        for fid, (module, function) in self.functions.items():
            for stored in function.stored:
                key = self._stored_key(fid, module.name, function.qualname, stored)
                if key is not None and not self._kept_by_a_package_class(fid, stored):
                    stores.setdefault(key, []).append((fid, stored))
            adding_methods = _JAVA_ADDING_METHODS if is_java(module.rel) else _ADDING_METHODS
            for call in function.calls:
                for adding in _added_elements(call, adding_methods) + self._added_written_out(fid, call):
                    key = self._stored_key(fid, module.name, function.qualname, adding)
                    if key is not None:
                        additions.append((key, fid, adding))
        return stores, additions

    def _kept_by_a_package_class(self, fid: str, stored: Stored) -> bool:
        """Whether the class the Java frontend took for the JDK's through an on-demand import to keep
        an element stored in `fid` (see `Stored.jdk_class`) is one of the project: a class of the
        file's own package shadows the import (JLS 6.4.1), and what it keeps is its own."""
        cid = self._project_class_named(fid, stored.jdk_class) if stored.jdk_class else ""
        return bool(cid) and not self._extends_a_jdk_collection(cid)

    def _extends_a_jdk_collection(self, cid: str) -> bool:
        """Whether a project class has a collection of the JDK among its supertypes (`HandlerList
        extends ArrayList<T>`): its inherited `add` keeps what it is given, as the JDK's does."""
        supertypes, outside = self._supertypes(cid)
        own_name = _simple_name(self.classes[cid][1].name)
        return outside and bool((supertypes - {own_name}) & _JDK_COLLECTION_CLASSES)

    def _elements_listed(self, fid: str, call: Call) -> tuple[Arg, ...]:
        """The arguments of a Java call in `fid` writing a collection out (`List.of(a, b)`,
        `Arrays.asList(a, b)`); none for another call, or one of a project's class of that name.
        (One array given alone gives its elements instead.)"""
        receiver = receiver_path(call)
        if receiver is None or receiver.scope or receiver.attrs:
            return ()
        listed = (receiver.name, call.method) in LITERAL_COLLECTIONS
        return call.args if listed and not self._project_class_named(fid, receiver.name) else ()

    def _added_written_out(self, fid: str, call: Call) -> list[Stored]:
        """What a Java call in `fid` adding many elements at once to a named collection stores there:
        each element of a collection written out given to its `addAll` (`plain.addAll(List.of(f,
        g))`), or each argument after the collection given to `Collections.addAll(plain, f, g)`;
        given a named collection (`tasks.addAll(src)`), the elements of that one."""
        receiver = receiver_path(call)
        if receiver is None or call.method != "addAll" or not self._in_java(fid):
            return []
        if receiver == Ref("", "Collections") and call.args and call.args[0].ref is not None:
            container, elements = call.args[0].ref, call.args[1:]
        elif len(call.args) == 1 and (given := call.args[0].ref) is not None and call.args[0].kind == "ref":
            container, elements = receiver, (call.args[0]._replace(ref=given._replace(attrs=(*given.attrs, "[]"))),)
        elif len(call.args) == 1 and (written := self.argument_call(fid, call.args[0])) is not None:
            container, elements = receiver, self._elements_listed(fid, written)
            # One array given alone (`List.of(drains)`), by its declared type: its elements are
            # unknown here, where asking for a value's type would need what this index holds.
            if len(elements) == 1 and elements[0].static_type.endswith("]"):
                return []
        else:
            return []
        # Only into a name or a field of one, as `_added_elements` adds.
        return _elements_stored(container, ("",), elements, call) if len(container.attrs) < 2 else []

    def _stored_key(self, fid: str, module: str, qualname: str, stored: Stored) -> tuple[str, str] | None:
        """Where `_stored_index` keeps a value stored in function `fid` (None: nowhere; an arm of a
        conditional stored into a field is what its write stores: see `_stored_arms`)."""
        if stored.target is None:
            return (fid, "")
        if stored.target.attrs:
            return self._field_elements_key(fid, qualname, stored.target) if stored.element else None
        if stored.element and (declared := self._declared_field_elements_key(fid, stored.target.name)):
            return declared
        return (function_id(module, stored.target.scope), stored.target.name)

    def _declared_field_elements_key(self, fid: str, name: str) -> tuple[str, str] | None:
        """Where the elements a Java class body `fid` keeps for field `name`'s declaration (`drains =
        new ArrayList<>()`, marking a container, or `List.of(this::a, this::b)`) are indexed: as the
        field's (`_field_elements`), as a constructor storing that value would make them; None for
        any other function."""
        cid = fid.removesuffix(".<body>")
        if cid == fid or cid not in self.classes or not self._in_java(fid):
            return None
        return _field_elements(self.defining_class(cid, name), name)

    @property
    def _empty_container_fields(self) -> frozenset[tuple[str, str]]:
        if self._empty_container_fields_found is None:
            self._empty_container_fields_found = self._find_empty_container_fields()
        return self._empty_container_fields_found

    def _find_empty_container_fields(self) -> frozenset[tuple[str, str]]:
        """The fields a method sets to an empty literal container (`self._listeners = []`), or to
        one that makes its items as they are asked for (`defaultdict(list)`), by
        `_field_elements_key`."""
        return frozenset(
            _field_elements(self.defining_class(cls, write.ref.attrs[0]), write.ref.attrs[0])
            for fid, (cls, writes) in self._self_field_writes.items()
            for write in writes
            if write.value_empty and not self._made_by_a_package_class(fid, write)
            or self._makes_its_items(fid, write)
        )

    def _made_by_a_package_class(self, fid: str, write: Write) -> bool:
        """Whether the collection a Java field write in `fid` makes empty (`this.drains = new
        ArrayList<>()`) is one of a class of the file's own package (see `_kept_by_a_package_class`)."""
        return any(
            stored.element and stored.target == write.ref and self._kept_by_a_package_class(fid, stored)
            for stored in self.function(fid).stored
        )

    def _makes_its_items(self, fid: str, write: Write) -> bool:
        call = self.call(fid, write.value_call) if write.value_call >= 0 else None
        return call is not None and self.callee(fid, call) == Entity("external", "collections.defaultdict")

    def _field_elements_key(self, fid: str, qualname: str, target: Ref) -> tuple[str, str] | None:
        """Where the elements a method stores into `self.field` are indexed (`_field_elements` of
        the field's class), a function nested in the method too (`def register(fn):
        self._handlers[kind] = fn`); None for a store into another object's field."""
        method = function_id(self.module_of(fid).name, target.scope)
        if method not in self.functions or not (qualname == target.scope or qualname.startswith(f"{target.scope}.")):
            return None
        cls = self.class_of_function(method)
        if not cls or target.name != self.self_param(method):
            return None
        (attr,) = target.attrs
        return _field_elements(self.defining_class(cls, attr), attr)

    def _element_values(self, container: Entity, key: str, depth: int, at: Point | None) -> frozenset[Entity]:
        """The elements of `container` at `key` ("" for any key): the values stored there, and the
        inner container where values are stored deeper (`d["a"]` of `d = {"a": {"b": f}}`)."""
        # Asked again and again: every loop, view and subscript of a big callback table.
        return self._resolutions.get(
            _Cache.ELEMENTS,
            (container, key, at),
            lambda: self._stored_elements(container, key, depth, at),
            _NOTHING,
        )

    def _stored_elements(self, container: Entity, key: str, depth: int, at: Point | None) -> frozenset[Entity]:
        scope, name = container.target.split("|", 1)
        keys = (*container.keys, key)
        elements = [
            (fid, stored)
            for fid, stored in self._stored_index.get((scope, name), ())
            if stored.element and _keys_match(stored.keys[: len(keys)], keys)
        ]
        values: set[Entity] = set()
        for fid, stored in _live_at(elements, keys, at):
            if len(stored.keys) > len(keys):
                values.add(Entity("elements", container.target, keys))
            elif len(stored.keys) == len(keys):
                values.update(self._stored_value(fid, stored, depth + 1))
        if not container.keys and name.endswith("[]"):
            # The functions given to a Java `...` parameter (see `local_values`), at any key.
            values.update(self._parameter_types(scope, name)[1])
        return frozenset(values)

    def _stored_value(self, fid: str, stored: Stored | Write, depth: int) -> frozenset[Entity]:
        if stored.value_function:
            return frozenset({Entity("function", function_id(self.module_of(fid).name, stored.value_function))})
        if stored.value_ref is not None:
            return self.path_values(fid, stored.value_ref, depth)
        if stored.value_call >= 0:
            call = self.call(fid, stored.value_call)
            return self.call_values(fid, call, depth) if call is not None else frozenset()
        return frozenset()

    def call_values(self, fid: str, call: Call, depth: int = 0) -> frozenset[Entity]:
        """Every value a call may return: instances of a class called, a function's returns."""
        values: set[Entity] = set()
        for called in self.callees(fid, call, depth + 1):
            if called.kind == "class":
                values.add(Entity("instance", called.target))
            elif called == PARTIAL:
                values.update(self._wrapped_by_partial(fid, call, depth + 1))
            elif called.kind == "external" and "." in called.target:
                values.add(Entity("external_instance", called.target))
            elif called.kind == "function":
                returned = self._returned_by(fid, call, called, depth + 1)
                values.update(self._as_built_for(fid, call, called.target, returned))
            elif called.kind == "elements_view":
                values.add(Entity("elements", called.target, called.keys))
            elif called.kind == "elements_items":
                values.add(Entity("element_pairs", called.target, called.keys))
            elif called.kind == "external" and called.target == "next" and call.args:
                # `next(iter(self._partitions))`, `next(generator)`: what iterating the argument gives.
                iterated = call.args[0]
                iterables = self.argument_values(fid, iterated, depth + 1)
                values.update(self._iterating(fid, self.argument_call(fid, iterated), iterables, depth))
            elif called.kind == "external" and called.target in _COPYING_BUILTINS and call.args:
                copied = self.argument_values(fid, call.args[0], depth + 1)
                values.update(value for value in copied if value.kind in ("elements", "element_pairs"))
            elif called.kind == "external" and called.target == "enumerate" and call.args:
                # `for i, x in enumerate(xs)`: pairs whose second halves are the elements of `xs`.
                counted = self.argument_values(fid, call.args[0], depth + 1)
                values.update(Entity("element_pairs", v.target, v.keys) for v in counted if v.kind == "elements")
            elif called == _GETATTR:
                values.update(self._named_members(fid, call, depth + 1))
        if (found := self._stream_finder_taken(fid, call)) is not None:
            # `plain.stream().findFirst().get()`: an element found in a stream.
            values.update(self._elements_found(fid, found, depth))
        return frozenset(values) if values else self._default_function(fid, call, depth)

    def _default_function(self, fid: str, call: Call, depth: int) -> frozenset[Entity]:
        """The function a dispatch table's `get` gives for a missing key, named as its default
        (`self._handlers.get(kind, self._on_other)`). The table's own elements stay out, as for
        `call_result`: a table's `get` resolved to every function in it passes the work limits."""
        if call.method != "get" or len(call.args) != 2 or call.args[1].keyword or receiver_path(call) is None:
            return frozenset()
        return frozenset(v for v in self.argument_values(fid, call.args[1], depth + 1) if v.kind == "function")

    def _named_members(self, fid: str, call: Call, depth: int) -> frozenset[Entity]:
        """`getattr(self, "_deliver")`, the name written out: the member it names of each value."""
        name = _string_literal(call.args[1]) if len(call.args) >= 2 else ""
        if not name:
            return frozenset()
        holders = self.argument_values(fid, call.args[0], depth)
        return frozenset(
            member
            for holder in holders
            if holder.kind in ("instance", "class", "module") and (member := self.member(holder, name)) != UNKNOWN
        )

    def partial_values(self, fid: str, call: Call) -> frozenset[Entity]:
        """What `call` returns where it is a call of `functools.partial`; nothing for another."""
        return self._wrapped_by_partial(fid, call, 0) if self.callee(fid, call) == PARTIAL else frozenset()

    def _wrapped_by_partial(self, fid: str, call: Call, depth: int) -> frozenset[Entity]:
        """What `functools.partial(f, *args, **keywords)` returns: the functions and classes `f`
        may be, each with the positional arguments it binds ahead of its calls' own (none where
        they cannot be counted: see `_positionals_bound`)."""
        ahead = _positionals_bound(call)
        if ahead is None:
            return frozenset()
        wrapped = self.argument_values(fid, call.args[0], depth)
        return frozenset(
            _bound_ahead_by(value, bound_ahead(value) + ahead)
            for value in wrapped
            if value.kind in ("function", "class")
        )

    def _as_built_for(self, fid: str, call: Call, called: str, returned: frozenset[Entity]) -> frozenset[Entity]:
        """What a classmethod returns, called on a subclass: an alternative constructor's `cls()`
        (`StrictConsumer.from_config(cfg)` with `from_config` defined in `Consumer`) builds the
        subclass."""
        function = self.function(called)
        if function.kind != "classmethod" or call.callee is None or not call.callee.attrs:
            return returned
        own = self.self_param(called)
        made = [c for c in function.calls if c.flow.kind == "return" and c.callee == Ref(function.qualname, own)]
        if not own or not made:
            return returned  # `return Consumer()` builds the base whatever it is called on
        receiver = self.entity(fid, call.callee._replace(attrs=call.callee.attrs[:-1]))
        owner = self.class_of_function(called)
        if receiver.kind != "class" or receiver.target == owner or owner not in self.mro(receiver.target):
            return returned
        built = Entity("instance", owner)
        return frozenset(Entity("instance", receiver.target) if value == built else value for value in returned)

    def _returned_by(self, fid: str, call: Call, called: Entity, depth: int) -> frozenset[Entity]:
        """What function `called` returns at `call`: what it is given there where it gives back its
        first positional parameter (see `passed_through`)."""
        callee = called.target
        given = self._returned_parameter(callee)
        if not given:
            return self.return_values(callee, depth)
        passed = frozenset(
            value
            for param, arg in bound_arguments(self.function(callee), call, bound_ahead(called))
            if param == given
            for value in self.argument_values(fid, arg, depth)
        )
        return self.passed_through(callee, given, passed, depth)

    def return_values(self, fid: str, depth: int = 0) -> frozenset[Entity]:
        """Every value function `fid` may return."""
        return self._resolutions.get(_Cache.RETURNS, fid, lambda: self._return_values(fid, depth), _NOTHING)

    def _return_values(self, fid: str, depth: int) -> frozenset[Entity]:
        if self._cut_short(depth):
            return frozenset()
        values: set[Entity] = set()
        function = self.function(fid)
        for call in function.calls:
            if call.flow.returns_it():
                values.update(self.call_values(fid, call, depth + 1))
        for access in function.accesses:
            if access.flow.returns_it() and not access.flow.call >= 0:
                values.update(self.path_values(fid, access.ref, depth + 1))
        for _, stored in self._stored_index.get((fid, ""), ()):
            # A returned lambda, or an element of a tuple, list or Java array written out (`return
            # [self._a, self._b]`, `return new Drain[] {d};`), which the container returned holds.
            if not stored.element:
                values.update(self._stored_value(fid, stored, depth + 1))
            else:
                values.add(Entity("elements", f"{fid}|"))
        return frozenset(values)

    def _member_values(
        self,
        entity: Entity,
        attr: str,
        depth: int,
        key: str = "",
        at: Point | None = None,
        field_first: bool = False,
        seen_from: str = "",
    ) -> frozenset[Entity]:
        """What member `attr` of `entity` holds, as function `seen_from` sees it (an abstract
        class's implementations in test code run only in test code)."""
        if attr == "[]":
            if entity.kind == "elements":
                return self._element_values(entity, key, depth, at)
            if _holds_instances(entity):
                return frozenset({Entity("instance", entity.target)})
            if entity.kind == "entries":
                return frozenset({Entity("entry", entity.target, entity.keys)})
            return frozenset()
        if entity.kind in ("class", "instance") and f"{entity.target}.{attr}" in self.classes:
            return frozenset({Entity("class", f"{entity.target}.{attr}")})
        if entity.kind == "external_instance":
            return frozenset({Entity("external", f"{entity.target}.{attr}")})
        if entity.kind == "instance" and not self._method_named(entity.target, attr, field_first):
            values = self._field_value_set(self.defining_class(entity.target, attr), attr, entity.target)
            return values | self._unhidden_class_attribute_functions(entity.target, attr) or (
                self._inherited_from_external(entity.target, attr)
            )
        if entity.kind == "class" and (kept := self._class_attribute_values(entity.target, attr)):
            return kept
        member = self.member(entity, attr)
        if member.kind == "function" and entity.kind == "class":
            # A Java field on a path from its class (static, or the outer instance's read in an
            # inner class) is not the method of its name beside it.
            member = member if self._method_named(entity.target, attr, field_first) else UNKNOWN
        if member.kind == "unknown":
            return self._inherited_from_external(entity.target, attr) if entity.kind == "class" else frozenset()
        abstract = entity.kind == "instance" and entity.target in self._abstract_classes
        if abstract and member.kind in ("function", "property"):
            # A receiver typed as an abstract class runs the project's implementations.
            return frozenset({member}) | self._overrides_seen_from(entity.target, attr, member.kind, seen_from)
        return frozenset({member})

    def _overrides_seen_from(self, cid: str, attr: str, kind: str, seen_from: str) -> frozenset[Entity]:
        """Method `attr` (a `kind` entity: a function or a property) of each subclass of `cid` that
        code in `seen_from` may run on (see `subclasses_seen_from`), where it has one."""
        return frozenset(
            Entity(kind, override)
            for sub in self.subclasses_seen_from(cid, seen_from)
            if (override := self.lookup_method(sub, attr))
        )

    def _class_attribute_values(self, cid: str, attr: str) -> frozenset[Entity]:
        """What class attribute `attr` of class `cid` holds, read through the class, whose calls run
        it: the functions and lambdas of a Python class attribute (`HANDLER = lambda m: ...`,
        `HANDLER = check_epoch`), which the class body keeps as a local of its own; the functions and
        objects of project classes of a Java static field, as its class body keeps it (the lambda it
        is declared with, `static final Consumer<Msg> HANDLER = m -> ...;`, an object of its declared
        class, `static final Checker CHECK = new Checker();`) and as code stores into it (`static {
        HANDLER = m -> ...; }`)."""
        owner = self._class_attribute_owner(cid, attr)
        found = self.classes.get(owner)
        scope = f"{found[1].qualname}.<body>" if found else ""
        body = function_id(found[0].name, scope) if found else ""
        if body not in self.functions:
            return frozenset()
        kept = self.path_values(body, Ref(scope, attr))
        if not self.is_java_function(body):
            return frozenset(value for value in kept if self._is_plain_function(value))
        stored = (
            value
            for fid, write in self._static_field_stores.get(attr, ())
            if self._static_owner(fid, write.ref) == owner
            for value in self._stored_value(fid, write, 0)
        )
        return frozenset(
            value
            for value in chain(kept, stored)
            if value.kind == "function" or value.kind == "instance" and value.target in self.classes
        )

    def _is_plain_function(self, value: Entity) -> bool:
        """Whether `value` is a function or a lambda as defined, which an instance binds as it binds
        a method: not a method of a class (bound already), nor a `functools.partial` of one."""
        return (
            value.kind == "function"
            and not value.keys
            and value.target in self.functions
            and self.function(value.target).kind in ("function", "lambda")
        )

    def _static_owner(self, fid: str, ref: Ref) -> str:
        """The class declaring the field a path into a class names (`Owner.HANDLER`), or ""."""
        holder = self.entity(fid, ref._replace(attrs=ref.attrs[:-1]))
        return self.defining_class(holder.target, ref.attrs[-1]) if holder.kind == "class" else ""

    @property
    def _static_field_stores(self) -> dict[str, list[tuple[str, Write]]]:
        if self._static_field_stores_found is None:
            self._static_field_stores_found = self._find_static_field_stores()
        return self._static_field_stores_found

    def _find_static_field_stores(self) -> dict[str, list[tuple[str, Write]]]:
        """Field name -> the Java assignments into a field on a path from a class, not an object
        (`HANDLER = ...` of a static field, `Owner.HANDLER = ...`), with the function making each."""
        found: dict[str, list[tuple[str, Write]]] = {}
        for fid, (module, function) in self.functions.items():
            if not is_java(module.rel):
                continue
            for write in function.writes:
                if write.kind == "assign" and not write.ref.scope and write.ref.attrs and "[]" not in write.ref.attrs:
                    found.setdefault(write.ref.attrs[-1], []).append((fid, write))
        return found

    def _class_attribute_owner(self, cid: str, attr: str) -> str:
        """The class whose body binds the class attribute `attr` of `cid`: in Java, the class that
        declares the static field; in Python, the nearest class of the MRO whose body binds the
        name (a subclass's binding hides its base's)."""
        if self._is_java_class(cid):
            return self.defining_class(cid, attr)
        # The class hierarchy alone answers, which learning never changes: kept for the whole run
        # (asked for each field read of an instance, most of them of no class attribute).
        key = (cid, attr)
        found = self._class_attribute_owner_cache.get(key)
        if found is None:
            found = self._class_attribute_owner_cache[key] = next(
                (klass for klass in self.mro(cid) if attr in self._class_attributes(klass)), ""
            )
        return found

    def _is_java_class(self, cid: str) -> bool:
        return cid in self._java_classes

    def _class_attributes(self, cid: str) -> tuple[str, ...]:
        found = self.classes.get(cid)
        return found[1].attributes if found is not None else ()

    def _bound_class_attribute_functions(self, cid: str, attr: str) -> frozenset[Entity]:
        """The functions and lambdas a Python class attribute is bound to, read through an instance
        of `cid` (`self.HANDLER`): each a bound method, whose first parameter takes the instance
        (`instance_bound_to`), and the call's own arguments the parameters after it, as a partial
        binding one argument ahead."""
        if self._is_java_class(cid):
            return frozenset()
        return frozenset(_bound_ahead_by(kept, 1) for kept in self._class_attribute_values(cid, attr))

    def _unhidden_class_attribute_functions(self, cid: str, attr: str) -> frozenset[Entity]:
        """The functions a Python class attribute is bound to (see
        `_bound_class_attribute_functions`), read through an instance of `cid` that may not hide
        them: none where a constructor of its class or a base sets the attribute on every instance
        (`self.CHECK = trusts` in `__init__`, or in a dataclass's `__post_init__`), as an instance's
        own attribute wins over its class's.
        A field set elsewhere hides them only on some instances: both are kept."""
        # Most fields are no class attribute: asked first, it spares them the constructors' writes.
        hidden = (
            self._is_java_class(cid)
            or not self._class_attribute_owner(cid, attr)
            or any(attr in self._initialised_fields(klass, CONSTRUCTORS, cid) for klass in self.mro(cid))
        )
        return frozenset() if hidden else self._bound_class_attribute_functions(cid, attr)

    def instance_bound_to(self, fid: str, call: Call, callee: Entity) -> str:
        """The class of the instance that `call` of `fid` binds to the first parameter of `callee`,
        a function kept in a class attribute called through an instance as a bound method
        (`self.CURRENT(m)` of `CURRENT = lambda self, m: ...`), as a method's `self` is: the class
        whose body keeps it, also through an instance of a subclass, so that calls through both
        agree on one class; "" for any other call."""
        receiver = receiver_path(call)
        # Bound one argument ahead, as such a callee is: checked first, as it spares most calls a lookup.
        holder = self.entity(fid, receiver) if receiver is not None and bound_ahead(callee) == 1 else UNKNOWN
        if holder.kind != "instance" or call.callee is None:
            return ""
        attr = call.callee.attrs[-1]
        bound = self._bound_class_attribute_functions(holder.target, attr)
        return self._class_attribute_owner(holder.target, attr) if callee in bound else ""

    def _inherited_from_external(self, cid: str, attr: str) -> frozenset[Entity]:
        """What the project's classes do not define comes from their external bases."""
        return frozenset(Entity("external", f"{base}.{attr}") for base in self.external_bases(cid))

    @property
    def _abstract_classes(self) -> frozenset[str]:
        if self._abstract_classes_found is None:
            self._abstract_classes_found = self._find_abstract_classes()
        return self._abstract_classes_found

    def _find_abstract_classes(self) -> frozenset[str]:
        """Classes deriving from `abc.ABC` or `typing.Protocol` (an ABC too: its metaclass is
        one), generic ones included (`Protocol[T]`), or with an `@abstractmethod`; Java's
        interfaces and abstract classes."""
        found = set()
        for cid, (module, cls) in self.classes.items():
            bases = set(self._resolved_bases(cid))
            abstract_methods = any(
                decorator.rsplit(".", 1)[-1] == "abstractmethod"
                for method in cls.methods
                if (fid := function_id(module.name, f"{cls.qualname}.{method}")) in self.functions
                for decorator in self.function(fid).decorators
            )
            if cls.abstract or not bases.isdisjoint(_ABSTRACT_BASES) or abstract_methods:
                found.add(cid)
        return frozenset(found)

    def _infer_field_values(self) -> dict[tuple[str, str], _StoresByClass]:
        """Every value stored into each field by a method of its class (union types), every
        function a name stored there may hold (`self._on_message = on_message`, a parameter that
        callers give different callbacks), and the functions and classes a call stored there
        returns (`self.Lock = partial(Lock, self)`): by the class whose method stores them."""
        seen: dict[tuple[str, str], dict[str, set[Entity]]] = {}
        for fid, cls, write, entity in chain(self._field_stores(), self._stores_into_other_objects()):
            found = self._stored_functions(fid, write, entity)
            if found:
                key = (self.defining_class(cls, write.ref.attrs[-1]), write.ref.attrs[-1])
                seen.setdefault(key, {}).setdefault(cls, set()).update(found)
        return {key: {cls: frozenset(found) for cls, found in by_class.items()} for key, by_class in seen.items()}

    def _stored_functions(self, fid: str, write: Write, entity: Entity) -> frozenset[Entity]:
        """What an assignment of a field stores (`entity`, where resolved), or else the functions
        and classes it may store: a lambda, a name or a call giving them, a conditional's arms."""
        if write.kind != "assign":
            return frozenset()
        if entity.kind != "unknown":
            return frozenset({entity})
        if write.value_function:
            return frozenset({Entity("function", function_id(self.module_of(fid).name, write.value_function))})
        if write.value_ref is not None and not write.value_ref.attrs:
            return frozenset(v for v in self.path_values(fid, write.value_ref) if v.kind == "function")
        if write.value_call >= 0 and (call := self.call(fid, write.value_call)) is not None:
            return frozenset(v for v in self.call_values(fid, call) if v.kind in ("function", "class"))
        return frozenset(v for v in self._stored_arms(fid, write.ref) if v.kind in ("function", "class"))

    def _stored_arms(self, fid: str, field: Ref) -> frozenset[Entity]:
        """What the arms of a conditional `fid` stores into `field` hold (`self._handler = self.a if
        fast else self.b`, Java's `drain = fast ? this::a : this::b;`): its write names no one value."""
        return frozenset(
            value
            for stored in self.function(fid).stored
            if stored.target == field and not stored.element
            for value in self._stored_value(fid, stored, 0)
        )

    def _stores_into_other_objects(self) -> Iterator[tuple[str, str, Write, Entity]]:
        """(function, class, write, value stored) of every store into a field of another object
        whose class is known (`self._dispatcher.on_message = self._handle`, `client.checker = self`),
        as if that class stored it: a callback or an object set from outside is what the field
        holds. Resolved once per function, and again only when something it used is learnt anew."""
        for fid, writes in self._writes_into_other_objects.items():
            stored = self.remembered(("stores into others", fid), partial(self._stored_into_others, fid, writes))
            for write, (owner, entity) in zip(writes, stored):
                if owner:
                    yield fid, owner, write, entity

    def _stored_into_others(self, fid: str, writes: list[Write]) -> tuple[tuple[str, Entity], ...]:
        """Per write, the class of the object written into ("" if unknown, or if test code writes
        into a field that a class outside it declares, on an object of that class or of a test
        subclass: a fake set there never runs in the code tested) and the value stored."""
        found = []
        in_test = self.is_test(fid)
        for write in writes:
            holder = self.entity(fid, write.ref._replace(attrs=write.ref.attrs[:-1]))
            owner = holder.target if holder.kind == "instance" and holder.target in self.classes else ""
            declaring = self.defining_class(owner, write.ref.attrs[-1]) if owner else ""
            if owner and in_test and self.classes[declaring][0].name not in self.test_modules:
                owner = ""
            found.append((owner, self._written_entity(fid, write) if owner else UNKNOWN))
        return tuple(found)

    @property
    def _writes_into_other_objects(self) -> dict[str, list[Write]]:
        if self._writes_into_other_objects_found is None:
            self._writes_into_other_objects_found = self._find_writes_into_other_objects()
        return self._writes_into_other_objects_found

    def _find_writes_into_other_objects(self) -> dict[str, list[Write]]:
        """Function -> its assignments to an attribute of an object other than its own `self`
        (`self._dispatcher.on_message = ...`, `d.on_message = ...` of a local `d`)."""
        found: dict[str, list[Write]] = {}
        for fid, (_, function) in self.functions.items():
            self_name = self.self_param(fid)
            for write in function.writes:
                ref = write.ref
                if write.kind == "assign" and ref.attrs and "[]" not in ref.attrs and ref.scope and (
                    len(ref.attrs) > 1 or ref.name != self_name
                ):
                    found.setdefault(fid, []).append(write)
        return found

    def _field_stores(self) -> Iterator[tuple[str, str, Write, Entity]]:
        """(method, class, write, value stored) of every store into `self.field` (one attribute
        deep), the value unknown where the stored name may hold several. What a method stores is
        resolved once, and again only when something it used is learnt anew: every pass that
        types fields reads them all."""
        for fid, (cls, writes) in self._self_field_writes.items():
            stored = self.remembered(("stores of", fid), partial(self._stored_entities, fid, writes))
            for write, entity in zip(writes, stored):
                yield fid, cls, write, entity

    def _stored_entities(self, fid: str, writes: list[Write]) -> tuple[Entity, ...]:
        return tuple(
            self._written_entity(fid, write)
            if write.value_call >= 0 or write.value_ref is not None or _stores_entered(write)
            else self._literal_container(fid, write.ref)
            for write in writes
        )

    def _written_entity(self, fid: str, write: Write) -> Entity:
        """What a store puts into its field: the value stored, or for one of what a context
        manager's entering gives (`with cm as self.x:`, `self.x = stack.enter_context(cm)`), what
        a `with` binds a local to."""
        if _stores_entered(write):
            as_local = Bind(write.ref.name, write.site, "with", write.entered_call, write.entered_ref)
            return self._entered_entity(fid, as_local, 0)
        return self._stored_entity(fid, write.value_call, write.value_ref)

    def _literal_container(self, fid: str, field: Ref) -> Entity:
        """A container of instances of one class, where `fid` sets the field to a literal or a
        comprehension whose elements are all such instances (`{t: Sub(t) for t in topics}`),
        as a store into each of its items would type it; else unknown."""
        elements = frozenset(
            value
            for stored in self.function(fid).stored
            if stored.element and stored.target == field and len(stored.keys) == 1
            and not self._kept_by_a_package_class(fid, stored)
            for value in self._stored_value(fid, stored, 0)
        )
        element = _one_instance(elements)
        return Entity("container", element.target) if element.kind == "instance" else UNKNOWN

    @property
    def _self_field_writes(self) -> dict[str, tuple[str, list[Write]]]:
        if self._self_field_writes_found is None:
            self._self_field_writes_found = self._find_self_field_writes()
        return self._self_field_writes_found

    def _find_self_field_writes(self) -> dict[str, tuple[str, list[Write]]]:
        """Method -> (its class, its stores into `self.field`, one attribute deep)."""
        found: dict[str, tuple[str, list[Write]]] = {}
        for fid, (_, function) in self.functions.items():
            cls = self.class_of_function(fid)
            self_name = self.self_param(fid)
            for write in function.writes:
                ref = write.ref
                if cls and ref.name == self_name and ref.scope == function.qualname and len(ref.attrs) == 1:
                    found.setdefault(fid, (cls, []))[1].append(write)
        return found

    @property
    def _subclasses(self) -> dict[str, tuple[str, ...]]:
        if self._subclasses_found is None:
            self._subclasses_found = self._find_subclasses()
        return self._subclasses_found

    def _find_subclasses(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, list[str]] = {}
        for cid in sorted(self.classes):
            for ancestor in self.mro(cid)[1:]:
                found.setdefault(ancestor, []).append(cid)
        return {cid: tuple(subs) for cid, subs in found.items()}

    def subclasses(self, cid: str) -> tuple[str, ...]:
        """The project's classes that inherit from `cid`, directly or not."""
        return self._subclasses.get(cid, ())

    def subclasses_seen_from(self, cid: str, fid: str) -> tuple[str, ...]:
        """The subclasses of `cid` whose instances code in function `fid` may run on: outside test
        code, not those test code defines (its doubles run only where tests use them)."""
        found = self.subclasses(cid)
        if not self.test_modules or (fid and self.is_test(fid)):
            return found
        return tuple(sub for sub in found if self.classes[sub][0].name not in self.test_modules)

    def _enclosing_class(self, fid: str) -> str:
        parent = self.function(fid).parent
        while parent:
            pid = function_id(self.module_of(fid).name, parent)
            if pid not in self.functions:
                return ""
            cls = self.class_of_function(pid)
            if cls:
                return cls
            parent = self.function(pid).parent
        return ""

    def call_result(self, fid: str, call: Call, depth: int = 0) -> Entity:
        """The class of what a call returns: a constructed instance, or a function's known return.
        Kept per call site: each call of a chain (`a.b().c().d()`) asks for the result of the call
        before it, which, computed anew each time, made a chain of n calls cost n squared
        resolutions, and more where the depth limit made them be asked again."""
        return self._resolutions.get(
            _Cache.CALL_RESULT, (fid, call.id), lambda: self._call_result(fid, call, depth), UNKNOWN
        )

    def _call_result(self, fid: str, call: Call, depth: int) -> Entity:
        above = self.super_class(fid, call)
        if above is not None:
            return Entity("super", above) if above else UNKNOWN
        if self._cut_short(depth):
            return UNKNOWN
        callee = self.callee(fid, call, depth)
        if callee.kind == "class":
            return Entity("instance", callee.target)
        if callee.kind == "items_method":
            return Entity("pairs", callee.target)
        if callee.kind == "external" and callee.target in _COPYING_BUILTINS:
            return self._copy_result(fid, call, depth)
        if callee.kind == "external" and callee.target == "enumerate" and call.args:
            counted = self._argument_entity(fid, call.args[0], depth + 1)
            return Entity("pairs", counted.target) if counted.kind == "container" else UNKNOWN
        if callee.kind == "external" and callee.target == "type" and len(call.args) == 1:
            # `type(self)`: the class of an instance of a known class (`cls = type(self)`).
            of = self._argument_entity(fid, call.args[0], depth + 1)
            return Entity("class", of.target) if of.kind == "instance" else UNKNOWN
        if callee == _GETATTR:
            named = self._named_members(fid, call, depth + 1)
            return next(iter(named)) if len(named) == 1 else UNKNOWN
        if callee.kind == "container_method":
            return Entity("container", callee.target)
        if callee.kind == "entries_method":
            return Entity("entries", callee.target, callee.keys)
        if callee.kind == "entry_method":
            return Entity("entry", callee.target, callee.keys)
        if callee == PARTIAL:
            wrapped = self._wrapped_by_partial(fid, call, depth + 1)
            return next(iter(wrapped)) if len(wrapped) == 1 else UNKNOWN
        if callee.kind == "element_method":
            return Entity("instance", callee.target)
        if callee.kind in ("function", "property"):
            returned = self._function_result(fid, call, callee.target, depth)
            if returned != UNKNOWN:
                return returned
            # A stub that says nothing of what it returns: what every implementation run in its
            # place returns, where they agree, as a function whose returns agree returns it.
            implementations = self.implementations_run(fid, call, callee)
            results = {self._function_result(fid, call, run, depth) for run in implementations}
            return results.pop() if len(results) == 1 else UNKNOWN
        if callee.kind == "external" and callee.target == "next" and call.args:
            # An element taken from a container the value flow follows: of the one class they agree on.
            taken_from = self.argument_values(fid, call.args[0], depth + 1)
            return self._element_instance(taken_from, self.call_values(fid, call, depth + 1))
        copied = self.copied_record(fid, call, depth)
        if copied:
            return Entity("instance", copied)
        receiver = receiver_path(call)
        if callee.kind == "unknown" and call.method in _CONTAINER_ELEMENT_METHODS and receiver is not None:
            # `by_topic.get(topic)`, `self._partitions.pop()`: typed by the elements' one class alone.
            # The value flow keeps what it gives calls to subscripts and loops: a dispatch table's
            # `get` resolved to every function in it grows the call graph past the work limits.
            return self._taken_element(fid, receiver, depth)
        return UNKNOWN

    def _function_result(self, fid: str, call: Call, function: str, depth: int) -> Entity:
        """The class of what `function` (a function or a property's getter) returns where `call`
        in `fid` runs it."""
        returned = self._returned_for_call(fid, call, function, depth + 1)
        if returned == UNKNOWN:
            returned = self.return_entity(function, depth + 1)
        return next(iter(self._as_built_for(fid, call, function, frozenset({returned}))))

    def copied_record(self, fid: str, call: Call, depth: int = 0) -> str:
        """The project class of the record a call copies with some fields replaced
        (`dataclasses.replace(state, epoch=e)`, `attrs.evolve(state, ...)`, `state._replace(...)`),
        whose copy is of that class; "" for any other call."""
        if call.method == "_replace" and (receiver := receiver_path(call)) is not None:
            copied = self.entity(fid, receiver, depth + 1)
        elif call.method in _RECORD_COPIERS and call.args and not call.args[0].keyword:
            callee = self.callee(fid, call, depth)
            if callee.kind != "external" or callee.target not in _RECORD_COPIER_NAMES:
                return ""
            copied = self._argument_entity(fid, call.args[0], depth + 1)
        else:
            return ""
        return copied.target if copied.kind == "instance" else ""

    def _copy_result(self, fid: str, call: Call, depth: int) -> Entity:
        """`list(self._assignment.items())`, `sorted(self._states.values())`: a copy of what a call
        returns iterates as it does."""
        if not call.args or call.args[0].kind != "call":
            return UNKNOWN
        copied = self._argument_entity(fid, call.args[0], depth + 1)
        return copied if copied.kind in ("pairs", "container") else UNKNOWN

    def _returned_for_call(self, fid: str, call: Call, method: str, depth: int) -> Entity:
        """What a Java method declared to return a type variable, or a type made of one, returns
        where `call` in `fid` runs it: its return type with the classes the call gives in place of
        the variables (a `Message`, a `List<Message>`), a variable of its class by the receiver's
        type arguments (`T get()`, `List<T> all()` of `Box<T>` on a `Box<Message> box`, or on an
        `Inbox inbox` of `class Inbox extends Box<Message>`), one of its own by the arguments
        (`<R> R pick(Box<R> b)` given that `box`, see `_inferred_type_arguments`); unknown for any
        other call."""
        cid, facts = self.class_of_function(method), self.function(method)
        named = set(re.findall(r"\w+", facts.returns))
        own = set(facts.type_parameters) & named
        # A method's own variable hides its class's of that name.
        of_class = set(self.classes[cid][1].type_parameters if cid in self.classes else ()) & named - own
        bound = {
            **(self._receiver_type_arguments(fid, call, cid) if of_class else {}),
            **(self._inferred_type_arguments(fid, call, method, depth) if own else {}),
        }
        bound = {variable: entity for variable, entity in bound.items() if variable in own | of_class}
        return self._annotation_entity(self.module_of(method), facts.returns, cid, bound) if bound else UNKNOWN

    def _receiver_type_arguments(self, fid: str, call: Call, cid: str) -> Mapping[str, Entity]:
        """What each type variable of Java class `cid` stands for on the receiver of `call` in
        `fid`, by the type arguments it is declared with (see `_type_arguments_for`)."""
        receiver = receiver_path(call)
        if receiver is None:
            return {}
        scope, declared = self._declared_annotation(fid, receiver)
        module, within = self.module_of(scope or fid), self._own_class(scope or fid)
        return self._type_arguments_for(cid, module, declared, within, {}, frozenset())

    def _inferred_type_arguments(self, fid: str, call: Call, method: str, depth: int) -> dict[str, Entity]:
        """What each of generic method `method`'s own type variables stands for where `call` in
        `fid` runs it, as javac infers it from the arguments: the class of one given a parameter
        declared as the variable (`R r`, each argument a `R... rest` spreads), or the type argument
        given in its place to one declared with it (`Box<R> b` given a `Box<Item> box`, or an
        `Inbox` of `class Inbox extends Box<Item>`; `List<R> rs` given `List.of(new Item())`). Of
        the classes the arguments give a variable, the first they all derive from, as javac takes
        their least common supertype; none where they share none. One array given a `R... rest`
        parameter alone gives `R` the class of its elements (`Item[] items`)."""
        variables = self.function(method).type_parameters
        found: dict[str, list[Entity]] = {}
        for param, arg, whole_array in self._arguments_taken(fid, call, method, depth):
            given = (
                self._type_arguments_of_array(fid, arg, param.annotation)
                if whole_array
                else self._type_arguments_of_argument(fid, arg, method, param.annotation, depth)
            )
            for variable, entity in given.items():
                if variable in variables:
                    found.setdefault(variable, []).append(entity)
        inferred = {variable: self._least_common_supertype(entities) for variable, entities in found.items()}
        return {variable: entity for variable, entity in inferred.items() if entity != UNKNOWN}

    def _least_common_supertype(self, instances: Sequence[Entity]) -> Entity:
        """The class javac infers for a type variable given `instances` (see `_common_supertype`),
        where it is one class: unknown where two of their common supertypes derive from neither
        other (`Base & Drain` of a `Fast` and a `Slow` that extend `Base` and implement `Drain`),
        whose methods a call on it may run alike."""
        common = self._common_supertype(instances)
        if common.kind != "instance" or len(set(instances)) == 1:
            return common
        shared = self._shared_supertypes(instances)
        return common if all(cid in self.mro(common.target) for cid in shared) else UNKNOWN

    def _arguments_taken(self, fid: str, call: Call, method: str, depth: int) -> Iterator[tuple[Param, Arg, bool]]:
        """Each argument of `call` in `fid` with the parameter of `method` taking it, its `T...
        rest` parameter each argument from its position on, and whether it is one array given
        there alone, which that parameter takes whole."""
        params = self._declared_params(method)
        spreads = bool(params) and params[-1].kind == "vararg"
        for index, arg in enumerate(call.args):
            if index < len(params) - int(spreads):
                yield params[index], arg, False
            elif spreads:
                whole_array = len(call.args) == len(params) and self._is_array_argument(fid, arg, depth)
                yield params[-1], arg, whole_array

    def _is_array_argument(self, fid: str, arg: Arg, depth: int) -> bool:
        """Whether Java argument `arg` in `fid` surely is an array (`Msg[] pending`)."""
        return self._argument_type(fid, arg, depth + 1).name.endswith("]")

    def _type_arguments_of_array(self, fid: str, arg: Arg, annotation: str) -> dict[str, Entity]:
        """What Java array argument `arg` in `fid`, given alone to a parameter declared `annotation`
        (`R... rest`), gives `R`: the class of its elements, by the type its expression is known to
        have (`Item[] items`, `var items = new Item[] {...}`); unknown for an array of arrays or of no
        class of the project. An array of a type not known there (a call's) gives nothing: the other
        arguments still tell (`pick(new Item(), items())` of `<R> R pick(R first, R... rest)`)."""
        if not arg.static_type.endswith("[]"):
            return {}
        element, dimensions = _array_parts(arg.static_type)
        cid = self._project_class_named(fid, element) if dimensions == "[]" else ""
        return _type_arguments_of_value(annotation, Entity("instance", cid) if cid else UNKNOWN)

    def _type_arguments_of_argument(
        self, fid: str, arg: Arg, method: str, annotation: str, depth: int
    ) -> dict[str, Entity]:
        """What argument `arg` of a call in `fid` gives each type variable a parameter of `method`
        declared with `annotation` names: by the type it is declared with where it names a local,
        a parameter or a field (see `_type_arguments_given`), by what it is where it is a call or
        an object made (`new Item()`, `make()` of `Item make()`, `List.of(new Item())`) or names a
        value of no declared type (a `var` local: `var item = new Item();`)."""
        scope, declared = self._declared_annotation(fid, arg.ref) if arg.ref is not None else ("", "")
        if declared:
            return self._type_arguments_given(scope, declared, method, annotation)
        if arg.kind != "call" and not arg.names_value:
            return {}
        element, kind, _ = _collection_element(annotation)
        written = self._elements_written(fid, arg, depth) if kind == "container" and "[" not in element else ()
        if written:
            # `List<R> rs` given `List.of(a, b)`: each element is given to `R`, as javac infers it.
            given = [self._type_arguments_of_argument(fid, each, method, element, depth + 1) for each in written]
            return {element: self._least_common_supertype([each.get(element, UNKNOWN) for each in given])}
        value = self._argument_entity(fid, arg, depth + 1)
        if value == UNKNOWN and arg.kind != "call":
            return {}  # a value the model does not know (`var x = (Item) o;`): the other arguments still tell
        return _type_arguments_of_value(annotation, value)

    def _elements_written(self, fid: str, arg: Arg, depth: int) -> tuple[Arg, ...]:
        """The elements of a collection Java argument `arg` in `fid` writes out one by one
        (`List.of(a, b)`, `Arrays.asList(a, b)`); none for another argument, or one array given."""
        call = self.argument_call(fid, arg)
        return self._elements_of_call(fid, call, depth) if call is not None else ()

    def _elements_of_call(self, fid: str, call: Call, depth: int) -> tuple[Arg, ...]:
        """The elements a Java call in `fid` writes out one by one (see `_elements_written`)."""
        elements = self._elements_listed(fid, call)
        one_array = len(elements) == 1 and self._is_array_argument(fid, elements[0], depth)
        return () if one_array else elements

    def _type_arguments_given(self, scope: str, declared: str, method: str, annotation: str) -> dict[str, Entity]:
        """What a value declared in `scope` with type `declared` (see `_declared_annotation`) gives
        each type variable a parameter of `method` declared with `annotation` names, as itself
        (`R`), as a declared collection's elements (`List[R]`) or as a type argument of a class of
        the project (`Box[R]`)."""
        module, within = self.module_of(scope), self._own_class(scope)
        head, bracket, inside = annotation.partition("[")
        if not bracket or _collection_element(annotation)[0]:
            return _type_arguments_of_value(annotation, self._annotation_entity(module, declared, within))
        parameter_class = self._annotation_entity(self.module_of(method), head, self.class_of_function(method))
        if parameter_class.kind != "instance" or parameter_class.target not in self.classes:
            return {}
        given = self._type_arguments_for(parameter_class.target, module, declared, within, {}, frozenset())
        variables = self.classes[parameter_class.target][1].type_parameters
        return {
            written: given[variable]
            for variable, written in zip(variables, _top_level_split(inside[:-1], ","))
            if variable in given
        }

    def _type_arguments_for(
        self, cid: str, module: ModuleInfo, annotation: str, within: str, bound: Mapping[str, Entity],
        seen: frozenset[str],
    ) -> Mapping[str, Entity]:
        """What each type variable of Java class `cid` stands for in a value of the type
        `annotation` declares, written in `module` in class `within`, where the variables of
        `bound` stand for what it gives: its type arguments where it names `cid` (`Box<Item>`),
        else those its bases give `cid` (`Inbox` of `class Inbox extends Box<Item>`, or of `class
        Inbox<U> extends Box<U>` as `Inbox<Item>`); none where they give none (a raw type, a
        diamond, a class not deriving from `cid`)."""
        declared = self._annotation_entity(module, annotation, within, bound)
        if declared.kind != "instance" or declared.target not in self.classes or declared.target in seen:
            return {}
        declared_module, cls = self.classes[declared.target]
        written = _unwrap_annotation(annotation).partition("[")[2][:-1]
        arguments = _top_level_split(written, ",") if written else []
        if len(arguments) != len(cls.type_parameters):
            return {}  # a raw type, or a diamond
        given = {
            variable: self._annotation_entity(module, argument, within, bound)
            for variable, argument in zip(cls.type_parameters, arguments)
        }
        if declared.target == cid:
            return given
        through_bases = (
            self._type_arguments_for(cid, declared_module, base, declared.target, given, seen | {declared.target})
            for base in cls.base_annotations
        )
        return next((found for found in through_bases if found), {})

    def _declared_annotation(self, fid: str, ref: Ref) -> tuple[str, str]:
        """The type a Java local or parameter (`box`), or a field of the object's own (`this.box`),
        is declared with, its type arguments kept (`Box[Message]`), where its declarations agree,
        with the function declaring it (a class body for a field); ("", "") for another path."""
        module = self.module_of(fid)
        scope = function_id(module.name, ref.scope) if ref.scope else ""
        if scope not in self.functions or len(ref.attrs) > 1:
            return "", ""
        name = ref.name
        if ref.attrs and ref.name == self.self_param(scope):
            owner = self.defining_class(self.class_of_function(scope), ref.attrs[0])
            if owner not in self.classes:
                return "", ""
            owner_module, cls = self.classes[owner]
            scope, name = function_id(owner_module.name, f"{cls.qualname}.<body>"), ref.attrs[0]
        elif ref.attrs:
            return "", ""
        declared = {bind.annotation for bind in self.binds(scope).get(name, ()) if bind.annotation}
        return (scope, declared.pop()) if len(declared) == 1 else ("", "")

    def return_entity(self, fid: str, depth: int = 0) -> Entity:
        """The class of what function `fid` returns, where every return agrees."""
        return self._resolutions.get(_Cache.RETURN, fid, lambda: self._return_entity(fid, depth), UNKNOWN)

    def _return_entity(self, fid: str, depth: int) -> Entity:
        function = self.function(fid)
        module = self.module_of(fid)
        if function.returns:
            declared = self._annotation_entity(module, function.returns, self.class_of_function(fid))
            # A Java method declared as a type of no project class (`Predicate<Message>`, an
            # interface of the JDK) returns the class its `return`s agree on (`new StaleCheck(this)`).
            if declared != UNKNOWN or not is_java(module.rel):
                return declared
        results = set()
        for call in function.calls:
            if call.flow.kind == "return":
                results.add(self.call_result(fid, call, depth + 1))
        for access in function.accesses:
            if access.flow.kind == "return":
                results.add(self.entity(fid, access.ref, depth + 1))
        results.update(self._returned_lambdas(fid))
        return next(iter(results)) if len(results) == 1 else UNKNOWN

    def _returned_lambdas(self, fid: str) -> frozenset[Entity]:
        """The Java lambdas function `fid` returns (`return m -> m.epoch() == epoch;`): what
        `current().test(m)` runs, as `current()` is called through its interface."""
        if not self._in_java(fid):
            return frozenset()
        return frozenset(
            Entity("function", function_id(self.module_of(fid).name, stored.value_function))
            for _, stored in self._stored_index.get((fid, ""), ())
            if stored.value_function and not stored.element
        )

    # -- fields ---------------------------------------------------------------------------------

    def field(self, fid: str, ref: Ref, objects_only: bool = True) -> FieldId | None:
        """The shared location a name path denotes in `fid`, if it is one.

        A local alias is followed into the object it names (`state = self._state; state.epoch`),
        but with `objects_only` a bare local is its own value: `snapshot = self._epoch` copies
        the epoch, and reading `snapshot` later is not a read of the field. Locks are objects:
        `lock = self._lock; with lock:` holds the field's lock.
        """
        if self._fields is None:
            return self._field(fid, ref, objects_only)
        key = (fid, ref, objects_only)
        if key not in self._fields:
            self._fields[key] = self._field(fid, ref, objects_only)
        return self._fields[key]

    def _field(self, fid: str, ref: Ref, objects_only: bool) -> FieldId | None:
        written = ref
        if ref.attrs or not objects_only:
            ref = self.expand_alias(fid, ref)
        if not ref.attrs:
            if ref.scope:
                return None
            entity = self.module_member(self.module_of(fid).name, ref.name)
            if entity.kind == "global":
                module, name = entity.target.split(":", 1)
                return FieldId(module, (name,), is_global=True)
            return None
        fields_first = self._in_java(fid)
        field = self._field_on(self.root_entity(fid, Ref(ref.scope, ref.name)), ref.attrs, fields_first)
        if field is None and ref != written and written.attrs:
            # An alias of what no class is known for, but whose declared type is (`C c = (C) o;`).
            field = self._field_on(self.root_entity(fid, Ref(written.scope, written.name)), written.attrs, fields_first)
        taken = ref.attrs.index("[]") + 1 if "[]" in ref.attrs else 0
        if taken and _names(ref.attrs[taken:]) and (field is None or len(field.path) > 1):
            # A field of an element of a container the value flow follows (`by_topic[topic].epoch`,
            # `self._partitions[i].epoch` of a list filled by `append`), not a path of its holder.
            element = self.entity(fid, Ref(ref.scope, ref.name, ref.attrs[:taken]))
            return self._field_on(element, ref.attrs[taken:], fields_first) or field
        return field

    def _field_on(self, root: Entity, attrs: tuple[str, ...], fields_first: bool = False) -> FieldId | None:
        """The field `attrs` name on `root`; with `fields_first` (Java), a declared field even where
        a method has its name (a record-style `epoch()` beside the field `epoch`)."""
        if root.kind == "global":
            value = self.global_value(root.target)
            if value.kind not in ("instance", "class", "module") and not _names(attrs):
                # `EPOCHS[tp]`: an item of a module-level map is the global's, as `self._epochs[tp]`
                # is the field's.
                module, name = root.target.split(":", 1)
                return FieldId(module, (name,), is_global=True)
            # A module-level singleton (`CURRENT = Generation()`): its fields are its class's; so
            # are those of an element of a declared container (`STATES: dict[str, State]`).
            root = value
            if _holds_instances(root) and attrs[0] == "[]":
                root, attrs = Entity("instance", root.target), attrs[1:]
        if root.kind == "module":
            entity = self.module_member(root.target, attrs[0])
            if entity.kind == "global" and len(attrs) > 1 and self.global_value(entity.target).kind == "instance":
                # `app.consumer._epoch`: a field of the singleton, as `consumer._epoch` is.
                return self._field_on(entity, attrs[1:], fields_first)
            if entity.kind == "global":
                module, name = entity.target.split(":", 1)
                if len(attrs) == 1:
                    return FieldId(module, (name,), is_global=True)
                return FieldId(module, (name, *_names(attrs[1:])), is_global=True)
            if entity.kind in ("module", "class") and len(attrs) > 1:
                return self._field_on(entity, attrs[1:], fields_first)
            return None
        if root.kind not in ("instance", "class"):
            return None
        cls = root.target
        first = self.updated_field(cls, attrs[0])
        if first == "[]":
            return None
        if method := self._method_named(cls, first, fields_first):
            # `self.state.epoch` with `state` a property: a field of what its getter returns.
            if root.kind == "instance" and self.function(method).is_property and _names(attrs[1:2]):
                return self._field_on(self.return_entity(method), attrs[1:], fields_first)
            return None
        owner = self.defining_class(cls, first)
        rest = attrs[1:]
        if not _names(rest):
            return FieldId(owner, (first,))
        holder = self.field_type(owner, first, cls)
        if holder is not None:
            if rest[0] == "[]" and _holds_instances(holder):
                rest = rest[1:]
            if rest and rest[0] != "[]" and (holder.kind == "instance" or _holds_instances(holder)):
                nested = self._field_on(Entity("instance", holder.target), rest, fields_first)
                if nested is not None:
                    return nested
        return FieldId(owner, (first, *_names(rest)))

    def expand_alias(self, fid: str, ref: Ref) -> Ref:
        """Follow simple local aliases: with `lock = self._lock`, `lock` is `self._lock`."""
        *_, (alias_of, _) = self.alias_steps(fid, ref)
        return alias_of

    def alias_steps(self, fid: str, ref: Ref) -> Iterator[tuple[Ref, Site | None]]:
        """`ref`, then each name path a simple local alias of the one before stands for (`lock`, then
        `self._lock` with `lock = self._lock`), each with the site of the alias's assignment (None
        for `ref` itself)."""
        site: Site | None = None
        for _ in range(_MAX_ALIASES):
            yield ref, site
            if not ref.scope:
                return
            scope = function_id(self.module_of(fid).name, ref.scope)
            if scope not in self.functions or ref.name == self.self_param(scope):
                return
            binds = self.binds(scope).get(ref.name, [])
            if len(binds) != 1 or binds[0].kind != "assign" or binds[0].value_ref is None:
                return
            target, site = binds[0].value_ref, binds[0].site
            ref = Ref(target.scope, target.name, target.attrs + ref.attrs)
        yield ref, site


def _field_elements(owner: str, attr: str) -> tuple[str, str]:
    """The (scope, name) the elements stored into field `attr` of class `owner` are indexed by:
    the class and `.attr`, which no local can be named."""
    return owner, f".{attr}"


def _enclosing_classes(cid: str) -> Iterator[str]:
    """Class `cid` and the classes its qualified name lies in, innermost first (`m:C.State`, `m:C`)."""
    module, _, qualname = cid.partition(":")
    parts = qualname.split(".")
    for end in range(len(parts), 0, -1):
        yield f"{module}:{'.'.join(parts[:end])}"


def _is_private(attr: str) -> bool:
    """A name Python renames after its class (`__epoch`), not a special one (`__init__`)."""
    return attr.startswith("__") and not attr.endswith("__")


def bound_arguments(function: FunctionFacts, call: Call, ahead: int = 0) -> Iterator[tuple[str, Arg]]:
    """(parameter, argument) pairs of a call of `function`, by position and keyword; a keyword
    that names no parameter goes to the `**kwargs` parameter, which forwards it. The call's
    positional arguments start after the `ahead` a `functools.partial` binds (`bound_ahead`); a
    method's `self` (a classmethod's `cls`) is the object it is called on, but for a method taken
    from its class (`ahead` -1: `Base.__init__(self, transport)`), whose first argument it takes.
    Binding stops at a starred argument: what one parameter holds is never a guess (see
    `spread_arguments` for where a value may go)."""
    positional, by_name = _parameters_taking_arguments(function, ahead)
    keywords = _parameter_of_kind(function, "kwarg")
    index = 0
    for arg in call.args:
        if arg.kind == "star":
            return
        if arg.keyword:
            name = arg.keyword if arg.keyword in by_name else keywords
        else:
            name = positional[index] if index < len(positional) else ""
            index += 1
        if name:
            yield name, arg


class Spread(NamedTuple):
    """One binding of the data flow (`spread_arguments`): a parameter, or the element of a `*args`
    or `**kwargs` parameter that one argument fills (`param_element`: its position or keyword),
    takes an argument, or the element of a starred argument (`arg_element`) that lands on it."""

    param: str
    param_element: str
    arg: Arg
    arg_element: str = ""
    # A starred argument that a star parameter takes on (`g(*args)` of `def g(first, *rest)`):
    # each element of the parameter from position `first` on (of `**kwargs`: each one) is the
    # argument's element `shift` places further on (`rest[i]` is `args[i + 1]`); -1: none.
    first: int = -1
    shift: int = 0
    # The argument lands on the parameter only for some lengths of a `*` argument before it.
    maybe: bool = False


def spread_arguments(function: FunctionFacts, call: Call, ahead: int = 0) -> Iterator[Spread]:
    """Where the arguments of a call of `function` go, as Python binds them, for the data flow.
    Beyond `bound_arguments`: an extra positional argument goes to the `*args` parameter, as a
    whole and as its element at its place among the extras, and an extra keyword to `**kwargs`,
    as a whole and as its element of that name, so that a function which forwards them
    (`g(*args, **kwargs)`) hands each to the one parameter of `g` it lands on. A `*name` argument
    gives its i-th element to the positional parameter i places on, a `**name` argument its
    element `k` to the parameter `k` that no other argument fills, and the elements left to the
    `*args` or `**kwargs` parameter, which may forward them again; only a star parameter's
    elements are known (see `DataFlow`), so a starred local fills nothing. A `*` argument's
    length is unknown: a positional argument `n` places after it may land on any positional
    parameter from `n` places after the star's on that no keyword names, or in `*args` as a whole,
    and goes to each of them (`f(*args, epoch)` may pass `epoch` as any of them)."""
    positional, by_name = _parameters_taking_arguments(function, ahead)
    extra = _parameter_of_kind(function, "vararg")
    keywords = _parameter_of_kind(function, "kwarg")
    named = {arg.keyword for arg in call.args if arg.keyword}
    filled: set[str] = set()
    index = extras = after = 0
    spread = False
    for arg in call.args:
        if arg.star == "*":
            if not spread and arg.text.isidentifier():
                yield from (Spread(name, "", arg, str(i)) for i, name in enumerate(positional[index:]))
            if extra:
                yield Spread(extra, "", arg)
                if not spread and arg.text.isidentifier():
                    yield Spread(extra, "", arg, first=extras, shift=len(positional) - index - extras)
            spread = True
        elif arg.star == "**":
            if arg.text.isidentifier():
                unfilled = [name for name in by_name if name not in named and name not in filled]
                yield from (Spread(name, "", arg, name) for name in unfilled)
            if keywords:
                yield Spread(keywords, "", arg)
                if arg.text.isidentifier():
                    yield Spread(keywords, "", arg, first=0)
        elif arg.keyword:
            if arg.keyword in by_name:
                yield Spread(arg.keyword, "", arg)
            elif keywords:
                yield from (Spread(keywords, "", arg), Spread(keywords, arg.keyword, arg))
        elif not spread and index < len(positional):
            filled.add(positional[index])
            yield Spread(positional[index], "", arg)
            index += 1
        elif spread:
            yield from (Spread(name, "", arg, maybe=True) for name in positional[index + after :] if name not in named)
            after += 1
            if extra:
                yield Spread(extra, "", arg)
        elif extra:
            yield Spread(extra, "", arg)
            yield Spread(extra, str(extras), arg)
            extras += 1


def star_elements(name: str) -> str:
    """The name the class learnt for the elements of `*args` parameter `name` is kept under (see
    `learn_parameter_types`): one no parameter can have."""
    return f"{name}[]"


def star_parameter_arguments(function: FunctionFacts, call: Call, ahead: int = 0) -> tuple[str, list[Arg], list[Arg]]:
    """A call's `*args` parameter (Java's `Drain... xs`), "" where `function` has none; the
    arguments beyond the positional parameters, each one of its elements (`all(m, a, b)`); and
    the starred ones, whose elements it takes (`all(m, *drains)`)."""
    extra = _parameter_of_kind(function, "vararg")
    if not extra:
        return "", [], []
    spreads = [spread for spread in spread_arguments(function, call, ahead) if spread.param == extra]
    elements = [spread.arg for spread in spreads if spread.param_element and not spread.arg.star]
    starred = [spread.arg for spread in spreads if spread.arg.star == "*" and spread.first < 0]
    return extra, elements, starred


def _parameters_taking_arguments(function: FunctionFacts, ahead: int) -> tuple[list[str], list[str]]:
    """The parameters a call of `function` binds by position, and those it may bind by name:
    neither the `self` of a call on an object nor those a `functools.partial` bound ahead."""
    params = [p for p in function.params if p.kind in ("positional", "keyword")]
    if function.kind in ("method", "classmethod") and params and ahead >= 0:
        params = params[1:]
    positional = [p.name for p in params if p.kind == "positional"]
    ahead = max(ahead, 0)
    # A parameter the partial bound takes no argument of the call, by position or by name.
    bound_by_partial = set(positional[:ahead])
    return positional[ahead:], [p.name for p in params if p.name not in bound_by_partial]


def _parameter_of_kind(function: FunctionFacts, kind: str) -> str:
    """The name of `function`'s `*args` ("vararg") or `**kwargs` ("kwarg") parameter, or ""."""
    return next((p.name for p in function.params if p.kind == kind), "")


def may_name_a_method(arg: Arg) -> bool:
    """Whether a path argument may name a method, its last name called where it is passed: any of
    Python's (`submit(self.handle)`), a method reference alone of Java's (`this::current`)."""
    return not arg.names_value


def receiver_path(call: Call) -> Ref | None:
    """The path a method call is made on (`self._pool` of `self._pool.release()`), or None where the
    callee is not a path with an attribute (`f()`, `f().g()`)."""
    if call.callee is None or not call.callee.attrs:
        return None
    return call.callee._replace(attrs=call.callee.attrs[:-1])


def bound_ahead(entity: Entity) -> int:
    """How many positional arguments a `functools.partial` binds ahead of a call's own, for a
    function or class it wraps (0 for any other value); -1 for a method taken from its class,
    whose call binds its `self` too (and 0 for a partial of one that binds the `self`)."""
    return int(entity.keys[0]) if entity.kind in ("function", "class") and entity.keys else 0


def _stores_entered(write: Write) -> bool:
    """Whether a store is of what entering a context manager gives (`with cm as self.x:`)."""
    return write.entered_call >= 0 or write.entered_ref is not None


def _types_a_field(entity: Entity) -> bool:
    """Whether a field holding `entity` is typed by it: an instance, a container of instances, or a
    class kept as a factory (`self._make = Dispatcher`, `self.Lock = partial(Lock, self)`), whose
    calls construct it."""
    return entity.kind in ("instance", "class") or entity.kind in _HOLDING_KINDS


def _bound_ahead_by(entity: Entity, ahead: int) -> Entity:
    return Entity(entity.kind, entity.target, (str(ahead),) if ahead else ())


def _positionals_bound(call: Call) -> int | None:
    """How many positional arguments a `functools.partial(f, ...)` call binds after the function;
    None where the function is not its first positional argument, or a `*args` or `**keywords`
    hides what it binds."""
    if not call.args or call.args[0].keyword or any(arg.kind == "star" for arg in call.args):
        return None
    return sum(1 for arg in call.args[1:] if not arg.keyword)


def _added_elements(call: Call, adding_methods: Mapping[str, int]) -> list[Stored]:
    """What a call that adds to a named container (`listeners.append(f)`, `self._callbacks.add(f)`)
    by one of `adding_methods` (the position of the argument each adds, by name) stores there, at
    no known key."""
    callee = call.callee
    if callee is None or not callee.attrs or callee.attrs[-1] not in adding_methods:
        return []
    container = callee.attrs[:-1]
    position = adding_methods[callee.attrs[-1]]
    if callee.attrs[-1] == "add" and len(call.args) == 2:
        position = 1  # Java's `list.add(index, element)`
    # `listeners.append(f)`, or into an item of a field: `self._listeners[topic].append(f)`.
    inner = container[1:] == ("[]",) and container[0] != "[]"
    if (len(container) > 1 and not inner) or container == ("[]",) or len(call.args) <= position:
        return []
    arg = call.args[position]
    if arg.keyword:
        return []
    target = Ref(callee.scope, callee.name, container[:1] if inner else container)
    return _elements_stored(target, ("", "") if inner else ("",), (arg,), call)


def _elements_stored(container: Ref, keys: tuple[str, ...], args: Sequence[Arg], call: Call) -> list[Stored]:
    """The elements a call adding `args` to `container` at `keys` stores there: either arm of a
    conditional it adds (`append(a if fast else b)`)."""
    return [
        Stored(
            container,
            element=True,
            value_ref=value.ref,
            value_call=value.call,
            value_function=value.function,
            keys=keys,
            pos=call.site.pos,
            block=call.block,
        )
        for arg in args
        for value in arg.arms or (arg,)
        if value.kind in ("ref", "call", "lambda")
    ]


def _live_at(
    elements: list[tuple[str, Stored]], keys: tuple[str, ...], at: Point | None
) -> list[tuple[str, Stored]]:
    """The stores at constant `keys` that a call `at` may still see: the last one made before the
    call in the call's own block replaces every earlier one of its function at those keys (it
    runs after them, and before the call, whatever path led there)."""
    if at is None or not all(keys):
        return elements
    fid, pos, block = at
    same_place = [stored for where, stored in elements if where == fid and stored.keys == keys]
    last = max(
        (stored.pos[:2] for stored in same_place if stored.block == block and stored.pos[:2] < pos[:2]),
        default=None,
    )
    if last is None:
        return elements
    replaced = {id(stored) for stored in same_place if stored.pos[:2] < last}
    return [(where, stored) for where, stored in elements if id(stored) not in replaced]


def _keys_match(stored: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    """Whether a stored element's keys may be the keys looked up: equal where both are known."""
    return all(a == b or not a or not b for a, b in zip(stored, wanted))


def _parameter_fact(key: tuple[str, str]) -> Hashable:
    """What a resolution reads of a parameter: the class and values learnt for it."""
    return ("parameter", *key)


def _field_fact(key: tuple[str, str]) -> Hashable:
    """What a resolution reads of a field: its class and the values stored into it."""
    return ("field", *key)


def _changed(old: dict[tuple[str, str], _Learnt], new: dict[tuple[str, str], _Learnt]) -> set[tuple[str, str]]:
    """The keys whose learnt answer differs between `old` and `new`."""
    return {key for key in old.keys() | new.keys() if old.get(key) != new.get(key)}


def _changed_apart(
    old: dict[tuple[str, str], _StoresByClass], new: dict[tuple[str, str], _StoresByClass]
) -> set[tuple[str, str]]:
    """The fields whose stores by class changed where a subclass may see part of them alone (more
    than one class stores): those whose answer as a whole is unchanged may still answer a reader
    differently (see `Symbols._seen_from`)."""
    return {key for key in _changed(old, new) if len(old.get(key, {})) > 1 or len(new.get(key, {})) > 1}


def _all_stored(by_class: _StoresByClass) -> frozenset[Entity]:
    return frozenset().union(*by_class.values())


def _known(entity: Entity) -> frozenset[Entity]:
    """`entity` alone, or nothing where it is unknown."""
    return frozenset({entity}) - {UNKNOWN}


def _typed_only(entities: set[Entity]) -> frozenset[Entity]:
    """What stores give a field's type: not the unknown, nor a name's literal container, whose
    elements the value flow follows but which is of no class."""
    return frozenset(entity for entity in entities if entity != UNKNOWN and entity.kind != "elements")


def _context_method_names(region: Region) -> tuple[str, str]:
    """The methods a `with` item (a Java resource) of `region` runs on its manager on entering and
    on leaving, "" for none."""
    return _CONTEXT_METHODS[region.kind]


def _one_instance(values: frozenset[Entity]) -> Entity:
    """The one value of `values` where it is an instance of a class; else unknown."""
    (value,) = values if len(values) == 1 else (UNKNOWN,)
    return value if value.kind == "instance" else UNKNOWN


def _one_type(entities: frozenset[Entity]) -> Entity | None:
    """The type of a field whose typed stores agree on one class."""
    if len(entities) != 1:
        return None
    (entity,) = entities
    return entity if _types_a_field(entity) else None


def _names(attrs: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(attr for attr in attrs if attr != "[]")


# Class decorators that write an `__init__` taking the annotated fields in order.
_RECORD_DECORATORS = frozenset(
    {"dataclasses.dataclass", "attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable"}
    | {"attrs.define", "attrs.frozen", "attrs.mutable"}
)


def _is_class_variable(annotation: str) -> bool:
    """Whether a class body's annotation declares a class variable (`ClassVar[int]`), no field."""
    return annotation.split("[", 1)[0].rsplit(".", 1)[-1] == "ClassVar"


def _string_literal(arg: Arg) -> str:
    """The text of a plain string literal argument that is an identifier (`"_deliver"`), else ""."""
    text = arg.text if arg.kind == "const" and not arg.keyword else ""
    if len(text) < 2 or text[0] != text[-1] or text[0] not in "'\"":
        return ""
    inner = text[1:-1]
    return inner if inner.isidentifier() else ""


def _overrides_param(own: Param, base: Param) -> bool:
    """Whether a Java override's parameter `own` stands for a base's `base`: of its type, or, where
    `base` is of a type variable (`K key`), of any class or array (a type argument for it), and
    where `base` is of an array of one (`K[] keys`, `K... keys`), of any array of a class or of an
    array (`Bytes[]`, `long[][]`; not `long[]`: a type argument is never a primitive)."""
    own_type, base_type = _type_of_param(own), _type_of_param(base)
    if own_type == base_type:
        return True
    dimensions = _array_parts(base_type)[1] if "[]" in base_type else ""
    type_argument = own_type.removesuffix(dimensions)  # `Bytes` of `Bytes[]` for `K[]`
    return base.type_variable and own_type.endswith(dimensions) and type_argument not in PRIMITIVE_TYPES


def _type_of_param(param: Param) -> str:
    """The type a Java parameter is declared with, as an override repeats it: its primitive, its
    class's simple name, or an array of either (`long[]`, `String[]` of `java.lang.String[]`); a
    `String... tags` is a `String[]` (JLS 8.4.1), so `f(String... tags)` overrides `f(String[]
    tags)`, and the other way round."""
    if param.array:
        element, dimensions = _array_parts(param.array)
        written = _simple_name(element) + dimensions
    else:
        written = param.primitive or _simple_name(param.annotation)
    return f"{written}[]" if param.kind == "vararg" else written


def _array_parts(written: str) -> tuple[str, str]:
    """An array type written (`Msg[][]`) as its elements' type and its dimensions (`Msg`, `[][]`)."""
    dimensions = written.index("[]")
    return written[:dimensions], written[dimensions:]


def _simple_name(annotation: str) -> str:
    """The simple name of the class an annotation names (`Checker` of `Outer.Checker[T]`)."""
    return _generic_origin(annotation).rsplit(".", 1)[-1]


def _generic_origin(text: str) -> str:
    """The class a base or an annotation names, without its type arguments: `Source[str]` and
    `Optional[Source[str]]` name `Source`, a base `Generic[T]` names `Generic`."""
    return _unwrap_annotation(text).partition("[")[0]


def _collection_element(annotation: str) -> tuple[str, str, str]:
    """The annotation of the elements of a declared collection, with the kind of entity that holds
    them and the annotation of a map's keys: "container" for `Sub` of `list[Sub]` (and
    `tuple[Sub, ...]`), "mapping" for the values of `dict[str, Sub]` and of Java's
    `Map<String, Sub>` (keys `str`, `String`); ("", "", "") for another annotation."""
    head, bracket, inside = _unwrap_annotation(annotation).partition("[")
    if not bracket or not inside.endswith("]"):
        return "", "", ""
    name = head.strip().rsplit(".", 1)[-1]
    arguments = _top_level_split(inside[:-1], ",")
    if name in ("tuple", "Tuple") and len(arguments) == 2 and arguments[1] == "...":
        arguments = arguments[:1]  # `tuple[State, ...]`; a `tuple[A, B]` holds two classes
    if name in _SEQUENCE_ANNOTATIONS and len(arguments) == 1:
        return arguments[0], "container", ""
    if name in _MAPPING_ANNOTATIONS and len(arguments) == 2:
        return arguments[1], "mapping", arguments[0]
    if name == "Entry" and len(arguments) == 2:  # Java's `Map.Entry<K, V>`
        return arguments[1], "entry", arguments[0]
    return "", "", ""


def _type_arguments_of_value(annotation: str, value: Entity) -> dict[str, Entity]:
    """What a value (`value`) gives each type variable a parameter declared with `annotation` names:
    itself to the variable itself (`R r`), the class of its elements to the variable of a declared
    collection of them (`List[R]` given a list of `Item`s); nothing to another annotation."""
    if "[" not in annotation:
        return {annotation: value}
    element, kind, _ = _collection_element(annotation)
    if not element or "[" in element or value.kind != kind or not value.target:
        return {}
    return {element: Entity("instance", value.target)}


# Maven and Gradle's source folders of main code and of test code.
_JAVA_MAIN_FOLDERS = ("src/main/java",)
_JAVA_TEST_FOLDERS = ("src/test/java", "src/testFixtures/java", "src/it/java")


def _java_source_root(module: ModuleInfo) -> str:
    """The folder a Java file's package folders start from (`a/src/main/java` for
    `a/src/main/java/p/X.java` of package `p`); its own folder where they do not name its package."""
    folder = posixpath.dirname(module.rel)
    package_path = module.facts.package.replace(".", "/")
    if not package_path:
        return folder
    if folder == package_path:
        return ""
    suffix = f"/{package_path}"
    return folder[: -len(suffix)] if folder.endswith(suffix) else folder


def _java_sees(importer: ModuleInfo, declarer: ModuleInfo) -> bool:
    """Whether a Java file sees the classes of `declarer`: only a Java file's (a Python module may
    have a Java class's full name), and code of a main source folder never those of a test source
    folder (Maven and Gradle build `src/main/java` without `src/test/java`), while test code sees
    both. A Python file sees every module."""
    if not is_java(importer.rel):
        return True
    if not is_java(declarer.rel):
        return False
    return not (_in_source_folder(importer, _JAVA_MAIN_FOLDERS) and _in_source_folder(declarer, _JAVA_TEST_FOLDERS))


def _in_source_folder(module: ModuleInfo, folders: tuple[str, ...]) -> bool:
    """Whether a Java file's package folders start from one of `folders` (`a/src/test/java`)."""
    root = f"/{_java_source_root(module)}"
    return any(root.endswith(f"/{folder}") for folder in folders)


def _holds_instances(entity: Entity) -> bool:
    """Whether `entity` is a declared container or map whose elements (values) are of a known class."""
    return entity.kind in _HOLDING_KINDS and bool(entity.target)


def _key_class(entity: Entity) -> str:
    """The class of the keys of a declared map, of its entries or of one of them, "" if unknown."""
    return entity.keys[0] if entity.kind in _KEYED_KINDS and entity.keys else ""


def _java_collection_member(entity: Entity, attr: str) -> Entity:
    """What `entity.attr` denotes on a Java collection of declared types: a collection's
    `iterator()` and the iterator's `next()`, a map's `keySet()`, `entrySet()`, the entries'
    stream or iterator, `entry.getKey()` and `entry.getValue()` of one of them."""
    if _holds_instances(entity) and entity.kind == "container" and attr in ("iterator", "next"):
        return Entity("container_method" if attr == "iterator" else "element_method", entity.target)
    if entity.kind == "mapping" and attr == "keySet" and _key_class(entity):
        return Entity("container_method", _key_class(entity))
    if entity.kind == "mapping" and attr == "entrySet" or entity.kind == "entries" and attr in _ENTRY_VIEWS:
        return Entity("entries_method", entity.target, entity.keys)
    if entity.kind == "entries" and attr == "next":
        return Entity("entry_method", entity.target, entity.keys)
    held = {"getKey": _key_class(entity), "getValue": entity.target}.get(attr, "") if entity.kind == "entry" else ""
    return Entity("element_method", held) if held else UNKNOWN


def _unwrap_annotation(text: str) -> str:
    """`Optional[Fetcher]`, `"Fetcher"`, `Fetcher | None`, `Union[Fetcher, None]`, `Final[...]`,
    `ClassVar[...]`, `Annotated[Fetcher, ...]`, nested in any order -> `Fetcher`."""
    text = text.strip().strip("'\"")
    while True:
        head, bracket, inside = text.partition("[")
        wrapper = head.strip().removeprefix("typing.")
        if not bracket or not inside.endswith("]") or wrapper not in _ANNOTATION_WRAPPERS:
            break
        arguments = _top_level_split(inside[:-1], ",")
        if wrapper == "Annotated":
            arguments = arguments[:1]
        elif wrapper == "Union":
            arguments = [argument for argument in arguments if argument != "None"]
        if len(arguments) != 1:
            break
        text = arguments[0].strip("'\"")
    if "|" in text:
        parts = [part for part in _top_level_split(text, "|") if part != "None"]
        if len(parts) == 1:
            text = parts[0]
    return text.strip().strip("'\"")


def _top_level_split(text: str, separator: str) -> list[str]:
    """`text` split at each `separator` outside brackets, the parts stripped."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return parts


def _c3_merge(cid: str, sequences: list[tuple[str, ...]]) -> tuple[str, ...]:
    """C3 linearization of `cid` from its parents' linearizations and its parents; an inconsistent
    hierarchy falls back to depth-first order. Linear in the sequences' length: each sequence is
    consumed by a position, and how many tails still hold each class is counted, not searched."""
    positions = [0] * len(sequences)
    in_tails = Counter(c for sequence in sequences for c in sequence[1:])
    result, placed = [cid], {cid}
    while True:
        heads = [s[p] for s, p in zip(sequences, positions) if p < len(s)]
        if not heads:
            return tuple(result)
        head = next((h for h in heads if not in_tails[h]), None)
        if head is None:
            rest = (c for sequence, position in zip(sequences, positions) for c in sequence[position:])
            return tuple(result) + tuple(dict.fromkeys(c for c in rest if c not in placed))
        if head not in placed:
            placed.add(head)
            result.append(head)
        for index, sequence in enumerate(sequences):
            if positions[index] < len(sequence) and sequence[positions[index]] == head:
                positions[index] += 1
                if positions[index] < len(sequence):
                    in_tails[sequence[positions[index]]] -= 1
