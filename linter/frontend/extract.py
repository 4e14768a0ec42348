"""libcst -> FileFacts, in one visitor pass over the tree."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence, Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeAlias, TypeGuard, cast

import libcst as cst

from epochlint.frontend import line_count
from epochlint.frontend.builder import Catch, FunctionBuilder, OpenStack
from epochlint.frontend.comments import read_comments
from epochlint.frontend.facts import (
    FLOW_ARG,
    FLOW_ASSIGN,
    FLOW_CONDITION,
    FLOW_EXPR,
    FLOW_ITER,
    FLOW_RECEIVER,
    FLOW_RETURN,
    FLOW_YIELD,
    FLOW_YIELD_FROM,
    STORING_BY_KEY,
    Access,
    Arg,
    Await,
    Bind,
    Branches,
    Entered,
    Exit,
    Fallback,
    Governs,
    Held,
    Call,
    Choice,
    ClassFacts,
    FileFacts,
    Flow,
    FunctionFacts,
    Import,
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
from epochlint.frontend.positions import Positions, code_and_positions
from epochlint.frontend.scopes import all_params, function_bindings, values_bound_once
from epochlint.frontend.walk import FastVisitor, child_nodes

_EMPTY_MODULE = cst.Module(body=[])
_PROPERTY_DECORATORS = {"property", "cached_property", "functools.cached_property"}
# Iterables that never hold a batch of messages: literal collections, and range() of a count.
_LITERALS = (cst.Tuple, cst.List, cst.Set)
# The calls whose literal tuple and dict arguments are kept element by element (`Arg.items`): the
# classes that start a function with them (`threading.Thread(target=f, args=(a,))`, `Timer`,
# `multiprocessing.Process`), known here by name only, as the program model knows them by import.
_STARTED_WITH_ELEMENTS = frozenset({"Thread", "Timer", "Process"})
_CONSTANT_NAMES = frozenset({"None", "True", "False"})


# libcst's node classes are abstract-based: `isinstance` against one runs Python code
# (`ABCMeta.__instancecheck__`) wherever the node is not of that very class. The questions asked of
# every statement, store, argument and chain test the class itself (`type(node) is cst.Name`), which
# says the same of every class that has no subclasses: all but libcst's `Base...` ones.
def _is_sequence(node: object) -> TypeGuard[cst.Tuple | cst.List]:
    """A tuple or list written out (`a, b`, `[a, b]`), which unpacks by position."""
    return type(node) is cst.Tuple or type(node) is cst.List


def _is_literal(node: object) -> TypeGuard[cst.Tuple | cst.List | cst.Set]:
    """A tuple, list or set written out (one of `_LITERALS`)."""
    return type(node) is cst.Tuple or type(node) is cst.List or type(node) is cst.Set


def _property_accessor(name: str, decorators: tuple[str, ...]) -> str:
    """"setter" or "deleter" for a def decorated `@name.setter` or `@name.deleter`, else ""."""
    return next((kind for kind in ("setter", "deleter") if f"{name}.{kind}" in decorators), "")


def code_of(node: cst.CSTNode, positions: Positions | None = None) -> str:
    """The node's code, as libcst generates it; with the `positions` of its module, cut from the
    module's code where it can be: most expressions whose code is read are not names, and
    generating their code again cost a sixth of the extraction."""
    simple = _token_code(node)
    if simple is None and positions is not None and _cut_from_module(node):
        simple = positions.code(node)
    return simple if simple is not None else _EMPTY_MODULE.code_for_node(node)


def _cut_from_module(node: cst.CSTNode) -> TypeGuard[cst.BaseExpression]:
    """Whether the node's span in its module is all of its code: an expression's, but for an
    element of a collection (`*a` of `[*a, b]`), whose comma the span leaves out."""
    return isinstance(node, cst.BaseExpression) and not isinstance(node, cst.BaseElement)


# How an expression's code is had: `code_of`, or `FactsExtractor._code` (cut from its module's code).
CodeOf = Callable[[cst.BaseExpression], str]
# The literal a local only ever holds, where it does (`FactsExtractor._literal_of`).
LiteralOf = Callable[[cst.BaseExpression], cst.BaseExpression | None]

# Nodes whose code, without parentheses, is their `value`.
_VALUE_TOKENS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)
_ValueToken: TypeAlias = cst.Name | cst.Integer | cst.Float | cst.Imaginary | cst.SimpleString


def _token_code(node: cst.CSTNode) -> str | None:
    """The code of a name, a literal or an attribute path spelled out from its fields (None for
    anything else): most nodes whose code is read are these, and a code generation per node cost a
    quarter of the extraction."""
    # As in `name_path`: `type(...)`, these classes have no subclasses and `isinstance` is slow.
    if type(node) in _VALUE_TOKENS:
        token = cast(_ValueToken, node)
        return None if token.lpar else token.value
    if type(node) is not cst.Attribute or node.lpar or node.attr.lpar:
        return None
    before, after = node.dot.whitespace_before, node.dot.whitespace_after
    if type(before) is not cst.SimpleWhitespace or type(after) is not cst.SimpleWhitespace:
        return None
    value = _token_code(node.value)
    return None if value is None else f"{value}{before.value}.{after.value}{node.attr.value}"


def dotted(node: cst.BaseExpression) -> str:
    """`a.b.c` for a name path, the code otherwise (decorators, bases, annotations)."""
    if type(node) is cst.Call:
        return dotted(node.func)
    return code_of(node).strip()


def name_path(node: cst.BaseExpression) -> tuple[str, tuple[str, ...]] | None:
    """(root name, attribute path) for `a.b[c].d`, None when the root is not a name."""
    attrs: list[str] = []
    # `type(...) is`, not `isinstance`: libcst's node classes are abstract-based, whose `isinstance`
    # runs Python code, and these three have no subclasses (the walk asks this of every reference).
    while True:
        if type(node) is cst.Attribute:
            attrs.append(node.attr.value)
            node = node.value
        elif type(node) is cst.Subscript:
            attrs.append("[]")
            node = node.value
        elif type(node) is cst.Name:
            return node.value, tuple(reversed(attrs))
        else:
            return None


# The kinds of function whose first parameter is the object they are called on.
_HAS_SELF = ("method", "classmethod")

# The lock of a region that a call names: none by name.
_NO_REF = Ref("", "")


def lock_path(node: cst.BaseExpression, own_self: str) -> tuple[str, tuple[str, ...]] | None:
    """The name path of a lock expression. `type(self)._lock` and `self.__class__._lock` name the
    class's lock, the one `self._lock` names: a lock is a field of its class either way.
    `super()._lock` (in a method whose `self` is `own_self`) and `super(Cls, self)._lock` name
    `self._lock`: a field lives on the object, whichever class's code reads it."""
    attrs: list[str] = []
    while type(node) is cst.Attribute:
        attrs.append(node.attr.value)
        node = node.value
    if _is_type_of_one_argument(node):
        node = node.args[0].value  # type: ignore[attr-defined]
    # `super()._lock` is `self._lock`; `super()` alone names no field.
    root = (_super_object(node, own_self) if attrs else None) or name_path(node)
    if root is None:
        return None
    name, below = root
    return name, tuple(attr for attr in (*below, *reversed(attrs)) if attr != "__class__")


def _call_rooted_path(node: cst.BaseExpression) -> tuple[cst.Call, tuple[str, ...]] | None:
    """(the call, attribute path) for `f().a[i].b` and `(await f()).a`; None for a chain that
    starts from anything else, and for a bare call."""
    attrs: list[str] = []
    while type(node) is cst.Attribute or type(node) is cst.Subscript:
        attrs.append(node.attr.value if type(node) is cst.Attribute else "[]")
        node = node.value
    if type(node) is cst.Await:
        node = node.expression
    if not attrs or type(node) is not cst.Call:
        return None
    return node, tuple(reversed(attrs))


def field_path(node: cst.BaseExpression, own_self: str) -> tuple[str, tuple[str, ...]] | None:
    """The name path of a field access or store. `type(self)._epoch` and `self.__class__._epoch`
    name the class attribute `self._epoch` names, and `super()._epoch` the field itself (read
    through `lock_path`); any other path is the name path."""
    path = name_path(node)
    if path is not None and "__class__" not in path[1]:
        return path
    through_the_class = lock_path(node, own_self)
    return through_the_class if through_the_class is not None and through_the_class[1] else path


def _super_object(node: cst.BaseExpression, own_self: str) -> tuple[str, tuple[str, ...]] | None:
    """The name path of the object whose attributes `super()` (in a method whose `self` is
    `own_self`) or `super(Cls, obj)` reads: `self`, `obj`. None for any other expression, and for
    `super()` outside a method, which has no object to look on."""
    if not _is_super_call(node):
        return None
    if not node.args:
        return (own_self, ()) if own_self else None
    if len(node.args) == 2 and not any(arg.keyword or arg.star for arg in node.args):
        return name_path(node.args[1].value)
    return None


def _is_super_call(node: cst.BaseExpression) -> TypeGuard[cst.Call]:
    """`super()` or `super(Cls, obj)`."""
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "super"


def _is_type_of_one_argument(node: cst.BaseExpression) -> bool:
    """`type(x)`: the class of `x`."""
    return (
        type(node) is cst.Call
        and type(node.func) is cst.Name
        and node.func.value == "type"
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
    )


def constant_key(node: cst.BaseExpression) -> str:
    """A key written as a constant, as text that tells `1` from `"1"`; "" for any other key."""
    if isinstance(node, cst.SimpleString) and "\\" not in node.raw_value:
        # Without escapes the text is the value: no evaluation (literal_eval is slow).
        return f"{node.prefix.lower().strip('ru')}{node.raw_value!r}"
    if isinstance(node, (cst.Integer, cst.SimpleString)):
        return repr(node.evaluated_value)
    if isinstance(node, cst.Name) and node.value in _CONSTANT_NAMES:
        return node.value
    return ""


def subscript_keys(node: cst.BaseExpression) -> tuple[str, ...]:
    """The constant key of each subscript of a name path, in order (`d["a"].x[i]`: "'a'", "")."""
    keys: list[str] = []
    while type(node) is cst.Attribute or type(node) is cst.Subscript:
        if type(node) is cst.Subscript:
            index = node.slice[0].slice if len(node.slice) == 1 else None
            keys.append(constant_key(index.value) if isinstance(index, cst.Index) else "")
        node = node.value
    return tuple(reversed(keys))


def _subscripted_call(node: cst.BaseExpression) -> cst.Call | None:
    """The call that `node` is, or whose result it subscripts (`self.handlers()[0]`), if one."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return node if isinstance(node, cst.Call) else None


# CPython compiles each item of a `with` as one more nested block and refuses more than 20 ("too
# many statically nested blocks"). Each item's region would be recorded at every place inside
# the ones before it: thousands of items made facts quadratic in size (73 MB for 5,000).
MAX_WITH_ITEMS = 20


class TooManyBlocks(Exception):
    """A `with` statement (at `line`) with more items than Python itself compiles."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


@dataclass
class _ClassBuilder:
    qualname: str
    name: str
    pos: Pos
    bases: tuple[str, ...]
    decorators: tuple[str, ...]
    methods: list[str] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)


