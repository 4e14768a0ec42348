"""Per-file facts: the plain, serialisable result of reading one file.

Nothing after the frontend sees a syntax tree. Facts depend only on the file's content (never on
its path or on the configuration), so they can be cached by content hash and shipped between
processes. Positions are `(line, column, end_line, end_column)`, 1-based, end column exclusive.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

Pos = tuple[int, int, int, int]

FACTS_FORMAT = 212


def within(inner: Pos, outer: Pos) -> bool:
    """Whether the span `inner` lies inside the span `outer`."""
    return outer[:2] <= inner[:2] and inner[2:] <= outer[2:]

# Java: the monitor of an object, the lock `synchronized` holds, as an attribute of the object.
MONITOR = "<monitor>"
# Java: the kind of the region of a try-with-resources resource, held from the resource to the end of
# the `try` body, where its `close()` runs.
RESOURCE = "resource"

# How a value leaves the expression it is computed in.
FLOW_RETURN = "return"
FLOW_ASSIGN = "assign"
FLOW_ARG = "arg"
FLOW_RECEIVER = "receiver"
FLOW_CONDITION = "condition"
FLOW_YIELD = "yield"
# `yield from` the value: each of its elements is yielded.
FLOW_YIELD_FROM = "yield_from"
FLOW_ITER = "iter"
FLOW_EXPR = "expr"

# The container methods that store each element of a literal dict argument, and each keyword
# argument, at that key (`fields.update({"k": v})`, `fields.update(k=v)`, as `fields["k"] = v`).
STORING_BY_KEY = frozenset({"update"})


# The small, numerous facts (name paths, sites, flows, accesses, arguments, calls...) are named
# tuples, not dataclasses: they hash in C (the program model keys its memos by name paths, hundreds
# of thousands of times a run), decode from the cache in about half the time, and take less memory.
class Ref(NamedTuple):
    """A name and an attribute path: `self._state.epoch` is Ref(scope, "self", ("_state", "epoch")).

    `scope` is the qualified name of the function whose scope binds `name`; "" means the module
    scope (a global, an import, a class, or a builtin). A subscript appears as "[]" in the path.
    """

    scope: str
    name: str
    attrs: tuple[str, ...] = ()

    def text(self) -> str:
        return ".".join((written_name(self.name), *self.attrs)).replace(".[]", "[]")


def written_name(local: str) -> str:
    """A local's name as the code writes it: a comprehension's variable whose name the function
    binds elsewhere too is known apart as `m<2>`."""
    return local.partition("<")[0] or local


class Flow(NamedTuple):
    """Where the value of an expression goes: returned, assigned to locals, passed to a call..."""

    kind: str = FLOW_EXPR
    # The locals assigned; for an argument, its key (keyword, or position as a string), and the
    # key of the element it is in when the argument has `Arg.items` (position, or dict key).
    targets: tuple[str, ...] = ()
    call: int = -1
    compared: bool = False
    # Assigned values only: the targets that are not plain names (`self.x`, `offsets[tp]`).
    stores: tuple[Ref, ...] = ()
    # A walrus's value that is an argument too (`f(x := v)`: v is assigned to `x` and passed):
    # the argument's keys, as an argument's `targets` are, of the call `call`.
    argument: tuple[str, ...] = ()
    # Assigned values: the key of the element of a local it is, where it has one of its own
    # (`fields = {"k": v}`, `args = (a, v)`, `fields["k"] = v`): "k", or a position as a string.
    # Values stored into an attribute path, returned or yielded: the position of the element of a
    # tuple or list written out.
    element: str = ""
    # A value stored into an item of one target (`fields["k"] = v`): where its target is, which
    # every piece of the value shares, so that the pieces are known as one store (`fields["k"] = a
    # + b`), apart from another store at the key.
    item_store: Site | None = None

    def argument_keys(self) -> tuple[str, ...]:
        """The keys of the argument of `call` that the value is (see `targets`), if it is one."""
        return self.targets if self.kind == FLOW_ARG else self.argument

    def returns_it(self) -> bool:
        """Whether the value is what the function returns: not one only compared or tested in the
        `return` (`func` of `return wrap(func) if func else wrap`, `x` of `return x is None`)."""
        return self.kind == FLOW_RETURN and not self.compared


class Site(NamedTuple):
    """Where an event happens: its position and the held regions and loops around it."""

    pos: Pos
    regions: tuple[int, ...] = ()
    loops: tuple[int, ...] = ()


class Access(NamedTuple):
    """A load of a name or an attribute path."""

    ref: Ref
    site: Site
    flow: Flow = Flow()
    # Read through `super()` (`super().epoch`, whose path is `self.epoch`): a property's getter is
    # looked up above the method's class, where `self.epoch` would find the override.
    above: bool = False


class Write(NamedTuple):
    """A store into a shared-looking path (attribute path or global), or into an item of one."""

    ref: Ref
    site: Site
    # "assign", "augassign", "item" (assignment into a container held at `ref`), "delete"
    kind: str
    bump: bool = False
    value_call: int = -1
    value_ref: Ref | None = None
    # The stored value is an empty literal container: `[]` or `{}`.
    value_empty: bool = False
    # The stored value is a lambda: its qualified name (`self.accept = lambda m: ...`).
    value_function: str = ""
    # The type the store declares (`self.state: State = make()`), as written.
    annotation: str = ""
    # A "delete" of an item at a constant key (`del fields["k"]`, `fields.pop("k")` of a local):
    # that key, as `Flow.element` keys an element of a local.
    key: str = ""
    # A store of what entering a context manager gives (`with cm as self.x:`, `self.x =
    # stack.enter_context(cm)`), as a `with` binds a local: the call or the name path `cm` is.
    entered_call: int = -1
    entered_ref: Ref | None = None
    # An "item" store into a slice (`self.pair[:1] = []`): it may move the items after the slice.
    sliced: bool = False


@dataclass(frozen=True)
class Bind:
    """A local name bound to a value: `x = Fetcher()`, `for m in batch`, `with L as c`, `x: T`."""

    name: str
    site: Site
    # "assign", "iter" (loop target: an element of the value), "iter_part" (one name of a
    # tuple loop target, at `index`), "with" (with `index`, one name of a tuple target, taking the
    # element at `index` of what the item enters), "unpack" (one name of a tuple target assigned
    # a call's result or a name path's value, `a, b = f()`, `a, b = self.pair`: its element at
    # `index`), "annotation", "param", "import" (an import in a function's body: the module's
    # import at `index`), "component" (Java: a `var` component of a record pattern, `Held(var
    # mark, var topic)`: the component at `index` of the record class `annotation` names)
    kind: str
    value_call: int = -1
    value_ref: Ref | None = None
    annotation: str = ""
    index: int = -1
    # An assignment of a value written out whole that reads nothing (`epoch = 0`, `epoch = None`):
    # nothing flows from it, yet it replaces what the local held.
    literal: bool = False


class Arg(NamedTuple):
    """One argument of a call."""

    keyword: str
    # "ref", "lambda", "call", "const", "other", "star"
    kind: str
    ref: Ref | None = None
    function: str = ""
    call: int = -1
    text: str = ""
    # For a call of a class that starts a function with a tuple and a dict of arguments
    # (`Thread(target=f, args=(a,), kwargs={"b": b})`): the elements of a literal tuple or list
    # argument, by position up to a starred one, and the values of a literal dict argument under
    # keys written as identifier strings, each with that key as its keyword. For a `*` argument:
    # the calls that make its elements, where it is a comprehension or a literal of calls, or a
    # local assigned one (`gather(*(self._f(m) for m in batch))`, `gather(*coros)`).
    items: tuple[Arg, ...] = ()
    # The path whose value the argument adds to (`self._epoch` of `self._set_epoch(self._epoch + 1)`):
    # a callee storing it into that path bumps it.
    adds_to: Ref | None = None
    # A starred argument's stars: "*" spreads positional arguments, "**" keyword arguments.
    star: str = ""
    # Java: the argument's path names a field or a local (`counts.merge(current, ...)`), never a
    # method, whatever method shares its name: only a method reference (`this::current`) names one.
    names_value: bool = False
    # Python: the argument is a collection written out or a range of a count (`(a, b)`, `range(3)`):
    # a function walking it once per element (`sorted((a, b), key=f)`) walks no batch.
    walks_no_batch: bool = False
    # Java: the type the argument's expression is known to have, by its name as written (a
    # literal's, `String`, `long`, `null`...; a `new`'s or a cast's class or array; a declared
    # local's, parameter's or field's class, primitive type or array, a `var` local's value's where
    # that shows it; `this`'s class), "" where unknown: the overload a call runs is the one these
    # types fit.
    static_type: str = ""
    # Java: for a `var` local declared with a call's result (`var ms = pending();`), that call, in
    # the function declaring the local; -1 otherwise. Where the methods the call may run are all
    # declared to return one type (`FunctionFacts.returns_type`), the argument is of that type, as an
    # argument that is such a call is.
    typed_by_call: int = -1
    # Java: the argument is `null`, cast or not (`(Semaphore) null`, of static type `Semaphore`): it
    # passes what Python's `None` does. Python: a conditional argument that may pass the falsy left
    # operand of an `and` (`shared and self._lock`), which no arm stands for: a lock parameter's
    # fallback replaces it as it does None.
    passes_null: bool = False
    # The arms of a conditional argument (`self.a if fast else self.b`, `a or b`, Java's `fast ?
    # this::a : this::b`), each an argument of its own, where it has more than one: the argument
    # passes either (a callback runs either; a container it is added to holds either).
    arms: tuple[Arg, ...] = ()


class Call(NamedTuple):
    """A call site. `callee` is None when the callee is not a name path (`f()()`, `x[0]()`)."""

    id: int
    callee: Ref | None
    method: str
    text: str
    site: Site
    args: tuple[Arg, ...] = ()
    receiver_call: int = -1
    flow: Flow = Flow()
    # `f()()`: the call whose result is called.
    callee_call: int = -1
    # The constant key of each subscript of `callee`, in order (`d["a"][0]()`: "'a'", "0"); ""
    # where the key is not a constant.
    callee_keys: tuple[str, ...] = ()
    # With `callee_keys`: the innermost block (suite) holding the call, (0, 0, 0, 0) for the top
    # level of module code.
    block: Pos = (0, 0, 0, 0)
    # The call is made on a collection written out or a range of a count (`[a, b].sort(key=f)`), in
    # Java also on an `Optional` or a stream of one (`List.of(a, b).stream()`): a method running a
    # function once per element of it (`sort`, `collect`, `sorted`) walks no batch.
    walks_no_batch: bool = False
    # Java: `p.or(q)` of a functional interface (`Predicate`), not `Optional`'s `or`: it makes a
    # function of `q`, run where that function is used, and runs none here.
    composes: bool = False
    # Java: a supplier given to the `or` of call `or_of_call`'s result (`lookup.find(id).or(this::m)`),
    # whose type only the program knows: it runs here where that call runs only methods declared to
    # return an `Optional`, and nothing else (a `Predicate`'s `or` composes it; see `composes`).
    or_of_call: int = -1


class Region(NamedTuple):
    """A held region of a lock: `with L:`, `async with L:`, acquire()/release(), a tested acquire."""

    id: int
    lock: Ref
    # "with", "async_with", "acquire", "try_acquire", RESOURCE
    kind: str
    pos: Pos
    end_line: int
    # The regions already held where this one is acquired, innermost last.
    outer: tuple[int, ...] = ()
    # `with self._lock_for(tp):` holds what the call returns: the call's id (`lock` is then empty).
    call: int = -1


class Entered(NamedTuple):
    """A `with` (or `async with`) item of a name path or a call, the value the held region `region`
    holds: its context manager's `__enter__` runs at `site`, before the body, and its `__exit__` at
    `exit`, where the statement ends; both with the locks held around the item, in its loops. One
    entered on an ExitStack is exited where the stack exits it: where its block ends, or where the
    stack `pop_all()` moved it to does (None: not in this function). In Java, a try-with-resources
    resource, whose `close()` runs at `exit`, where the `try` body ends."""

    region: int
    site: Site
    exit: Site | None


class Loop(NamedTuple):
    """A loop: `for`, `async for`, a comprehension or generator, or `while`."""

    id: int
    # "for", "async_for", "comprehension", "while"
    kind: str
    # The header: its regions are the locks held around the loop, its loops the enclosing ones.
    site: Site
    # False for loops that do not iterate a collection: literals, range() of anything but len().
    batch: bool
    iterable: str = ""
    # A Java iterating call on an `Optional`'s chain that starts from a call (`holder.find(tp)` of
    # `holder.find(tp).map(...)`): that call's id. No batch loop where its method is declared to
    # return an `Optional`, which the program knows once it resolves the call; -1 otherwise.
    source_call: int = -1
    # What the loop runs per turn: a `for` or `while` statement's body, a comprehension's element
    # (a dict comprehension's key and value), the function given to a Java stream operation or to
    # an `Optional`'s `ifPresent`; and whether the loop runs it at least once (`while True:`,
    # `for (;;)`, `do ... while`).
    body: Pos | None = None
    runs_once: bool = False
    # A Java `for` statement's update (`i++, epoch = current()`), which runs after the body on each
    # pass though it is written before it; None for any other loop.
    update: Pos | None = None
    # The test of a `while` or `do` statement, or of a Java `for` statement: it runs on every pass
    # (before the body, but for `do`) and once more where the loop ends by failing it, so an
    # assignment in it runs whether or not a pass does; None for any other loop.
    test: Pos | None = None
    # A Python loop's `else` through which no path goes on after the statement (`for ...: ...;
    # break` / `else: return`): the code after the loop runs only past a jump that leaves it, as
    # after `while True:`; None for any other loop.
    else_leaving: Pos | None = None


class Await(NamedTuple):
    """An interleaving point in a coroutine: `await`, every iteration of `async for`, and an
    `async with` where it enters (`__aenter__`, once its header is evaluated: at the end of the item's
    context manager expression) and where it ends (`__aexit__`)."""

    site: Site
    call: int = -1
    # Where it enters an `async with`: the item's context manager expression.
    manager: Pos | None = None

    def runs_inside(self, pos: Pos) -> bool:
        """Whether the point interleaves only inside the code at `pos`, the `__aenter__` call of
        its `async with` item (or the `@asynccontextmanager` generator the item calls, which that
        `__aenter__` runs up to its `yield`): it runs wherever that code awaits, not after it."""
        return self.manager is not None and within(self.manager, pos)


class Choice(NamedTuple):
    """An expression whose value is one of its parts: `body if test else orelse`, `a or b`, `a and b`.

    `parts` are positions: (test, body, orelse) for "if", the operands for "or"/"and". `flow` is
    where the whole expression's value goes; every part's own values go there too.
    """

    # "if", "or", "and"
    kind: str
    pos: Pos
    parts: tuple[Pos, ...]
    flow: Flow
    # For "if": the part that runs only where the value tested holds something: 1 (the body) for
    # `x is not None` or `x`, 2 (the orelse) for `x is None` or `not x`; 0 for another test.
    present_arm: int = 0


class Branches(NamedTuple):
    """An `if` statement with an `else` (or `elif`), a `match` or `switch`, a `try`'s handlers: one
    pass through it runs at most one arm. An arm alone is code a pass may skip, or leave part-way,
    and go on after: an `if` without `else` (Java), a `try`'s body, a loop's `else`, a `with` body
    whose context manager may swallow an exception, a labeled block (Java).

    `arms` are positions: the body, then the `else` (an `elif` is an `if` of its own there); or
    each `case` body. `exhaustive` when every pass runs one of them (an `if` with `else`, a `match`
    whose last case matches anything, a Java `switch` with a `default`): what each arm assigns
    replaces what came before. `ends_in_else` for a Python `try`'s handlers whose last arm is its
    `else`: that one runs after the body ran to its end, where no handler runs.
    """

    pos: Pos
    arms: tuple[Pos, ...]
    exhaustive: bool = False
    ends_in_else: bool = False
    # Java: the rest of an arm from each `case:` group the group before falls into (`case 1: a();
    # case 2: b(); break;`: from `case 2`), where a pass entering at that label starts.
    fallen_into: tuple[Pos, ...] = ()


class LeavingArm(NamedTuple):
    """An arm of an `if ... else`, `match` or `switch` statement through which no path goes on after
    the statement, each ending in a `return`, `raise`, `break` or `continue` (Java: one that cannot
    complete normally), and `spans`, code after the statement that no path through the arm
    reaches: the rest of its block and, through blocks that are arms themselves, the rest after
    the statements around it, out to a loop, a `try` statement or a function (see `Held` for the
    same said of a test)."""

    arm: Pos
    spans: tuple[Pos, ...]


class RanThrough(NamedTuple):
    """The body of a `try` statement none of whose handlers goes on after it (each returns, raises,
    breaks or continues), and its `else` block: `blocks`, which have run to their end wherever
    `spans` run, the code past the statement that a path leaving it never reaches (see
    `LeavingArm`)."""

    blocks: tuple[Pos, ...]
    spans: tuple[Pos, ...]


class Fallback(NamedTuple):
    """`if name is None:` (or `if not name:`): its body runs only when the local holds nothing."""

    name: str
    body: Pos


class Governs(NamedTuple):
    """An `if` or `while` statement and its test: a value tested there is used until it ends."""

    test: Pos
    statement: Pos


class Held(NamedTuple):
    """A test (of an `if`, `while` or Java `do` or `for` statement, of a conditional expression, of
    a comprehension's `if` clause) and the code that runs only where it held, or only where it
    failed: there, each operand of an `and` chain that held, or of an `or` chain that failed, has
    run (`if ok and (e := cur()):` runs its body past the walrus, `if ok or (e := cur()) is None:`
    its `else`; `not` swaps the two).

    `operands`: the test and the operands in it that have run there, at any depth.
    `spans`: where the test held, the statement's body, a conditional expression's body, a
    comprehension's element and its clauses after the `if` clause, the rest of the block after an
    `if` statement whose `else` cannot go on after it (where no arm before it goes on either, as
    below); where it failed, the `else` (or `elif`) of an `if` statement, a conditional
    expression's `orelse`, the rest of the block after an `if` statement whose body cannot go on
    after it (for an `elif` arm's test, the rest after the whole statement, where no arm before it
    goes on either), a `while` loop's `else`, and the rest of the block after a loop that no
    `break` leaves (its test failed the last time it ran).
    `failed`: whether `spans` run where the test failed (else where it held).
    """

    operands: tuple[Pos, ...]
    spans: tuple[Pos, ...]
    failed: bool = False


class Exit(NamedTuple):
    """A `return` or `raise`: no statement after it in `block`, the suite it ends, runs on its path,
    but those of the `finally` suites of the `try` statements it lies in (`finally_blocks`; also
    the empty span where a `with` statement it lies in ends, its context managers' exit) and,
    for a `raise`, the `except` handlers of the `try` statements whose body holds it
    (`handler_blocks`: the exception's type is not judged), and the innermost of those `try`
    statements a handler of which may end without leaving (`caught_by`): the path goes on after it.
    A `break` or `continue` (`leaves_loop`) ends its block too, but its path goes on after the loop
    or at the loop's next turn; a `break` ends the loop statement `ended_loop`, its `else` included;
    a `continue` ends the turn of the loop whose body is `continued`: nothing more of that body runs
    on the turn, but the loop's next turn, and what follows the loop, do. A Java `return` in a
    lambda run on the spot ends the lambda's run so (`continued` is the lambda).
    A `raise` that innermost `try` catches with a handler ending in `break` or `continue` leaves
    its loop so too (`caught_by` is then None where no handler of it falls through).
    `raised`: the exit is (or, for an `if` no path through which goes on but out of the function,
    may be) a `raise`; one copied to the end of the `with` statements whose bodies it leaves holds
    their items' regions (`raised_through`): it ends the paths there only where each holds a lock,
    whose `__exit__` swallows no exception."""

    pos: Pos
    block: Pos
    finally_blocks: tuple[Pos, ...] = ()
    leaves_loop: bool = False
    handler_blocks: tuple[Pos, ...] = ()
    ended_loop: Pos | None = None
    caught_by: Pos | None = None
    raised: bool = False
    raised_through: tuple[int, ...] = ()
    continued: Pos | None = None


class Stored(NamedTuple):
    """A value kept where code can call it later, beyond what binds and writes say: a lambda bound
    to a name (`x = lambda: ...`) or returned, each arm of a conditional bound to a name or stored
    into a field (`f = self.a if fast else self.b`, `self.f = a or b`), whose bind or write names
    no one value, or a value kept as an element of a container named by `target` (`d = {"a": f}`,
    `handlers = [f, g]`, `d["b"] = f`).

    `target` is None for the function's return value: a returned lambda, or an element of a
    returned tuple or list written out (`return self._consumer, self._epoch`; Java's array or
    collection: `return new Drain[] {d};`, `return List.of(d);`). `keys` are the constant keys
    leading to an element (`d = {"a": {"b": f}}` keeps f at "'a'", "'b'"); "" where a key is not a
    constant.
    An element with no value and no keys marks an empty literal container bound to a name
    (`handlers = []`), which its methods fill (`handlers.append(f)`). An arm with no value (Java:
    `fast ? m -> drainFast(m) : handlers[0]`) is one of no value known here, which may be anything
    the name's declaration allows.
    An element's `pos` is where its value is, `block` the innermost block holding it (as a call's).
    `jdk_class` names the class that keeps a Java element (`ArrayList` of `new ArrayList<>(plain)`,
    `List` of `List.copyOf(plain)`), or makes the collection empty for its `add` to fill (of `new
    ArrayList<>()`), where the file takes it for the JDK's only through an on-demand import (`import
    java.util.*;`): a class of that name in the file's own package, which only the program sees,
    shadows the import, and then the element is not kept (nor the collection marked).
    """

    target: Ref | None
    element: bool
    value_ref: Ref | None = None
    value_call: int = -1
    value_function: str = ""
    keys: tuple[str, ...] = ()
    pos: Pos = (0, 0, 0, 0)
    block: Pos = (0, 0, 0, 0)
    jdk_class: str = ""


class Param(NamedTuple):
    name: str
    annotation: str = ""
    kind: str = "positional"
    # A default value that is a name path (`def f(callback=on_commit)`), read where `def` runs.
    default: Ref | None = None
    # Java: the primitive type the parameter is declared with (`long`), which `annotation`, naming
    # only classes, leaves out.
    primitive: str = ""
    # Java: the array type the parameter is declared with (`long[]`, `Msg[]`), which `annotation`
    # and `primitive` leave out; of a `T... rest` parameter, that of each argument it takes (`Msg[]`
    # of `Msg[]... rest`).
    array: str = ""
    # Java: declared with a type variable of its method or class (`K key` in `Store<K, V>`), which
    # an override may declare as any class (`put(Bytes key)` in `S implements Store<Bytes, ...>`),
    # or with an array of one (`K[] keys`, `K... keys`; `put(Bytes[] keys)` overrides it there).
    type_variable: bool = False
    # The name path a statement of the body itself puts in the parameter where it holds None (Java:
    # null): `lock = lock or self._lock`, `if lock is None: lock = self._lock`; Java's `if (lock ==
    # null) lock = this.lock;`, `lock = lock != null ? lock : this.lock;`,
    # `Objects.requireNonNullElse(lock, this.lock)`, `Objects.requireNonNullElseGet(lock, () ->
    # this.lock)`. Read in the body; None where that statement puts another value there (`lock =
    # lock or threading.Lock()`).
    fallback: Ref | None = None
    # Java: where that value is a call instead (`if (lock == null) lock = lock();`), the call's index
    # in the function's calls: the parameter holds the lock the method called returns.
    fallback_call: int = -1
    # Where the statement giving that fallback is: a use of the parameter on a line before it ends
    # holds what the call passed only.
    fallback_at: Pos | None = None
    # Java: where that statement is nested in a block (`if (ready) { if (lock == null) lock = this.lock;
    # ... }`), that block: a use after it may not have run the statement, and holds what the call passed.
    fallback_within: Pos | None = None
    # Java: where later statements of the body itself give the parameter a value where it holds null
    # again (`held = Objects.requireNonNullElse(held, other);` after `if (held == null) held = lock;`):
    # it holds null there no more, so they keep what it holds.
    fallback_again_at: tuple[Pos, ...] = ()


@dataclass(frozen=True)
class FunctionFacts:
    """One function, method, lambda, class body or module body, and everything that happens in it."""

    qualname: str
    name: str
    # "function", "method", "classmethod", "staticmethod", "lambda", "classbody", "module"
    kind: str
    pos: Pos
    class_name: str = ""
    parent: str = ""
    is_async: bool = False
    is_property: bool = False
    params: tuple[Param, ...] = ()
    decorators: tuple[str, ...] = ()
    returns: str = ""
    # Java: the type a method is declared to return, as `Arg.static_type` names one: a class, type
    # arguments dropped (`Msg`), a primitive or an array (`Msg[]` of `Msg[] pending()`, `long[]`:
    # `returns` leaves these two out); "" for `void`, a constructor and a type variable (`T`, `T[]`:
    # of the type argument a call gives it, unknown).
    returns_type: str = ""
    # Java: a generic method's own type variables (`R` of `<R> R pick(Box<R> b)`), for which the
    # arguments of a call give the classes they stand for in what it returns.
    type_parameters: tuple[str, ...] = ()
    # The body is only `...`, `pass`, a docstring or `raise NotImplementedError`: an abstract stub.
    stub_body: bool = False
    globals_declared: tuple[str, ...] = ()
    # Java: "public" (an interface's method too, modifier or not), "protected", "private" or
    # "package"; "" in Python (public unless named `_x`).
    visibility: str = ""
    accesses: tuple[Access, ...] = ()
    writes: tuple[Write, ...] = ()
    binds: tuple[Bind, ...] = ()
    calls: tuple[Call, ...] = ()
    regions: tuple[Region, ...] = ()
    entered: tuple[Entered, ...] = ()
    loops: tuple[Loop, ...] = ()
    awaits: tuple[Await, ...] = ()
    choices: tuple[Choice, ...] = ()
    branches: tuple[Branches, ...] = ()
    exits: tuple[Exit, ...] = ()
    fallbacks: tuple[Fallback, ...] = ()
    # The spans of comparisons (`a != b`, `x < y <= z`): which values are compared with which.
    comparisons: tuple[Pos, ...] = ()
    governs: tuple[Governs, ...] = ()
    held: tuple[Held, ...] = ()
    leaving_arms: tuple[LeavingArm, ...] = ()
    ran_through: tuple[RanThrough, ...] = ()
    # A generator function: its body runs where its result is iterated, not where it is called.
    is_generator: bool = False
    # Where it yields, with the locks held there (a `@contextmanager` holds them for its user).
    yields: tuple[Site, ...] = ()
    stored: tuple[Stored, ...] = ()
    # The decorators as values, outermost first, evaluated where the function is defined (a name
    # path, or a call made there: `@make_decorator()`).
    decorator_values: tuple[Arg, ...] = ()
    # `raise E` of a name path: the exception class is constructed there.
    raised: tuple[Access, ...] = ()

    def conditions_around(self, pos: Pos) -> Iterator[tuple[str, Pos]]:
        """What the code at `pos` lies in that a pass may not run, loops aside: an `if` or `while`
        statement past its test ("governs": a statement runs its own test), an arm of a branching
        ("arm"), an operand evaluated only on a condition ("part": of `and`, `or`, a conditional
        expression), each tagged, as an `elif` arm and the `if` statement filling it share a span."""
        for governed in self.governs:
            if within(pos, governed.statement) and not within(pos, governed.test):
                yield "governs", governed.statement
        for branches in self.branches:
            yield from (("arm", arm) for arm in branches.arms if within(pos, arm))
        for choice in self.choices:
            yield from (("part", part) for part in choice.parts[1:] if within(pos, part))


@dataclass(frozen=True)
class ClassFacts:
    qualname: str
    name: str
    pos: Pos
    bases: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    # Java field updaters the class declares, with the field each updates:
    # `CONSUMER_EPOCH = AtomicLongFieldUpdater.newUpdater(C.class, "consumerEpoch")`.
    updaters: tuple[tuple[str, str], ...] = ()
    # A Java interface or abstract class (Python's abstract classes are known by their bases).
    abstract: bool = False
    # A Java interface: its static methods are no member of what implements or extends it.
    interface: bool = False
    # A Java record's components in order, which a record pattern's components take by place.
    components: tuple[str, ...] = ()
    # A Java generic class's type parameters in order (`T` of `Box<T>`), which a receiver's declared
    # type arguments (`Box<Message> box`) stand for in what its methods return.
    type_parameters: tuple[str, ...] = ()
    # A Java class's bases as annotations, with the type arguments each gives (`Box[Item]` of
    # `extends Box<Item>`), in the order of `bases`: what the base's type parameters stand for here.
    base_annotations: tuple[str, ...] = ()

    @property
    def top_level(self) -> bool:
        """Whether the class is declared at its file's top level, in no class nor function."""
        return self.qualname == self.name


class Import(NamedTuple):
    """`import a.b as c` -> Import("c", "a.b", "", 0); `from ..x import y as z` -> Import("z", "x", "y", 2)."""

    alias: str
    module: str
    name: str = ""
    level: int = 0
    pos: Pos = (1, 1, 1, 1)
    # Made in a function's body: it binds a name of that function (a `Bind` of kind "import"),
    # not of the module.
    local: bool = False
    # Java: a class name the file uses without importing it (`Import("X", "p.X", "X")` in package
    # `p`), which Java finds in the file's own package, else through its on-demand imports, kept as
    # `Import("*", "q", "*")` for `import q.*;` (JLS 6.4.1, 7.5.2).
    implicit: bool = False


@dataclass(frozen=True)
class Suppression:
    """`# epochlint: ignore[...]` or `# noqa: EPL...` on `line`, or an `epochlint:` directive that
    is none of epochlint's; the comment spans [column, end_column)."""

    line: int
    # Empty: every code on that line.
    codes: tuple[str, ...] = ()
    column: int = 1
    end_column: int = 1
    # Set (to the directive as written) when the comment is no directive epochlint reads
    # (`ignroe[EPL001]`, `ignore EPL001`): it silences nothing, and EPL901 says so.
    unread: str = ""


@dataclass(frozen=True)
class Layout:
    """A Python file's layout, read with its nesting (`epochlint.frontend.nesting`): a digest of its
    code without the lines that hold none (blank, or a comment outside brackets) and without the
    comments that end its lines outside brackets; those lines' numbers; and how many lines it has.
    Two versions of a file with the same digest have the same facts, their lines moved."""

    digest: str = ""
    codeless: tuple[int, ...] = ()
    lines: int = 0


@dataclass(frozen=True)
class FileFacts:
    """Everything the later stages need from one file."""

    lines: int
    imports: tuple[Import, ...] = ()
    globals: tuple[str, ...] = ()
    functions: tuple[FunctionFacts, ...] = ()
    classes: tuple[ClassFacts, ...] = ()
    suppressions: tuple[Suppression, ...] = ()
    ignore_file: bool = False
    # `# epochlint: guarded-by=LOCK` comments: (line, lock attribute)
    guard_declarations: tuple[tuple[int, str], ...] = ()
    # Set instead of the rest when the file could not be read or parsed.
    error: str = ""
    # Where the error lies: a syntax error's place; line 1, column 1 when the file could not be read
    # or decoded.
    error_pos: Pos = (1, 1, 1, 1)
    # Java: the package the file declares (its classes' modules are named from it).
    package: str = ""
    # Python, without an error: what an edit of blank lines and comments leaves unchanged.
    layout: Layout = Layout()