class FactsExtractor(FastVisitor):
    """Reads one module. Traversal is steered by hand where the context of a child matters."""

    def __init__(self, positions: Positions, code: str, never_returning: AbstractSet[str]) -> None:
        super().__init__()
        self._positions = positions
        # The calls that never return where the code being read stands (see `_Jumps`), innermost
        # class last: the module's (`_never_returning_of`), and `self._fail` in a class whose
        # `_fail` (or that of a base of the module) is annotated `-> NoReturn`.
        self._never_returning: list[AbstractSet[str]] = [never_returning]
        # Of each class of the module read so far, by name, its methods annotated `-> NoReturn`
        # and those of its bases of the module.
        self._never_returning_methods: dict[str, frozenset[str]] = {}
        # Whether an expression of the module may bind a name (`:=`): where none does, finding a
        # scope's locals need not enter its expressions.
        self._binds_in_expressions = ":=" in code
        self.functions: list[FunctionFacts] = []
        self.classes: list[ClassFacts] = []
        self.imports: list[Import] = []
        self.module_globals: set[str] = set()
        self._function_stack: list[FunctionBuilder] = []
        # The innermost function being read, the stack's last (see `_enter_scope`): an attribute, not
        # a property, as it is read at nearly every node.
        self._fn: FunctionBuilder
        self._class_stack: list[_ClassBuilder] = []
        self._flow = Flow()
        self._next_id = 0
        # Call ids by node identity, so that an assignment can name the call that made its value.
        self._call_ids: dict[int, int] = {}
        # The ids of the calls whose result a chain reads (`self.state().epoch`), bound each to the
        # local that holds it once.
        self._held_calls: set[int] = set()
        # The suites being walked, innermost last: where a `return` or `raise` ends its path.
        self._blocks: list[Pos] = []
        # The statement being walked in each function's suite being walked, with that suite,
        # innermost last; and the suites that are arms of an `if` or `match` statement or the body of
        # a `with` statement that swallows no exception: what runs after such a suite's statement
        # runs after the statement around (see `_spans_past`).
        self._walking: list[tuple[Pos, cst.CSTNode]] = []
        self._arm_blocks: set[Pos] = set()
        # The `finally` suites of the `try` statements whose other parts are being walked: a
        # `return` or `raise` there runs them on its way out; and the ends of the `with` statements
        # whose body is being walked, where their context managers' `__exit__` runs.
        self._finally_blocks: list[Pos] = []
        # The `except` handlers of the `try` statements whose body is being walked: a `raise` there
        # may go on in them.
        self._handler_blocks: list[Pos] = []
        # The bodies of the `try` statements whose every handler leaves (returns or raises), or that
        # have none: what follows such a statement runs only after its body ran to its end.
        self._bodies_run_through: set[Pos] = set()
        # The held regions a statement of each block being read opened, which end where the block
        # does (`L.acquire()`), innermost last.
        self._opened_in_blocks: list[list[tuple[Ref, int]]] = []
        # The `if` bodies past which the rest of the block runs only (an `else` that cannot go on),
        # and the `else` blocks (a body that cannot go on), with the held regions each left open at
        # its end: they stay held after the statement.
        self._left_open: dict[int, list[tuple[Ref, int]]] = {}
        # Of those `try` statements, the ones a handler of which may end without leaving the loop
        # around (it falls through, breaks or continues), innermost last: a `raise` there may go on
        # after the statement or at that loop.
        self._catching: list[Catch] = []
        # The loop statements whose body is being walked, each with that body, innermost last: the
        # one a `break` ends, whose turn a `continue` ends.
        self._loops: list[tuple[Pos, Pos]] = []
        # The `elif` parts of the `if` statements walked: their paths are judged with the `if`'s.
        # Each with whether no arm before it goes on after the statement.
        self._elifs: dict[int, bool] = {}
        # The `elif` parts: the rest of the block after the statement, which runs only past them. The
        # `if` and `with` statements of an `else` block past arms that go on nowhere after their
        # statement (`if ok: return` / `else: if c: return`), of a body whose other arms go on nowhere
        # (`if ok: if c: return` / `else: return`), or of a `with` body: the code from their end to the
        # end of the rest of the block after the statement around, which runs only past them: the rest of
        # their block, and the rests after the statements around it, but not those statements' other arms.
        self._rests_after: dict[int, tuple[Pos, ...]] = {}
        # By (function, local): the calls that make the elements of the comprehension or literal
        # the local was assigned (`coros = [self._f(m) for m in batch]`), for `gather(*coros)`.
        self._element_calls: dict[tuple[str, str], tuple[Arg, ...]] = {}
        # By function: its parameters and body; and, read once it assigns a local a collection
        # written out (most functions never do), its locals that only ever hold one (`pair = (a,
        # b)`), each with that literal (see `values_bound_once`).
        self._function_nodes: dict[str, tuple[cst.Parameters, cst.CSTNode]] = {}
        self._literal_locals: dict[str, dict[str, cst.BaseExpression]] = {}
        # Whether one of those functions has such a local: in most modules none has, and the question
        # is asked of every call's receiver.
        self._some_literal_local = False

    # -- helpers ---------------------------------------------------------------------------

    def _enter_scope(self, builder: FunctionBuilder) -> None:
        self._function_stack.append(builder)
        self._fn = builder

    def _leave_scope(self) -> None:
        self._function_stack.pop()
        if self._function_stack:
            self._fn = self._function_stack[-1]

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _pos(self, node: cst.CSTNode) -> Pos:
        return self._positions[id(node)]

    def _with_fallback(
        self, param: Param, fallback: tuple[tuple[str, tuple[str, ...]] | None, cst.CSTNode] | None
    ) -> Param:
        """`param` with the name path its fallback statement gives it (none for another value, such
        as `threading.Lock()`), and where that statement ends."""
        if fallback is None:
            return param
        path, statement = fallback
        return param._replace(fallback=self._ref(*path) if path else None, fallback_at=self._pos(statement))

    def _code(self, node: cst.BaseExpression) -> str:
        return code_of(node, self._positions)

    def _site(self, node: cst.CSTNode) -> Site:
        return Site(self._pos(node), tuple(self._fn.region_stack), tuple(self._fn.loop_stack))

    def _ref(self, name: str, attrs: tuple[str, ...] = ()) -> Ref:
        return Ref(*self._scope_of(name), attrs)

    def _is_bump(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> bool:
        return _is_bump(self._code, self._own_self(), target, value)

    def _own_self(self) -> str:
        """The `self` (or `cls`) of the method being read, the object `super()` looks on; "" elsewhere."""
        function = self._fn
        return function.params[0].name if function.kind in _HAS_SELF and function.params else ""

    def _scope_of(self, name: str) -> tuple[str, str]:
        """The qualified name of the function scope that binds `name` ("" for the module), and the
        name it has there (a comprehension's variable may have one of its own).

        Class bodies are seen only by their own statements, never by the functions inside them.
        """
        for builder in reversed(self._function_stack):
            local = builder.comprehension_local(name) if builder.comprehension_scopes else None
            if local is not None:
                return builder.qualname, local
            if builder is self._fn and builder.kind == "classbody":
                return (builder.qualname if name in builder.locals else ""), name
            if builder.kind == "module" or name in builder.globals_declared:
                return "", name
            if builder.kind != "classbody" and name in builder.locals:
                return builder.qualname, name
        return "", name

    def _visit_with_flow(self, node: cst.CSTNode | None, flow: Flow) -> None:
        if node is None:
            return
        saved = self._flow
        self._flow = flow
        self.walk(node)
        self._flow = saved

    # -- scopes ----------------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        names, _ = function_bindings(None, node, self._binds_in_expressions)
        self.module_globals = set(names)
        builder = FunctionBuilder(
            qualname="",
            name="<module>",
            kind="module",
            pos=(1, 1, 1, 1),
            locals=names,
            globals_declared=frozenset(),
        )
        self._enter_scope(builder)
        self._visit_statements(node.body)
        self._leave_scope()
        self.functions.append(builder.freeze())
        return False

    def _child_qualname(self, name: str) -> str:
        if self._class_stack and self._fn.kind == "classbody":
            return f"{self._class_stack[-1].qualname}.{name}"
        parent = self._fn.qualname
        return f"{parent}.{name}" if parent else name

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        for decorator in node.decorators:
            self._visit_with_flow(decorator.decorator, Flow())
        for base in node.bases:
            self._visit_with_flow(base.value, Flow())
        qualname = self._child_qualname(node.name.value)
        self._bind_local(node.name.value, node, "class")
        class_builder = _ClassBuilder(
            qualname=qualname,
            name=node.name.value,
            pos=self._pos(node.name),
            bases=tuple(dotted(base.value) for base in node.bases if base.keyword is None),
            decorators=tuple(dotted(d.decorator) for d in node.decorators),
        )
        names, declared = function_bindings(None, node.body, self._binds_in_expressions)
        body = FunctionBuilder(
            qualname=f"{qualname}.<body>",
            name="<body>",
            kind="classbody",
            pos=self._pos(node.name),
            locals=names,
            globals_declared=declared,
            class_name=qualname,
            parent=self._fn.qualname,
        )
        class_builder.attributes.extend(sorted(names))
        self._class_stack.append(class_builder)
        self._never_returning.append(self._never_returning_in(node))
        self._enter_scope(body)
        with self._own_exits():
            self.walk(node.body)
        self._leave_scope()
        self._never_returning.pop()
        self._class_stack.pop()
        self.functions.append(body.freeze())
        self.classes.append(
            ClassFacts(
                qualname=class_builder.qualname,
                name=class_builder.name,
                pos=class_builder.pos,
                bases=class_builder.bases,
                decorators=class_builder.decorators,
                methods=tuple(class_builder.methods),
                attributes=tuple(class_builder.attributes),
            )
        )
        return False

    def _never_returning_in(self, node: cst.ClassDef) -> AbstractSet[str]:
        """The calls that never return in the class `node`: the module's, and its methods (and
        those of its bases of the module it does not define again) annotated `-> NoReturn`, called
        on `self`, `cls` or it."""
        defined = [statement for statement in node.body.body if type(statement) is cst.FunctionDef]
        inherited: set[str] = set()
        for base in node.bases:
            inherited |= self._never_returning_methods.get(dotted(base.value), frozenset())
        methods = {_called_as(method) for method in defined if _annotated_never_returning(method)}
        methods |= inherited - {_called_as(method) for method in defined}
        self._never_returning_methods[node.name.value] = frozenset(methods)
        if not methods:
            return self._never_returning[0]
        owners = ("self", "cls", node.name.value)
        return self._never_returning[0] | {_awaited_or_not(owner, method) for owner in owners for method in methods}

    def _jumps(self, jumps: _Jumps) -> _Jumps:
        """`jumps`, a call of the ones that never return here counting where a `raise` does."""
        return jumps.calling(self._never_returning[-1])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        decorators = tuple(dotted(d.decorator) for d in node.decorators)
        for decorator in node.decorators:
            self._visit_with_flow(decorator.decorator, Flow())
        decorator_values = tuple(self._decorator_value(d.decorator) for d in node.decorators)
        self._visit_param_defaults(node.params)
        in_class = bool(self._class_stack) and self._fn.kind == "classbody"
        kind = "function"
        if in_class:
            kind = "method"
            if "staticmethod" in decorators:
                kind = "staticmethod"
            elif "classmethod" in decorators:
                kind = "classmethod"
        accessor = _property_accessor(node.name.value, decorators)
        # A property's setter and deleter are functions of their own, beside its getter (which
        # keeps the name a read of the property runs): else the last def of the name would hide
        # the others, and a read would run the setter's body.
        qualname = self._child_qualname(f"{node.name.value}<{accessor}>" if accessor else node.name.value)
        if in_class:
            self._class_stack[-1].methods.append(node.name.value)
        else:
            self._bind_local(node.name.value, node, "def")
        is_property = any(
            d in _PROPERTY_DECORATORS or d.endswith(".getter") for d in decorators
        )
        self._enter_function(
            qualname=qualname,
            name=node.name.value,
            kind=kind,
            node=node.name,
            params=node.params,
            body=node.body,
            class_name=self._class_stack[-1].qualname if in_class else "",
            is_async=node.asynchronous is not None,
            is_property=is_property,
            decorators=decorators,
            decorator_values=decorator_values,
            returns=dotted(node.returns.annotation) if node.returns else "",
        )
        return False

    def _decorator_value(self, decorator: cst.BaseExpression) -> Arg:
        if isinstance(decorator, cst.Call):
            return Arg("", "call", call=self._call_ids.get(id(decorator), -1))
        path = name_path(decorator)
        if path is not None:
            return Arg("", "ref", ref=self._ref(*path))
        return Arg("", "other")

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._visit_param_defaults(node.params)
        self._enter_function(
            qualname=self.lambda_qualname(node),
            name="<lambda>",
            kind="lambda",
            node=node,
            params=node.params,
            body=node.body,
        )
        return False

    def lambda_qualname(self, node: cst.Lambda) -> str:
        line, column, _, _ = self._pos(node)
        return self._child_qualname(f"<lambda:{line}:{column}>")

    def _visit_param_defaults(self, params: cst.Parameters) -> None:
        for param in all_params(params):
            if param.default is not None:
                self._visit_with_flow(param.default, Flow())

    def _enter_function(
        self,
        *,
        qualname: str,
        name: str,
        kind: str,
        node: cst.CSTNode,
        params: cst.Parameters,
        body: cst.CSTNode,
        class_name: str = "",
        is_async: bool = False,
        is_property: bool = False,
        decorators: tuple[str, ...] = (),
        decorator_values: tuple[Arg, ...] = (),
        returns: str = "",
    ) -> None:
        names, declared = function_bindings(params, body, self._binds_in_expressions)
        builder = FunctionBuilder(
            qualname=qualname,
            name=name,
            kind=kind,
            pos=self._pos(node),
            locals=names,
            globals_declared=declared,
            class_name=class_name,
            parent=self._fn.qualname if self._fn.kind != "classbody" else self._fn.parent,
            is_async=is_async,
            is_property=is_property,
            params=tuple(self._param_facts(params)),
            decorators=decorators,
            decorator_values=decorator_values,
            returns=returns,
            stub_body=_is_stub_body(body),
        )
        self._function_nodes[qualname] = (params, body)
        self._literal_locals.pop(qualname, None)  # an earlier def of the same name
        saved_flow = self._flow
        self._enter_scope(builder)
        # Read in the body: the names of the path are the function's own locals, or what it sees.
        fallbacks = _parameter_fallbacks(body, {param.name for param in builder.params})
        builder.params = tuple(self._with_fallback(param, fallbacks.get(param.name)) for param in builder.params)
        for param in builder.params:
            if param.annotation:
                builder.binds.append(
                    Bind(param.name, Site(builder.pos), "param", annotation=param.annotation)
                )
        self._flow = Flow(FLOW_RETURN) if isinstance(body, cst.BaseExpression) else Flow()
        with self._own_exits():
            self.walk(body)
        self._leave_scope()
        self._flow = saved_flow
        self.functions.append(builder.freeze())

    @contextmanager
    def _own_exits(self) -> Iterator[None]:
        """A function's body (a lambda's, a class's) read with exits of its own: the `finally`
        suites, the ends of the `with` statements and the `except` handlers of the `try` statements
        around where it is written are on no way out of it. A function runs where it is called,
        which they need not surround; a class body is a function of its own in the model, whose
        `raise` ends its paths."""
        saved = self._finally_blocks, self._handler_blocks, self._catching
        self._finally_blocks, self._handler_blocks, self._catching = [], [], []
        try:
            yield
        finally:
            self._finally_blocks, self._handler_blocks, self._catching = saved

    def _param_facts(self, params: cst.Parameters) -> list[Param]:
        facts = []
        for param in all_params(params):
            if param is params.star_arg:
                kind = "vararg"
            elif param is params.star_kwarg:
                kind = "kwarg"
            elif param in params.kwonly_params:
                kind = "keyword"
            else:
                kind = "positional"
            annotation = dotted(param.annotation.annotation) if param.annotation else ""
            path = name_path(param.default) if param.default is not None else None
            default = self._default_ref(*path) if path is not None else None
            facts.append(Param(param.name.value, annotation, kind, default))
        return facts

    def _default_ref(self, name: str, attrs: tuple[str, ...]) -> Ref:
        """A parameter default's name path, read where the `def` runs: a name a class body binds
        only below the `def` is not the class's there yet (`lock=_lock` above `_lock = Lock()` is
        the module's `_lock`)."""
        ref = self._ref(name, attrs)
        body = self._fn
        if body.kind == "classbody" and ref.scope == body.qualname and all(bind.name != name for bind in body.binds):
            return ref._replace(scope="")
        return ref

    # -- statements and held regions ---------------------------------------------------------

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        return self._visit_suite(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> bool:
        return self._visit_suite(node)

    def _visit_suite(self, node: cst.IndentedBlock | cst.SimpleStatementSuite) -> bool:
        self._blocks.append(self._pos(node))
        left_open = self._visit_statements(node.body, self._blocks[-1])
        if id(node) in self._left_open:
            self._left_open[id(node)] = left_open
        self._blocks.pop()
        return False

    def _visit_statements(self, body: Sequence[cst.CSTNode], block: Pos | None = None) -> list[tuple[Ref, int]]:
        """Visit a block (a suite at `block`, or a module's body), opening a held region at
        `L.acquire()` and closing it at `L.release()`: the regions still open at its end, which end
        there."""
        opened: list[tuple[Ref, int]] = []
        suspended: list[tuple[int, int]] = []
        statements = list(_one_by_one(body))
        self._opened_in_blocks.append(opened)
        for statement in statements:
            if block is not None:
                self._walking.append((block, statement))
            self.walk(statement)
            if block is not None:
                self._walking.pop()
            # After the walk: a release through a call's result names the lock once its call is visited.
            released = self._lock_call(statement, "release")
            acquired = self._lock_call(statement, "acquire") or self._acquire_assigned(statement)
            if acquired is not None:
                lock_ref, call_node = acquired
                region_id = self._open_region(lock_ref, "acquire", call_node, statement)
                opened.append((lock_ref, region_id))
            elif (entered := self._entered_context(statement)) is not None:
                # Held for the rest of the `with ExitStack()` block that this block ends.
                region = self._enter_on_stack(statement, *entered)
                if region is not None:
                    opened.append(region)
            elif (tested := self._acquired_unless(statement)) is not None:
                # `if not L.acquire(timeout=1): return`: what follows runs holding L.
                region_id = self._open_region(tested[0], _acquire_kind(tested[1]), tested[1], statements[-1])
                opened.append((tested[0], region_id))
            elif released is not None:
                self._close_region(opened, released[0], suspended)
                self._fn.forget_acquire_results(released[0])
            elif finally_release := self._finally_release(statement):
                self._close_region(opened, finally_release)
                self._fn.forget_acquire_results(finally_release)
            else:
                self._on_stack(statement)
        self._opened_in_blocks.pop()
        left_open = [(lock, region_id) for lock, region_id in opened if region_id not in self._fn.stack_kept]
        for _, region_id in reversed(left_open):
            self._drop_region(region_id)
        self._fn.resume(suspended)
        return left_open

    def _drop_region(self, region_id: int) -> None:
        # A release in a nested block may already have ended a tested acquire's region.
        if region_id in self._fn.region_stack:
            self._fn.region_stack.remove(region_id)

    def _close_region(
        self, opened: list[tuple[Ref, int]], lock_ref: Ref, suspended: list[tuple[int, int]] | None = None
    ) -> None:
        for index in range(len(opened) - 1, -1, -1):
            if opened[index][0] == lock_ref:
                self._drop_region(opened[index][1])
                del opened[index]
                return
        # A release in the branch of a tested acquire ends that acquire's region.
        tested = {r.id for r in self._fn.regions if r.kind == "try_acquire" and r.lock == lock_ref}
        for region_id in reversed(self._fn.region_stack):
            if region_id in tested:
                self._fn.region_stack.remove(region_id)
                return
        if suspended is not None:
            self._fn.suspend_acquired(lock_ref, suspended)

    def _open_region(
        self, lock_ref: Ref, kind: str, at: cst.CSTNode, extent: cst.CSTNode, call: int = -1
    ) -> int:
        region_id = self._new_id()
        outer = tuple(self._fn.region_stack)
        self._fn.regions.append(
            Region(region_id, lock_ref, kind, self._pos(at), self._pos(extent)[2], outer, call)
        )
        self._fn.region_stack.append(region_id)
        return region_id

    def _lock_call(
        self, statement: cst.CSTNode, method: str
    ) -> tuple[Ref, cst.Call] | None:
        """`L.acquire()` / `L.release()` as a statement of its own (`await L.acquire()` for an
        asyncio lock)."""
        if type(statement) is not cst.Expr:
            return None
        return self._lock_method_call(statement.value, method)

    def _lock_method_call(
        self, call: cst.BaseExpression, method: str
    ) -> tuple[Ref, cst.Call] | None:
        """`L.acquire(...)` (or `L.release()`), awaited or not (an asyncio lock's)."""
        if type(call) is cst.Await:
            call = call.expression
        if not (type(call) is cst.Call and type(call.func) is cst.Attribute):
            return None
        if call.func.attr.value != method:
            return None
        lock = self._lock_ref(call.func.value)
        return (lock, call) if lock is not None else None

    def _lock_ref(self, node: cst.BaseExpression) -> Ref | None:
        """The lock a lock expression names: a name path's, or the lock field of what a visited call
        returns (`self.state().lock`), the same for each expression written the same way."""
        path = lock_path(node, self._own_self())
        if path is not None:
            return self._ref(*path)
        held = self._call_result_path(node)
        return self._fn.lock_through_call(self._code(node), held) if held is not None else None

    def _acquire_assigned(self, statement: cst.CSTNode) -> tuple[Ref, cst.Call] | None:
        """`ok = L.acquire()`, a blocking acquire whose result is kept: the lock is held after it
        as after a bare `L.acquire()`. A non-blocking or timed one's local is noted instead, for
        the test of it that opens the region (`got = L.acquire(timeout=1)`, then `if got:`); any
        other assignment of the name forgets it."""
        if self._fn.acquire_results:
            for name in _assigned_names(statement):
                self._fn.acquire_results.pop(name, None)
        if not (type(statement) is cst.Assign and len(statement.targets) == 1):
            return None
        target = statement.targets[0].target
        if type(target) is not cst.Name:
            return None
        acquired = self._lock_method_call(statement.value, "acquire")
        if acquired is None or _acquire_kind(acquired[1]) == "acquire":
            return acquired
        self._fn.acquire_results[target.value] = acquired
        self._fn.acquire_result_loops[target.value] = tuple(self._fn.loop_stack)
        return None

    def _tested_acquire(self, test: cst.BaseExpression) -> tuple[Ref, cst.Call] | None:
        """`L.acquire(...)` as an `if` test, alone or as an operand of an `and` chain, or a local
        that holds its result (see `_acquire_assigned`)."""
        if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
            return self._tested_acquire(test.left) or self._tested_acquire(test.right)
        return self._acquire_tested_by(test)

    def _acquire_tested_by(self, expression: cst.BaseExpression) -> tuple[Ref, cst.Call] | None:
        """`L.acquire(...)` itself, or a local that holds its result (see `_acquire_assigned`), or
        the same kept by a walrus (`if got := L.acquire(timeout=1):`)."""
        if type(expression) is cst.NamedExpr:
            return self._acquire_tested_by(expression.value)
        if type(expression) is cst.Name:
            return self._fn.acquire_results.get(expression.value)  # type: ignore[return-value]
        return self._lock_method_call(expression, "acquire")

    def _acquire_on_every_pass(self, node: cst.While) -> tuple[Ref, cst.Call] | None:
        """The acquire whose success lets each pass of a `while` loop into its body: `L.acquire(...)`
        in the test (alone, kept by a walrus, or an operand of an `and` chain), or a local holding
        its result that every path into the test leaves holding it (`_acquire_kept_each_pass`)."""
        for operand in _and_operands(node.test):
            if isinstance(operand, cst.Name):
                acquired = self._acquire_kept_each_pass(operand.value, node.body)
            else:
                called = operand.value if isinstance(operand, cst.NamedExpr) else operand
                acquired = self._lock_method_call(called, "acquire")
            if acquired is not None:
                return acquired
        return None

    def _acquire_kept_each_pass(self, local: str, body: cst.BaseSuite) -> tuple[Ref, cst.Call] | None:
        """The acquire whose result `local` holds at a `while local:` loop, where it was assigned
        in the loop's own pass of every enclosing loop (a pass of one back to the `while` may come
        after a release) and every path through `body` back to the test (its end, a `continue`)
        assigns `local` an acquire of that lock again, with no release after."""
        acquired = self._fn.acquire_results.get(local)
        if acquired is None or self._fn.acquire_result_loops.get(local) != tuple(self._fn.loop_stack):
            return None
        kept = _AcquireKept(local, acquired[0], self._lock_ref, self._lock_method_call)
        return acquired if kept.through_each_pass(body) else None  # type: ignore[return-value]

    def _entered_context(self, statement: cst.CSTNode) -> tuple[cst.BaseExpression, cst.Call, OpenStack] | None:
        """`stack.enter_context(cm)` (or `await stack.enter_async_context(cm)`) as a statement, its
        result kept or not, on a stack bound by an enclosing `with ExitStack() as stack:`: the value
        (awaited or not), the call and the stack."""
        if not self._fn.exit_stacks:
            return None  # most functions: no stack to enter on, and no statement to look into
        value = _statement_value(statement)
        entered = self._stack_entered(value) if value is not None else None
        return (value, *entered) if value is not None and entered is not None else None

    def _stack_entered(self, value: cst.BaseExpression) -> tuple[cst.Call, OpenStack] | None:
        """For `stack.enter_context(cm)` (or `await stack.enter_async_context(cm)`) on a stack bound
        by an enclosing `with ExitStack() as stack:`, the call and the stack."""
        call = value.expression if type(value) is cst.Await else value
        entered = self._stack_call(call, ("enter_context", "enter_async_context"))
        return entered if entered is not None and entered[0].args else None

    def _manager_entered(self, value: cst.BaseExpression | None) -> tuple[int, Ref | None] | None:
        """For a value `stack.enter_context(cm)` (or `await stack.enter_async_context(cm)`), `cm` as
        `_value_of` gives it; None for another value."""
        entered = self._stack_entered(value) if value is not None else None
        return self._value_of(entered[0].args[0].value) if entered is not None else None

    def _stack_call(self, call: cst.BaseExpression, methods: tuple[str, ...]) -> tuple[cst.Call, OpenStack] | None:
        """`stack.m(...)`, a method of `methods` called on a stack bound by an enclosing `with
        ExitStack() as stack:`: the call and the stack."""
        if not (type(call) is cst.Call and type(call.func) is cst.Attribute):
            return None
        if call.func.attr.value not in methods or type(call.func.value) is not cst.Name:
            return None
        name = call.func.value.value
        stack = next((stack for stack in reversed(self._fn.exit_stacks) if stack.name == name), None)
        return (call, stack) if stack is not None else None

    def _enter_on_stack(
        self, statement: cst.CSTNode, value: cst.BaseExpression, call: cst.Call, stack: OpenStack
    ) -> tuple[Ref, int] | None:
        """The region a context manager entered on a stack holds, opened as a `with` item's is
        (`stack.enter_context(self._lock)`, `stack.enter_context(self.locked())`): its `__enter__`
        runs at the statement, its `__exit__` where the stack's block ends. The lock, and the id."""
        kind = "async_with" if isinstance(value, cst.Await) else "with"
        entered_at = self._site(statement)
        opened = self._open_entered_region(call.args[0].value, kind, value, statement)
        if opened is not None:
            self._fn.entered.append(Entered(opened[1], entered_at, entered_at._replace(pos=stack.exited)))
            stack.held.append(opened)
        return opened

    def _on_stack(self, statement: cst.CSTNode) -> None:
        """What a statement does to the held regions through a stack: `stack.callback(L.release)`
        (or `stack.push(L)`) after `L.acquire()` holds L to the end of the stack's block, whatever
        block acquired it; `kept = stack.pop_all()` holds what the stack held past its block, until
        `kept.close()` (or a `with kept:`) exits it."""
        if not (self._fn.exit_stacks or self._fn.popped_stacks):
            return  # most functions: no stack, nor what one's `pop_all()` moved, to act on
        value = _statement_value(statement)
        if value is None:
            return
        if (pushed := self._stack_call(value, _RELEASES_ON_STACK)) is not None:
            self._hand_release_to_stack(*pushed)
        elif (popped := self._stack_call(value, ("pop_all",))) is not None and self._runs_to_stack_end(popped[1]):
            stack = popped[1]
            target = _statement_target(statement)
            stack.popped_to = self._stack_key(target) if target is not None else ""
            stack.popped.extend(stack.held)
            stack.held.clear()
            moved = {region_id for _, region_id in stack.popped}
            self._fn.stack_kept.update(moved)
            # The block no longer exits them; the stack they moved to does, if this function closes it.
            self._fn.move_exits(moved, None)
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "close":
            ended = self._pos(statement)[2:]
            self._exit_moved_stack(value.func.value, (*ended, *ended))

    def _stack_key(self, stack: cst.BaseExpression) -> str:
        """The text of where a stack `pop_all()` returned is kept (`moved`, `self._stack`), spaces
        left out, as its `close()` or `with` names it."""
        return "".join(self._code(stack).split())

    def _exit_moved_stack(self, stack: cst.BaseExpression, exited: Pos) -> None:
        """`moved.close()`, or the end of `with moved:`, at `exited`, where `moved` holds what a
        stack's `pop_all()` moved: those regions end, and their context managers' `__exit__` runs
        there."""
        if not self._fn.popped_stacks:
            return
        closed = self._fn.popped_stacks.pop(self._stack_key(stack), [])
        for _, region_id in closed:
            self._drop_region(region_id)
        self._fn.move_exits({region_id for _, region_id in closed}, exited)

    def _hand_release_to_stack(self, call: cst.Call, stack: OpenStack) -> None:
        """`stack.callback(L.release)` (`stack.push(L)`, whose `__exit__` releases L), with L
        acquired: the acquire's region ends where the stack's block does."""
        if not call.args:
            return
        released = call.args[0].value
        if cst.ensure_type(call.func, cst.Attribute).attr.value in _CALLBACKS_ON_STACK:
            if not (isinstance(released, cst.Attribute) and released.attr.value == "release"):
                return
            released = released.value
        lock = self._lock_ref(released)
        region_id = self._fn.acquired_region(lock) if lock is not None else None
        if lock is not None and region_id is not None and self._runs_to_stack_end(stack):
            stack.held.append((lock, region_id))
            self._fn.stack_kept.add(region_id)

    def _runs_to_stack_end(self, stack: OpenStack) -> bool:
        """Whether the rest of the stack's block runs only after the code being read: it stands in
        the block's body, or in `try` bodies there whose handlers all leave (not in an `if` arm,
        which the rest of the block may run without)."""
        inner = self._blocks[self._blocks.index(stack.body) + 1 :]
        return all(block in self._bodies_run_through for block in inner)

    def _stack_exits(self, stack: OpenStack) -> None:
        """The end of a stack's block: it lets go of what it held; what `pop_all()` moved to a new
        stack stays held, for the rest of the block around the `with` statement (until `close()`)."""
        for _, region_id in stack.held:
            self._fn.stack_kept.discard(region_id)
            self._drop_region(region_id)
        kept = [(lock, region_id) for lock, region_id in stack.popped if region_id in self._fn.region_stack]
        self._fn.stack_kept.difference_update(region_id for _, region_id in stack.popped)
        # The block the `with` statement stands in, which ends them unless `close()` does first.
        self._opened_in_blocks[-1].extend(kept)
        if stack.popped_to:
            self._fn.popped_stacks[stack.popped_to] = kept

    def _acquired_unless(self, statement: cst.CSTNode) -> tuple[Ref, cst.Call] | None:
        """`if not L.acquire(...):` whose body no path goes on after (`_leaves`: a return, raise,
        continue or break, or a `with`, `try`, `if`-`else`, `while True:` or a loop whose `else`
        leaves), or
        `while not L.acquire(timeout=1):` (or `while not got:`, the body acquiring into `got`) with
        no `break` out of it: what follows runs once the acquire succeeded."""
        if type(statement) is cst.While and statement.orelse is None and not _breaks_out(statement.body):
            test = statement.test
        elif type(statement) is cst.If and statement.orelse is None and _leaves(statement.body, self._jumps(_JUMPS)):
            test = statement.test
        else:
            return None
        return self._failed_acquire(test)

    def _failed_acquire(self, test: cst.BaseExpression) -> tuple[Ref, cst.Call] | None:
        """The acquire whose failure `test` asks about, so that `test` is false only where it
        succeeded: `not L.acquire(...)` (or `not got`, see `_acquire_tested_by`), `not (L.acquire(...)
        and ready)`, or either operand of an `or` (`closed or not L.acquire(...)`)."""
        if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or:
            return self._failed_acquire(test.left) or self._failed_acquire(test.right)
        if not (type(test) is cst.UnaryOperation and type(test.operator) is cst.Not):
            return None
        return self._tested_acquire(test.expression)

    def _finally_release(self, statement: cst.CSTNode) -> Ref | None:
        if type(statement) is not cst.Try or statement.finalbody is None:
            return None
        for inner in _one_by_one(statement.finalbody.body.body):
            released = self._lock_call(inner, "release")
            if released is not None:
                return released[0]
        return None

    def visit_With(self, node: cst.With) -> bool:
        if len(node.items) > MAX_WITH_ITEMS:
            raise TooManyBlocks(self._pos(node)[0])
        opened = []
        is_async = node.asynchronous is not None
        # Where the statement ends: the context managers' `__exit__` runs there on every way out of
        # the body, as a `finally` suite does.
        ended = self._pos(node)[2:]
        exited = (*ended, *ended)
        for item in node.items:
            self._visit_with_flow(item.item, Flow())
            entered_at = self._site(item)
            if is_async:
                # `__aenter__` is awaited once the header is evaluated: what it reads runs before.
                manager = self._pos(item.item)
                self._fn.awaits.append(Await(entered_at._replace(pos=(*manager[2:], *manager[2:])), manager=manager))
            region = self._open_entered_region(item.item, "async_with" if is_async else "with", item, node)
            if region is not None:
                region_id = region[1]
                opened.append(region_id)
                self._fn.entered.append(Entered(region_id, entered_at, entered_at._replace(pos=exited)))
            if item.asname is not None:
                self._bind_targets(item.asname.name, self._value_of(item.item), "with")
        # A context manager made by a call (`suppress(KeyError)`) may swallow an exception.
        swallows = any(lock_path(item.item, self._own_self()) is None for item in node.items)
        if swallows:
            self._fn.branches.append(Branches(self._pos(node), (self._pos(node.body),)))
        else:
            # The rest of the block after the statement runs only past the body's statements.
            self._pass_the_rest_into(node.body, self._rest_after(node))
            self._arm_blocks.add(self._pos(node.body))
        body = self._pos(node.body)
        stacks = [OpenStack(name, exited, body) for item in node.items if (name := _exit_stack_name(item))]
        self._fn.exit_stacks.extend(stacks)
        if is_async:
            # `__aexit__` is awaited where the statement ends, on every way out of the body.
            self._fn.awaits.append(Await(self._site(node)._replace(pos=exited)))
        self._finally_blocks.append(exited)
        walked_exits = len(self._fn.exits)
        self.walk(node.body)
        self._finally_blocks.pop()
        held = opened if len(opened) == len(node.items) else None
        self._exit_after_with(node, self._fn.exits[walked_exits:], held)
        del self._fn.exit_stacks[len(self._fn.exit_stacks) - len(stacks) :]
        for stack in reversed(stacks):
            self._stack_exits(stack)
        for region_id in opened:
            self._fn.region_stack.remove(region_id)
        for item in reversed(node.items):
            # `with moved:`, `moved` a stack `pop_all()` returned, exits what it took over here.
            self._exit_moved_stack(item.item, exited)
        return False

    def _exit_after_with(self, node: cst.With, body_exits: list[Exit], held: list[int] | None) -> None:
        """A `with` whose body no path leaves but by an exit in it (not in a suite nested there)
        ends its block's paths too, as an `if` every arm of which leaves: no `__exit__` swallows a
        `return`, `break` or `continue`. One may swallow a `raise`: the program judges that by the
        regions its items hold (`raised_through`: a lock's swallows nothing); `held` is None where
        an item holds none, and the `raise` is then taken to be swallowed."""
        body = self._pos(node.body)
        first = next((end for end in body_exits if end.block == body), None)
        if first is None or not self._blocks or (first.raised and held is None):
            return
        end = self._pos(node)[2:]
        through = (*first.raised_through, *held) if first.raised and held is not None else ()
        self._fn.exits.append(first._replace(pos=end + end, block=self._blocks[-1], raised_through=through))

    def _open_entered_region(
        self, manager: cst.BaseExpression, kind: str, at: cst.CSTNode, extent: cst.CSTNode
    ) -> tuple[Ref, int] | None:
        """The held region of a context manager entered (a `with` item's, or one entered on an
        ExitStack) that is a name path or a call, opened: its lock (none for a call) and its id;
        None for another."""
        # `with self.state().lock:` holds the lock field of the class the call returns.
        lock = self._lock_ref(manager)
        if lock is not None:
            return lock, self._open_region(lock, kind, at, extent)
        if (call_id := self._call_ids.get(id(manager))) is not None:
            # `with self._lock_for(tp):` holds the lock the call returns, if it returns one.
            return _NO_REF, self._open_region(_NO_REF, kind, at, extent, call_id)
        return None

    def visit_If(self, node: cst.If) -> bool:
        self._fn.governs.append(Governs(self._pos(node.test), self._pos(node)))
        self._held(node.test, self._pos(node.body))
        if node.orelse is not None:
            # An `else` or `elif` runs only where the test failed.
            self._held(node.test, self._pos(node.orelse), held=False)
        self._visit_with_flow(node.test, Flow(FLOW_CONDITION))
        tested = self._tested_acquire(node.test)
        region = None
        if tested is not None:
            region = (tested[0], self._open_region(tested[0], _acquire_kind(tested[1]), tested[1], node.body))
        missing = _tested_missing(node.test)
        if missing is not None:
            self._fn.fallbacks.append(Fallback(missing, self._pos(node.body)))
        jumps = self._jumps(_JUMPS)
        rest, body_leaves, else_leaves = self._rest_after(node), _leaves(node.body, jumps), _else_leaves(node, jumps)
        # See `_elifs`: true for an `if` that is no `elif`.
        no_arm_before_goes_on = self._elifs.get(id(node), True)
        self._pass_the_rest_on(node, rest, body_leaves, else_leaves)
        self._arm_blocks.add(self._pos(node.body))
        if isinstance(node.orelse, cst.Else):
            self._arm_blocks.add(self._pos(node.orelse.body))
        goes_on_past_body_alone = no_arm_before_goes_on and else_leaves
        if goes_on_past_body_alone:
            self._left_open[id(node.body)] = []
        # `if L is None: return` / `else: L.acquire()`, the mirror: the rest of the block runs past the `else` alone.
        else_block = node.orelse.body if isinstance(node.orelse, cst.Else) else None
        past_else_alone = else_block is not None and body_leaves and no_arm_before_goes_on
        if past_else_alone:
            self._left_open[id(else_block)] = []
        self.walk(node.body)
        kept = self._left_open.pop(id(node.body), [])
        if region is not None and region[1] in self._fn.region_stack:
            self._fn.region_stack.remove(region[1])
            # Held past the statement only where the rest runs past the body alone: not where the body
            # leaves and the `else` goes on (`if L.acquire(blocking=False): return True` / `else: ...`).
            if goes_on_past_body_alone:
                kept.insert(0, region)
        if node.orelse is not None:
            arms = (self._pos(node.body), self._pos(node.orelse))
            self._fn.branches.append(Branches(self._pos(node), arms, exhaustive=True))
            leaving = [arm for arm, leaves in ((node.body, body_leaves), (node.orelse, else_leaves)) if leaves]
            self._record_leaving_arms(rest, leaving)
            present = _tested_present(node.test)
            if present is not None and isinstance(node.orelse, cst.Else):
                # `if cur is not None: ... else: <runs only when cur holds nothing>`
                self._fn.fallbacks.append(Fallback(present, self._pos(node.orelse)))
            if isinstance(node.orelse, cst.If):
                self._elifs[id(node.orelse)] = body_leaves and no_arm_before_goes_on
            kept += self._walk_else(node.test, node.orelse)
        elif (present := _tested_present(node.test)) is not None and body_leaves:
            # `if cur is not None: return cur`: the rest of the block runs only when cur holds nothing;
            # after an `elif`, also where an arm before it went on (`if flag: pass elif cur ...`).
            if no_arm_before_goes_on:
                self._fn.fallbacks.extend(Fallback(present, span) for span in rest)
        if no_arm_before_goes_on and rest and body_leaves:
            # `if ok or (e := cur()) is None: return`: the rest of the block runs where the test failed;
            # after an `elif`, only where no arm before it goes on (`if ok: return elif ...`).
            self._held(node.test, *rest, held=False)
        if no_arm_before_goes_on and rest and else_leaves:
            # `if (e := cur()) is not None: ...` / `else: return`: the rest of the block runs where the test
            # held; after an `elif`, only where no arm before it goes on (`if ok: return elif ...`).
            self._held(node.test, *rest)
        if goes_on_past_body_alone or past_else_alone:
            self._keep_held(kept)
        if id(node) not in self._elifs and _statement_leaves(node, self._jumps(_EXITS)):
            # No path goes on after the statement but to the caller: as a `return` at its end, or
            # a `raise` where one may end a path through it.
            end = self._pos(node)[2:]
            self._exit(end + end, raised=not _statement_leaves(node, self._jumps(_RETURNS)))
        return False

    def _walk_else(self, test: cst.BaseExpression, orelse: cst.If | cst.Else) -> list[tuple[Ref, int]]:
        """Walk the `else` (or `elif`) part of an `if` statement, holding L where `test` is `not
        L.acquire(...)`: the held regions it left open where the rest of the block runs past it alone
        (see `_left_open`)."""
        failed = self._failed_acquire(test)
        region = None
        if failed is not None:
            region = (failed[0], self._open_region(failed[0], _acquire_kind(failed[1]), failed[1], orelse))
        alone = isinstance(orelse, cst.Else) and id(orelse.body) in self._left_open
        self.walk(orelse)
        kept = self._left_open.pop(id(orelse.body), []) if alone else []
        if region is not None and region[1] in self._fn.region_stack:
            self._fn.region_stack.remove(region[1])
            if alone:
                kept.insert(0, region)
        return kept

    def _keep_held(self, regions: list[tuple[Ref, int]]) -> None:
        """`if L is not None: L.acquire()` / `else: return` (or `if L.acquire(blocking=False):`): the
        regions the body left open are held in the rest of the block, where they end."""
        self._fn.region_stack.extend(region_id for _, region_id in regions)
        self._opened_in_blocks[-1].extend(regions)

    def _pass_the_rest_on(self, node: cst.If, rest: tuple[Pos, ...], body_leaves: bool, else_leaves: bool) -> None:
        """Give the rest of the block after `node` to its `elif` part, and on to the `if` and `with`
        statements of its `else` block where no arm before it goes on, or of its body where no arm
        of it but the body goes on (see `_rests_after`), before they are walked."""
        orelse = node.orelse
        if isinstance(orelse, cst.If):
            self._rests_after[id(orelse)] = rest
        elif isinstance(orelse, cst.Else) and body_leaves and self._elifs.get(id(node), True):
            self._pass_the_rest_into(orelse.body, rest)
        if else_leaves and self._elifs.get(id(node), True):
            self._pass_the_rest_into(node.body, rest)

    def _pass_the_rest_into(self, block: cst.BaseSuite, rest: tuple[Pos, ...]) -> None:
        """Give each `if`, `with`, `try` and `match` statement of `block`, a block past which alone a
        path goes on to `rest` (an arm whose other arms go on nowhere, a `with` body, a `try` body
        whose handlers go on nowhere), the rest of `block` after it and `rest`, which both run only past it
        (`else: if c: e = cur()` / `else: return` / `log()`, then `commit(e)`; see `_rests_after`);
        not the code between them, such as the other arms of the statement around `block`, which run
        instead of it."""
        if not rest or not isinstance(block, cst.IndentedBlock):
            return
        end = self._pos(block)[2:]
        for statement in block.body:
            if isinstance(statement, (cst.If, cst.With, cst.Try, cst.TryStar, cst.Match)):
                self._rests_after[id(statement)] = ((*self._pos(statement)[2:], *end), *rest)

    def _rest_after(self, statement: cst.If | cst.With | cst.Try | cst.TryStar | cst.Match) -> tuple[Pos, ...]:
        """The code that runs only past `statement`: what `_rests_after` holds for it, else the rest
        of its block."""
        if id(statement) in self._rests_after:
            return self._rests_after[id(statement)]
        rest = self._rest_of_block(statement)
        return (rest,) if rest is not None else ()

    def _record_leaving_arms(self, rest: tuple[Pos, ...], arms: Sequence[cst.CSTNode]) -> None:
        """Record `arms`, arms of the statement being walked through which no path goes on after
        it (see `LeavingArm`), with the code past it (see `_past`)."""
        spans = self._past(rest) if arms else ()
        if spans:
            self._fn.leaving_arms.extend(LeavingArm(self._pos(arm), spans) for arm in arms)

    def _past(self, rest: tuple[Pos, ...]) -> tuple[Pos, ...]:
        """The code that runs only past the statement being walked and that no path leaving it
        reaches: `rest`, what `_rest_after` gives it, and what `_spans_past` finds."""
        return tuple(dict.fromkeys((*rest, *self._spans_past())))

    def _spans_past(self) -> list[Pos]:
        """The code after the statement being walked that a path leaving it (by a `return`,
        `raise`, `break` or `continue`) never reaches: the rest of its suite and, where that suite
        is an arm of an `if` or `match` statement or a `with` body (see `_arm_blocks`), the rest
        after that statement, outward to a loop's body, a part of a `try` statement or a body of
        a function, where a `continue`, a handler or a `finally` could take such a path on."""
        spans = []
        for block, statement in reversed(self._walking):
            end = self._pos(statement)[2:]
            if end < block[2:]:
                spans.append((*end, *block[2:]))
            if block not in self._arm_blocks:
                break
        return spans

    def visit_Match(self, node: cst.Match) -> bool:
        self._visit_with_flow(node.subject, Flow(FLOW_CONDITION))
        if not node.cases:
            return False
        exhaustive = _matches_anything(node.cases[-1])
        rest = self._rest_after(node)
        jumps = self._jumps(_JUMPS)
        going_on = [case for case in node.cases if not _leaves(case.body, jumps)]
        if exhaustive and len(going_on) == 1:
            # The rest after the statement runs only past the one case that goes on.
            self._pass_the_rest_into(going_on[0].body, rest)
        for case in node.cases:
            self._visit_with_flow(case.pattern, Flow())
            self._visit_with_flow(case.guard, Flow(FLOW_CONDITION))
            self._arm_blocks.add(self._pos(case.body))
            self.walk(case.body)
        self._record_leaving_arms(rest, [case.body for case in node.cases if case not in going_on])
        arms = tuple(self._pos(case.body) for case in node.cases)
        self._fn.branches.append(Branches(self._pos(node), arms, exhaustive))
        return False

    def _exit(
        self,
        pos: Pos,
        leaves_loop: bool = False,
        raised: bool = False,
        ended_loop: Pos | None = None,
        continued: Pos | None = None,
    ) -> None:
        if self._blocks:
            handlers = tuple(self._handler_blocks) if raised else ()
            finals = tuple(self._finally_blocks)
            end = Exit(
                pos, self._blocks[-1], finals, leaves_loop, handlers, ended_loop, raised=raised, continued=continued
            )
            self._fn.exits.append(self._catching[-1].goes_on(end) if raised and self._catching else end)

    def visit_Try(self, node: cst.Try | cst.TryStar) -> bool:
        # A pass runs at most one handler, or the `else` (which runs only when none did): one arm
        # alone is a branch too, which may not run.
        arms = [self._pos(handler.body) for handler in node.handlers]
        if node.orelse is not None:
            arms.append(self._pos(node.orelse.body))
        if arms:
            self._fn.branches.append(Branches(self._pos(node), tuple(arms), ends_in_else=node.orelse is not None))
        # The body may be left part-way, by an exception a handler or the caller's caller catches.
        self._fn.branches.append(Branches(self._pos(node), (self._pos(node.body),)))
        if node.finalbody is not None:
            self._finally_blocks.append(self._pos(node.finalbody))
        handlers = [self._pos(handler.body) for handler in node.handlers]
        self._handler_blocks.extend(handlers)
        catching = self._catch(node)
        if catching is not None:
            self._catching.append(catching)
        else:
            self._bodies_run_through.add(self._pos(node.body))
        jumps = self._jumps(_JUMPS)
        if all(_leaves(handler.body, jumps) for handler in node.handlers):
            # No handler goes on after the statement: its `else` and the rest after it run only past
            # the body, and the rest after it only past the `else`.
            ended = (self._pos(node.orelse.body),) if node.orelse is not None else ()
            rest = self._rest_after(node)
            self._pass_the_rest_into(node.body, (*ended, *rest))
            if node.orelse is not None:
                self._pass_the_rest_into(node.orelse.body, rest)
            spans = self._past(rest)
            if spans:
                self._fn.ran_through.append(RanThrough((self._pos(node.body), *ended), spans))
        self.walk(node.body)
        if catching is not None:
            self._catching.pop()
        del self._handler_blocks[len(self._handler_blocks) - len(handlers) :]
        for handler in node.handlers:
            self.walk(handler)
        if node.orelse is not None:
            self.walk(node.orelse)
        if node.finalbody is not None:
            self._finally_blocks.pop()
            self.walk(node.finalbody)
        return False

    visit_TryStar = visit_Try

    def _catch(self, node: cst.Try | cst.TryStar) -> Catch | None:
        """Where a `raise` in the body goes on after the handlers that may not leave the function
        (`_leaves` by a `return` or `raise`: `try: return` / `finally: log()` does): after the
        statement where one may go on past its end, after the loop around it where one may
        `break` out (`with lock: break` does), at the loop's next turn where one may `continue`;
        None where every handler leaves the function."""
        exits, jumps = self._jumps(_EXITS), self._jumps(_JUMPS)
        going_on = [handler.body for handler in node.handlers if not _leaves(handler.body, exits)]
        loop, body = self._loops[-1] if self._loops else (None, None)
        falls_through = not all(_leaves(handler, jumps) for handler in going_on)
        broken = loop if any(_breaks_out(handler) for handler in going_on) else None
        continued = body if any(_breaks_out(handler, cst.Continue) for handler in going_on) else None
        if not (falls_through or broken or continued):
            return None
        return Catch(self._pos(node) if falls_through else None, broken, continued)

    def visit_While(self, node: cst.While) -> bool:
        loop_id = self._new_id()
        body, runs_once, test = self._pos(node.body), _always_true(node.test), self._pos(node.test)
        site, else_leaving = self._site(node), self._else_leaving(node)
        loop = Loop(loop_id, "while", site, False, body=body, runs_once=runs_once, test=test, else_leaving=else_leaving)
        self._fn.loops.append(loop)
        tested = self._acquire_on_every_pass(node)
        self._fn.loop_stack.append(loop_id)
        self._fn.governs.append(Governs(self._pos(node.test), self._pos(node)))
        self._held(node.test, body)
        self._visit_with_flow(node.test, Flow(FLOW_CONDITION))
        # The body runs only where the test's acquire succeeded (RULES.md, Held region).
        region_id = self._open_region(tested[0], _acquire_kind(tested[1]), tested[1], node.body) if tested else None
        self._walk_loop_body(node)
        if region_id is not None:
            self._drop_region(region_id)
        self._fn.loop_stack.pop()
        self._loop_else(node)
        self._held_after_loop(node)
        return False

    def _held_after_loop(self, node: cst.While) -> None:
        """Record that a `while` loop's `else`, and the rest of the block where no `break` leaves the
        loop, run only where its test failed: the last time it ran."""
        rest = self._rest_of_block(node)
        ended = (self._pos(node.orelse),) if node.orelse is not None else ()
        after = (rest,) if rest is not None and not _breaks_out(node.body) else ()
        if ended or after:
            self._held(node.test, *ended, *after, held=False)

    def _rest_of_block(self, statement: cst.CSTNode) -> Pos | None:
        """The rest of the block after `statement`, where one holds it (a function's, a loop's...)."""
        return self._pos(statement)[2:] + self._blocks[-1][2:] if self._blocks else None

    def _held(self, test: cst.BaseExpression, *spans: Pos, held: bool = True) -> None:
        """Record that `spans` run only where `test` held (or, not `held`, failed: see `Held`)."""
        self._fn.held.append(Held(tuple(self._pos(operand) for operand in _ran_operands(test, held)), spans, not held))

    def _walk_loop_body(self, node: cst.For | cst.While) -> None:
        """The body, where a `break` ends this loop (in its `else`, a `break` ends an outer one)."""
        self._loops.append((self._pos(node), self._pos(node.body)))
        self.walk(node.body)
        self._loops.pop()

    def _else_leaving(self, node: cst.For | cst.While) -> Pos | None:
        """The loop's `else`, where no path through it goes on after the loop (see `Loop`)."""
        if node.orelse is not None and _leaves(node.orelse.body, self._jumps(_JUMPS)):
            return self._pos(node.orelse)
        return None

    def _loop_else(self, node: cst.For | cst.While) -> None:
        """A loop's `else`, which a `break` skips: an arm of its own."""
        if node.orelse is not None:
            self._fn.branches.append(Branches(self._pos(node), (self._pos(node.orelse),)))
            self.walk(node.orelse)

    def visit_For(self, node: cst.For) -> bool:
        written_out = _written_out_elements(node.iter)
        if written_out is None:
            self._visit_with_flow(node.iter, Flow(FLOW_ITER))
        for element in written_out or ():
            # `for epoch in [record.leader_epoch, cur]:` assigns each element to the target in turn.
            self._visit_assigned_alone(element, node.target)
        is_async = node.asynchronous is not None
        loop_id = self._new_id()
        header = self._header_pos(node)
        self._fn.loops.append(
            Loop(
                loop_id,
                "async_for" if is_async else "for",
                self._site(node)._replace(pos=header),
                batch=self._iterates_collection(node.iter),
                iterable=self._code(node.iter).strip(),
                body=self._pos(node.body),
                else_leaving=self._else_leaving(node),
            )
        )
        self._fn.loop_stack.append(loop_id)
        if is_async:
            self._fn.awaits.append(Await(self._site(node.iter)))
        if written_out is None:
            self._bind_targets(node.target, self._value_of(node.iter), "iter")
        for element in written_out or ():
            self._store(node.target, element, node, bump=self._is_bump(node.target, element))
        self._walk_loop_body(node)
        self._fn.loop_stack.pop()
        self._loop_else(node)
        return False

    def _comprehension_header(self, clause: cst.CompFor) -> Pos:
        """From the `for` keyword to the end of the iterable.

        The clause's own span starts with the whitespace before `for`, which may be a line break.
        """
        target = self._pos(clause.target)
        end = self._pos(clause.iter)
        gap = clause.whitespace_after_for
        column = target[1]
        if isinstance(gap, cst.SimpleWhitespace) and clause.asynchronous is None:
            column = max(1, target[1] - len("for") - len(gap.value))
        return (target[0], column, end[2], end[3])

    def _header_pos(self, node: cst.For) -> Pos:
        start = self._pos(node)
        end = self._pos(node.iter)
        return (start[0], start[1], end[2], end[3])

    def visit_Return(self, node: cst.Return) -> bool:
        self._exit(self._pos(node))
        self._visit_returned(node.value, FLOW_RETURN)
        if _is_sequence(node.value):
            # `return self._consumer, self._epoch`: the elements a tuple target of the result takes.
            self._store_elements(None, node.value, ())
        elif node.value is not None:
            # A returned lambda, or one an arm of a returned conditional gives.
            lambdas = [arm for arm in _conditional_arms(node.value) if isinstance(arm, cst.Lambda)]
            self._fn.stored.extend(Stored(None, False, value_function=self.lambda_qualname(arm)) for arm in lambdas)
        return False

    def _visit_returned(self, returned: cst.BaseExpression | None, kind: str) -> None:
        """A returned or yielded value (`kind`). `return self._epoch, len(self._queue)`: each element
        of a tuple or list written out is returned at its position, which a tuple target of the
        result (`epoch, size = self.snapshot()`, `with snapshot() as (epoch, size):` of a yield)
        takes alone."""
        elements = _argument_elements(returned) if _is_sequence(returned) else []
        if returned is not None and elements:
            self._visit_elements(returned, elements, lambda key: Flow(kind, element=key))
        else:
            self._visit_with_flow(returned, Flow(kind))

    def visit_Raise(self, node: cst.Raise) -> bool:
        self._exit(self._pos(node), raised=True)
        path = name_path(node.exc) if node.exc is not None else None
        if path is not None:
            self._fn.raised.append(Access(self._ref(*path), self._site(node)))
        return True

    def visit_Break(self, node: cst.Break) -> bool:
        self._exit(self._pos(node), leaves_loop=True, ended_loop=self._loops[-1][0] if self._loops else None)
        return False

    def visit_Continue(self, node: cst.Continue) -> bool:
        self._exit(self._pos(node), leaves_loop=True, continued=self._loops[-1][1] if self._loops else None)
        return False

    def visit_Expr(self, node: cst.Expr) -> bool:
        self._visit_with_flow(node.value, Flow(FLOW_EXPR))
        self._exit_where_raising(node)
        return False

    def visit_Assert(self, node: cst.Assert) -> bool:
        self._visit_with_flow(node.test, Flow(FLOW_CONDITION))
        self._visit_with_flow(node.msg, Flow())
        self._exit_where_raising(node)
        return False

    def _exit_where_raising(self, statement: cst.Expr | cst.Assert) -> None:
        """A statement that always raises (see `_always_raises`) ends its path, as a `raise` does."""
        if _always_raises(statement, self._never_returning[-1]):
            self._exit(self._pos(statement), raised=True)

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    # -- imports -----------------------------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> bool:
        pos = self._pos(node)
        for alias in node.names:
            module = dotted(alias.name)
            if alias.asname is not None:
                self._import(Import(code_of(alias.asname.name).strip(), module, pos=pos), node)
            else:
                self._import(Import(module.split(".")[0], module.split(".")[0], pos=pos), node)
                if "." in module:
                    self.imports.append(Import(module, module, pos=pos))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        pos = self._pos(node)
        module = dotted(node.module) if node.module is not None else ""
        level = len(node.relative)
        if isinstance(node.names, cst.ImportStar):
            self.imports.append(Import("*", module, "*", level, pos))
            return False
        for alias in node.names:
            name = dotted(alias.name)
            local = code_of(alias.asname.name).strip() if alias.asname is not None else name
            self._import(Import(local, module, name, level, pos), node)
        return False

    def _import(self, imported: Import, node: cst.Import | cst.ImportFrom) -> None:
        """Record an import of the module; in a function's body (kept from an import cycle), it
        binds a local of the function instead of a name of the module."""
        if self._fn.kind not in ("module", "classbody") and imported.alias in self._fn.locals:
            imported = imported._replace(local=True)
            self._fn.binds.append(Bind(imported.alias, self._site(node), "import", index=len(self.imports)))
        self.imports.append(imported)

    # -- assignments --------------------------------------------------------------------------

    def _assign_flow(self, *targets: cst.BaseExpression) -> Flow:
        """Flow into assignment targets: plain local names, and the other targets as stores."""
        names = tuple(name for target in targets for name in _local_names(target))
        stores = tuple(
            self._ref(path[0], path[1])
            for target in targets
            for element in _store_targets(target)
            if (path := name_path(element)) is not None
        )
        return Flow(FLOW_ASSIGN, names, stores=stores)

    def visit_Assign(self, node: cst.Assign) -> bool:
        if len(node.targets) == 1:
            self._visit_assigned_alone(node.value, node.targets[0].target)
        else:
            self._visit_with_flow(node.value, self._assign_flow(*(t.target for t in node.targets)))
        for assigned in node.targets:
            self._store(assigned.target, node.value, node, bump=self._is_bump(assigned.target, node.value))
            if type(assigned.target) is cst.Name:
                self._element_calls[(self._fn.qualname, assigned.target.value)] = self._element_calls_of(node.value)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            self._visit_assigned(node.value, node.target)
        annotation = dotted(node.annotation.annotation)
        path = name_path(node.target)
        if path is not None and not path[1] and self._scope_of(path[0])[0] == self._fn.qualname:
            # Module code and class bodies too: a declared attribute (`_state: PartitionState`, a
            # dataclass field) is typed by its annotation where no store types it.
            self._fn.binds.append(Bind(path[0], self._site(node.target), "annotation", annotation=annotation))
        if node.value is not None:
            bump = self._is_bump(node.target, node.value)
            self._store(node.target, node.value, node, bump=bump, annotation=annotation)
        return False

    def _visit_assigned_alone(self, value: cst.BaseExpression, target: cst.BaseExpression) -> None:
        """A value assigned to a single target (see `_visit_assigned`); `a, *b = x, y, z`: each
        target takes its own values, not the whole tuple's."""
        pairs = _paired_elements(target, value)
        for element, targets in pairs:
            self._visit_with_flow(element, self._assign_flow(*targets))
        if not pairs:
            self._visit_assigned(value, target)

    def _visit_assigned(self, value: cst.BaseExpression, target: cst.BaseExpression) -> None:
        """A value assigned to one target, with the key of the element of a local each part of it
        is (`Flow.element`): each element of a literal assigned to a local name (`fields = {"k":
        v}`) or of a tuple or list to an attribute path (`self.pair = (cur, offset)`), or the value
        stored at a constant key of a local (`fields["k"] = v`); a stored value with where it is
        stored (`Flow.item_store`)."""
        flow = self._assign_flow(target)
        if type(target) is cst.Subscript:
            stored = flow._replace(element=_local_item_key(target), item_store=self._site(target))
            self._visit_with_flow(value, stored)
            return
        # A field keeps the elements of a tuple or list, which `epoch, offset = self.pair` takes.
        written_out = _is_sequence(value)
        kept = type(target) is cst.Name or type(target) is cst.Attribute and written_out
        elements = _argument_elements(value) if kept else []
        if not elements:
            self._visit_with_flow(value, flow)
            return
        self._visit_elements(value, elements, lambda key: flow._replace(element=key))

    def _visit_elements(
        self,
        container: cst.BaseExpression,
        elements: list[tuple[str, cst.BaseExpression]],
        flow_of: Callable[[str], Flow],
    ) -> None:
        """The parts of a literal container, each element of `elements` (key, element) with the
        flow `flow_of` gives its key, the others (dict keys, starred parts) with that of ""."""
        keys = {id(element): key for key, element in elements}
        for child in _element_values(container):
            self._visit_with_flow(child, flow_of(keys.get(id(child), "")))

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        flow = self._assign_flow(node.target)
        self._visit_with_flow(node.value, flow)
        self._visit_with_flow(node.target, flow)
        bump = isinstance(node.operator, cst.AddAssign)
        self._store(node.target, node.value, node, bump=bump, kind="augassign")
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        targets = _local_names(node.target)
        flow = Flow(FLOW_ASSIGN, targets)
        if self._flow.kind == FLOW_ARG:
            # `f(x := v)`: v is the argument, and `x` is assigned it.
            flow = flow._replace(call=self._flow.call, argument=self._flow.targets)
        self._visit_with_flow(node.value, flow)
        self._store(node.target, node.value, node, bump=False)
        return False

    def visit_Del(self, node: cst.Del) -> bool:
        path = name_path(node.target)
        if path is not None and path[1]:
            key = _local_item_key(node.target) if isinstance(node.target, cst.Subscript) else ""
            self._fn.writes.append(Write(self._ref(*path), self._site(node), "delete", key=key))
        return False

    def _store(
        self,
        target: cst.BaseExpression,
        value: cst.BaseExpression | None,
        statement: cst.CSTNode,
        *,
        bump: bool,
        kind: str = "assign",
        annotation: str = "",
        part: tuple[int, Ref | None, int] | None = None,
    ) -> None:
        """Store `value` into `target`; `part` (call id, name path, position) for one name of a
        tuple target assigned a call's result or what a name path holds, which takes that element."""
        if _is_sequence(target):
            unpacked = _unpacked(target, value)
            # `consumer, _ = self.session()`, `consumer, _ = self.pair`: each name takes its element
            # of the call's result or of the path's value, where its position is known (not from a
            # starred one on).
            result = self._value_of(value) if not _is_sequence(value) else (-1, None)
            for position, (element, element_value) in enumerate(zip(target.elements, unpacked)):
                if type(element) is cst.StarredElement:
                    # `a, *rest = f, g, h`: `rest` is a list of what the star takes.
                    self._store(element.value, None, statement, bump=False, kind=kind)
                    self._store_starred(element.value, element_value)
                    result = (-1, None)
                    continue
                # Stored left to right, each target from its own value: `F, q = F + 1, []` bumps F.
                bump = self._is_bump(element.value, element_value)
                known = result[0] >= 0 or result[1] is not None
                taken = (*result, position) if known and type(element.value) is cst.Name else None
                self._store(element.value, element_value, statement, bump=bump, kind=kind, part=taken)
            return
        if type(target) is cst.Attribute or type(target) is cst.Subscript:
            self._visit_chain_roots(target)
        path = field_path(target, self._own_self())
        if path is None:
            # `self.state().epoch += 1`: a store into a field of the call's result.
            held = self._call_result_path(target)
            if held is not None:
                self._write(held, target, value, bump=bump, kind=kind, annotation=annotation)
            return
        name, attrs = path
        self._write(self._ref(name, attrs), target, value, bump=bump, kind=kind, annotation=annotation)
        if not attrs:
            self._fn.binds.append(self._assigned_bind(name, target, value, part))
            if _is_literal(value):
                self._read_literal_locals(self._scope_of(name)[0])
        self._store_values(name, attrs, value, subscript_keys(target))

    def _assigned_bind(
        self,
        name: str,
        target: cst.BaseExpression,
        value: cst.BaseExpression | None,
        part: tuple[int, Ref | None, int] | None,
    ) -> Bind:
        """The binding of local `name` by a store: to the value stored, or, for one name of a tuple
        target (`part`: call id, name path, position), to its element of the call's result or of
        what the path holds."""
        if part is not None:
            return Bind(name, self._site(target), "unpack", part[0], part[1], index=part[2])
        manager = self._manager_entered(value)
        if manager is not None:
            # `x = stack.enter_context(cm)`: what `cm.__enter__()` returns, as `with cm as x:` binds.
            return Bind(name, self._site(target), "with", *manager)
        value_call, value_ref = self._value_of(value)
        return Bind(name, self._site(target), "assign", value_call, value_ref, literal=_is_constant(value))

    def _write(
        self,
        path: Ref,
        target: cst.BaseExpression,
        value: cst.BaseExpression | None,
        *,
        bump: bool,
        kind: str,
        annotation: str,
    ) -> None:
        """The writes of a store into `path`. Stores into locals (and items of local containers) are
        bindings, not shared writes; but a slice store into a local list (`epochs[:1] = []`) takes
        the slice's items out first, as `del epochs[:1]` does, which moves those after it."""
        ref = Ref(path.scope, path.name, _strip_items(path.attrs))
        if not ref.attrs and ref.scope != "":
            if path.attrs == ("[]",) and _is_slice(target):
                self._fn.writes.append(Write(path, self._site(target), "delete"))
            return
        write_kind = "item" if path.attrs[-1:] == ("[]",) else kind
        value_call, value_ref = self._value_of(value)
        empty = _is_empty_literal(value)
        function = self.lambda_qualname(value) if type(value) is cst.Lambda else ""
        # `self.x = stack.enter_context(cm)`: what `cm.__enter__()` returns, as `with cm as self.x:`.
        entered_call, entered_ref = self._manager_entered(value) or (-1, None)
        sliced = write_kind == "item" and _is_slice(target)
        self._fn.writes.append(
            Write(
                ref,
                self._site(target),
                write_kind,
                bump,
                value_call,
                value_ref,
                empty,
                function,
                annotation,
                entered_call=entered_call,
                entered_ref=entered_ref,
                sliced=sliced,
            )
        )
        # `H = replace(H, epoch=...)` sets `H.epoch`: one write of each field it sets.
        for field_name, field_bump in _copy_sets(self._code, target, value):
            field_ref = Ref(ref.scope, ref.name, (*ref.attrs, field_name))
            self._fn.writes.append(Write(field_ref, self._site(target), kind, field_bump))

    def _store_values(
        self, name: str, attrs: tuple[str, ...], value: cst.BaseExpression | None, keys: tuple[str, ...]
    ) -> None:
        """Stored facts: a lambda bound to a name, each arm of a conditional bound to a name or to a
        field, the elements of a literal container bound to a name or to a field (`self.handlers =
        {"a": f}`), and a value stored into an element of a named container or of a field's
        (`d["a"]["b"] = f`, `self.handlers["b"] = f`)."""
        field = attrs[:1] if attrs[:1] != ("[]",) else ()
        subscripts = attrs[len(field) :]
        if value is None or any(attr != "[]" for attr in subscripts):
            return
        target = self._ref(name, field)
        if _is_conditional(value) and not subscripts and self._value_of(value) == (-1, None):
            self._store_arms(target, _conditional_arms(value))
        elif type(value) is cst.Lambda and not attrs:
            self._fn.stored.append(Stored(target, False, value_function=self.lambda_qualname(value)))
        elif _is_empty_literal(value) and not attrs:
            # `handlers = []`: a container, whose methods' additions (`handlers.append(f)`) count.
            self._fn.stored.append(Stored(target, True, pos=self._pos(value), block=self._block()))
        elif subscripts:
            self._store_element(target, value, keys)
        else:
            self._store_elements(target, value, ())

    def _store_arms(self, target: Ref, arms: list[cst.BaseExpression]) -> None:
        """The arms of a conditional (`self.a if fast else self.b`, `a or b`, `fast and self.a`) bound
        to a name or a field, any of which it may hold: its bind or write names no one value."""
        for arm in arms:
            function = self.lambda_qualname(arm) if isinstance(arm, cst.Lambda) else ""
            value_call, value_ref = (-1, None) if function else self._value_of(arm)
            if function or value_call >= 0 or value_ref is not None:
                self._fn.stored.append(Stored(target, False, value_ref, value_call, function))

    def _store_elements(self, target: Ref | None, container: cst.BaseExpression, keys: tuple[str, ...]) -> None:
        """The elements of a literal container, each at its own key below `keys` (of the function's
        return value for no `target`)."""
        for key, element in _keyed_elements(container):
            self._store_element(target, element, (*keys, key))

    def _store_element(self, target: Ref | None, element: cst.BaseExpression, keys: tuple[str, ...]) -> None:
        if _is_literal(element) or type(element) is cst.Dict:
            self._store_elements(target, element, keys)
            return
        chosen = _is_conditional(element) and self._value_of(element) == (-1, None)
        # `[a if fast else b]`: either arm may be the element, each stored at the element's place
        # (a later store at the same keys replaces an earlier, not one arm the other).
        for arm in _conditional_arms(element) if chosen else [element]:
            function = self.lambda_qualname(arm) if type(arm) is cst.Lambda else ""
            value_call, value_ref = (-1, None) if function else self._value_of(arm)
            if function or value_call >= 0 or value_ref is not None:
                self._fn.stored.append(
                    Stored(target, True, value_ref, value_call, function, keys, self._pos(element), self._block())
                )

    def _block(self) -> Pos:
        return self._blocks[-1] if self._blocks else (0, 0, 0, 0)

    def _store_starred(self, target: cst.BaseExpression, taken: cst.BaseExpression | None) -> None:
        """The list a starred target takes (`*rest`), kept as the elements of that name."""
        if isinstance(target, cst.Name) and taken is not None:
            self._store_elements(self._ref(target.value), taken, ())

    def _value_of(self, value: cst.BaseExpression | None) -> tuple[int, Ref | None]:
        """The call id or the name path a stored value comes from, for type inference."""
        if value is None:
            return -1, None
        if type(value) is cst.Await:
            value = value.expression
        nonempty = _unless_empty(value)
        if nonempty is not None:
            return self._value_of(nonempty)
        if type(value) is cst.Call:
            return self._call_ids.get(id(value), -1), None
        path = self._value_path(value)
        if path is not None:
            return -1, path
        default = _default_call(value)
        if default is not None:
            # `lock or threading.Lock()`: what a caller passed, else what is made here. The
            # default's class stands for both: an injected one is passed for it.
            return self._call_ids.get(id(default), -1), None
        return -1, None

    def _value_path(self, value: cst.BaseExpression) -> Ref | None:
        """The name path a value is (`self.handle`), or the path on a visited call's result it is
        (`self.state().handle`; `super().handle`, which the program looks up above the method's
        class, where `self.handle` would find the override)."""
        path = name_path(value)
        return self._ref(*path) if path is not None else self._call_result_path(value)

    def _bind_targets(
        self, target: cst.BaseExpression, source: tuple[int, Ref | None], kind: str, index: int = -1
    ) -> None:
        """Bind the names of `target` to what `source` (`_value_of` the value) gives them."""
        if _is_sequence(target):
            # `with cm as (a, b):` gives each name its element of what `__enter__` returns, where its
            # position is known: not after a starred one, nor in a nested tuple (each takes it whole).
            positioned = kind == "with" and index < 0
            for position, element in enumerate(target.elements):
                positioned = positioned and type(element) is not cst.StarredElement
                if kind == "iter":
                    self._bind_targets(element.value, source, "iter_part", position)
                else:
                    self._bind_targets(element.value, source, kind, position if positioned else -1)
            return
        path = name_path(target)
        if path is None:
            return
        if path[1]:
            self._visit_chain_roots(target)
            # `with cm as self.x:` stores what `cm.__enter__()` returns (one of a tuple target, unknown).
            entered_call, entered_ref = source if kind == "with" and index < 0 else (-1, None)
            write = Write(self._ref(*path), self._site(target), "assign")
            self._fn.writes.append(write._replace(entered_call=entered_call, entered_ref=entered_ref))
            return
        value_call, value_ref = source
        name = self._fn.comprehension_local(path[0]) or path[0]
        self._fn.binds.append(Bind(name, self._site(target), kind, value_call, value_ref, index=index))

    def _bind_local(self, name: str, node: cst.CSTNode, kind: str) -> None:
        if self._fn.kind == "module":
            return
        self._fn.binds.append(Bind(name, Site(self._pos(node)), kind))

    # -- expressions ---------------------------------------------------------------------------

    def visit_Name(self, node: cst.Name) -> bool:
        if node.value in _CONSTANT_NAMES:
            return False
        self._fn.accesses.append(Access(self._ref(node.value), self._site(node), self._flow))
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return self._visit_name_path(node)

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        return self._visit_name_path(node)

    def _visit_name_path(self, node: cst.Attribute | cst.Subscript) -> bool:
        """An access of a name path (`self.a.b`, `parts[tp]`) or of a path on a call's result
        (`self.state().epoch`), or else the roots of the chain."""
        path = field_path(node, self._own_self())
        above = False
        if path is None:
            self._visit_chain_roots(node)
            ref = self._call_result_path(node)
        else:
            rooted = _call_rooted_path(node)
            above = rooted is not None and _is_super_call(rooted[0])
            if above:
                # `super()._epoch` is `self._epoch`; its call is visited all the same, for the
                # value `super().handle` is (see `_value_of`).
                self._visit_chain_roots(node)
            else:
                self._visit_subscript_slices(node)
            ref = self._ref(*path)
        if ref is not None:
            self._fn.accesses.append(Access(ref, self._site(node), self._flow, above))
        return False

    def _visit_subscript_slices(self, node: cst.BaseExpression) -> None:
        """Visit the index expressions inside a name path (`a[i].b[j]` visits i and j)."""
        while type(node) is cst.Attribute or type(node) is cst.Subscript:
            if type(node) is cst.Subscript:
                for element in node.slice:
                    self._visit_with_flow(element.slice, Flow())
            node = node.value

    def _visit_chain_roots(self, node: cst.BaseExpression) -> None:
        """Visit whatever a non-name chain starts from (`f().x` visits the call)."""
        self._visit_subscript_slices(node)
        while type(node) is cst.Attribute or type(node) is cst.Subscript:
            node = node.value
        if type(node) is not cst.Name:
            self.walk(node)

    def _field_or_call_result(self, node: cst.BaseExpression) -> Ref | None:
        """The field a chain that is no name path names (`super().a`, `type(self).a`), or else the
        path on a call's result it is (see `_call_result_path`)."""
        path = field_path(node, self._own_self())
        return self._ref(*path) if path is not None else self._call_result_path(node)

    def _call_result_path(self, node: cst.BaseExpression) -> Ref | None:
        """`self.state().epoch`, its call visited: the call's result is held in a local no code
        names (`state()<7>`), bound to the call, and the chain is a path on it, of the class the
        call returns, as the same read through a local (`s = self.state(); s.epoch`) is. None for
        a chain not rooted in a call, and in module code and class bodies, which have no locals."""
        path = _call_rooted_path(node)
        if path is None or self._fn.kind in ("module", "classbody"):
            return None
        call, attrs = path
        call_id = self._call_ids.get(id(call), -1)
        if call_id < 0:
            return None
        local = f"{_last_name(call.func)}()<{call_id}>"
        if call_id not in self._held_calls:
            self._held_calls.add(call_id)
            self._fn.binds.append(Bind(local, self._site(call), "assign", call_id))
        return Ref(self._fn.qualname, local, attrs)

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        self._fn.comparisons.append(self._pos(node))
        flow = self._flow._replace(compared=True)
        self._visit_with_flow(node.left, flow)
        for target in node.comparisons:
            self._visit_with_flow(target.comparator, flow)
        return False

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        parts = (self._pos(node.test), self._pos(node.body), self._pos(node.orelse))
        self._fn.choices.append(Choice("if", self._pos(node), parts, self._flow, _present_arm(node.test)))
        self._held(node.test, self._pos(node.body))
        self._held(node.test, self._pos(node.orelse), held=False)
        # The test decides which arm is the value: a decision, as `if`'s test is.
        self.walk(node.body)
        self._visit_with_flow(node.test, self._flow._replace(compared=True))
        self.walk(node.orelse)
        return False

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        kind = "or" if isinstance(node.operator, cst.Or) else "and"
        parts = (self._pos(node.left), self._pos(node.right))
        self._fn.choices.append(Choice(kind, self._pos(node), parts, self._flow))
        return True

    def visit_Yield(self, node: cst.Yield) -> bool:
        self._fn.is_generator = True
        self._fn.yields.append(self._site(node))
        if isinstance(node.value, cst.From):
            self._visit_yielded_from(node.value.item)
        else:
            self._visit_returned(node.value, FLOW_YIELD)
        return False

    def _visit_yielded_from(self, iterated: cst.BaseExpression) -> None:
        """`yield from [self._a, self._b]`: each element of a list, tuple or set written out is
        yielded as by a `yield`; a starred part, as anything else iterated, yields its elements."""
        if not _is_literal(iterated):
            self._visit_with_flow(iterated, Flow(FLOW_YIELD_FROM))
            return
        for element in iterated.elements:
            kind = FLOW_YIELD_FROM if isinstance(element, cst.StarredElement) else FLOW_YIELD
            self._visit_with_flow(element.value, Flow(kind))

    def visit_Await(self, node: cst.Await) -> bool:
        self.walk(node.expression)
        call_id = -1
        if isinstance(node.expression, cst.Call):
            call_id = self._call_ids.get(id(node.expression), -1)
        self._fn.awaits.append(Await(self._site(node), call_id))
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        call_id = self._new_id()
        self._call_ids[id(node)] = call_id
        flow = self._flow
        callee: Ref | None = None
        receiver_call = -1
        callee_call = -1
        path = name_path(node.func)
        method = ""
        callee_keys: tuple[str, ...] = ()
        if path is not None:
            callee = self._ref(*path)
            callee_keys = subscript_keys(node.func)
            method = path[1][-1] if path[1] else path[0]
            if len(path[1]) >= 1:
                receiver = self._ref(path[0], path[1][:-1])
                self._fn.accesses.append(
                    Access(receiver, self._site(node.func), Flow(FLOW_RECEIVER, call=call_id))
                )
            self._visit_subscript_slices(node.func)
        else:
            if type(node.func) is cst.Attribute:
                method = node.func.attr.value
                inner = node.func.value
                if type(inner) is cst.Await:
                    inner = inner.expression
                self._visit_with_flow(node.func.value, Flow(FLOW_RECEIVER, call=call_id))
                if type(inner) is cst.Call:
                    receiver_call = self._call_ids.get(id(inner), -1)
                # `self.state().incoming.clear()`: a method of a path on the call's result (visited
                # above, so its call has an id), as `s.incoming.clear()` is; `super().incoming.clear()`
                # one of `self.incoming`.
                elif (held := self._field_or_call_result(node.func.value)) is not None:
                    callee = held._replace(attrs=(*held.attrs, method))
            else:
                self._visit_with_flow(node.func, Flow(FLOW_RECEIVER, call=call_id))
                called = _subscripted_call(node.func)
                if called is not None:
                    # `f()()`, `self.handlers()[0](m)`: the call whose result (or its element) is called.
                    callee_call = self._call_ids.get(id(called), -1)
                    callee_keys = subscript_keys(node.func)
        by_element = method in _STARTED_WITH_ELEMENTS or method in STORING_BY_KEY
        args = tuple(
            self._arg(keyword, value, stars, call_id, index, by_element)
            for index, (keyword, value, stars) in enumerate(_call_arguments(node.args))
        )
        self._fn.calls.append(
            Call(
                id=call_id,
                callee=callee,
                method=method,
                text=self._code(node.func).strip(),
                site=self._site(node),
                args=args,
                receiver_call=receiver_call,
                flow=flow,
                callee_call=callee_call,
                callee_keys=callee_keys,
                block=self._block() if callee_keys else (0, 0, 0, 0),
                walks_no_batch=type(node.func) is cst.Attribute and not self._iterates_collection(node.func.value),
            )
        )
        self._store_update(path, node)
        self._remove_popped(path, node)
        self._store_setattr(path, node)
        self._read_getattr(path, node, flow)
        return False

    def _read_getattr(self, path: tuple[str, tuple[str, ...]] | None, node: cst.Call, flow: Flow) -> None:
        """`getattr(self, "_epoch")` (with or without a default), the name written out, reads
        `self._epoch` where the call's value goes, as `setattr` with the name written out stores."""
        if path != ("getattr", ()) or len(node.args) not in (2, 3) or any(arg.keyword or arg.star for arg in node.args):
            return
        ref = self._attribute_named(node.args[0].value, node.args[1].value)
        if ref is not None:
            self._fn.accesses.append(Access(ref, self._site(node), flow))

    def _attribute_named(self, holder: cst.BaseExpression, name: cst.BaseExpression) -> Ref | None:
        """`holder.name` for `getattr(holder, "name")` or `setattr(holder, "name", v)` with the
        name written out; None for any other name, or a holder that is no name path."""
        written = name.evaluated_value if isinstance(name, cst.SimpleString) else None
        # The holder is an object, or the class of one (`type(self)`, whose attribute `self` reads).
        target = lock_path(holder, self._own_self())
        if not isinstance(written, str) or not written.isidentifier() or target is None:
            return None
        return self._ref(target[0], (*_strip_items(target[1]), written))

    def _store_setattr(self, path: tuple[str, tuple[str, ...]] | None, node: cst.Call) -> None:
        """`setattr(self, "_epoch", value)`, the name written out, is a store into `self._epoch`, a
        bump where `self._epoch = value` is one (`self._epoch + 1`; `setattr(type(self), "_epoch",
        self._epoch + 1)` as `type(self)._epoch = self._epoch + 1`)."""
        if path != ("setattr", ()) or len(node.args) != 3 or any(arg.keyword or arg.star for arg in node.args):
            return
        holder, name, value = (arg.value for arg in node.args)
        ref = self._attribute_named(holder, name)
        if ref is None:
            return
        value_call, value_ref = self._value_of(value)
        # The store written as an assignment: a node of no module, its code generated (`code_of`).
        stored = cst.Attribute(value=holder, attr=cst.Name(ref.attrs[-1]))
        bump = _is_bump(code_of, self._own_self(), stored, value)
        self._fn.writes.append(Write(ref, self._site(node), "assign", bump, value_call, value_ref))

    def _store_update(self, path: tuple[str, tuple[str, ...]] | None, node: cst.Call) -> None:
        """`d.update({"a": f})` stores f at key "a" of `d`, as `d["a"] = f` would."""
        if path is None or path[1] != ("update",) or len(node.args) != 1:
            return
        arg = node.args[0]
        if not arg.star and arg.keyword is None and isinstance(arg.value, cst.Dict):
            self._store_elements(self._ref(path[0]), arg.value, ())

    def _remove_popped(self, path: tuple[str, tuple[str, ...]] | None, node: cst.Call) -> None:
        """`fields.pop("k")` of a local removes its item at "k", as `del fields["k"]` does."""
        if path is None or len(path[1]) != 1 or path[1][0] != "pop" or not node.args or node.args[0].keyword:
            return
        key = _identifier_key(node.args[0].value)
        if key and self._scope_of(path[0])[0] == self._fn.qualname:
            self._fn.writes.append(Write(self._ref(path[0], ("[]",)), self._site(node), "delete", key=key))

    def _arg(
        self, keyword: str, value: cst.BaseExpression, stars: str, call_id: int, index: int, by_element: bool
    ) -> Arg:
        """An argument (see `_call_arguments`); `by_element`: with the elements of a literal container
        (`Arg.items`)."""
        key = keyword or str(index)
        if stars:
            self._visit_with_flow(value, Flow(FLOW_ARG, (key,), call_id))
            items = self._element_calls_of(value) if stars == "*" else ()
            return Arg(keyword, "star", text=self._code(value).strip(), items=items, star=stars)
        elements = _argument_elements(value) if by_element else []
        walks_no_batch = not self._iterates_collection(value)
        if not elements:
            self._visit_with_flow(value, Flow(FLOW_ARG, (key,), call_id))
            return self._argument(keyword, value, walks_no_batch)
        self._visit_elements(
            value, elements, lambda element: Flow(FLOW_ARG, (key, element) if element else (key,), call_id)
        )
        by_keyword = type(value) is cst.Dict
        items = tuple(self._argument(name if by_keyword else "", element) for name, element in elements)
        return self._argument(keyword, value, walks_no_batch)._replace(items=items)

    def _iterates_collection(self, iterable: cst.BaseExpression) -> bool:
        """Whether a loop over `iterable` walks a collection (see `_iterates_collection`)."""
        return _iterates_collection(iterable, self._literal_of)

    def _read_literal_locals(self, scope: str) -> None:
        """Which locals of the function `scope` only ever hold the literal they are assigned."""
        nodes = self._function_nodes.get(scope)
        if nodes is not None and scope not in self._literal_locals:
            found = self._literal_locals[scope] = values_bound_once(*nodes, _LITERALS)
            self._some_literal_local = self._some_literal_local or bool(found)

    def _literal_of(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The collection written out that the local `node` names, where that is all it ever holds
        (`pair = (a, b)`, bound once and never added to); None for anything else."""
        if type(node) is not cst.Name or not self._some_literal_local:
            return None
        scope, local = self._scope_of(node.value)
        return self._literal_locals.get(scope, {}).get(local)

    def _element_calls_of(self, value: cst.BaseExpression) -> tuple[Arg, ...]:
        """The calls that make the elements of a comprehension, a generator, a literal list, tuple or
        set, or a local assigned one in this function (visited already): `self._f(m)` of
        `(self._f(m) for m in batch)`."""
        if type(value) is cst.Name:
            return self._element_calls.get((self._fn.qualname, value.value), ())
        if type(value) is cst.ListComp or type(value) is cst.SetComp or type(value) is cst.GeneratorExp:
            elements: list[cst.BaseExpression] = [value.elt]
        elif _is_literal(value):
            elements = [e.value for e in value.elements if type(e) is not cst.StarredElement]
        else:
            return ()
        return tuple(self._argument("", element) for element in elements if type(element) is cst.Call)

    def _argument(self, keyword: str, value: cst.BaseExpression, walks_no_batch: bool = False) -> Arg:
        """What an argument (or an element of one) passes, once its expression has been visited:
        a walrus's value (`f(x := v)` passes v). `walks_no_batch`: see `Arg`."""
        if type(value) is cst.NamedExpr:
            return self._argument(keyword, value.value, walks_no_batch)
        text = self._code(value).strip()
        if type(value) is cst.Lambda:
            function = self.lambda_qualname(value)
            return Arg(keyword, "lambda", function=function, text=text, walks_no_batch=walks_no_batch)
        if type(value) is cst.Call:
            call = self._call_ids.get(id(value), -1)
            return Arg(keyword, "call", call=call, text=text, walks_no_batch=walks_no_batch)
        path = self._value_path(value)
        if path is not None:
            return Arg(keyword, "ref", ref=path, text=text, walks_no_batch=walks_no_batch)
        if isinstance(value, (cst.BaseNumber, cst.BaseString)) or (
            type(value) is cst.Name and value.value in ("None", "True", "False")
        ):
            return Arg(keyword, "const", text=text, walks_no_batch=walks_no_batch)
        arms = _conditional_arms(value) if _is_conditional(value) else []
        arm_args = tuple(self._argument(keyword, arm) for arm in arms)
        return Arg(
            keyword,
            "other",
            text=text,
            adds_to=self._added_to(value),
            arms=arm_args,
            passes_null=_passes_falsy(value),
            walks_no_batch=walks_no_batch,
        )

    def _added_to(self, value: cst.BaseExpression) -> Ref | None:
        """The name path an addition adds to (`self._epoch` of `self._epoch + 1` or `1 + self._epoch`)."""
        if not (type(value) is cst.BinaryOperation and type(value.operator) is cst.Add):
            return None
        paths = [path for side in (value.left, value.right) if (path := name_path(side)) is not None]
        return self._ref(*paths[0]) if len(paths) == 1 else None

    # Comprehensions: each `for` clause is a loop; the first iterable is evaluated outside, and
    # the variables are the comprehension's own.
    def visit_ListComp(self, node: cst.ListComp) -> bool:
        self._comprehension_scope(node.for_in, [node.elt])
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        self._comprehension_scope(node.for_in, [node.elt])
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        self._comprehension_scope(node.for_in, [node.elt])
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        self._comprehension_scope(node.for_in, [node.key, node.value])
        return False

    def _comprehension_scope(self, clause: cst.CompFor, results: list[cst.BaseExpression]) -> None:
        # The first iterable is read in the enclosing scope, before the comprehension's opens.
        self._visit_with_flow(clause.iter, Flow(FLOW_ITER))
        scopes = self._fn.comprehension_scopes
        scopes.append({})
        self._comprehension(clause, results)
        scopes.pop()

    def _comprehension(self, clause: cst.CompFor, results: list[cst.BaseExpression]) -> None:
        """One `for` clause (its iterable read already) and the clauses inside it."""
        flow = self._flow
        loop_id = self._new_id()
        kind = "async_for" if clause.asynchronous is not None else "comprehension"
        element = (*self._pos(results[0])[:2], *self._pos(results[-1])[2:])
        self._fn.loops.append(
            Loop(
                loop_id,
                kind,
                self._site(clause)._replace(pos=self._comprehension_header(clause)),
                batch=self._iterates_collection(clause.iter),
                iterable=self._code(clause.iter).strip(),
                body=element,
            )
        )
        self._fn.loop_stack.append(loop_id)
        if clause.asynchronous is not None:
            self._fn.awaits.append(Await(self._site(clause)))
        # The iterable is what it is where it is read: before the clause binds its variables.
        source = self._value_of(clause.iter)
        for name in _local_names(clause.target):
            self._fn.bind_in_comprehension(name)
        self._bind_targets(clause.target, source, "iter")
        for condition in clause.ifs:
            # The clauses after it, and the element, which runs after every clause, run only where it held.
            self._held(condition.test, (*self._pos(condition)[2:], *self._pos(clause)[2:]), element)
            self._visit_with_flow(condition.test, Flow(FLOW_CONDITION))
        if clause.inner_for_in is not None:
            saved = self._flow
            self._flow = flow
            self._visit_with_flow(clause.inner_for_in.iter, Flow(FLOW_ITER))
            self._comprehension(clause.inner_for_in, results)
            self._flow = saved
        else:
            for result in results:
                self._visit_with_flow(result, flow)
        self._fn.loop_stack.pop()


def _is_constant(value: cst.BaseExpression | None) -> bool:
    """A value written out whole that reads nothing: a number, a string, `None`, `True`, `False`,
    an empty list or dict."""
    if type(value) is cst.UnaryOperation:
        value = value.expression
    if type(value) is cst.Name:
        return value.value in ("None", "True", "False")
    return isinstance(value, (cst.BaseNumber, cst.SimpleString)) or _is_empty_literal(value)


def _is_empty_literal(value: cst.BaseExpression | None) -> bool:
    """`[]` or `{}`: a container that code fills later."""
    return (type(value) is cst.List or type(value) is cst.Dict) and not value.elements


def _written_out_elements(iterable: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The elements of a list, tuple or set written out (`[self._a, self._b]`), which a loop over it
    takes one by one; None for any other iterable, and for one that spreads another (`[*xs, x]`)."""
    if not isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
        return None
    if any(isinstance(element, cst.StarredElement) for element in iterable.elements):
        return None
    return [element.value for element in iterable.elements]


def _iterates_collection(iterable: cst.BaseExpression, literal_of: LiteralOf) -> bool:
    """False for literals, locals that only ever hold one (`literal_of`: `pair = (a, b)`), and
    range() of a count; `range(len(batch))` iterates the batch, as a literal that unpacks one
    does (`[*retry, *batch]`)."""
    literal = literal_of(iterable)
    if literal is not None:
        iterable = literal
    if _is_literal(iterable):
        return any(_unpacks_a_collection(element, literal_of) for element in iterable.elements)
    if type(iterable) is cst.Call and type(iterable.func) is cst.Name:
        if iterable.func.value == "range":
            return any(
                type(arg.value) is cst.Call
                and type(arg.value.func) is cst.Name
                and arg.value.func.value == "len"
                for arg in iterable.args
            )
    return True


def _unpacks_a_collection(element: cst.BaseElement, literal_of: LiteralOf) -> bool:
    """`*batch` in a display: not `*range(3)`, a module constant (`*BACKOFF`), a retry's values,
    nor a local that only holds a literal (`*pair`)."""
    if type(element) is not cst.StarredElement:
        return False
    value = element.value
    if type(value) is cst.Call or literal_of(value) is not None:
        return _iterates_collection(value, literal_of)
    return not (_last_name(value).isupper() or _is_literal(value))


def _last_name(node: cst.BaseExpression) -> str:
    """`c` of `a.b.c`, `a` of `a`; "" for any other expression."""
    return node.attr.value if type(node) is cst.Attribute else node.value if type(node) is cst.Name else ""


def _always_true(test: cst.BaseExpression) -> bool:
    """`True` or a non-zero integer (`while 1:`): a `while` with such a test runs its body at least once."""
    if type(test) is cst.Name:
        return test.value == "True"
    return type(test) is cst.Integer and test.evaluated_value != 0


def _always_false(test: cst.BaseExpression) -> bool:
    """`False`, `0` or `None`: an `assert` with such a test always fails."""
    if type(test) is cst.Name:
        return test.value in ("False", "None")
    return type(test) is cst.Integer and test.evaluated_value == 0


def _matches_anything(case: cst.MatchCase) -> bool:
    """`case _:` or `case name:` without a guard (alone or as an alternative of an or-pattern)."""
    pattern = case.pattern
    alternatives = [element.pattern for element in pattern.patterns] if isinstance(pattern, cst.MatchOr) else [pattern]
    irrefutable = any(isinstance(each, cst.MatchAs) and each.pattern is None for each in alternatives)
    return case.guard is None and irrefutable


def _parameter_fallbacks(
    body: cst.CSTNode, params: AbstractSet[str]
) -> dict[str, tuple[tuple[str, tuple[str, ...]] | None, cst.CSTNode]]:
    """The name path a statement of a function's `body` itself (not one nested in another) puts in
    each parameter of `params` where it holds None (None for a value that is no name path), with
    that statement, by parameter: the first such statement's (see `_fallback_assigned`)."""
    found: dict[str, tuple[tuple[str, tuple[str, ...]] | None, cst.CSTNode]] = {}
    for statement in _one_by_one(body.body) if isinstance(body, cst.BaseSuite) else ():
        fallback = _fallback_assigned(statement)
        if fallback is not None and fallback[0] in params:
            found.setdefault(fallback[0], (fallback[1], statement))
    return found


def _fallback_assigned(statement: cst.CSTNode) -> tuple[str, tuple[str, tuple[str, ...]] | None] | None:
    """The local a statement gives a value where it holds None, and that value's name path (None
    for another value: `lock = lock or threading.Lock()` keeps what the call passed otherwise all
    the same): `name = name or path`, `name = path if name is None else name` (either way round),
    `if name is None: name = path`. None for another statement."""
    if type(statement) is cst.If:
        inner = list(_one_by_one(statement.body.body)) if statement.orelse is None else []
        assigned = _one_name_assigned(inner[0]) if len(inner) == 1 else None
        if assigned is None or assigned[0] != _tested_missing(statement.test):
            return None
        name, value = assigned
    else:
        assigned = _one_name_assigned(statement)
        given = _given_where_none(*assigned) if assigned is not None else None
        if assigned is None or given is None:
            return None
        name, value = assigned[0], given
    return name, name_path(value)


def _one_name_assigned(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """The name and the value of `name = value` (`name: T = value`); None for another statement."""
    target, value = _statement_target(statement), _statement_value(statement)
    return (target.value, value) if type(target) is cst.Name and value is not None else None


def _given_where_none(name: str, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """What `value` gives where the local `name` holds None, where it gives `name` itself otherwise:
    `other` of `name or other`, `name if name is not None else other`, `other if name is None else
    name`. None for another value."""
    if type(value) is cst.BooleanOperation and type(value.operator) is cst.Or:
        return value.right if _is_name(value.left, name) else None
    if type(value) is cst.IfExp:
        if _tested_present(value.test) == name and _is_name(value.body, name):
            return value.orelse
        if _tested_missing(value.test) == name and _is_name(value.orelse, name):
            return value.body
    return None


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _is_stub_body(body: cst.CSTNode) -> bool:
    """A body of only `...`, `pass`, docstrings and `raise NotImplementedError[(...)]`."""
    if isinstance(body, cst.SimpleStatementSuite):
        return all(_is_stub_statement(statement) for statement in body.body)
    if not isinstance(body, cst.IndentedBlock):
        return False
    lines = body.body
    return all(
        isinstance(line, cst.SimpleStatementLine) and all(_is_stub_statement(s) for s in line.body)
        for line in lines
    )


def _is_stub_statement(statement: cst.CSTNode) -> bool:
    if type(statement) is cst.Pass:
        return True
    if type(statement) is cst.Expr:
        return isinstance(statement.value, (cst.Ellipsis, cst.SimpleString, cst.ConcatenatedString))
    if type(statement) is cst.Raise and statement.exc is not None:
        raised = statement.exc.func if type(statement.exc) is cst.Call else statement.exc
        return dotted(raised) in ("NotImplementedError", "NotImplemented")
    return False


# The ExitStack methods handed a callable the stack calls as it exits (`stack.callback(L.release)`).
_CALLBACKS_ON_STACK = ("callback", "push_async_callback")
# Those, and the ones handed a context manager whose `__exit__` (`__aexit__`) it calls then
# (`stack.push(L)`).
_RELEASES_ON_STACK = (*_CALLBACKS_ON_STACK, "push", "push_async_exit")


def _statement_value(statement: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of an expression statement, or of an assignment to one target (annotated or not)."""
    if type(statement) is cst.Expr or type(statement) is cst.Assign and len(statement.targets) == 1:
        return statement.value
    return statement.value if type(statement) is cst.AnnAssign else None


def _statement_target(statement: cst.CSTNode) -> cst.BaseExpression | None:
    """The one target of an assignment (annotated or not); None for another statement."""
    if type(statement) is cst.Assign and len(statement.targets) == 1:
        return statement.targets[0].target
    return statement.target if type(statement) is cst.AnnAssign else None


def _exit_stack_name(item: cst.WithItem) -> str:
    """`stack` for `with ExitStack() as stack` (or `contextlib.AsyncExitStack()`), else ""."""
    value = item.item
    if not (isinstance(value, cst.Call) and dotted(value.func).rsplit(".", 1)[-1].endswith("ExitStack")):
        return ""
    if item.asname is None or not isinstance(item.asname.name, cst.Name):
        return ""
    return item.asname.name.value


def _local_names(target: cst.BaseExpression | None) -> tuple[str, ...]:
    if type(target) is cst.Name:
        return (target.value,)
    if _is_sequence(target):
        return tuple(name for element in target.elements for name in _local_names(element.value))
    if type(target) is cst.StarredElement:
        return _local_names(target.value)
    return ()


def _store_targets(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The targets of an assignment that are not plain names: attributes and subscripts."""
    if _is_sequence(target):
        return [t for element in target.elements for t in _store_targets(element.value)]
    if type(target) is cst.StarredElement:
        return _store_targets(target.value)
    return [target] if type(target) is cst.Attribute or type(target) is cst.Subscript else []


def _default_call(value: cst.BaseExpression) -> cst.Call | None:
    """The call of `name or Default()`, `name if name is not None else Default()` (or the other
    way round): a name path, or a call made when it is empty. None for any other value."""
    if type(value) is cst.BooleanOperation and type(value.operator) is cst.Or:
        if type(value.right) is cst.Call and name_path(value.left) is not None:
            return value.right
    elif type(value) is cst.IfExp:
        for call, other in ((value.body, value.orelse), (value.orelse, value.body)):
            if type(call) is cst.Call and name_path(other) is not None:
                return call
    return None


def _conditional_arms(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values a conditional may give, its arms' (nested conditionals' too): the body and the
    `else` of `a if x else b`, each operand of `a or b`, the last of `a and b`; `value` itself where
    it is no conditional. `a` of `a and b` is the value only where it is falsy, which no function is:
    `fast and self.drain` gives the function or a flag, never another function."""
    if type(value) is cst.IfExp:
        return [*_conditional_arms(value.body), *_conditional_arms(value.orelse)]
    if type(value) is cst.BooleanOperation and type(value.operator) is cst.Or:
        return [*_conditional_arms(value.left), *_conditional_arms(value.right)]
    if type(value) is cst.BooleanOperation:
        return _conditional_arms(value.right)
    return [value]


def _passes_falsy(value: cst.BaseExpression) -> bool:
    """Whether a conditional may give the left operand of an `and`, which `_conditional_arms` leaves
    out: where it gives it, it is falsy (`shared and self._lock`)."""
    if type(value) is cst.IfExp:
        return _passes_falsy(value.body) or _passes_falsy(value.orelse)
    if type(value) is cst.BooleanOperation:
        return type(value.operator) is cst.And or _passes_falsy(value.left) or _passes_falsy(value.right)
    return False


def _is_conditional(value: cst.BaseExpression) -> bool:
    """Whether a value is chosen by a test (`a if x else b`, `a or b`, `a and b`): its arms, not
    itself, are what it may give (see `_conditional_arms`)."""
    return type(value) is cst.IfExp or type(value) is cst.BooleanOperation


def _unless_empty(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """`xs` of `xs or []`, `xs if xs else {}` (or the other way round), `xs or ()`: what the value
    is when it holds anything. None for any other value."""
    if type(value) is cst.BooleanOperation and type(value.operator) is cst.Or:
        return value.left if _is_empty_display(value.right) else None
    if type(value) is cst.IfExp:
        for empty, other in ((value.orelse, value.body), (value.body, value.orelse)):
            if _is_empty_display(empty):
                return other
    return None


def _is_empty_display(value: cst.BaseExpression) -> bool:
    return _is_empty_literal(value) or type(value) is cst.Tuple and not value.elements


def _strip_items(attrs: tuple[str, ...]) -> tuple[str, ...]:
    while attrs and attrs[-1] == "[]":
        attrs = attrs[:-1]
    return attrs


def _is_bump(
    code: CodeOf, own_self: str, target: cst.BaseExpression, value: cst.BaseExpression | None
) -> bool:
    """`F = F + k`, `F = k + F`, `F = 1 + F + 2` (F a term of a sum), `F = F._replace(epoch=F.epoch + 1)`,
    `replace(F, epoch=F.epoch + 1)`; `own_self` is the `self` of the method, for `super()._epoch`."""
    if value is None or not _names_one_object(target):
        return False
    target_code = code(target).strip()
    if terms := _sum_terms(value):
        return any(_is_own_value(code, own_self, term, target, target_code) for term in terms)
    if type(value) is cst.Call:
        # Whether a keyword adds to the target, first: most calls have none, and then the code of
        # their other arguments (generated anew where it spans lines) is never read.
        if not any(arg.keyword is not None and _adds_to(code, arg.value, target_code) for arg in value.args):
            return False
        receiver = value.func.value if type(value.func) is cst.Attribute else None
        copies_target = receiver is not None and code(receiver).strip() == target_code
        return copies_target or any(
            arg.keyword is None and code(arg.value).strip() == target_code for arg in value.args
        )
    return False


def _names_one_object(node: cst.BaseExpression) -> bool:
    """Whether each evaluation of `node` names one object, so that the same code on both sides of a
    store is the same field: a name path, or a path on the result of a call without arguments on
    such a path (`self.state().epoch = self.state().epoch + 1` bumps the state's epoch, as a `with`
    through `self.state()` holds the state's lock), or on the class of such a path
    (`type(self)._epoch`, the field `self._epoch` names, as `field_path` reads it)."""
    while type(node) is cst.Attribute or type(node) is cst.Subscript:
        node = node.value
    if _is_type_of_one_argument(node):
        return _names_one_object(node.args[0].value)  # type: ignore[attr-defined]
    if type(node) is cst.Call:
        return not node.args and _names_one_object(node.func)
    return type(node) is cst.Name


def _is_own_value(
    code: CodeOf, own_self: str, side: cst.BaseExpression, target: cst.BaseExpression, target_code: str
) -> bool:
    """Whether `side` reads the value the target holds: the target itself, the field it names
    through the class of its object (`self._epoch` for `type(self)._epoch`), or for an item `F[k]`,
    `F.get(k, default)`."""
    if code(side).strip() == target_code or _one_field(side, target, own_self):
        return True
    if not (isinstance(target, cst.Subscript) and len(target.slice) == 1 and isinstance(side, cst.Call)):
        return False
    index = target.slice[0].slice
    func = side.func
    return (
        isinstance(index, cst.Index)
        and isinstance(func, cst.Attribute)
        and func.attr.value == "get"
        and bool(side.args)
        and code(func.value).strip() == code(target.value).strip()
        and code(side.args[0].value).strip() == code(index.value).strip()
    )


def _one_field(read: cst.BaseExpression, target: cst.BaseExpression, own_self: str) -> bool:
    """Whether a read and a store target name one field, written two ways: `self._epoch` and
    `type(self)._epoch` (or `self.__class__._epoch`), the class attribute an instance reads where it
    has none of its own (Shared location: a field is (defining class, attribute path)). Not through
    an item, whose key the path leaves out (`F[i]` and `F[j]`)."""
    read_path = field_path(read, own_self)
    return read_path is not None and "[]" not in read_path[1] and read_path == field_path(target, own_self)


def _sum_terms(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The terms of a sum, however it is grouped (`1 + F + 2`: 1, F, 2); none for anything else."""
    if not (type(value) is cst.BinaryOperation and type(value.operator) is cst.Add):
        return []
    return [*(_sum_terms(value.left) or [value.left]), *(_sum_terms(value.right) or [value.right])]


# Calls that copy their first argument with the keyword fields replaced.
_COPY_FUNCTIONS = frozenset({"replace", "evolve"})


def _copy_sets(
    code: CodeOf, target: cst.BaseExpression, value: cst.BaseExpression | None
) -> list[tuple[str, bool]]:
    """The fields a copy of the target sets, each with whether it bumps that field:
    `replace(H, epoch=H.epoch + 1)`, `attrs.evolve(H, epoch=e)`, `H._replace(epoch=e)` assigned to `H`,
    a field or a module-level name."""
    if not isinstance(value, cst.Call) or not isinstance(target, (cst.Attribute, cst.Name)):
        return []
    target_code = code(target).strip()
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value == "_replace":
        copies = code(func.value).strip() == target_code
    else:
        positional = [arg for arg in value.args if arg.keyword is None]
        copies = (
            dotted(func).rsplit(".", 1)[-1] in _COPY_FUNCTIONS
            and bool(positional)
            and code(positional[0].value).strip() == target_code
        )
    if not copies:
        return []
    return [
        (arg.keyword.value, _adds_to_field(code, arg.value, f"{target_code}.{arg.keyword.value}"))
        for arg in value.args
        if arg.keyword is not None
    ]


def _adds_to_field(code: CodeOf, value: cst.BaseExpression, field_code: str) -> bool:
    """`F + k`, `k + F` or a longer sum with `F` a term, for the field `F`."""
    return any(code(term).strip() == field_code for term in _sum_terms(value))


def _adds_to(code: CodeOf, value: cst.BaseExpression, target_code: str) -> bool:
    return any(code(term).strip().startswith(target_code + ".") for term in _sum_terms(value))


def _argument_elements(value: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]]:
    """(key, element) of a literal tuple or list argument, by position up to a starred element, or
    of a literal dict argument under keys written as identifier strings (`Arg.items`)."""
    if type(value) is cst.Dict:
        named = ((_identifier_key(e.key), e.value) for e in value.elements if type(e) is cst.DictElement)
        return [(name, element) for name, element in named if name]
    if not _is_sequence(value):
        return []
    return [(position, element) for position, element in _keyed_elements(value) if position]


def _call_arguments(args: Sequence[cst.Arg]) -> Iterator[tuple[str, cst.BaseExpression, str]]:
    """(keyword, value, stars) of each argument of a call, a literal starred one unpacked as Python
    binds it: `*[a, b]` and `*(a, b)` are positional arguments, `**{"k": v}` and `**dict(k=v)`
    keyword ones."""
    for arg in args:
        spread = _literal_spread(arg)
        if spread is None:
            yield arg.keyword.value if arg.keyword is not None else "", arg.value, arg.star
        else:
            yield from ((keyword, value, "") for keyword, value in spread)


def _literal_spread(arg: cst.Arg) -> list[tuple[str, cst.BaseExpression]] | None:
    """(keyword, value) of each item of a starred argument written out whole; None for any other
    argument, or one with a starred item or a key that is not written as a name."""
    value = arg.value
    if arg.star == "*" and _is_sequence(value):
        elements = value.elements
        if all(type(element) is cst.Element for element in elements):
            return [("", element.value) for element in elements]
    elif arg.star == "**" and type(value) is cst.Dict:
        items = [(_identifier_key(e.key), e.value) for e in value.elements if type(e) is cst.DictElement]
        if len(items) == len(value.elements) and all(keyword for keyword, _ in items):
            return items
    elif arg.star == "**" and type(value) is cst.Call and dotted(value.func) == "dict":
        if all(a.keyword is not None and not a.star for a in value.args):
            return [(a.keyword.value, a.value) for a in value.args if a.keyword is not None]
    return None


def _is_slice(target: cst.BaseExpression) -> bool:
    """Whether a store target is a slice of a container (`epochs[1:]`, `epochs[:]`)."""
    return isinstance(target, cst.Subscript) and any(isinstance(part.slice, cst.Slice) for part in target.slice)


def _local_item_key(target: cst.Subscript) -> str:
    """The key of an item of a local written as a constant (`fields["k"]`: "k", `args[0]`: "0"),
    as `_argument_elements` keys an element; "" for any other subscript."""
    index = target.slice[0].slice if len(target.slice) == 1 else None
    if type(target.value) is not cst.Name or type(index) is not cst.Index:
        return ""
    if type(index.value) is cst.Integer:
        return str(index.value.evaluated_value)
    return _identifier_key(index.value)


def _identifier_key(key: cst.BaseExpression) -> str:
    """The key of a dict element written as a plain string that names a parameter; "" otherwise."""
    if type(key) is cst.SimpleString and not key.prefix and "\\" not in key.raw_value:
        return key.raw_value if key.raw_value.isidentifier() else ""
    return ""


def _element_values(container: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """Every expression a literal container is written with, in order: its keys, values, and
    starred parts."""
    for element in container.elements:  # type: ignore[attr-defined]
        if type(element) is cst.DictElement:
            yield element.key
        yield element.value


def _keyed_elements(container: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]]:
    """(key, element) of a literal list, tuple, set or dict: list positions count up to a starred
    element, after which they are unknown; a set's elements have no key, nor has the one element a
    comprehension makes again and again (`{t: Sub(t) for t in topics}`)."""
    if type(container) is cst.ListComp or type(container) is cst.SetComp:
        return [("", container.elt)]
    if type(container) is cst.DictComp:
        return [("", container.value)]
    if type(container) is cst.Dict:
        return [(constant_key(e.key), e.value) for e in container.elements if type(e) is cst.DictElement]
    if not _is_literal(container):
        return []
    keyed: list[tuple[str, cst.BaseExpression]] = []
    known = type(container) is not cst.Set
    for index, element in enumerate(container.elements):
        if type(element) is cst.StarredElement:
            known = False
        else:
            keyed.append((str(index) if known else "", element.value))
    return keyed


def _unpacked(
    target: cst.Tuple | cst.List, value: cst.BaseExpression | None
) -> list[cst.BaseExpression | None]:
    """What each element of a tuple target takes from a literal value: `a, *b, c = 1, 2, 3, 4`
    gives `a` 1 and `c` 4, and the starred `b` a list of 2, 3; None where it is not known (an
    element of a spread `*xs`, or one of several elements that may land there)."""
    unknown: list[cst.BaseExpression | None] = [None] * len(target.elements)
    if not _is_sequence(value):
        return unknown
    landings = _landings(target, value)
    if not landings:
        return unknown
    unpacked: list[cst.BaseExpression | None] = []
    for position, element in enumerate(target.elements):
        landing = [(source, spots) for source, spots in zip(value.elements, landings) if position in spots]
        alone = all(len(spots) == 1 for _, spots in landing)
        unpacked.append(_taken(element, [source for source, _ in landing]) if alone else None)
    return unpacked


def _taken(target: cst.BaseElement, sources: list[cst.BaseElement]) -> cst.BaseExpression | None:
    """What an element of a tuple target takes from the value elements that land in it alone: a
    starred one a list of them (a spread among them keeps its star), any other its one element,
    unless that is a spread."""
    if isinstance(target, cst.StarredElement):
        return cst.List(sources)
    if len(sources) == 1 and not isinstance(sources[0], cst.StarredElement):
        return sources[0].value
    return None


def _paired_elements(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, tuple[cst.BaseExpression, ...]]]:
    """(value, targets) of each element of the value of `a, *b = x, y, z`: the targets it may land
    in (see `_landings`); empty when target and value are not literal tuples that pair up."""
    if not (_is_sequence(target) and _is_sequence(value)):
        return []
    targets = [element.value for element in target.elements]
    landings = _landings(target, value)
    return [(element.value, tuple(targets[p] for p in spots)) for element, spots in zip(value.elements, landings)]


# Where an element of an unpacked value sits, counted from one end: the least position it may have,
# and whether that is its position (no spread `*xs` lies between it and that end, nor is it one).
_Place = tuple[int, bool]


def _landings(target: cst.Tuple | cst.List, value: cst.Tuple | cst.List) -> list[tuple[int, ...]]:
    """For each element of a literal value unpacked into a tuple target, the positions of the
    target elements it may land in, as Python unpacks: the names before a starred target take the
    elements at their positions, those after it the elements counted from the end, the starred name
    a list of the rest; a spread (`*xs`) lands wherever its place allows. Empty when an element
    lands nowhere (lengths that cannot match)."""
    count = len(target.elements)
    star = next((i for i, e in enumerate(target.elements) if isinstance(e, cst.StarredElement)), None)
    elements = value.elements
    landings: list[tuple[int, ...]] = []
    for index, element in enumerate(elements):
        front = _place(elements[:index], element)
        back = _place(elements[index + 1 :], element)
        spots = tuple(position for position in range(count) if _lands(front, back, position, count, star))
        if not spots:
            return []
        landings.append(spots)
    return landings


def _place(between: Sequence[cst.BaseElement], element: cst.BaseElement) -> _Place:
    """The place of `element` counted from the end beyond the elements `between`."""
    spreads = sum(isinstance(other, cst.StarredElement) for other in between)
    return len(between) - spreads, not spreads and not isinstance(element, cst.StarredElement)


def _lands(front: _Place, back: _Place, position: int, count: int, star: int | None) -> bool:
    """Whether a value element at `front` and `back` may land in the target element at `position`
    (of `count`, the starred one at `star`)."""
    from_end = count - 1 - position
    if star is None:
        return _fits(front, position) and _fits(back, from_end)
    if position != star:
        return _fits(front, position) if position < star else _fits(back, from_end)
    # The starred target takes what the targets before and after it leave.
    return not (front[1] and front[0] < star) and not (back[1] and back[0] < from_end)


def _fits(place: _Place, position: int) -> bool:
    least, exact = place
    return least == position if exact else least <= position


def _tested_missing(test: cst.BaseExpression) -> str | None:
    """The local name that `if name is None:` or `if not name:` tests for missing (also where the
    test assigns it: `if (name := lookup()) is None:`); `not` turns a test for holding something
    into one for missing (`if not name is not None:`)."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _tested_present(test.expression)
    return _compared_with_none(test, (cst.Is, cst.Equal))


def _tested_present(test: cst.BaseExpression) -> str | None:
    """The local name that `if name is not None:` or `if name:` tests for holding something (also
    where the test assigns it: `if (name := lookup()) is not None:`); `not` applies to the whole
    comparison, so `if not name is None:` tests the same."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _tested_missing(test.expression)
    return _tested_name(test) or _compared_with_none(test, (cst.IsNot, cst.NotEqual))


def _tested_name(expression: cst.BaseExpression) -> str | None:
    """The local a test reads as a whole: `name`, or `(name := value)`, which assigns it."""
    if type(expression) is cst.NamedExpr:
        expression = expression.target
    return expression.value if type(expression) is cst.Name else None


def _present_arm(test: cst.BaseExpression) -> int:
    """`Choice.present_arm` of a conditional expression with this test: `x`, `x is not None`
    (either way round), or one of them `and` more give 1; `not x`, `x is None`, or one of them
    `or` more give 2; `not` turns either into the other."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return (0, 2, 1)[_present_arm(test.expression)]
    if isinstance(test, cst.BooleanOperation):
        # `x is not None and x >= 0` holds only where x does; `x is None or x < 0` wherever it is missing.
        wanted = 1 if isinstance(test.operator, cst.And) else 2
        return wanted if wanted in (_present_arm(test.left), _present_arm(test.right)) else 0
    if isinstance(test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return 1
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if _is_none(target.comparator) or _is_none(test.left):
            if isinstance(target.operator, (cst.Is, cst.Equal)):
                return 2
            if isinstance(target.operator, (cst.IsNot, cst.NotEqual)):
                return 1
    return 0


def _one_by_one(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """A block's statements in order, each small statement of a line on its own: in `x = 1;
    L.acquire()` the lock is held from the `acquire`, as on a line of its own."""
    for statement in body:
        if type(statement) is cst.SimpleStatementLine:
            yield from statement.body
        else:
            yield statement


@dataclass(frozen=True, slots=True)
class _Jumps:
    """The statements that end a path through a suite, as a question about it counts them: any (the
    code after `if not L.acquire(...):` runs where its arm goes on), those that leave the function
    (no code after an `if` runs where each of its arms does), a `return` alone (none of them raises).
    Where a `raise` counts, so does a statement that always raises (`_always_raises`): a call of one
    of `never_returning` standing alone (`sys.exit(1)`, `self._fail(tp)` of a method annotated
    `-> NoReturn`), which raises or ends the process, and `assert False`."""

    kinds: tuple[type[cst.CSTNode], ...]
    never_returning: AbstractSet[str] = frozenset()

    def end(self, statement: cst.CSTNode) -> bool:
        """Whether `statement` (a small one, of a line) ends its path as these count."""
        if type(statement) in self.kinds:
            return True
        return cst.Raise in self.kinds and _always_raises(statement, self.never_returning)

    def calling(self, never_returning: AbstractSet[str]) -> _Jumps:
        return _Jumps(self.kinds, never_returning)

    def but_raise(self) -> _Jumps:
        """These but `raise` (and so the calls that never return)."""
        return _Jumps(tuple(kind for kind in self.kinds if kind is not cst.Raise))


def _always_raises(statement: cst.CSTNode, never_returning: AbstractSet[str]) -> bool:
    """Whether `statement` (a small one, of a line) raises wherever it runs: an expression that
    calls one of `never_returning` (see `_never_returns`), or an `assert` whose test is false (as
    type checkers take it, though `python -O` drops it)."""
    if type(statement) is cst.Expr:
        return _never_returns(statement.value, never_returning)
    return type(statement) is cst.Assert and _always_false(statement.test)


def _never_returns(expression: cst.BaseExpression, never_returning: AbstractSet[str]) -> bool:
    """Whether `expression` is a call of one of `never_returning` (see `_Jumps`): awaited, where it
    is a coroutine function's (named there as `await f`: called alone, it returns a coroutine)."""
    awaited = False
    if type(expression) is cst.Await:
        awaited, expression = True, expression.expression
    if type(expression) is not cst.Call:
        return False
    path = name_path(expression.func)
    if path is None:
        return False
    called = ".".join((path[0], *path[1]))
    return called in never_returning or (awaited and f"{_AWAITED}{called}" in never_returning)


# How the calls that never return name a coroutine function's (see `_never_returns`).
_AWAITED = "await "


def _called_as(function: cst.FunctionDef) -> str:
    """`function`'s name, as the calls that never return name it (see `_never_returns`)."""
    return f"{_AWAITED}{function.name.value}" if function.asynchronous is not None else function.name.value


def _awaited_or_not(owner: str, method: str) -> str:
    """A method named as `_called_as` names it (`await _skip`), called on `owner` (`await self._skip`)."""
    if method.startswith(_AWAITED):
        return f"{_AWAITED}{owner}.{method.removeprefix(_AWAITED)}"
    return f"{owner}.{method}"


_JUMPS = _Jumps((cst.Return, cst.Raise, cst.Continue, cst.Break))
_EXITS = _Jumps((cst.Return, cst.Raise))
_RETURNS = _Jumps((cst.Return,))
_RAISES = _Jumps((cst.Raise,))
# The calls of the standard library that never return: they raise `SystemExit` or end the process
# (`exit` and `quit` are the builtins `site` adds).
_STANDARD_NEVER_RETURNING = frozenset(
    ("sys.exit", "os._exit", "os.abort", "exit", "quit", "typing.assert_never", "assert_never")
)


def _leaves(body: cst.BaseSuite, jumps: _Jumps) -> bool:
    """Whether no path through a suite goes on after it (Java's "cannot complete normally"), each
    ending in one of `jumps`: one of its statements does not (`_statement_leaves`), the rest of the
    suite after it never running (`return` / `log.info("busy")`)."""
    return any(_statement_leaves(statement, jumps) for statement in _one_by_one(body.body))


def _else_leaves(statement: cst.If, jumps: _Jumps) -> bool:
    """Whether `statement` has an `else` (or `elif`) through which no path goes on after it."""
    orelse = statement.orelse
    if orelse is None:
        return False
    return _statement_leaves(orelse, jumps) if isinstance(orelse, cst.If) else _leaves(orelse.body, jumps)


def _statement_leaves(statement: cst.CSTNode, jumps: _Jumps) -> bool:
    """Whether no path through a statement goes on after it, each ending in one of `jumps`: one of
    them; an `if` with an `else` whose every arm leaves; a `with` whose body leaves by no `raise`
    (an `__exit__` may swallow an exception, never a `return`, `break` or `continue`); a `try` that
    leaves (`_try_leaves`); a loop that leaves (`_loop_leaves`); a `match` whose last case matches
    anything and whose every case leaves."""
    if type(statement) is cst.If:
        orelse = statement.orelse
        if orelse is None or not _leaves(statement.body, jumps):
            return False
        return _statement_leaves(orelse, jumps) if type(orelse) is cst.If else _leaves(orelse.body, jumps)
    if type(statement) is cst.With:
        return _leaves(statement.body, jumps.but_raise())
    if type(statement) is cst.Try or type(statement) is cst.TryStar:
        return _try_leaves(statement, jumps)
    if type(statement) is cst.For or type(statement) is cst.While:
        return _loop_leaves(statement, jumps)
    if type(statement) is cst.Match:
        cases = statement.cases
        return bool(cases) and _matches_anything(cases[-1]) and all(_leaves(case.body, jumps) for case in cases)
    return jumps.end(statement)


def _loop_leaves(loop: cst.For | cst.While, jumps: _Jumps) -> bool:
    """Whether no path goes on after a loop that no `break` leaves: a `while True:` (left only by
    a `return` or `raise` in it, where a `raise` is one of `jumps` or it holds none, one in a
    function defined there not counting: `_raises_in`), or one whose `else`, which runs where the
    loop ends without a `break`, leaves (`for p in peers: ...` / `else: return`)."""
    if isinstance(loop, cst.While) and _always_true(loop.test):
        ends = cst.Raise in jumps.kinds or not _raises_in(loop.body, jumps)
    else:
        ends = loop.orelse is not None and _leaves(loop.orelse.body, jumps)
    return ends and not _breaks_out(loop.body)


def _try_leaves(statement: cst.Try | cst.TryStar, jumps: _Jumps) -> bool:
    """Whether no path through a `try` statement goes on after it, each ending in one of `jumps`:
    where its `finally` leaves, as that does (it runs last, whatever the rest did: `try: return` /
    `finally: break` goes on after the loop); else where each handler leaves and so does its body
    or, after that, its `else` (`try: return x` / `finally: log()`)."""
    final = _leaving_finally(statement)
    if final is not None:
        return _leaves(final.body, jumps)
    orelse = statement.orelse
    ran_through = _leaves(statement.body, jumps) or (orelse is not None and _leaves(orelse.body, jumps))
    return ran_through and all(_leaves(handler.body, jumps) for handler in statement.handlers)


def _never_returning_of(module: cst.Module) -> frozenset[str]:
    """The calls that never return in `module`: those of the standard library (but a builtin whose
    name the module binds to a function or an import of its own), and of its functions (the last
    `def` of each name at its top level) annotated `-> NoReturn`, or that raise on every path and
    hold no `yield`."""
    functions = {
        _called_as(statement): _annotated_never_returning(statement)
        or (not statement.decorators and _leaves(statement.body, _RAISES) and "yield" not in code_of(statement.body))
        for statement in module.body
        if type(statement) is cst.FunctionDef
    }
    rebound = functions.keys() | _imported_names(module)
    standard = {name for name in _STANDARD_NEVER_RETURNING if name not in rebound}
    return frozenset(standard | {name for name, never_returns in functions.items() if never_returns})


def _imported_names(module: cst.Module) -> set[str]:
    """The names that the top-level `from ... import` statements of `module` bind, but from the
    standard modules whose calls that never return are named (`from sys import exit` is one)."""
    names: set[str] = set()
    for line in module.body:
        for statement in line.body if type(line) is cst.SimpleStatementLine else ():
            if type(statement) is not cst.ImportFrom or isinstance(statement.names, cst.ImportStar):
                continue
            source = dotted(statement.module) if statement.module is not None else ""
            if statement.relative or source not in _EXITING_MODULES:
                names.update(alias.evaluated_alias or alias.evaluated_name for alias in statement.names)
    return names


# The modules of `_STANDARD_NEVER_RETURNING`'s calls.
_EXITING_MODULES = frozenset(("sys", "os", "typing", "typing_extensions"))


def _annotated_never_returning(function: cst.FunctionDef) -> bool:
    """Whether `function` is annotated `-> NoReturn` (or `-> Never`, either maybe in quotes) and has
    no decorator but those that keep it as it is (`_KEEPING_DECORATORS`): an `overload`'s annotation
    says nothing of the function called, another decorator may wrap it in one that returns."""
    if function.returns is None:
        return False
    if any(_last_name(decorator.decorator) not in _KEEPING_DECORATORS for decorator in function.decorators):
        return False
    annotation = dotted(function.returns.annotation).strip("\"'")
    return annotation.rsplit(".", 1)[-1] in ("NoReturn", "Never")


# The decorators that leave a method's calls running its body as it is (an abstract method's
# overrides keep its annotation).
_KEEPING_DECORATORS = frozenset(("staticmethod", "classmethod", "abstractmethod", "override", "final"))


def _leaving_finally(statement: cst.CSTNode) -> cst.Finally | None:
    """The `finally` of a `try` statement that no path goes on after: whatever the body and the
    handlers did (returned, broke out, raised), the statement leaves as it does; None for another."""
    if not (type(statement) is cst.Try or type(statement) is cst.TryStar):
        return None
    final = statement.finalbody
    return final if final is not None and _leaves(final.body, _JUMPS) else None


def _raises_in(node: cst.CSTNode, jumps: _Jumps) -> bool:
    """Whether `node` holds a `raise` (or a call that never returns, of `jumps`) that runs where it
    is written: none in a function or lambda defined in it, which runs where it is called (a class
    body runs where it is written)."""
    if isinstance(node, cst.Raise) or _always_raises(node, jumps.never_returning):
        return True
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        return False
    return any(_raises_in(child, jumps) for child in child_nodes(node))


def _breaks_out(node: cst.CSTNode, jump: type[cst.Break | cst.Continue] = cst.Break) -> bool:
    """Whether `node`, a loop's body or a statement in it, holds a `break` (or `continue`) of that
    loop that a `finally` on its way does not stop (`try: break` / `finally: raise`: the `finally`
    leaves instead): not one of a loop nested in it, but one in that loop's `else`, which runs
    after it (`for p in peers: ...` / `else: break`); none in a function nested in it."""
    if type(node) is jump:
        return True
    if type(node) is cst.FunctionDef or type(node) is cst.ClassDef or isinstance(node, cst.BaseExpression):
        return False  # an expression (a lambda too) holds no statement
    if type(node) is cst.For or type(node) is cst.While:
        return node.orelse is not None and _breaks_out(node.orelse, jump)
    final = _leaving_finally(node)
    return any(_breaks_out(child, jump) for child in child_nodes(node if final is None else final))


def _ran_operands(test: cst.BaseExpression, held: bool) -> Iterator[cst.BaseExpression]:
    """`test` and the operands in it that have run wherever it `held` (or, not `held`, failed): each
    operand of an `and` chain that held, or of an `or` chain that failed, at any depth (`a and (b
    and c)` gives `b and c` as well as `b` and `c`), also under `not`, which swaps the two."""
    yield test
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        yield from _ran_operands(test.expression, not held)
    elif type(test) is cst.BooleanOperation and isinstance(test.operator, cst.And if held else cst.Or):
        yield from _ran_operands(test.left, held)
        yield from _ran_operands(test.right, held)


def _and_operands(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands of an `and` chain (the test itself for another test), unparenthesized."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from _and_operands(test.left)
        yield from _and_operands(test.right)
    else:
        yield test


def _subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node under it."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(child_nodes(current))


@dataclass
class _AcquireKept:
    """Whether each path through the body of `while local:` back to its test leaves `local`
    holding the result of an acquire of the loop's lock with no release after: a walk of the body
    from its start (True there: the test let the pass in), True or False after a statement, None
    where no path goes on (it left by `break`, `return`, `raise` or `continue`). Statements other
    than an `if` and a simple statement (loops, `try`, `with`, `match`) are not followed: after
    one that names `local` or releases the lock, False."""

    local: str
    lock: Ref
    # The lock a lock expression names, None where it cannot tell (then it may be `lock`).
    lock_of: Callable[[cst.BaseExpression], Ref | None]
    # The lock and the call of `L.acquire(...)` (or another method of a lock), None for another value.
    lock_call: Callable[[cst.BaseExpression, str], tuple[Ref, cst.Call] | None]
    passes_back: list[bool] = field(default_factory=list)

    def through_each_pass(self, body: cst.BaseSuite) -> bool:
        return self._through(body.body, True) is not False and all(self.passes_back)

    def _through(self, statements: Sequence[cst.CSTNode], kept: bool | None) -> bool | None:
        for statement in _one_by_one(statements):
            if kept is None:
                break
            kept = self._after(statement, kept)
        return kept

    def _after(self, statement: cst.CSTNode, kept: bool) -> bool | None:
        if isinstance(statement, cst.Continue):
            self.passes_back.append(kept)
            return None
        if isinstance(statement, (cst.Break, cst.Return, cst.Raise)):
            return None
        if isinstance(statement, cst.If):
            return self._after_if(statement, kept)
        assigned = self._assigned_value(statement)
        if assigned is not None:
            return self._is_acquire(assigned)
        kept = kept and not self._touches(statement)
        if _breaks_out(statement, cst.Continue):
            self.passes_back.append(kept)
        return kept

    def _after_if(self, node: cst.If, kept: bool) -> bool | None:
        kept = kept and not self._touches(node.test)
        arms = [self._through(node.body.body, kept)]
        if isinstance(node.orelse, cst.If):
            arms.append(self._after_if(node.orelse, kept))
        else:
            arms.append(self._through(node.orelse.body.body, kept) if node.orelse is not None else kept)
        going_on = [arm for arm in arms if arm is not None]
        return all(going_on) if going_on else None

    def _assigned_value(self, statement: cst.CSTNode) -> cst.BaseExpression | None:
        """The value of `local = value` where nothing else in the statement names `local`."""
        if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1):
            return None
        target = statement.targets[0].target
        named = isinstance(target, cst.Name) and target.value == self.local
        return statement.value if named and not self._touches(statement.value) else None

    def _is_acquire(self, value: cst.BaseExpression) -> bool:
        called = self.lock_call(value, "acquire")
        return called is not None and called[0] == self.lock

    def _touches(self, node: cst.CSTNode) -> bool:
        """Whether `node` names `local` or the lock's `release` (called, or handed on)."""
        for inner in _subtree(node):
            if isinstance(inner, cst.Name) and inner.value == self.local:
                return True
            if isinstance(inner, cst.Attribute) and inner.attr.value == "release":
                if self.lock_of(inner.value) in (self.lock, None):
                    return True
        return False


def _assigned_names(statement: cst.CSTNode) -> Iterator[str]:
    """The plain names a statement assigns (`a = ...`, `a, b = ...`, `a |= ...`, `a: T = ...`)."""
    if isinstance(statement, cst.Assign):
        targets: list[cst.BaseExpression] = [target.target for target in statement.targets]
    elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
        targets = [statement.target]
    else:
        return
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Name):
            yield target.value
        elif _is_sequence(target):
            targets.extend(element.value for element in target.elements)  # `*rest` too


def _acquire_kind(call: cst.Call) -> str:
    """The kind of the region a tested `L.acquire(...)` opens: "try_acquire" for one that gives up
    (`acquire(False)`, `acquire(0)`, `acquire(blocking=False)`, `acquire(timeout=1)`), "acquire" for one that
    waits for the lock as long as it takes (`acquire()`, `await L.acquire()`): a wait that can
    deadlock, as an untested acquire's can."""
    for position, arg in enumerate(call.args):
        named = arg.keyword.value if arg.keyword is not None else ("blocking", "timeout")[min(position, 1)]
        if named == "blocking" and _is_false(arg.value):
            return "try_acquire"
        if named == "timeout" and not _is_no_timeout(arg.value):
            return "try_acquire"
    return "acquire"


def _is_false(value: cst.BaseExpression) -> bool:
    """`False` or `0`: `blocking` is tested for truth, and older code spells a try-lock `acquire(0)`."""
    if isinstance(value, cst.Name):
        return value.value == "False"
    return isinstance(value, cst.Integer) and int(value.value, 0) == 0


def _is_no_timeout(value: cst.BaseExpression) -> bool:
    """`-1` or `None`: the timeouts that wait for ever."""
    if isinstance(value, cst.Name):
        return value.value == "None"
    return (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
        and value.expression.value == "1"
    )


def _is_none(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "None"


def _compared_with_none(
    test: cst.BaseExpression, operators: tuple[type[cst.BaseCompOp], ...]
) -> str | None:
    """The local name that `name is None` (`operators` cst.Is and cst.Equal, for `name == None`) or
    `name is not None` (`!= None`) compares, either way round (`None is name`), as the conditional
    expressions' `_present_arm` reads them."""
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, operators):
            if _is_none(target.comparator):
                return _tested_name(test.left)
            if _is_none(test.left):
                return _tested_name(target.comparator)
    return None


def extract(module: cst.Module) -> FileFacts:
    """Read the facts of a parsed module."""
    text, positions = code_and_positions(module)
    extractor = FactsExtractor(positions, text, _never_returning_of(module))
    extractor.walk(module)
    comments = read_comments(text)
    return FileFacts(
        lines=line_count(text),
        imports=tuple(extractor.imports),
        globals=tuple(sorted(extractor.module_globals)),
        functions=tuple(sorted(extractor.functions, key=lambda f: (f.pos, f.qualname))),
        classes=tuple(sorted(extractor.classes, key=lambda c: (c.pos, c.qualname))),
        suppressions=comments.suppressions,
        ignore_file=comments.ignore_file,
        guard_declarations=comments.guard_declarations,
    )
