"""Java syntax (tree-sitter) to FileFacts, in one walk per file.

The facts mean what they mean for Python, translated where Java says things differently:
- `this` is the first parameter of every instance method; an unqualified name that is not a local is
  a field of `this` (or, in a static context or when declared `static`, of the class);
- constructors are `__init__` (their stores are initial values), field initialisers belong to the
  class body;
- `synchronized` methods and blocks hold the monitor of their object (the `MONITOR` attribute),
  `L.lock()` ... `finally { L.unlock(); }` holds L, `if (L.tryLock())` holds it in its branch;
- a lambda or method reference given to `forEach` or a stream operation runs on the spot, once per
  element: it is read as the body of a batch loop at the call (a mapping's, `map(f)`, gives its value
  where the call's goes); any other lambda, method reference or anonymous class is a function of its
  own, handed off;
- `UPDATER.incrementAndGet(this)` on a field updater is a bump of the field the updater names (the
  program maps the updater to its field by the class that declares it), `UPDATER.get(this)` a read
  of it; `epoch.incrementAndGet()` on an `AtomicLong`/`AtomicInteger` field is a bump of that field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, copy_context
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from epochlint.frontend import line_count
from epochlint.frontend.builder import Catch, FunctionBuilder
from epochlint.frontend.comments import directives_in
from epochlint.frontend.facts import (
    FLOW_ARG,
    FLOW_ASSIGN,
    FLOW_CONDITION,
    FLOW_ITER,
    FLOW_RECEIVER,
    FLOW_RETURN,
    MONITOR,
    Access,
    Arg,
    Bind,
    Branches,
    Call,
    Choice,
    Entered,
    Fallback,
    Held,
    ClassFacts,
    Exit,
    FileFacts,
    Flow,
    FunctionFacts,
    Import,
    LeavingArm,
    Loop,
    Param,
    Pos,
    RESOURCE,
    RanThrough,
    Ref,
    Region,
    Site,
    Stored,
    Write,
    within,
    written_name,
)
from epochlint.frontend.java import idioms
from epochlint.frontend.nesting import MAX_DEPTH
from epochlint.frontend.stack import with_room_to_recurse

Node = Any  # tree_sitter.Node: typed loosely, as the grammar is loaded on first use
TreeCursor = Any  # tree_sitter.TreeCursor, likewise

THIS = "this"
# `this` inside an anonymous class's method: a name no code binds, so of no known class.
ANONYMOUS_THIS = "<anonymous>"
# A class's own object (`C.class`), whose monitor `static synchronized` and `synchronized (C.class)`
# hold: not the monitor of C's instances. No field can have this name.
CLASS_OBJECT = "class"
CONSTRUCTOR = "__init__"
_METHOD_TYPES = frozenset({"method_declaration", "constructor_declaration", "compact_constructor_declaration"})
_CLASS_TYPES = frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"})
_VISIBILITIES = ("public", "protected", "private")
_PACKAGE_PRIVATE = "package"
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">="})
# What a name path starts from (`a.b`, `this.b`, `super.b`, `Type.B`).
_NAMES = frozenset({"identifier", "this", "super", "type_identifier", "scoped_type_identifier"})
# Where a `return` or `throw` ends a block of statements.
_BLOCKS = frozenset({"block", "constructor_body", "switch_block_statement_group", "switch_rule"})
# The statements that leave a method, and those that leave a loop (a `switch`, a labelled statement).
_EXITS = ("return_statement", "throw_statement")
_LOOP_JUMPS = ("continue_statement", "break_statement")
_JUMPS = frozenset({*_EXITS, *_LOOP_JUMPS, "yield_statement"})
_COMMENTS = frozenset({"line_comment", "block_comment"})
# The nodes whose locals are theirs alone, in scope from their declaration to the node's end: a
# block, an enhanced `for` statement (its variable), a `catch` clause (its parameter); a basic `for`
# statement's header opens its own (`_v_for_statement`).
_SCOPES = frozenset({"block", "enhanced_for_statement", "catch_clause"})
# What holds a statement: a `switch` there gives no value.
_STATEMENT_HOLDERS = _BLOCKS | frozenset(
    {
        "expression_statement", "labeled_statement", "if_statement", "while_statement", "do_statement",
        "for_statement", "enhanced_for_statement",
    }
)
# A region that holds what a call returns, not what a name path names.
_NO_REF = Ref("", "")
_PARSER: Any = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter
        import tree_sitter_java

        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language()))
    return _PARSER


# A carriage return that ends a line on its own (old Mac files): the JLS counts it as a line end,
# tree-sitter does not.
_LONE_CARRIAGE_RETURN = re.compile(rb"\r(?!\n)")
# A diamond, `<>`, with any blanks inside.
_DIAMOND = re.compile(rb"<\s*>")
# Where a comment may start: a `/` before a `/` or a `*`, each of them (`/* a *//* b */` starts
# one at its fourth `/`, which a search that went on past a match at the third would miss).
_COMMENT_START = re.compile(rb"/(?=[/*])")


class _Columns:
    """Columns in characters, as Python's frontend and SARIF's `unicodeCodePoints` count them, from
    tree-sitter's, which count bytes of UTF-8."""

    def __init__(self, data: bytes) -> None:
        self._lines = data.split(b"\n")

    def point(self, point: tuple[int, int]) -> tuple[int, int]:
        """(row, column) of a tree-sitter point, the column in characters; both 0-based."""
        row, column = point
        line = self._lines[row] if row < len(self._lines) else b""
        if line.isascii():
            return row, column
        return row, len(line[:column].decode("utf-8", "replace"))


# The columns of the file being read (one file at a time in a thread).
_columns: ContextVar[_Columns] = ContextVar("_columns")


def extract_java(data: bytes, text: str) -> FileFacts:
    data = _LONE_CARRIAGE_RETURN.sub(b"\n", data)  # the same length: byte offsets do not move
    token = _columns.set(_Columns(data))
    try:
        return _extract(data, text)
    finally:
        _columns.reset(token)


def _extract(data: bytes, text: str) -> FileFacts:
    tree = _parser().parse(data)
    error = _first_error(tree.root_node) or _misplaced_diamond(tree.root_node, data)
    if error is not None:
        line, column = _start(error)
        return FileFacts(
            lines=0,
            error=f"syntax error at line {line}, column {column}",
            error_pos=(line, column, line, column + 1),
        )
    too_deep = _too_deep(tree.root_node)
    if too_deep is not None:
        line = too_deep.start_point[0] + 1
        return FileFacts(lines=0, error=f"too deeply nested to analyse: more than {MAX_DEPTH} levels at line {line}")
    try:
        # In the context that holds the file's columns: the walk may run on a thread of its own.
        return with_room_to_recurse(partial(copy_context().run, _facts, tree.root_node, data, text))
    except RecursionError:
        return FileFacts(lines=0, error="too deeply nested to analyse")


def _facts(root: Node, data: bytes, text: str) -> FileFacts:
    extractor = _Extractor()
    extractor.program(root)
    comments = directives_in(_comments(root, data))
    return FileFacts(
        lines=line_count(text),
        imports=tuple(extractor.imports()),
        functions=tuple(sorted(extractor.functions, key=lambda f: (f.pos, f.qualname))),
        classes=tuple(sorted(extractor.classes, key=lambda c: (c.pos, c.qualname))),
        suppressions=comments.suppressions,
        ignore_file=comments.ignore_file,
        guard_declarations=comments.guard_declarations,
        package=extractor.package,
    )


def _comments(root: Node, data: bytes) -> list[tuple[int, int, str]]:
    """(line, column, text) of every comment, in order, wherever it stands: inside an expression
    too (a stream's chain of calls), where the extraction's walk does not go. Found from where the
    text's `//`s and `/*`s start (each the start of a comment, or inside one, a string or a text
    block): a walk of the whole tree, a node made at each step, cost a twentieth of the extraction."""
    found = []
    for match in _COMMENT_START.finditer(data):
        node = root.descendant_for_byte_range(match.start(), match.start() + 2)
        if node is not None and node.type in _COMMENTS and node.start_byte == match.start():
            found.append((*_start(node), _text(node)))
    return found


def _descendants(root: Node) -> Iterator[tuple[Node, int]]:
    """Every node under `root` (itself first), in order, with its depth below it; without
    recursion, as the tree may be deeper than Python's stack allows."""
    cursor = root.walk()
    return ((cursor.node, depth) for depth in _depths(cursor))


def _depths(cursor: TreeCursor) -> Iterator[int]:
    """Move `cursor` to every node under its own (that one first), in order, yielding the depth
    of each below it; the node itself is made only where it is asked for (`cursor.node`)."""
    depth = 0
    yield depth
    while True:
        if cursor.goto_first_child():
            depth += 1
            yield depth
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return
            depth -= 1
        yield depth


def _too_deep(root: Node) -> Node | None:
    """The first node nested deeper than `MAX_DEPTH` levels below `root`, if any: the extraction
    and the program's model recurse once or more per level (tree-sitter's parse does not), and
    the Python frontend lets no deeper code through either."""
    cursor = root.walk()
    return next((cursor.node for depth in _depths(cursor) if depth > MAX_DEPTH), None)


def _misplaced_diamond(root: Node, data: bytes) -> Node | None:
    """The first `<>` that stands anywhere but after `new` (`List<> x;`): tree-sitter's grammar
    takes it as an empty type argument list, javac refuses it. Found from the text's `<>`s, as a
    walk of the whole tree would cost more than the rest of the check of a file."""
    for match in _DIAMOND.finditer(data):
        node = root.descendant_for_byte_range(match.start(), match.end())
        if node is not None and _is_diamond(node) and not _creates(node.parent):
            return node
    return None


def _is_diamond(node: Node) -> bool:
    return node.type == "type_arguments" and not _code_children(node)


def _creates(generic_type: Node | None) -> bool:
    """Whether `generic_type` is the type a `new` expression creates."""
    creation = generic_type.parent if generic_type is not None else None
    return creation is not None and creation.type == "object_creation_expression" and (
        creation.child_by_field_name("type") == generic_type
    )


def _first_error(node: Node) -> Node | None:
    if not node.has_error:
        return None
    if node.type == "ERROR" or node.is_missing:
        return node
    for child in node.children:
        found = _first_error(child)
        if found is not None:
            return found
    return node


def _text(node: Node) -> str:
    return node.text.decode("utf-8")


def _start(node: Node) -> tuple[int, int]:
    """Where `node` starts: line and column (in characters), 1-based."""
    row, column = _columns.get().point(node.start_point)
    return row + 1, column + 1


def _pos(node: Node) -> Pos:
    columns = _columns.get()
    (line, column), (end_line, end_column) = columns.point(node.start_point), columns.point(node.end_point)
    return (line + 1, column + 1, end_line + 1, end_column + 1)


def _span(start: Node, end: Node) -> Pos:
    return (*_pos(start)[:2], *_pos(end)[2:])  # type: ignore[return-value]


def _closed_at(body: Node) -> Pos:
    """The empty span where a `try` body ends: its resources' `close()` runs there."""
    end = _pos(body)[2:]
    return (*end, *end)


def _span_after(node: Node, enclosing: Node) -> Pos:
    """From the end of `node` to the end of `enclosing`."""
    return (*_pos(node)[2:], *_pos(enclosing)[2:])  # type: ignore[return-value]


def type_name(node: Node | None) -> str:
    """The class a type names, type arguments dropped (`ConsumerImpl<T>` -> `ConsumerImpl`); "" for
    primitives and arrays, which hold no object of a class."""
    if node is None:
        return ""
    if node.type == "generic_type":
        return type_name(_code_children(node)[0])
    if node.type in ("type_identifier", "scoped_type_identifier"):
        name = _text(node)
        return "" if name in idioms.PRIMITIVE_TYPES else name
    return ""


# What a type's node stands for: a type variable's bound (`Msg` of `<E extends Msg>`), else itself.
_Bounded = Callable[[Node | None], Node | None]


def _unbounded(node: Node | None) -> Node | None:
    return node


def annotation_of(node: Node | None, bounded: _Bounded = _unbounded) -> str:
    """A declared type as an annotation keeps its type arguments, written as Python's
    (`Map<String, Sub>` -> `Map[String, Sub]`): a collection's element class is read there. A
    wildcard argument stands for its upper bound (`? extends Sub` -> `Sub`); without one (`?`, `?
    super Sub`), or with a primitive array among them, the arguments are dropped, as `type_name` drops them. `bounded`
    gives what a type variable stands for (its bound), never again inside a bound (`<T extends
    Comparable<T>>`)."""
    substituted = bounded(node)
    if substituted is not node:
        bounded = _unbounded
    node = substituted
    if node is None or node.type != "generic_type":
        return type_name(node)
    base = type_name(_code_children(node)[0])
    arguments = next((child for child in _code_children(node) if child.type == "type_arguments"), None)
    if not base or arguments is None:
        return base
    inner = [annotation_of(_wildcard_bound(argument), bounded) for argument in _code_children(arguments)]
    return f"{base}[{', '.join(inner)}]" if inner and all(inner) else base


def _type_variables(node: Node) -> dict[str, Node | None]:
    """The type variables a class or method declares, each with the first class its bound names
    (`<S extends Source & Closeable>`: `S` -> `Source`), None where it has none."""
    parameters = node.child_by_field_name("type_parameters")
    found: dict[str, Node | None] = {}
    for parameter in _code_children(parameters) if parameters is not None else ():
        if parameter.type != "type_parameter":
            continue
        bound = next((child for child in _code_children(parameter) if child.type == "type_bound"), None)
        bounds = _code_children(bound) if bound is not None else []
        found[_text(_code_children(parameter)[0])] = bounds[0] if bounds else None
    return found


def _wildcard_bound(argument: Node) -> Node | None:
    """The class a type argument stands for: itself, or a wildcard's upper bound. `? super Sub` has
    none but `Object` (javac types `pick(box)` of a `Box<? super Sub> box` as a capture of it), so it
    stands for no class, as `?` does."""
    if argument.type != "wildcard":
        return argument
    bounds = [child for child in _code_children(argument) if child.type != "annotation"]
    if any(child.type == "super" for child in bounds):
        return None
    return bounds[-1] if bounds else None


def _modifiers(node: Node) -> set[str]:
    for child in node.children:
        if child.type == "modifiers":
            return {_text(m) for m in child.children if m.type not in ("marker_annotation", "annotation", *_COMMENTS)}
    return set()


def _unparenthesized(node: Node) -> Node:
    while node.type == "parenthesized_expression":
        node = _code_children(node)[0]
    return node


def _ran_operands(condition: Node, held: bool) -> Iterator[Node]:
    """`condition` and the operands in it, as written and without their parentheses, that have run
    wherever it `held` (or, not `held`, failed): each operand of a `&&` chain that held, or of a
    `||` chain that failed, at any depth, also under `!`, which swaps the two."""
    inner = _unparenthesized(condition)
    yield from (condition, inner)
    if inner.type == "unary_expression" and _text(inner.child_by_field_name("operator")) == "!":
        yield from _ran_operands(inner.child_by_field_name("operand"), not held)
    elif inner.type == "binary_expression" and _text(inner.child_by_field_name("operator")) == ("&&" if held else "||"):
        yield from _ran_operands(inner.child_by_field_name("left"), held)
        yield from _ran_operands(inner.child_by_field_name("right"), held)


@dataclass
class _Function(FunctionBuilder):
    """A function being read, and the function whose `this` is in scope ("" in a static context)."""

    this_scope: str = ""
    # The locals and parameters declared as arrays (`Msg[] batch`, `Msg... batch`).
    arrays: set[str] = field(default_factory=set)
    # Locals and parameters by their name in the function (`local_name`): whether the declaration
    # gives a number or a flag.
    scalars: dict[str, bool] = field(default_factory=dict)
    # Locals and parameters by their name in the function: the type the declaration writes, a
    # primitive or an array (`long`, `long[]`, `Msg[]` of `Msg... batch`) or an annotation (`Map[K,
    # V]`), a `var` local's value's where that shows it (`Msg` of `new Msg(1)`), "" where none does
    # (a `catch` parameter, `var` of a call).
    types: dict[str, str] = field(default_factory=dict)
    # Locals by their name in the function: the declarator giving one a value (`s = Stream.of(a)`).
    declarators: dict[str, Node] = field(default_factory=dict)
    # Locals and parameters by name as written: where each declaration of the name is (the offset of
    # its name), in the order read. javac lets no local shadow another, so a name declared again is
    # one of a block beside the first's, a local of its own, named apart in the function (`h<2>`).
    declarations: dict[str, list[int]] = field(default_factory=dict)
    # Locals by name as written: the function's name for the one declared last, the one in scope.
    declared_last: dict[str, str] = field(default_factory=dict)
    # The names of the locals and parameters in scope where the body is being read, by the block
    # (or statement) declaring them, innermost last: past its end, the name is a field's again.
    scopes: list[set[str]] = field(default_factory=lambda: [set()])
    # The local classes declared in the body, by name: for each declaration, the scope of the block
    # declaring it (one of `scopes` while that block is being read) and the class's name in the
    # function, `Judge`, then `Judge<2>`... for one of a sibling block (javac names them apart too).
    local_classes: dict[str, list[tuple[set[str], str]]] = field(default_factory=dict)
    # The statements of the body giving a parameter a value where it holds null (`if (held == null)
    # held = this.lock;`), by node id: the parameter, that value and the block the statement is nested
    # in (None for one of the body itself), read where the first for the parameter is.
    fallback_statements: dict[int, tuple[str, Node, Node | None]] = field(default_factory=dict)

    def sees(self, name: str) -> bool:
        """Whether local or parameter `name` is in scope here."""
        return any(name in scope for scope in self.scopes)

    def local_name(self, name: str) -> str:
        """The function's name for the local or parameter `name` in scope here."""
        return self.declared_last.get(name, name)

    def name_declared_at(self, name: str, at: Node) -> str:
        """The function's name for the local `name` whose declaration names it at `at`: `name` for
        the first declaration read, `name<2>`... for one of a sibling block; the same each time a
        declaration is read again (a `finally` block is read on each way out)."""
        sites = self.declarations.setdefault(name, [])
        if at.start_byte not in sites:
            sites.append(at.start_byte)
        index = sites.index(at.start_byte)
        return f"{name}<{index + 1}>" if index else name

    def class_in_scope(self, name: str) -> str:
        """The name in the function of the local class `name` in scope here, from its declaration to
        the end of the block declaring it (JLS 6.3), its own body included; "" where none is."""
        declared = reversed(self.local_classes.get(name, []))
        return next((local for block, local in declared if any(scope is block for scope in self.scopes)), "")

    def declare_class(self, name: str) -> str:
        """A local class `name` declared in the innermost block: its name in the function."""
        declared = self.local_classes.setdefault(name, [])
        local = f"{name}<{len(declared) + 1}>" if declared else name
        declared.append((self.scopes[-1], local))
        return local


def _is_stub_body(body: Node | None) -> bool:
    """An abstract method's missing body, an empty one, or one that only throws
    `UnsupportedOperationException`: Java's stubs, as `...`, `pass` and `raise NotImplementedError`
    are Python's."""
    if body is None:
        return True
    statements = _code_children(body)
    if not statements:
        return True
    if len(statements) > 1 or statements[0].type != "throw_statement":
        return False
    thrown = next(iter(_code_children(statements[0])), None)
    made = None
    if thrown is not None and thrown.type == "object_creation_expression":
        made = thrown.child_by_field_name("type")
    return made is not None and _text(made).rsplit(".", 1)[-1] == "UnsupportedOperationException"


def _makes_a_collection(value: Node) -> bool:
    """Whether a value made empty (see `_is_new_empty`) is a collection to add to (`List.of()`, `new
    ArrayList<>()`, `new ArrayDeque<>(16)`), not some other object made without arguments (`new
    Object()`, `new ReentrantLock()`)."""
    made = value.child_by_field_name("type") if value.type == "object_creation_expression" else None
    return made is None or _COLLECTION_CLASS.search(type_name(made)) is not None


def _class_made_empty(value: Node) -> str:
    """The class making a collection made empty (see `_is_new_empty`): `ArrayList` of `new
    ArrayList<>()`, `List` of `List.of()`."""
    if value.type == "object_creation_expression":
        return type_name(value.child_by_field_name("type"))
    receiver = value.child_by_field_name("object")
    return _text(receiver) if receiver is not None else ""


def _is_empty_factory(value: Node) -> bool:
    """`List.of()`, `Map.of()`, `Collections.emptyList()`: a factory called without elements."""
    value = _unparenthesized(value)
    receiver = value.child_by_field_name("object") if value.type == "method_invocation" else None
    if receiver is None or _code_children(value.child_by_field_name("arguments")):
        return False
    return (_text(receiver).rsplit(".", 1)[-1], _method_called(value)) in idioms.EMPTY_FACTORIES


def _is_scalar_type(node: Node | None) -> bool:
    """`int`, `long`, `boolean`, `Integer`...: a declared type whose values are numbers or flags."""
    return node is not None and _text(node) in idioms.SCALAR_TYPES


def _adds_to_itself(holder: Node, method: str, args: list[Node]) -> bool:
    """An atomic store that increases the value from its own, as `F = F + k` does:
    `epoch.set(epoch.get() + 1)`, `epoch.updateAndGet(e -> e + 1)`, `accumulateAndGet(1, Long::sum)`,
    and `epoch.compareAndSet(cur, cur + 1)`, which stores only over the value it expects."""
    if len(args) == 2 and method in ("accumulateAndGet", "getAndAccumulate"):
        return _text(args[1]).replace(" ", "") in ("Long::sum", "Integer::sum", "Math::addExact")
    if len(args) == 2 and method in idioms.COMPARE_AND_SETS:
        expected = _text(_unparenthesized(args[0]))
        return _sum_of(_unparenthesized(args[1]), lambda operand: _text(operand) == expected)
    if len(args) != 1:
        return False
    value = _unparenthesized(args[0])
    if method in ("updateAndGet", "getAndUpdate") and value.type == "lambda_expression":
        params = _text(value.child_by_field_name("parameters")).strip("() ")
        body = value.child_by_field_name("body")
        if body is None or body.type == "block":
            return False
        return _sum_of(_unparenthesized(body), lambda operand: _text(operand) == params)
    if method in ("set", "lazySet", "setRelease", "setPlain", "setOpaque", "getAndSet"):
        return _sum_of(value, lambda operand: _reads_of(operand, holder))
    return False


def _sum_of(value: Node, is_own: Callable[[Node], bool]) -> bool:
    """`own + k`, `k + own` or a longer sum with `own` a term (`1 + own + 2`), with `own` what
    `is_own` says is the value itself."""
    return any(is_own(term) for term in _sum_terms(value))


def _sum_terms(value: Node) -> list[Node]:
    """The terms of a sum, however it is grouped (`1 + x + 2`: 1, x, 2); none for anything else."""
    if value.type != "binary_expression" or _text(value.child_by_field_name("operator")) != "+":
        return []
    sides = (_unparenthesized(value.child_by_field_name(side)) for side in ("left", "right"))
    return [term for side in sides for term in (_sum_terms(side) or [side])]


def _is_call_without_arguments(node: Node) -> bool:
    """`m()`, `x.m()`: a method called with no argument."""
    return node.type == "method_invocation" and not _code_children(node.child_by_field_name("arguments"))


def _reads_of(value: Node, holder: Node) -> bool:
    """`holder.get()` (or another plain load of the atomic number `holder`)."""
    return (
        _is_call_without_arguments(value)
        and _text(value.child_by_field_name("name")) in idioms.ATOMIC_LOADS
        and value.child_by_field_name("object") is not None
        and _text(value.child_by_field_name("object")) == _text(holder)
    )


def _code_children(node: Node) -> list[Node]:
    """A node's named children without its comments: the grammar puts a comment among the children
    of whatever node it stands in (an argument list, a condition, a block), so any reading of
    children by position or count must not see it. Comments are read on their own (`_comments`)."""
    return [child for child in node.named_children if child.type not in _COMMENTS]


def _switch_arms(body: Node) -> list[list[Node]]:
    """The arms of a switch, each its groups, from its first case to its last: a `case ->` rule is
    an arm of its own; `case:` groups fall through to the next until one ends in a jump (`break`,
    `return`, `throw`, `yield`, `continue`), which ends the arm."""
    arms: list[list[Node]] = []
    arm: list[Node] = []
    groups = [child for child in _code_children(body) if child.type in ("switch_rule", "switch_block_statement_group")]
    for group in groups:
        arm.append(group)
        statements = _code_children(group)
        if group.type == "switch_rule" or (statements and _jumps(statements[-1])):
            arms.append(arm)
            arm = []
    if arm:
        arms.append(arm)
    return arms


def _arm_leaves(switch: Node, groups: list[Node]) -> bool:
    """Whether no path through an arm of a `switch` statement (see `_switch_arms`) goes on after
    the statement: its last statement cannot complete normally, and no `break` in it leaves the
    statement."""
    statements = _code_children(groups[-1])
    ends = bool(statements) and _leaves(statements[-1])
    return ends and not any(_jumps_to(group, _broken_by, switch) for group in groups)


def _has_default(body: Node) -> bool:
    """Whether a switch's body has a `default` label (`default:`, `case null, default ->`), so
    that every pass runs one of its arms."""
    groups = _code_children(body)
    labels = (child for group in groups for child in _code_children(group) if child.type == "switch_label")
    return any(part.type == "default" for label in labels for part in label.children)


def _function(qualname: str, name: str, kind: str, pos: Pos, **details: Any) -> _Function:
    # Java declares its locals as it goes: they are added while the body is read.
    return _Function(qualname, name, kind, pos, frozenset(), frozenset(), **details)


@dataclass
class _Class:
    """A class being read: what its body declares, known before its methods are read."""

    qualname: str
    name: str
    static_fields: set[str] = field(default_factory=set)
    field_types: dict[str, str] = field(default_factory=dict)
    updaters: dict[str, str] = field(default_factory=dict)
    # The fields declared as numbers or flags (`int`, `long`, `Integer`, `boolean`...).
    scalar_fields: set[str] = field(default_factory=set)
    # The fields declared with a primitive or array type, which `field_types` leaves out, with that
    # type (`long`, `long[]`).
    primitive_fields: dict[str, str] = field(default_factory=dict)
    # A record's components, which its canonical constructor, written compact or not, stores.
    components: list[Node] = field(default_factory=list)
    # The fields declared as arrays.
    array_fields: set[str] = field(default_factory=set)
    # The methods declared to return an `Optional`.
    optional_methods: set[str] = field(default_factory=set)
    # An interface: its methods are public, declared so or not.
    interface: bool = False


class _Extractor:
    def __init__(self) -> None:
        self.package = ""
        self.functions: list[FunctionFacts] = []
        self.classes: list[ClassFacts] = []
        self._explicit_imports: list[Import] = []
        # The packages imported whole (`import java.util.concurrent.locks.*;`), as Import("*", package, "*").
        self._on_demand_imports: list[Import] = []
        self._defined_types: set[str] = set()
        self._used_types: set[str] = set()
        self._stack: list[_Function] = []
        self._class_stack: list[_Class] = []
        self._flow = Flow()
        self._next_id = 0
        self._call_ids: dict[int, int] = {}
        # The calls whose result a field is read on (`getState().epoch`), by node id: the local
        # that holds the result, as (the function that binds it, its name).
        self._call_results: dict[int, tuple[str, str]] = {}
        # The calls store targets start from, by node id: visited before the stored value is.
        self._store_roots: set[int] = set()
        # The lambdas read in place (a batch loop's body, an arm of `ifPresentOrElse`), innermost
        # last: a `return` there ends that lambda's run (one element's turn), not the function, and
        # its value goes where the body's would (`map(r -> { ...; return offset; })`: the stream's).
        self._inlined: list[Pos] = []
        self._inlined_return = Flow()
        # The `finally` clauses of the `try` statements whose other parts are being read: a
        # `return` or `throw` there runs them on its way out.
        self._finally_blocks: list[Pos] = []
        # The `catch` clauses of the `try` statements whose body is being read: a `throw` there may
        # go on in them.
        self._catch_blocks: list[Pos] = []
        # Of those `try` statements, the ones a `catch` clause of which may end without leaving the
        # loop around (it falls through, breaks or continues), innermost last: a `throw` there may
        # go on after the statement or at that loop.
        self._catching: list[Catch] = []
        # The statements of each block being read, with the held regions a statement there opened,
        # which end where the block does (`L.lock()`), innermost last.
        self._opened_in_blocks: list[tuple[list[Node], list[tuple[Ref, int]]]] = []
        # The type variables of the classes and methods being read, innermost last, each with its
        # bound (`class G<S extends Source>`: `S` -> the node of `Source`), None where it has none.
        self._type_variables: list[dict[str, Node | None]] = []
        # The fields of the anonymous classes whose methods are being read, innermost last: there,
        # `this` and those fields are the anonymous object's, not the enclosing instance's.
        self._anonymous_fields: list[frozenset[str]] = []
        # The locals assigned in a scope (see `_assigned_in`), by the scope's node id.
        self._assigned: dict[int, frozenset[str]] = {}

    # -- helpers ---------------------------------------------------------------------------

    @property
    def _fn(self) -> _Function:
        return self._stack[-1]

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _site(self, node: Node) -> Site:
        return Site(_pos(node), tuple(self._fn.region_stack), tuple(self._fn.loop_stack))

    def _with_flow(self, node: Node | None, flow: Flow) -> None:
        if node is None:
            return
        saved = self._flow
        self._flow = flow
        self._visit(node)
        self._flow = saved

    def _declare(self, name_node: Node, scalar: bool = False, declared: str = "", scoped: bool = True) -> str:
        """A local declared, named by `name_node`, `scalar` when declared a number or a flag (see
        `_is_scalar`), of the type it is `declared` with, if any; in scope to the end of the block
        around unless not `scoped` (a pattern variable in scope where its test holds:
        `_pattern_variables`). Its name in the function (`Function.name_declared_at`)."""
        name = _text(name_node)
        local = self._fn.name_declared_at(name, name_node)
        self._fn.declared_last[name] = local
        self._fn.locals = self._fn.locals | {local}
        if scoped:
            self._fn.scopes[-1].add(name)
        self._fn.scalars[local] = scalar
        self._fn.types[local] = declared
        self._fn.declarators.pop(local, None)
        return local

    @contextmanager
    def _scope(self, names: set[str] | None = None) -> Iterator[None]:
        """The locals declared inside are in scope to its end only (Java's block scope), and so are
        `names` (pattern variables where their test holds)."""
        scopes = self._fn.scopes
        scopes.append(set(names or ()))
        try:
            yield
        finally:
            scopes.pop()

    @contextmanager
    def _own_exits(self) -> Iterator[None]:
        """A lambda's body (an anonymous class's method's too) or a class's, read with exits of its
        own: a `return` there ends that function, not a lambda read in place around it, and the
        `finally` and `catch` clauses of the `try` statements around are on no way out of it. It
        runs where it is called, which they need not surround."""
        saved = self._inlined, self._finally_blocks, self._catch_blocks, self._catching
        self._inlined, self._finally_blocks, self._catch_blocks, self._catching = [], [], [], []
        try:
            yield
        finally:
            self._inlined, self._finally_blocks, self._catch_blocks, self._catching = saved

    def _declaring(self, name: str) -> _Function | None:
        return next((function for function in reversed(self._stack) if function.sees(name)), None)

    def _local_class_ref(self, name: str, attrs: tuple[str, ...] = ()) -> Ref | None:
        """The local class `name` in scope here (`attrs` on it), named as a local of the function
        declaring it is: the class's qualified name is that function's and its own. None where no
        local class of the name is in scope."""
        found = ((function, local) for function in reversed(self._stack) if (local := function.class_in_scope(name)))
        function, local = next(found, (None, ""))
        return Ref(function.qualname, local, attrs) if function is not None else None

    def _own_this(self, attrs: tuple[str, ...]) -> Ref | None:
        """`this` (and `attrs` on it) where it is written: inside an anonymous class's method, the
        anonymous object, of no class the analysis knows (a name nothing binds); elsewhere the
        instance of the class around (`_this_ref`)."""
        if self._anonymous_fields:
            return Ref(self._fn.qualname, ANONYMOUS_THIS, attrs)
        return self._this_ref(attrs)

    def _this_ref(self, attrs: tuple[str, ...]) -> Ref | None:
        scope = self._fn.this_scope
        if scope:
            return Ref(scope, THIS, attrs)
        return self._class_ref(attrs)

    def _class_ref(self, attrs: tuple[str, ...], cls: _Class | None = None) -> Ref | None:
        """A static member of `cls` (the innermost class by default), named from the file's
        top-level class; for an instance field, the field itself (its identity is its class's)."""
        if cls is None and not self._class_stack:
            return None
        outermost, *inner = (cls or self._class_stack[-1]).qualname.split(".")
        return Ref("", outermost, (*inner, *attrs))

    def _enclosing_class(self, name: str) -> _Class | None:
        """The class around the innermost one that declares field `name`, or is named `name`
        (`Outer.this`): an inner class reads the fields of its enclosing instance."""
        for cls in reversed(self._class_stack[:-1]):
            if name in (cls.name, cls.qualname) or name in cls.static_fields or name in cls.field_types:
                return cls
        return None

    def _resolve(self, name: str, attrs: tuple[str, ...] = ()) -> Ref | None:
        """What a name path starting with a simple name denotes: a local, a field, or a class."""
        function = self._declaring(name)
        if function is not None:
            return Ref(function.qualname, function.local_name(name), attrs)
        if (local_class := self._local_class_ref(name, attrs)) is not None:
            return local_class
        if self._anonymous_fields and name in self._anonymous_fields[-1]:
            return self._own_this((name, *attrs))
        cls = self._class_stack[-1] if self._class_stack else None
        if cls is not None and name in cls.static_fields:
            return self._class_ref((name, *attrs))
        if cls is not None and name in cls.field_types:
            return self._this_ref((name, *attrs))
        # A type: capitalised, or all capitals where no constant can be (`KV.class`, the class around).
        is_type = attrs[:1] == ("class",) or any(name == outer.name for outer in self._class_stack)
        if name[:1].isupper() and (is_type or not _is_constant(name)):
            self._used_types.add(name)
            return Ref("", name, attrs)
        if _is_constant(name):
            return self._class_ref((name, *attrs))
        if (outer := self._enclosing_class(name)) is not None:
            return self._class_ref((name, *attrs), outer)
        # Not declared here: a field the class inherits.
        return self._this_ref((name, *attrs))

    def _path(self, node: Node) -> Ref | None:
        """The name path an expression is (`a.b.c`, `this.x`, `x[i].y`), None for anything else."""
        attrs: list[str] = []
        while True:
            kind = node.type
            if kind == "field_access":
                target = node.child_by_field_name("field")
                obj = node.child_by_field_name("object")
                if target.type == "this":  # `Outer.this`: the enclosing instance, where it is one
                    outer = self._enclosing_class(_text(obj))
                    if outer is not None:
                        return self._class_ref(tuple(reversed(attrs)), outer)
                    return self._this_ref(tuple(reversed(attrs)))
                attrs.append(_text(target))
                if obj.type == "super":
                    return self._this_ref(tuple(reversed(attrs)))
                node = obj
            elif kind == "array_access":
                attrs.append("[]")
                node = node.child_by_field_name("array")
            elif kind == "parenthesized_expression":
                node = _code_children(node)[0]
            elif kind == "this":
                return self._own_this(tuple(reversed(attrs)))
            elif kind == "identifier":
                return self._resolve(_text(node), tuple(reversed(attrs)))
            elif kind in ("type_identifier", "scoped_type_identifier"):
                return self._resolve(_text(node).split(".")[0], (*_text(node).split(".")[1:], *reversed(attrs)))
            elif node.id in self._call_results and attrs:
                scope, local = self._call_results[node.id]
                return Ref(scope, local, tuple(reversed(attrs)))
            else:
                return None

    def _type(self, node: Node | None) -> str:
        """The class a declared type names (a type variable's bound), as `_type_named` names it."""
        return self._type_named(type_name(self._bounded(node)))

    def _type_named(self, name: str) -> str:
        """A type's name as the program finds its class: a local class in scope (and a class nested
        in it) by its qualified name (`Consumer.run.Judge`), any other as written, noted as used (it
        may be a class of this package)."""
        first, *rest = name.split(".")
        local_class = self._local_class_ref(first, tuple(rest))
        if local_class is not None:
            return ".".join((local_class.scope, local_class.name, *local_class.attrs))
        if name:
            self._used_types.add(name.split(".")[0])
        return name

    def _bounded(self, node: Node | None) -> Node | None:
        """What a declared type stands for: a type variable of the classes and methods around
        (`S` of `class G<S extends Source>`) its bound, `Source`; any other type itself."""
        if node is None or node.type != "type_identifier":
            return node
        name = _text(node)
        bound = next((bounds[name] for bounds in reversed(self._type_variables) if name in bounds), None)
        return node if bound is None or bound is node else bound

    def _is_type_variable(self, node: Node | None) -> bool:
        """Whether a declared type is a type variable of the classes and methods around (`K`), or an
        array of one (`K[]`)."""
        if node is not None and node.type == "array_type":
            node = node.child_by_field_name("element")
        return node is not None and node.type == "type_identifier" and any(
            _text(node) in declared for declared in self._type_variables)

    def _annotation(self, node: Node | None) -> str:
        """A declared type with its type arguments (see `annotation_of`), each class named as
        `_type_named` names it."""
        return re.sub(r"[\w.]+", lambda name: self._type_named(name.group()), annotation_of(node, self._bounded))

    def _visit_indices(self, node: Node) -> None:
        """Visit the index expressions inside a name path (`a[i].b` visits i), and what a chain
        that is not a name path starts from: a call's result a field is read on is then a path's
        root (see `_hold_call_result`)."""
        links = _chain(node)
        for link in links:
            if link.type == "array_access":
                self._with_flow(link.child_by_field_name("index"), Flow())
        root = links[-1]
        if root.type not in _NAMES and root.id not in self._store_roots:
            self._visit(root)
            if root is not node:
                self._hold_call_result(root)

    def _hold_store_target_call(self, target: Node) -> None:
        """`getState().epoch = e`: the call a store target starts from is visited (Java evaluates it
        before the value) and its result held, so that the target is a path, a field of the class
        the call returns, before the value is read into it (`_visit_indices` then leaves it)."""
        root = _chain(target)[-1]
        if root is not target and root.type in ("method_invocation", "object_creation_expression"):
            self._store_roots.add(root.id)
            self._visit(root)
            self._hold_call_result(root)

    def _hold_call_result(self, node: Node) -> None:
        """`getState().epoch`: the call's result is held in a local no code names (`getState()<7>`),
        so that the field read on it is a name path, of the class the call returns, as the same read
        through a local (`State s = getState(); s.epoch`) is."""
        call_id = self._call_ids.get(node.id, -1)
        if call_id < 0:
            return
        if node.type == "method_invocation":
            label = f"{_method_called(node)}()"
        else:
            label = f"new {type_name(node.child_by_field_name('type'))}()"
        local = f"{label}<{call_id}>"
        self._fn.binds.append(Bind(local, self._site(node), "assign", call_id))
        self._call_results[node.id] = (self._fn.qualname, local)

    # -- files and classes -----------------------------------------------------------------

    def program(self, root: Node) -> None:
        module = _function("", "<module>", "module", _pos(root))
        self._stack.append(module)
        for child in _code_children(root):
            self._visit(child)
        self._stack.pop()
        self.functions.append(module.freeze())

    def imports(self) -> Iterator[Import]:
        """The file's imports, those of whole packages, and the classes it names without importing
        them, as of its own package: the program looks for them there, then in the packages
        imported whole, as Java does (it alone knows the package's classes)."""
        yield from self._explicit_imports
        yield from self._on_demand_imports
        imported = {i.alias for i in self._explicit_imports}
        for name in sorted(self._used_types - imported - self._defined_types - idioms.JAVA_LANG):
            yield Import(name, f"{self.package}.{name}" if self.package else name, name, implicit=True)

    def _package(self, node: Node) -> None:
        for child in _code_children(node):
            if child.type in ("scoped_identifier", "identifier"):
                self.package = _text(child)

    def _import(self, node: Node) -> None:
        words = [c.type for c in node.children]
        if "asterisk" in words and "static" not in words:
            packages = [_text(c) for c in _code_children(node) if c.type in ("scoped_identifier", "identifier")]
            self._on_demand_imports.extend(Import("*", package, "*", 0, _pos(node)) for package in packages)
        if "static" in words or "asterisk" in words:
            return  # static members and whole packages: nothing a name path resolves through here
        for child in _code_children(node):
            if child.type == "scoped_identifier":
                dotted = _text(child)
                name = dotted.rsplit(".", 1)[-1]
                self._explicit_imports.append(Import(name, dotted, name, 0, _pos(node)))

    def _class(self, node: Node, in_class_body: bool = False) -> None:
        """A class declared in a file, in a class body or in a block (a local class)."""
        name = _text(node.child_by_field_name("name"))
        outer = self._class_stack[-1].qualname if self._class_stack else ""
        # A local class's members are read while the function around it is.
        in_function = not in_class_body and self._fn.kind not in ("module", "classbody")
        if in_function:
            qualname = f"{self._fn.qualname}.{self._fn.declare_class(name)}"
        else:
            qualname = f"{outer}.{name}" if outer else name
        self._defined_types.add(name)
        body = node.child_by_field_name("body")
        components = _parameters(node.child_by_field_name("parameters")) if node.type == "record_declaration" else []
        cls = _Class(qualname, name, components=components, interface=node.type == "interface_declaration")
        members = _members(body)
        type_parameters = _type_variables(node)
        self._type_variables.append(type_parameters)
        self._declare_fields(cls, members)
        for component in components:
            component_type = component.child_by_field_name("type")
            component_name = component.child_by_field_name("name")
            cls.field_types[_text(component_name)] = self._type(component_type)
            cls.primitive_fields[_text(component_name)] = _value_type_written(component_type, 0, self._bounded)
            if _is_scalar_type(component_type):
                cls.scalar_fields.add(_text(component_name))
        self._class_stack.append(cls)
        methods = self._method_names(members)
        cls.optional_methods = _optional_methods(members)
        body_fn = _function(f"{qualname}.<body>", "<body>", "classbody", _pos(node), class_name=qualname,
                            parent=self._fn.qualname if in_function else "")
        with self._own_exits():
            self._stack.append(body_fn)
            for member in members:
                if member.type == "field_declaration":
                    self._field_declaration(member)
            self._stack.pop()
            self.functions.append(body_fn.freeze())
            for member in members:
                if member.type in _METHOD_TYPES:
                    self._method(member, methods[member.id])
                elif member.type in _CLASS_TYPES:
                    self._class(member, in_class_body=True)
                elif member.type in ("static_initializer", "block"):
                    self._initializer(member)
        declared = set(methods.values())
        if components:
            declared |= self._record_members(components, members, declared)
        self._class_stack.pop()
        self._type_variables.pop()
        bases = list(self._bases(node))
        self.classes.append(
            ClassFacts(
                qualname=qualname,
                name=name,
                pos=_pos(node),
                bases=tuple(name for name, _ in bases),
                base_annotations=tuple(annotation for _, annotation in bases),
                methods=tuple(sorted(declared)),
                attributes=tuple(sorted(cls.field_types)),
                updaters=tuple(sorted(cls.updaters.items())),
                abstract=node.type == "interface_declaration" or "abstract" in _modifiers(node),
                interface=cls.interface,
                components=tuple(_text(component.child_by_field_name("name")) for component in components),
                type_parameters=tuple(type_parameters),
            )
        )

    def _record_members(self, components: list[Node], members: list[Node], methods: set[str]) -> set[str]:
        """What a record declares without writing it: an accessor per component (`epoch()`
        returns the field `epoch`), unless written, and the canonical constructor storing each
        component, unless a constructor is written. The names of the methods made."""
        cls = self._class_stack[-1]
        made = set()
        for component in components:
            name_node = component.child_by_field_name("name")
            name = _text(name_node)
            if name in methods:
                continue
            qualname = f"{cls.qualname}.{name}"
            accessor = _function(qualname, name, "method", _pos(name_node), class_name=cls.qualname,
                                 returns=cls.field_types[name], this_scope=qualname, visibility="public")
            accessor.params = (Param(THIS),)
            accessor.accesses.append(Access(Ref(qualname, THIS, (name,)), self._site(name_node), Flow(FLOW_RETURN)))
            self.functions.append(accessor.freeze())
            made.add(name)
        if any(member.type in ("constructor_declaration", "compact_constructor_declaration") for member in members):
            return made
        qualname = f"{cls.qualname}.{CONSTRUCTOR}"
        constructor = _function(qualname, CONSTRUCTOR, "method", _pos(components[0].parent), class_name=cls.qualname,
                                this_scope=qualname, visibility="public")
        self._stack.append(constructor)
        constructor.params = (Param(THIS), *(self._parameter(component) for component in components))
        self._store_components(constructor, components)
        self._stack.pop()
        self.functions.append(constructor.freeze())
        return made | {CONSTRUCTOR}

    def _store_components(self, constructor: _Function, components: list[Node]) -> None:
        """A canonical constructor's implicit `this.epoch = epoch` for each record component, as
        its parameter stands at the constructor's end."""
        qualname = constructor.qualname
        for component in components:
            name = _text(component.child_by_field_name("name"))
            site, field_ref = self._site(component), Ref(qualname, THIS, (name,))
            constructor.writes.append(Write(field_ref, site, "assign", False, -1, Ref(qualname, name)))
            # The value flows into the field, as in a constructor that writes the store out.
            constructor.accesses.append(Access(Ref(qualname, name), site, Flow(FLOW_ASSIGN, stores=(field_ref,))))

    def _bases(self, node: Node) -> Iterator[tuple[str, str]]:
        """Each base a class declares: the class it names, and it as an annotation, with the type
        arguments it gives (`Box[Item]` of `extends Box<Item>`)."""
        for child in _code_children(node):
            if child.type in ("superclass", "super_interfaces", "extends_interfaces"):
                for base in _type_nodes(child):
                    # A local class in scope by its qualified name: not one of a sibling block.
                    name = self._type_named(type_name(base))
                    if name:
                        yield name, self._annotation(base)

    def _declare_fields(self, cls: _Class, members: list[Node]) -> None:
        for member in members:
            if member.type not in ("field_declaration", "constant_declaration"):
                continue
            static = "static" in _modifiers(member) or member.type == "constant_declaration"
            type_node = member.child_by_field_name("type")
            declared = self._type(type_node)
            for declarator in member.children_by_field_name("declarator"):
                name = _text(declarator.child_by_field_name("name"))
                after_name = _dimensions_written(declarator)
                cls.field_types[name] = "" if after_name else declared
                cls.primitive_fields[name] = _value_type_written(type_node, after_name, self._bounded)
                if after_name or type_node.type == "array_type":
                    cls.array_fields.add(name)
                if not after_name and _is_scalar_type(type_node):
                    cls.scalar_fields.add(name)
                if static:
                    cls.static_fields.add(name)
                updated = _updated_field(declared, declarator.child_by_field_name("value"))
                if updated:
                    cls.updaters[name] = updated

    def _method_names(self, members: list[Node]) -> dict[int, str]:
        """Names for the methods of a class. Overloads share a name in Java but not in the facts:
        the overload with the most parameters keeps it (the others usually delegate to it), the
        others are named with their number of parameters, `name~0`, `name~1` (then `name~1~2`...),
        so that a call resolves to the overload of its number of arguments (see Symbols.callee)."""
        by_name: dict[str, list[Node]] = {}
        for member in members:
            if member.type in _METHOD_TYPES:
                by_name.setdefault(_method_name(member), []).append(member)
        names: dict[int, str] = {}
        for name, overloads in by_name.items():
            primary = max(overloads, key=_arity)
            taken = {name}
            for member in overloads:
                if member.id == primary.id:
                    names[member.id] = name
                    continue
                candidate, counter = f"{name}~{_arity(member)}", 2
                while candidate in taken:
                    candidate, counter = f"{name}~{_arity(member)}~{counter}", counter + 1
                taken.add(candidate)
                names[member.id] = candidate
        return names

    def _field_declaration(self, node: Node) -> None:
        """A field's declared class, and its initial value (stored in the class body: not a write),
        the default value where it has none: a `guarded-by` comment on the declaration is read there."""
        declared = self._annotation(node.child_by_field_name("type"))
        for declarator in node.children_by_field_name("declarator"):
            name = _text(declarator.child_by_field_name("name"))
            value = declarator.child_by_field_name("value")
            # `Msg all[];` declares an array, of no class, as `Msg[] all;` does.
            annotation = "" if _dimensions_written(declarator) else declared
            self._fn.binds.append(Bind(name, self._site(declarator), "annotation", annotation=annotation))
            value_call, value_ref = -1, None
            if value is not None and _is_function(value) and name not in self._class_stack[-1].static_fields:
                # `Predicate<Msg> current = this::isCurrent;`, or a conditional of such: a function of
                # the instance, as a constructor would store it (read there, `this` is the instance).
                label = ":".join(map(str, _start(declarator)))
                store = partial(self._store_initial_value, declarator, name, value)
                self._in_initializer(declarator, label, False, store)
            elif value is not None:
                self._with_flow(value, Flow(FLOW_ASSIGN, stores=()))
                value_call, value_ref = self._value_of(value)
                # `static final Consumer<Msg> HANDLER = m -> ...;`: a lambda kept in the class, as a
                # class attribute bound to one is in Python, called where `HANDLER.accept(m)` is.
                self._store_values(Ref(self._fn.qualname, name), value)
            ref = self._class_ref((name,))
            if ref is not None:
                self._fn.writes.append(Write(ref, self._site(declarator), "assign", False, value_call, value_ref))

    def _method(self, node: Node, name: str) -> None:
        cls = self._class_stack[-1]
        is_constructor = node.type != "method_declaration"
        modifiers = _modifiers(node)
        static = "static" in modifiers
        qualname = f"{cls.qualname}.{name}"
        params = [] if static else [Param(THIS)]
        name_node = node.child_by_field_name("name") or node
        body = node.child_by_field_name("body")
        type_parameters = _type_variables(node)
        self._type_variables.append(type_parameters)
        # `Msg polled()[]` returns an array, of no class, as `Msg[] polled()` does.
        returned = node.child_by_field_name("type")
        returns = "" if is_constructor or _dimensions_written(node) else self._annotation(returned)
        function = _function(
            qualname,
            CONSTRUCTOR if is_constructor else _method_name(node),
            "staticmethod" if static else "method",
            _span(name_node, node),
            class_name=cls.qualname,
            parent=self._fn.qualname if self._fn.kind not in ("module", "classbody") else "",
            returns=returns,
            returns_type=(
                "" if is_constructor or self._is_type_variable(returned) else _type_declared(node, self._bounded)
            ),
            type_parameters=tuple(type_parameters),
            this_scope="" if static else qualname,
            visibility=next((v for v in _VISIBILITIES if v in modifiers), _default_visibility(cls)),
            stub_body=not is_constructor and _is_stub_body(body),
        )
        self._stack.append(function)
        compact = node.type == "compact_constructor_declaration"
        # A compact constructor takes the record's components as its parameters, without naming them.
        for param in cls.components if compact else _parameters(node.child_by_field_name("parameters")):
            params.append(self._parameter(param))
        function.params = tuple(params)
        if body is not None:
            function.fallback_statements = _parameter_fallbacks(body, {param.name for param in params})
            region = None
            if "synchronized" in modifiers:
                lock = Ref(qualname, THIS, (MONITOR,)) if not static else self._class_ref((CLASS_OBJECT, MONITOR))
                region = self._open_region(lock, "with", name_node, node)  # type: ignore[arg-type]
            self._block(_code_children(body))
            if region is not None:
                function.region_stack.remove(region)
        if compact:
            self._store_components(function, cls.components)
        self._stack.pop()
        self._type_variables.pop()
        self.functions.append(function.freeze())

    def _parameter(self, param: Node) -> Param:
        name_node = param.child_by_field_name("name")
        type_node = param.child_by_field_name("type")
        spread = param.type == "spread_parameter"
        if spread:  # `final Msg... batch`: an array of the type written after any modifier, named in its declarator
            declarator = next((c for c in _code_children(param) if c.type == "variable_declarator"), param)
            name_node = declarator.child_by_field_name("name")
            type_node = next((c for c in _code_children(param) if c.type != "modifiers"), None)
        if name_node is None:  # `(x) ->` inferred lambda parameters are identifiers themselves
            name_node = param
        name = _text(name_node)
        after_name = _dimensions_written(param)
        # The local `batch` of `Msg... batch` is an array, of no class; its elements are `Msg`s.
        annotation = "" if spread else self._annotation(type_node)
        if after_name:  # `Msg batch[]` is one too (`Msg` is used all the same)
            annotation = ""
        written_array = after_name > 0 or type_node is not None and type_node.type == "array_type"
        is_array = spread or written_array
        # `long`, `Msg[]`: a type `annotation` leaves out; `Msg... batch` is a `Msg[]` as `Msg[] batch` is.
        written = _value_type_written(type_node, after_name, self._bounded)
        declared = _array_of(type_node, self._bounded) if spread else written or annotation
        local = self._declare(name_node, not is_array and _is_scalar_type(type_node), declared)
        if is_array:
            self._fn.arrays.add(local)
        self._fn.binds.append(Bind(local, Site(self._fn.pos), "param", annotation=annotation))
        primitive, array = "" if after_name else _primitive_written(type_node), written if written_array else ""
        type_variable = self._is_type_variable(type_node)
        if spread:
            # `Msg... batch` takes the arguments beyond the others, as Python's `*batch` does, each
            # of the type written: the parameter's, as an overload's arguments fit it.
            return Param(name, self._annotation(type_node), "vararg", primitive=primitive, array=array,
                         type_variable=type_variable)
        return Param(name, annotation, primitive=primitive, array=array, type_variable=type_variable)

    def _note_fallback(self, statement: Node) -> None:
        """Where `statement` is the first of the body to give a parameter a value where it holds null,
        that parameter's fallback (`Param.fallback`): the value's name path, read here (None for
        another value, `new Semaphore(1)`), or the call it is (`Param.fallback_call`, once the
        statement is visited and its calls numbered), and where the statement is; where it is a
        later one, where that is (`Param.fallback_again_at`)."""
        noted = self._fn.fallback_statements.pop(statement.id, None)
        if noted is None:
            return
        name, value, nested_in = noted
        call = self._call_ids.get(value.id, -1) if value.type == "method_invocation" else -1
        within = _pos(nested_in) if nested_in is not None else None
        self._fn.params = tuple(
            _given_fallback(param, self._path(value), call, _pos(statement), within) if param.name == name else param
            for param in self._fn.params
        )

    def _initializer(self, node: Node) -> None:
        """A static or instance initialiser block: initial values, as a constructor's are."""
        self._in_initializer(node, str(node.start_point[0] + 1), node.type == "static_initializer",
                             partial(self._visit, node))

    def _in_initializer(self, node: Node, label: str, static: bool, read: Callable[[], None]) -> None:
        """`read` the code at `node` as an initialiser of its own, `<init:label>`."""
        cls = self._class_stack[-1]
        qualname = f"{cls.qualname}.<init:{label}>"
        function = _function(qualname, CONSTRUCTOR, "staticmethod" if static else "method", _pos(node),
                             class_name=cls.qualname, params=() if static else (Param(THIS),),
                             this_scope="" if static else qualname)
        self._stack.append(function)
        read()
        self._stack.pop()
        self.functions.append(function.freeze())

    def _store_initial_value(self, declarator: Node, name: str, value: Node) -> None:
        """`this.name = value`, the initial value of an instance field."""
        ref = self._this_ref((name,))
        self._with_flow(value, Flow(FLOW_ASSIGN, stores=(ref,) if ref else ()))
        if ref is not None:
            self._store(declarator.child_by_field_name("name"), ref, value, "assign", bump=False)

    # -- statements --------------------------------------------------------------------------

    def _visit(self, node: Node) -> None:
        if node.type in _SCOPES:
            with self._scope():
                self._visit_node(node)
        else:
            self._visit_node(node)

    def _visit_node(self, node: Node) -> None:
        handler = getattr(self, f"_v_{node.type}", None)
        if handler is not None:
            handler(node)
            return
        if node.type in _CLASS_TYPES:
            self._class(node)
            return
        for child in _code_children(node):
            self._visit(child)

    def _v_package_declaration(self, node: Node) -> None:
        self._package(node)

    def _v_import_declaration(self, node: Node) -> None:
        self._import(node)

    def _v_block(self, node: Node) -> None:
        self._block(_code_children(node))

    def _v_constructor_body(self, node: Node) -> None:
        self._block(_code_children(node))

    def _block(self, statements: list[Node], held: tuple[tuple[Ref, int], ...] = ()) -> list[tuple[Ref, int]]:
        """Visit a block, opening a held region at `L.lock()` and closing it at `L.unlock()` (or at
        the end of a `try` whose `finally` unlocks L); `held`, regions of locks held from the
        block's start, end the same way: the regions still open at its end, which end there."""
        opened: list[tuple[Ref, int]] = list(held)
        suspended: list[tuple[int, int]] = []
        self._opened_in_blocks.append((statements, opened))
        for statement in statements:
            released = self._released_by(statement)
            self._visit(statement)
            self._note_fallback(statement)
            self._note_try_lock_result(statement)
            acquired = _lock_statement(statement, *idioms.LOCK_METHODS) or self._stamp_taken(statement)
            refused = _acquired_unless(statement, self._try_lock_results())
            if acquired is not None and (lock := self._lock_ref(acquired)) is not None:
                region = self._open_region(lock, "acquire", statement, statement, extent_end=statements[-1])
                opened.append((lock, region))
            elif refused is not None and (lock := self._lock_ref(refused[0])) is not None:
                # `if (!L.tryLock()) return;`: what follows runs holding L.
                region = self._open_region(lock, "try_acquire", refused[1], statement, extent_end=statements[-1])
                opened.append((lock, region))
            elif released is not None:
                self._close_region(opened, self._lock_ref(released), suspended)
                self._forget_try_lock_results(self._lock_ref(released))
            elif statement.type == "try_statement" and (unlocked := self._finally_unlock(statement)):
                self._close_region(opened, unlocked)
                self._forget_try_lock_results(unlocked)
        self._opened_in_blocks.pop()
        for _, region_id in reversed(opened):
            self._fn.region_stack.remove(region_id)
        self._fn.resume(suspended)
        return opened

    def _note_try_lock_result(self, statement: Node) -> None:
        """`boolean got = L.tryLock();` (or `got = L.tryLock(1, SECONDS);`): testing `got` later tests
        the acquire. Any other assignment of the name forgets it."""
        assigned = _assignment_of(statement)
        if assigned is None or assigned[0].type != "identifier":
            return
        target, value = assigned
        name = _text(target)
        self._fn.acquire_results.pop(name, None)
        tried = _try_lock_call(value) if value is not None else None
        if tried is not None:
            self._fn.acquire_results[name] = tried  # type: ignore[assignment]
            self._fn.acquire_result_loops[name] = tuple(self._fn.loop_stack)

    def _forget_try_lock_results(self, lock: Ref | None) -> None:
        """`lock` is unlocked: a later test of a local that held its `tryLock`'s result is stale."""
        results = self._try_lock_results()
        for name in [name for name, (receiver, _) in results.items() if self._lock_ref(receiver) == lock]:
            del self._fn.acquire_results[name]

    def _try_lock_results(self) -> Mapping[str, tuple[Node, Node]]:
        return self._fn.acquire_results  # type: ignore[return-value]

    def _lock_ref(self, receiver: Node) -> Ref | None:
        """The lock `L` names in `L.lock()` (the lock of `L.readLock()`), the same for each lock
        on a call's result written the same way (`getState().lock`)."""
        receiver = _unparenthesized(receiver)
        if receiver.type == "method_invocation" and _method_called(receiver) in idioms.READ_WRITE_VIEWS:
            inner = receiver.child_by_field_name("object")
            if inner is None:
                return None
            receiver = inner
        lock = self._path(receiver)
        if lock is None or _chain(receiver)[-1].id not in self._call_results:
            return lock
        return self._fn.lock_through_call(_text(receiver), lock)

    def _finally_unlock(self, node: Node) -> Ref | None:
        for child in _code_children(node):
            if child.type == "finally_clause":
                block = _code_children(child)[-1]
                for statement in _code_children(block):
                    released = self._released_by(statement)
                    if released is not None:
                        return self._lock_ref(released)
        return None

    def _released_by(self, statement: Node) -> Node | None:
        """The lock `L.unlock();` (or a `StampedLock`'s `L.unlockWrite(stamp);`) releases as a
        statement of its own."""
        return _lock_statement(statement, *idioms.UNLOCK_METHODS) or self._stamp_given_back(statement)

    def _stamp_taken(self, statement: Node) -> Node | None:
        """The `StampedLock` field L of `long stamp = L.writeLock();` (or `stamp = L.readLock();`)."""
        assigned = _assignment_of(statement)
        return self._stamped_lock_called(assigned[1], idioms.STAMP_LOCK_METHODS, arguments=0) if assigned else None

    def _stamp_given_back(self, statement: Node) -> Node | None:
        """The `StampedLock` field L of `L.unlockWrite(stamp);` (or `unlockRead`, `unlock`)."""
        if statement.type != "expression_statement" or not _code_children(statement):
            return None
        return self._stamped_lock_called(_code_children(statement)[0], idioms.STAMP_UNLOCK_METHODS, arguments=1)

    def _stamped_lock_called(self, call: Node | None, methods: frozenset[str], arguments: int) -> Node | None:
        """The receiver of `call`, one of `methods` with that many arguments, where it is a field
        declared a `StampedLock`."""
        call = _unparenthesized(call) if call is not None else None
        if call is None or call.type != "method_invocation" or _method_called(call) not in methods:
            return None
        receiver = call.child_by_field_name("object")
        if receiver is None or len(_code_children(call.child_by_field_name("arguments"))) != arguments:
            return None
        path = self._path(receiver)
        stamped = path is not None and path.name == THIS and len(path.attrs) == 1 and any(
            cls.field_types.get(path.attrs[0]) == idioms.STAMPED_LOCK for cls in self._class_stack
        )
        return receiver if stamped else None

    def _open_region(
        self, lock: Ref, kind: str, at: Node, extent: Node, extent_end: Node | None = None, call: int = -1
    ) -> int:
        region_id = self._new_id()
        end_line = _pos(extent_end if extent_end is not None else extent)[2]
        outer = tuple(self._fn.region_stack)
        self._fn.regions.append(Region(region_id, lock, kind, _pos(at), end_line, outer, call))
        self._fn.region_stack.append(region_id)
        return region_id

    def _close_region(
        self, opened: list[tuple[Ref, int]], lock: Ref | None, suspended: list[tuple[int, int]] | None = None
    ) -> None:
        for index in range(len(opened) - 1, -1, -1):
            if opened[index][0] == lock:
                self._fn.region_stack.remove(opened[index][1])
                del opened[index]
                return
        if suspended is not None:
            self._fn.suspend_acquired(lock, suspended)

    def _v_synchronized_statement(self, node: Node) -> None:
        target = _unparenthesized(_code_children(node)[0])
        self._with_flow(target, Flow())
        lock = self._monitor(target)
        region = self._open_region(lock, "with", node, node) if lock is not None else None
        self._visit(node.child_by_field_name("body"))
        if region is not None:
            self._fn.region_stack.remove(region)

    def _monitor(self, target: Node) -> Ref | None:
        """The monitor `synchronized (target)` holds: an object's, or a class's own (`C.class`)."""
        path = self._class_object(target) if target.type == "class_literal" else self._path(target)
        return None if path is None else path._replace(attrs=(*path.attrs, MONITOR))

    def _class_object(self, literal: Node) -> Ref | None:
        """The path of the class object a class literal (`C.class`) is."""
        path = self._path(_code_children(literal)[0]) if _code_children(literal) else None
        return None if path is None else path._replace(attrs=(*path.attrs, CLASS_OBJECT))

    def _v_expression_statement(self, node: Node) -> None:
        for child in _code_children(node):
            self._with_flow(child, Flow())
        if _ends_the_process(node):
            self._exit(node, thrown=True)

    def _v_local_variable_declaration(self, node: Node) -> None:
        type_node = node.child_by_field_name("type")
        declared = self._annotation(type_node)
        for declarator in node.children_by_field_name("declarator"):
            name_node = declarator.child_by_field_name("name")
            value = declarator.child_by_field_name("value")
            self._with_flow(value, Flow(FLOW_ASSIGN, (self._fn.name_declared_at(_text(name_node), name_node),)))
            after_name = _dimensions_written(declarator)
            name = self._declare_local(name_node, type_node, declared, value, after_name)
            if value is not None:
                self._fn.declarators[name] = declarator
            viewed = self._lock_viewed(value)
            value_call, value_ref = (-1, viewed) if viewed is not None else self._value_of(value)
            self._fn.binds.append(
                Bind(name, self._site(declarator), "assign", value_call, value_ref,
                     annotation="" if after_name else declared, literal=_is_literal(value))
            )
            self._store_values(Ref(self._fn.qualname, name), value)

    def _declare_local(
        self, name_node: Node, type_node: Node, declared: str, value: Node | None, after_name: int
    ) -> str:
        """A local declared with `type_node` (the class `declared`, `after_name` more dimensions of
        array) and given `value`: `var n = 2 * size;` is a number as its value is, `var m = new
        Msg(1);` a `Msg`. Its name in the function."""
        if _text(type_node) == "var":
            written = self._static_type(_unparenthesized(value)) if value is not None else ""
            scalar = value is not None and self._is_scalar(value)
        else:
            written = _value_type_written(type_node, after_name, self._bounded)
            scalar = not after_name and _is_scalar_type(type_node)
        local = self._declare(name_node, scalar, written or ("" if after_name else declared))
        if written.endswith("[]"):
            self._fn.arrays.add(local)
        return local

    def _lock_viewed(self, value: Node | None) -> Ref | None:
        """The read-write lock whose view `value` takes (`rw.readLock()`, not a `StampedLock`'s,
        which returns a stamp): a local holding the view is an alias of that lock, held as it is."""
        value = _unparenthesized(value) if value is not None else None
        if value is None or value.type != "method_invocation" or _method_called(value) not in idioms.READ_WRITE_VIEWS:
            return None
        receiver = value.child_by_field_name("object")
        if receiver is None or self._stamped_lock_called(value, idioms.STAMP_LOCK_METHODS, arguments=0) is not None:
            return None
        return self._path(receiver)

    def _v_return_statement(self, node: Node) -> None:
        flow = self._inlined_return if self._inlined else Flow(FLOW_RETURN)
        for child in _code_children(node):
            self._with_flow(child, flow)
            # A returned lambda, or one an arm of a returned conditional or `switch` gives: what
            # `check()` of `check().and(p)` gives, run where that is tested.
            functions = [self._function_value(arm) for arm in _conditional_arms(child)] if not self._inlined else []
            self._fn.stored.extend(Stored(None, False, value_function=function) for function in functions if function)
            if not self._inlined:
                # `return new Drain[] {new SlowDrain()};`, `return List.of(this::check);`: what walking
                # the result gives, as a local given it keeps.
                self._store_written_out(None, child)
        self._exit(node)

    def _v_throw_statement(self, node: Node) -> None:
        for child in _code_children(node):
            self._visit(child)
        self._exit(node, thrown=True)

    def _exit(self, node: Node, thrown: bool = False) -> None:
        """A `return` or `throw`: nothing after it in its block runs on its path (but the `finally`
        clauses around it, and for a `throw` the `catch` clauses of the `try` statements whose body
        holds it). A `throw` in a lambda read in place leaves the call running it, as one there
        would; a `return` there ends the lambda's run (see `_lambda_returned`)."""
        block = _block_ended(node)
        if self._inlined and not thrown:
            self._fn.exits.append(self._lambda_returned(node, block, self._inlined[-1]))
            return
        catches = tuple(self._catch_blocks) if thrown else ()
        finals = tuple(self._finally_blocks)
        end = Exit(_pos(node), _pos(block), finals, handler_blocks=catches, raised=thrown)
        self._fn.exits.append(self._catching[-1].goes_on(end) if thrown and self._catching else end)

    def _lambda_returned(self, node: Node, block: Node, function: Pos) -> Exit:
        """A `return` in the lambda `function` read in place: nothing more of the lambda runs on its
        path, as a `continue` ends a loop's turn (of a batch loop's body, the element's; of an arm of
        `ifPresentOrElse`, the arm), but the `finally` clauses inside it; the path goes on after."""
        finals = tuple(final for final in self._finally_blocks if within(final, function))
        return Exit(_pos(node), _pos(block), finals, leaves_loop=True, continued=function)

    def _v_try_statement(self, node: Node) -> None:
        catches = [child for child in _code_children(node) if child.type == "catch_clause"]
        if catches:
            # A pass runs at most one `catch`, and maybe none.
            self._fn.branches.append(Branches(_pos(node), tuple(_pos(catch) for catch in catches)))
        body = node.child_by_field_name("body")
        if body is not None:
            # The body may be left part-way, by an exception caught here or further out.
            self._fn.branches.append(Branches(_pos(node), (_pos(body),)))
            if all(block is not None and _leaves(block) for block in _catch_blocks(node)):
                # No `catch` block completes normally: what follows the statement runs past the body's end.
                spans = _past(node, _rest_past(node))
                if spans:
                    self._fn.ran_through.append(RanThrough((_pos(body),), spans))
        final = next((child for child in _code_children(node) if child.type == "finally_clause"), None)
        if final is not None:
            self._finally_blocks.append(_pos(final))
        resources: list[int] = []
        outer_scopes = len(self._fn.scopes)
        for child in _code_children(node):
            # Nodes are compared by value: each access to a child makes a new wrapper object.
            if child == body:
                self._visit_try_body(node, child, catches, closing=bool(resources))
                for region_id in reversed(resources):
                    self._fn.region_stack.remove(region_id)
                # The resources are in scope in the body alone, not in the `catch` and `finally` clauses.
                del self._fn.scopes[outer_scopes:]
            elif child.type == "resource_specification" and body is not None:
                self._fn.scopes.append(set())
                resources = self._open_resources(child, body)
            elif child != final:
                self._visit(child)
        if final is not None:
            self._finally_blocks.pop()
            self._visit(final)

    _v_try_with_resources_statement = _v_try_statement

    def _visit_try_body(self, statement: Node, body: Node, catches: list[Node], closing: bool) -> None:
        """A `try` body, where a `throw` may go on in the statement's `catch` clauses, and after
        the statement where one of them may end without leaving; with `closing` resources, whose
        `close()` runs where the body ends on every way out of it, as a `finally` clause does."""
        self._catch_blocks.extend(_pos(catch) for catch in catches)
        catching = _catch(statement, catches)
        if catching is not None:
            self._catching.append(catching)
        if closing:
            self._finally_blocks.append(_closed_at(body))
        self._visit(body)
        if closing:
            self._finally_blocks.pop()
        if catching is not None:
            self._catching.pop()
        del self._catch_blocks[len(self._catch_blocks) - len(catches) :]

    def _open_resources(self, resources: Node, body: Node) -> list[int]:
        """The resources of a try-with-resources, each read, then held as a region to the end of
        `body` (ids, outermost first), where its `close()` runs, as a `with` item's `__exit__` does.
        A resource made by a call or named by a path (`try (held)`) is one; another holds nothing."""
        opened = []
        for resource in _code_children(resources):
            self._visit(resource)
            # `R r = open()` or `held`: the value is the last part of either.
            value_call, value_ref = self._value_of(_code_children(resource)[-1])
            if value_call < 0 and value_ref is None:
                continue
            site = self._site(resource)
            region_id = self._open_region(value_ref or _NO_REF, RESOURCE, resource, body, call=value_call)
            self._fn.entered.append(Entered(region_id, site, site._replace(pos=_closed_at(body))))
            opened.append(region_id)
        return opened

    def _v_break_statement(self, node: Node) -> None:
        """`break;` or `break label;`: nothing after it in its block runs on its path, which goes on
        after the statement it ends (the innermost loop or `switch`; the labelled block or loop),
        through the `finally` clauses inside it."""
        target = _broken_by(node)
        if target is not None:
            self._jump(node, _pos(target), ends_it=True)

    def _v_continue_statement(self, node: Node) -> None:
        """`continue;` or `continue label;`: nothing after it in its block runs on its path, nor the
        rest of the body of the loop it goes back to on this turn; the next turn does, and what
        follows the loop. The `finally` clauses inside that body run on the way."""
        body = _continued_body(node)
        if body is not None:
            self._jump(node, _pos(body), ends_it=False)

    def _jump(self, node: Node, left: Pos, ends_it: bool) -> None:
        """The exit of a `break` (`ends_it`: the statement `left`) or `continue` (the turn of the
        loop whose body is `left`), through the `finally` clauses inside `left` (in a lambda, a
        statement inside it)."""
        block = _block_ended(node)
        finals = tuple(final for final in self._finally_blocks if within(final, left))
        ended, continued = (left, None) if ends_it else (None, left)
        end = Exit(_pos(node), _pos(block), finals, leaves_loop=True, ended_loop=ended, continued=continued)
        self._fn.exits.append(end)

    def _v_labeled_statement(self, node: Node) -> None:
        """`label: { ... break label; ... }`: a block a `break` may leave part-way, an arm of its own.
        Not a labelled loop: `break label;` leaves it as a `break` in its body does, and its test
        and init run wherever the statement does."""
        if _code_children(node)[-1].type not in _LOOPS:
            self._fn.branches.append(Branches(_pos(node), (_pos(node),)))
        for child in _code_children(node):
            self._visit(child)

    def _v_switch_expression(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        arms = _switch_arms(body) if body is not None else []
        if arms:
            spans = tuple(_span(groups[0], groups[-1]) for groups in arms)
            # A pass may also enter an arm at a group the one before falls into, and run the rest.
            entered = tuple(_span(group, groups[-1]) for groups in arms for group in groups[1:])
            self._fn.branches.append(Branches(_pos(node), spans, _has_default(body), fallen_into=entered))
            if _is_switch_statement(node):
                left = [span for groups, span in zip(arms, spans) if _arm_leaves(node, groups)]
                self._record_leaving_arms(node, _rest_past(node), left)
        # The value switched on picks the arm: a decision, as a `match`'s subject is in Python (or,
        # where the switch gives a value, as a conditional expression's test, a compared value).
        decision = Flow(FLOW_CONDITION) if _is_switch_statement(node) else self._flow._replace(compared=True)
        self._with_flow(node.child_by_field_name("condition"), decision)
        if body is not None:
            with self._scope():  # its groups share one block
                self._switch_expression_body(body)

    def _switch_expression_body(self, body: Node) -> None:
        """The arms of a switch expression: `case 1 -> value;` gives its value where the switch's
        goes (as `yield value;` does), not to a statement of its own. The variables of a label's
        pattern are in scope in its arm alone (`_v_switch_label`)."""
        for group in _code_children(body):
            if group.type != "switch_rule":
                self._visit(group)
            else:
                for part in _code_children(group):
                    if part.type == "expression_statement":
                        for expression in _code_children(part):
                            self._visit(expression)
                    else:
                        self._visit(part)
            labels = [label for label in _code_children(group) if label.type == "switch_label"]
            self._fn.scopes[-1] -= {name for label in labels for name in _case_variables(label)}

    def _v_switch_label(self, node: Node) -> None:
        """`case Long epoch when epoch > 0`: the pattern's variables, of the switch's subject, in
        scope in the guard and the arm, and those the guard tests where it holds, in the arm; all
        in the switch's block, to be gone at the arm's end (`_switch_expression_body`)."""
        switch = node.parent.parent.parent if node.parent and node.parent.parent else None
        subject = switch.child_by_field_name("condition") if switch is not None else None
        for child in _code_children(node):
            if child.type == "pattern":
                self._declare_pattern(child, _unparenthesized(subject) if subject is not None else None)
                self._fn.scopes[-1] |= _pattern_names(child)
            else:
                self._visit(child)
        self._fn.scopes[-1] |= _case_variables(node)

    def _v_if_statement(self, node: Node) -> None:
        condition = node.child_by_field_name("condition")
        self._with_flow(condition, Flow(FLOW_CONDITION))
        consequence = node.child_by_field_name("consequence")
        self._held(condition, _pos(consequence))
        tested = _tested_lock(_unparenthesized(condition), self._try_lock_results())
        region = None
        if tested is not None and (lock := self._lock_ref(tested[0])) is not None:
            region = (lock, self._open_region(lock, "try_acquire", tested[1], consequence))
        arm, local = _tested_local(condition)
        if arm == 2:
            # `if (epoch == null)` or `if (!epoch.isPresent())`: the body runs only when it holds nothing.
            self._fn.fallbacks.append(Fallback(local, _pos(consequence)))
        alternative = node.child_by_field_name("alternative")
        head = _else_if_head(node)
        goes_on = alternative is not None and self._goes_on_in_this_block(node, head)
        with self._scope(_pattern_variables(condition, holds=True)):
            kept = self._visit_arm(consequence, goes_on and _leaves(alternative), region)
        rest = _rest_past(head) if head is not None else ()
        if rest and _leaves(consequence):
            # `if (ok || (e = cur()) == null) return;`: the rest of the block runs where the test failed
            # (after an `else if`, the rest of the block after the whole chain).
            self._held(condition, *rest, held=False)
        if rest and alternative is not None and _leaves(alternative):
            # `if ((e = cur()) != null) { ... } else return;`: the rest of the block runs where the test
            # held (after an `else if`, the rest of the block after the whole chain).
            self._held(condition, *rest)
        if alternative is None:
            # One arm, which may not run.
            self._fn.branches.append(Branches(_pos(node), (_pos(consequence),)))
            if arm == 1 and _leaves(consequence):
                # `if (cur != null) return cur;`: the rest of the block runs only when cur holds nothing
                # (after an `else if`, the rest of the block after the whole chain).
                self._fn.fallbacks.extend(Fallback(local, span) for span in rest)
        else:
            self._fn.branches.append(Branches(_pos(node), (_pos(consequence), _pos(alternative)), exhaustive=True))
            self._record_leaving_arms(node, rest, [_pos(part) for part in (consequence, alternative) if _leaves(part)])
            self._held(condition, _pos(alternative), held=False)
            if arm == 1:
                # `if (cur != null) ... else <runs only when cur holds nothing>`
                self._fn.fallbacks.append(Fallback(local, _pos(alternative)))
            refused = _refused_lock(condition, self._try_lock_results())
            refused_region = None
            if refused is not None and (lock := self._lock_ref(refused[0])) is not None:
                # `if (!L.tryLock()) ... else ...`: the `else` runs holding L.
                refused_region = (lock, self._open_region(lock, "try_acquire", refused[1], alternative))
            # `if (lock == null) return false; else lock.lock();`: the rest runs past the `else` alone.
            alone = goes_on and _leaves(consequence) and alternative.type != "if_statement"
            with self._scope(_pattern_variables(condition, holds=False)):
                kept += self._visit_arm(alternative, alone, refused_region)
        if kept:
            self._keep_held(kept)
        self._fn.scopes[-1] |= _patterns_after(node)

    def _record_leaving_arms(self, statement: Node, rest: tuple[Pos, ...], arms: list[Pos]) -> None:
        """Record `arms`, arms of `statement` that cannot complete normally (see `LeavingArm`), with
        the code past it (see `_past`)."""
        spans = _past(statement, rest) if arms else ()
        if spans:
            self._fn.leaving_arms.extend(LeavingArm(arm, spans) for arm in arms)

    def _visit_arm(self, arm: Node, goes_on_alone: bool, region: tuple[Ref, int] | None) -> list[tuple[Ref, int]]:
        """Visit an arm of an `if` statement holding `region` (the tested lock's, if any): where the
        rest of the block runs past it alone, the held regions it left open, which stay held there."""
        if not goes_on_alone:
            self._visit(arm)
            if region is not None and region[1] in self._fn.region_stack:
                self._fn.region_stack.remove(region[1])
            return []
        statements = _code_children(arm) if arm.type == "block" else [arm]
        with self._scope():
            # Held from the arm's start, so that an unlock there ends the tested region.
            return self._block(statements, held=(region,) if region is not None else ())

    def _goes_on_in_this_block(self, statement: Node, head: Node | None) -> bool:
        """Whether the block being read holds the `if` statement `statement`, or `head`, the one
        starting the chain whose `else if` arm it is: the rest of that block runs after it."""
        statements = self._opened_in_blocks[-1][0] if self._opened_in_blocks else []
        chain = {statement.id} if head is None else {statement.id, head.id}
        return any(each.id in chain for each in statements)

    def _keep_held(self, regions: list[tuple[Ref, int]]) -> None:
        """`if (lock != null) { lock.lock(); } else { return; }` (or `if (lock.tryLock())`): the
        regions the body left open are held in the rest of the block, where they end."""
        self._fn.region_stack.extend(region_id for _, region_id in regions)
        self._opened_in_blocks[-1][1].extend(regions)

    def _loop(self, kind: str, header: Node, batch: bool, iterable: str = "") -> int:
        """A `while`, `do` or `for` statement (`header`, the whole of it) being walked."""
        loop_id = self._new_id()
        body = header.child_by_field_name("body")
        body_pos = _pos(body) if body is not None else None
        updates = header.children_by_field_name("update")
        update = _span(updates[0], updates[-1]) if updates else None
        condition = header.child_by_field_name("condition")
        self._fn.loops.append(
            Loop(
                loop_id,
                kind,
                self._site(header),
                batch,
                iterable,
                body=body_pos,
                runs_once=_runs_once(header),
                update=update,
                test=_pos(condition) if condition is not None else None,
            )
        )
        self._fn.loop_stack.append(loop_id)
        if header.type != "do_statement" and condition is not None and body is not None:
            self._held(condition, _pos(body))
        statement = _labelled_as(header)
        if condition is not None and statement.parent is not None and statement.parent.type in _BLOCKS:
            if not _left_by_break(header) and not _left_by_break(statement):
                # The rest of the block runs only where the test failed, the last time it ran.
                self._held(condition, _span_after(statement, statement.parent), held=False)
        return loop_id

    def _held(self, condition: Node, *spans: Pos, held: bool = True) -> None:
        """Record that `spans` run only where `condition` held (or, not `held`, failed: see `Held`)."""
        self._fn.held.append(Held(tuple(_pos(operand) for operand in _ran_operands(condition, held)), spans, not held))

    def _v_while_statement(self, node: Node) -> None:
        condition, body = node.child_by_field_name("condition"), node.child_by_field_name("body")
        # A `do` loop's body runs once before its condition is tested.
        tested = self._try_lock_on_every_pass(condition, body) if node.type == "while_statement" else None
        self._loop("while", node, batch=False)
        self._with_flow(condition, Flow(FLOW_CONDITION))
        # A `do` body runs before its test: none of its pattern variables is in scope there.
        tested_patterns = node.type == "while_statement" and condition is not None
        with self._scope(_pattern_variables(condition, holds=True) if tested_patterns else set()):
            if tested is None:
                self._visit(body)
            else:
                self._visit_held(body, *tested)
        self._fn.loop_stack.pop()
        self._fn.scopes[-1] |= _patterns_after_loop(node)

    def _visit_held(self, body: Node, lock: Ref, call: Node) -> None:
        """Visit the body of a loop whose test is a successful `tryLock` of `lock` (RULES.md, Held
        region): held from its start up to an unlock in it (not one in a nested block, which
        leaves the block or takes the lock again)."""
        region = self._open_region(lock, "try_acquire", call, body)
        if body.type == "block":
            with self._scope():
                self._block(_code_children(body), held=((lock, region),))
        else:
            self._visit(body)
        if region in self._fn.region_stack:
            self._fn.region_stack.remove(region)

    def _try_lock_on_every_pass(self, condition: Node, body: Node) -> tuple[Ref, Node] | None:
        """The lock, and the call, whose successful `tryLock` lets each pass of a `while` loop into
        its body: `L.tryLock(...)` in the condition (alone or an operand of `&&`), or a local
        holding its result that every path into the condition leaves holding it
        (`_try_lock_kept_each_pass`)."""
        for operand in _and_operands(_unparenthesized(condition)):
            if operand.type == "identifier":
                tried = self._try_lock_kept_each_pass(_text(operand), body)
            else:
                tried = _try_lock_call(operand)
            lock = self._lock_ref(tried[0]) if tried is not None else None
            if tried is not None and lock is not None:
                return lock, tried[1]
        return None

    def _try_lock_kept_each_pass(self, local: str, body: Node) -> tuple[Node, Node] | None:
        """The `tryLock` whose result `local` holds at a `while (local)` loop, where it was assigned
        in the loop's own pass of every enclosing loop (a pass of one back to the `while` may come
        after an unlock) and every path through `body` back to the condition (its end, a
        `continue`) assigns `local` a `tryLock` of that lock again, with no unlock after."""
        tried = self._try_lock_results().get(local)
        if tried is None or self._fn.acquire_result_loops.get(local) != tuple(self._fn.loop_stack):
            return None
        lock = self._lock_ref(tried[0])
        kept = lock is not None and _TryLockKept(local, lock, self._lock_ref, body).through_each_pass()
        return tried if kept else None

    def _v_do_statement(self, node: Node) -> None:
        self._v_while_statement(node)

    def _v_for_statement(self, node: Node) -> None:
        # The locals its header declares are in scope in the loop alone; the pattern variables its
        # test leaves where it fails, after it too.
        with self._scope():
            for init in node.children_by_field_name("init"):
                self._visit(init)
            condition = node.child_by_field_name("condition")
            # `for (i = 0; i < batch.size(); i++)`, `for (i = batch.size() - 1; i >= 0; i--)` and
            # `for (it = batch.iterator(); it.hasNext();)` walk a collection; `i < 3` or `i < retries` counts.
            header = [*node.children_by_field_name("init"), *([condition] if condition is not None else [])]
            counts_collection = any(_walks_collection(part) for part in header)
            self._loop("for", node, batch=counts_collection, iterable=_text(condition) if condition else "")
            self._with_flow(condition, Flow(FLOW_CONDITION))
            with self._scope(_pattern_variables(condition, holds=True) if condition is not None else set()):
                self._visit(node.child_by_field_name("body"))
                for update in node.children_by_field_name("update"):
                    self._with_flow(update, Flow())
            self._fn.loop_stack.pop()
        self._fn.scopes[-1] |= _patterns_after_loop(node)

    def _v_enhanced_for_statement(self, node: Node) -> None:
        value = node.child_by_field_name("value")
        self._with_flow(value, Flow(FLOW_ITER))
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        header = _span(node, value)
        loop_id = self._new_id()
        site = self._site(node)._replace(pos=header)
        batch = not self._walks_no_batch(value)
        self._fn.loops.append(Loop(loop_id, "for", site, batch, _text(value), body=_pos(body) if body else None))
        self._fn.loop_stack.append(loop_id)
        type_node = node.child_by_field_name("type")
        annotation = self._annotation(type_node)
        # `for (Msg[] group : groups)` (or `Msg group[]`): `group` is a `Msg[]`, as a local declared so is.
        after_name = _dimensions_written(node)
        if after_name:  # an array, of no class (`Msg` is used all the same)
            annotation = ""
        written = _value_type_written(type_node, after_name, self._bounded)
        scalar = not after_name and _is_scalar_type(type_node)
        if _text(type_node) == "var":  # of the elements of the array it walks, where it is declared so
            written, annotation, scalar = self._element_of_array(value)
        local = self._declare(name_node, scalar, written or annotation)
        if written.endswith("[]"):
            self._fn.arrays.add(local)
        value_call, value_ref = self._value_of(value)
        self._fn.binds.append(Bind(local, self._site(name_node), "iter", value_call, value_ref, annotation=annotation))
        self._visit(body)
        self._fn.loop_stack.pop()

    def _element_of_array(self, iterable: Node) -> tuple[str, str, bool]:
        """The type of the elements of `iterable` where it is a local, a parameter or a field
        declared as an array (`Msg[] batch`, `Msg... batch`): as a declaration writes it, a
        primitive or an array (`long`, `Msg[]` of a `Msg[][]`), or a class as an annotation names
        it, and whether it is a number or a flag; ("", "", False) for another iterable (a
        collection's elements, by its type arguments, are the program's to find)."""
        declared = self._declared_type(iterable)
        if not declared.endswith("[]"):
            return "", "", False
        element = declared[:-2]
        if element.endswith("[]") or element in idioms.PRIMITIVE_TYPES:
            return element, "", element in idioms.SCALAR_TYPES
        return "", self._type_named(element), element in idioms.SCALAR_TYPES

    def _v_catch_formal_parameter(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        caught: list[Node] = next((_code_children(c) for c in _code_children(node) if c.type == "catch_type"), [])
        alternatives = [self._annotation(alternative) for alternative in caught]
        # A multi-catch parameter is of its alternatives' common supertype, which a file does not
        # tell: written `A | B`, the program finds the one among the project's classes, if any.
        declared = " | ".join(alternatives) if all(alternatives) else ""
        local = self._declare(name, declared=declared if len(caught) == 1 else "")
        if declared:
            self._fn.binds.append(Bind(local, self._site(name), "assign", -1, None, annotation=declared))

    def _v_resource(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is not None:
            self._with_flow(value, Flow(FLOW_ASSIGN, (self._fn.name_declared_at(_text(name), name),)))
            type_node = node.child_by_field_name("type")
            # `try (var r = new Res())` is of the class made, `try (Res r = open())` of the one declared.
            declared = self._annotation(type_node)
            local = self._declare_local(name, type_node, declared, value, _dimensions_written(node))
            value_call, value_ref = self._value_of(value)
            bind = Bind(local, self._site(name), "with", value_call, value_ref, annotation=declared)
            self._fn.binds.append(bind)
        else:
            for child in _code_children(node):
                self._with_flow(child, Flow())

    # -- expressions ---------------------------------------------------------------------------

    def _v_identifier(self, node: Node) -> None:
        ref = self._resolve(_text(node))
        if ref is not None:
            self._fn.accesses.append(Access(ref, self._site(node), self._flow))

    def _v_this(self, node: Node) -> None:
        ref = self._this_ref(())
        if ref is not None:
            self._fn.accesses.append(Access(ref, self._site(node), self._flow))

    def _v_field_access(self, node: Node) -> None:
        self._visit_indices(node)
        ref = self._path(node)  # after the call a field is read on, if any, is visited
        if ref is not None:
            self._fn.accesses.append(Access(ref, self._site(node), self._flow))

    def _v_array_access(self, node: Node) -> None:
        self._v_field_access(node)

    def _v_binary_expression(self, node: Node) -> None:
        operator = _text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator in ("&&", "||"):
            kind = "and" if operator == "&&" else "or"
            self._fn.choices.append(Choice(kind, _pos(node), (_pos(left), _pos(right)), self._flow))
            self._visit(left)
            # The right operand runs where the left holds (`&&`) or fails (`||`).
            with self._scope(_pattern_variables(left, holds=kind == "and")):
                self._visit(right)
            return
        flow = self._flow
        if operator in _COMPARISONS:
            # Which values are compared with which (a snapshot re-validated against the live field).
            self._fn.comparisons.append(_pos(node))
            flow = flow._replace(compared=True)
        self._with_flow(left, flow)
        self._with_flow(right, flow)

    def _v_ternary_expression(self, node: Node) -> None:
        condition = node.child_by_field_name("condition")
        present_arm, tested = _present_arm(condition)
        consequence, alternative = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        arms = (_pos(consequence), _pos(alternative))
        # The test's part is the value it tests: an `Optional`'s own value, not the boolean it gives.
        parts = (_pos(tested if tested is not None else condition), *arms)
        self._fn.choices.append(Choice("if", _pos(node), parts, self._flow, present_arm))  # type: ignore[arg-type]
        # The condition is a part of the choice, as in Python: `cur != null ? cur : hist` is a fallback;
        # of `cur.isPresent()`, the `Optional` is read as a comparison's operands are.
        self._visit(tested if tested is not None else condition)
        self._held(condition, _pos(consequence))
        self._held(condition, _pos(alternative), held=False)
        with self._scope(_pattern_variables(condition, holds=True)):
            self._visit(consequence)
        with self._scope(_pattern_variables(condition, holds=False)):
            self._visit(alternative)

    def _v_cast_expression(self, node: Node) -> None:
        self._visit(node.child_by_field_name("value"))

    def _v_instanceof_expression(self, node: Node) -> None:
        self._visit(node.child_by_field_name("left"))
        self._declare_pattern(node, node.child_by_field_name("left"))

    def _declare_pattern(self, pattern: Node, subject: Node | None) -> None:
        """The variables of `pattern` (see `_pattern_bindings`), in scope where their test holds
        (`_pattern_variables`): `o instanceof C c`'s, of the type tested, the object `subject` is;
        a record pattern's components, of the types they write, a `var` one of its record's
        component at its place (which the program finds: the record may be another file's)."""
        for name, written in _pattern_bindings(pattern):
            is_var = written is not None and _text(written) == "var"
            declared = self._type(written) if written is not None and not is_var else ""
            local = self._declare(name, declared=declared, scoped=False)
            component = name.parent
            if component is None or component.type != "record_pattern_component":
                value_call, value_ref = self._value_of(subject)
                bind = Bind(local, self._site(name), "assign", value_call, value_ref, annotation=declared)
            elif is_var:
                record, index = self._component_place(component)
                bind = Bind(local, self._site(name), "component", annotation=record, index=index)
            else:
                bind = Bind(local, self._site(name), "assign", annotation=declared)
            self._fn.binds.append(bind)

    def _component_place(self, component: Node) -> tuple[str, int]:
        """The record class a record pattern's component is of (`Held` of `Held(var mark, var
        topic)`, written plainly or with type arguments), and the component's place in it."""
        body = component.parent
        record = _code_children(body.parent)[0]
        index = next(place for place, child in enumerate(_code_children(body)) if child.id == component.id)
        if record.type == "identifier":  # tree-sitter reads a record pattern's plain class name so
            self._used_types.add(_text(record))
            return _text(record), index
        return self._type(record), index

    def _v_lambda_expression(self, node: Node) -> None:
        self._lambda(node)

    def _v_method_reference(self, node: Node) -> None:
        self._hold_reference_receiver(node)
        ref = self._method_reference(node)
        if ref is not None:
            self._fn.accesses.append(Access(ref, self._site(node), self._flow))

    def _v_class_literal(self, node: Node) -> None:
        return

    def _v_assignment_expression(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = _text(node.child_by_field_name("operator"))
        left = _unparenthesized(left)
        self._hold_store_target_call(left)
        ref = self._path(left)
        is_local = ref is not None and not ref.attrs and ref.scope != ""
        flow = Flow(FLOW_ASSIGN, (ref.name,)) if is_local and ref else Flow(FLOW_ASSIGN, stores=(ref,) if ref else ())
        self._with_flow(right, flow)
        if operator != "=":
            self._with_flow(left, flow)
        else:
            self._visit_indices(left)
        if ref is None:
            return
        self._store(left, ref, right, "assign" if operator == "=" else "augassign",
                    bump=operator == "+=" or (operator == "=" and self._adds_to(right, left, ref)))

    def _adds_to(self, value: Node, target: Node, ref: Ref) -> bool:
        """`x = x + k` or `x = k + x`: a bump of x (`epoch = this.epoch + 1` too: one field, named two
        ways; and `getState().epoch = getState().epoch + 1`: one field of two results of one call)."""
        return _sum_of(
            _unparenthesized(value),
            lambda operand: self._path(operand) == ref or self._one_field_of_one_call(operand, target),
        )

    def _one_field_of_one_call(self, read: Node, target: Node) -> bool:
        """Whether a read and a store target are the same path on the results of two calls that
        name one object (`getState().epoch` and `this.getState().epoch`)."""
        read_ref, target_ref = self._path(read), self._path(target)
        if read_ref is None or target_ref is None or read_ref.attrs != target_ref.attrs:
            return False
        return self._one_result(_chain(read)[-1], _chain(target)[-1])

    def _one_result(self, first: Node, second: Node) -> bool:
        """Two calls of one method without arguments on one receiver (none being `this`)."""
        if not (_is_call_without_arguments(first) and _is_call_without_arguments(second)):
            return False
        if _method_called(first) != _method_called(second):
            return False
        first_receiver, second_receiver = first.child_by_field_name("object"), second.child_by_field_name("object")
        receiver_ref = self._receiver_ref(first_receiver)
        if receiver_ref is not None and receiver_ref == self._receiver_ref(second_receiver):
            return True
        if first_receiver is None or second_receiver is None:
            return False
        # `consumer().getState().epoch`: the receivers are calls that must name one object too.
        return self._one_result(_unparenthesized(first_receiver), _unparenthesized(second_receiver))

    def _receiver_ref(self, receiver: Node | None) -> Ref | None:
        """The name path a call's receiver is; `this` for a call with none, as its callee is."""
        return self._this_ref(()) if receiver is None else self._path(receiver)

    def _v_update_expression(self, node: Node) -> None:
        target = _unparenthesized(_code_children(node)[0])
        self._with_flow(target, self._flow)
        ref = self._path(target)  # after the call the field is bumped on, if any, is visited
        if ref is not None:
            self._store(target, ref, None, "augassign", bump="++" in _text(node))

    def _store(self, target: Node, ref: Ref, value: Node | None, kind: str, bump: bool) -> None:
        is_item = bool(ref.attrs) and ref.attrs[-1] == "[]"
        stripped = ref._replace(attrs=_strip_items(ref.attrs))
        value_call, value_ref = self._value_of(value)
        function = self._function_value(value)
        if stripped.attrs or stripped.scope == "":
            self._fn.writes.append(
                Write(
                    stripped, self._site(target), "item" if is_item else kind, bump, value_call, value_ref,
                    value_empty=self._is_new_empty(value), value_function=function,
                )
            )
        if not ref.attrs and ref.scope:
            self._fn.binds.append(
                Bind(ref.name, self._site(target), "assign", value_call, value_ref, literal=_is_literal(value))
            )
            self._store_values(ref, value)
        elif stripped.attrs and not is_item:
            self._store_values(stripped, value)

    def _store_values(self, target: Ref, value: Node | None) -> None:
        """A lambda bound to a local (`Predicate<Msg> p = m -> ...`): called where the local is (a
        field's write keeps its own). Of a conditional (`fast ? this::drainFast : m ->
        drainSlow(m)`) or a `switch` expression (`case 0 -> this::drainFast;`) bound to a local or
        a field, each arm's value, a lambda, a method reference, a call or a name path, any of which
        it may hold: its bind or write names no one value. An arm of none of those (`handlers[0]`),
        `null` aside, is kept with no value: it may hold anything its declaration allows."""
        arms = _conditional_arms(value) if value is not None else []
        if len(target.attrs) < 2 and value is not None:
            self._store_elements(target, value)
        if len(arms) < 2 and target.attrs:
            return
        for arm in arms:
            if function := self._function_value(arm):
                self._fn.stored.append(Stored(target, False, value_function=function))
            elif len(arms) > 1 and (known := self._value_of(arm)) != (-1, None):
                self._fn.stored.append(Stored(target, False, known[1], known[0]))
            elif len(arms) > 1 and not _is_literal(arm):
                self._fn.stored.append(Stored(target, False))

    def _store_elements(self, target: Ref, value: Node) -> None:
        """A local or a field (`this.drains`, or where it is declared: kept in the class body) given
        a collection: one made empty (`new ArrayList<>()`), marked as Python's `[]` is so that what
        its `add` is given counts as its elements, or one written out (`List.of(this::drainSlow, m
        -> drainFast(m))`), whose elements are each argument's value (a lambda, a method reference,
        a call or a name path), at no known key, or a copy of another (see `_collection_copied`)."""
        value = _unparenthesized(value)
        if self._is_new_empty(value) and _makes_a_collection(value):
            made = _class_made_empty(value)
            # Only a JDK class's name may be the package's own in its place: another (a package's
            # `HandlerList extends ArrayList`) is the project's, which the mark does not question.
            jdk_class = self._imported_on_demand(made) if self._names_a_jdk_class(made) else ""
            self._fn.stored.append(Stored(target, True, pos=_pos(value), jdk_class=jdk_class))
        elif (copied := self._collection_copied(value)) is None:
            self._store_written_out(target, value)
        else:
            argument, made = copied
            jdk_class = self._imported_on_demand(made)
            if (named := self._value_of(argument)[1]) is not None:
                # `new ArrayList<>(plain)`: each element of `plain`, at no known key.
                elements = named._replace(attrs=(*named.attrs, "[]"))
                stored = Stored(target, True, elements, keys=("",), pos=_pos(value), jdk_class=jdk_class)
                self._fn.stored.append(stored)
            else:
                self._store_written_out(target, argument, jdk_class)  # `new ArrayList<>(List.of(f))`

    def _collection_copied(self, value: Node) -> tuple[Node, str] | None:
        """The collection a JDK collection made of it copies (`plain` of `new ArrayList<>(plain)`,
        of `List.copyOf(plain)`, `List.of(f)` of `new ArrayDeque<>(List.of(f))`), with the name of
        the class making the copy (`ArrayList`, `List`); None for anything else."""
        receiver = value.child_by_field_name("object") if value.type == "method_invocation" else None
        if receiver is not None and _method_called(value) == "copyOf":
            made = _text(receiver)  # `List`, `Set`: the JDK's where it is imported so
        elif value.type == "object_creation_expression" and not value.child_by_field_name("body"):
            made = type_name(value.child_by_field_name("type")) if _makes_a_collection(value) else ""
        else:
            made = ""
        if not made or not self._names_a_jdk_class(made):
            return None  # a class of the project's own: what it keeps of its argument is its own
        arguments = _code_children(value.child_by_field_name("arguments"))
        return (arguments[0], made) if len(arguments) == 1 and not self._is_scalar(arguments[0]) else None

    def _store_written_out(self, target: Ref | None, value: Node, jdk_class: str = "") -> None:
        """Each element of a collection or array written out (see `_written_out_elements`), kept as
        an element of `target` (None: of the value returned); `jdk_class` is that of a copy made of
        it (see `Stored.jdk_class`), else the one writing it out is asked."""
        value = _unparenthesized(value)
        receiver = value.child_by_field_name("object") if value.type == "method_invocation" else None
        jdk_class = jdk_class or (self._imported_on_demand(_text(receiver)) if receiver is not None else "")
        for element in self._written_out_elements(value):
            function = self._function_value(element)
            value_call, value_ref = (-1, None) if function else self._value_of(element)
            if function or value_call >= 0 or value_ref is not None:
                kept = Stored(target, True, value_ref, value_call, function, ("",), _pos(element), jdk_class=jdk_class)
                self._fn.stored.append(kept)

    def _written_out_elements(self, value: Node) -> list[Node]:
        """The elements of a collection written out (`List.of(a, b)`, `Arrays.asList(a, b)`): its
        arguments, unless it is given one array, whose elements it takes (`Stream.of(batch)`); or
        of an array written out (`new Runnable[] {a, b}`, `{a, b}` where one is declared)."""
        initializer = value.child_by_field_name("value") if value.type == "array_creation_expression" else value
        if initializer is not None and initializer.type == "array_initializer":
            return _code_children(initializer)
        receiver = value.child_by_field_name("object") if value.type == "method_invocation" else None
        if receiver is None or (_text(receiver), _method_called(value)) not in idioms.LITERAL_COLLECTIONS:
            return []
        if not self._names_a_jdk_class(_text(receiver)):
            return []  # a class of the project's own named `List`: its `of` may keep nothing
        elements = _code_children(value.child_by_field_name("arguments"))
        return [] if len(elements) == 1 and self._is_array(elements[0]) else elements

    def _names_a_jdk_class(self, name: str) -> bool:
        """Whether the class this file names `name` (`List` of `List.of(...)`) may be the JDK's: one
        imported from a `java.` package, alone or with its whole package. A type the file declares,
        one imported from elsewhere, or one not imported at all (a class of the file's own package)
        is not."""
        if name in self._defined_types:
            return False
        imported = [i.module for i in self._explicit_imports if i.alias == name]
        if imported:
            return all(module.startswith("java.") for module in imported)
        return any(i.module.startswith("java.") for i in self._on_demand_imports)

    def _imported_on_demand(self, name: str) -> str:
        """`name`, where the file takes the class it names for the JDK's (see `_names_a_jdk_class`)
        only through an on-demand import, which a class of its own package may shadow; else ""."""
        named_here = name in self._defined_types or any(i.alias == name for i in self._explicit_imports)
        return "" if named_here else name

    def _is_new_empty(self, value: Node | None) -> bool:
        """`new LinkedBlockingQueue<>()`, `new ArrayBlockingQueue<>(size)`, `List.of()`: a collection
        made without items, as Python's `[]` or `Queue(maxsize)` is. A constructor's arguments must
        be numbers or flags (a capacity, a load factor, a fairness flag) or collections made empty:
        any other argument may be a collection whose items it copies (`new ArrayDeque<>(items)`)."""
        if value is None:
            return False
        value = _unparenthesized(value)
        if _is_empty_factory(value):
            return True
        if value.type != "object_creation_expression" or value.child_by_field_name("body"):
            return False
        arguments = value.child_by_field_name("arguments")
        return arguments is not None and all(
            self._is_scalar(argument) or _is_empty_factory(argument) for argument in _code_children(arguments)
        )

    def _is_scalar(self, node: Node) -> bool:
        """A number or a flag, never a collection: a literal, a constant named in capitals, a local,
        parameter or field declared `int`, `long`, `Integer`, `boolean`..., a `size()`, or
        arithmetic, a cast or a `Math` function of those."""
        node = _unparenthesized(node)
        kind = node.type
        if kind in _SCALAR_LITERALS:
            return True
        if kind == "binary_expression":
            return _text(node.child_by_field_name("operator")) in _ARITHMETIC and all(
                self._is_scalar(node.child_by_field_name(side)) for side in ("left", "right")
            )
        if kind == "unary_expression":
            return self._is_scalar(node.child_by_field_name("operand"))
        if kind == "cast_expression":
            return _is_scalar_type(node.child_by_field_name("type"))
        if kind == "method_invocation":
            arguments = _code_children(node.child_by_field_name("arguments"))
            if _method_called(node) == "size":
                return not arguments
            receiver = node.child_by_field_name("object")
            return receiver is not None and _text(receiver) == "Math" and all(self._is_scalar(a) for a in arguments)
        if kind == "field_access" and node.child_by_field_name("object").type == "this" and self._class_stack:
            return _text(node.child_by_field_name("field")) in self._class_stack[-1].scalar_fields
        if kind != "identifier":
            return False
        name = _text(node)
        scope = self._declaring(name)
        if scope is not None:
            return scope.scalars.get(scope.local_name(name), False)
        declaring = next((cls for cls in reversed(self._class_stack) if name in cls.field_types), None)
        if declaring is not None:
            return name in declaring.scalar_fields
        # A constant declared elsewhere (a base's, an interface's): named in capitals, a number as a rule.
        return _is_constant(name)

    def _value_of(self, value: Node | None) -> tuple[int, Ref | None]:
        if value is None:
            return -1, None
        value = _uncast(value)
        if value.type in ("method_invocation", "object_creation_expression"):
            return self._call_ids.get(value.id, -1), None
        if value.type in ("identifier", "field_access", "this"):
            return -1, self._path(value)
        if value.type == "method_reference":
            # `this::isCurrent` is the method as a value, as Python's `self._is_current` is.
            return -1, self._method_reference(value)
        return -1, None

    # -- calls -----------------------------------------------------------------------------------

    def _v_method_invocation(self, node: Node) -> None:
        obj = node.child_by_field_name("object")
        method = _text(node.child_by_field_name("name"))
        args = _code_children(node.child_by_field_name("arguments"))
        if self._atomic_operation(obj, method, args):
            return
        if method in _COMPOSED_RUNNERS and obj is not None and self._composed_functions(obj):
            self._run_composed(obj, method, args)
            return
        composes = method == "or" and obj is not None and len(args) == 1 and self._composes_functions(obj, args[0])
        if method in _OPTIONAL_FALLBACKS and obj is not None and len(args) == 1 and not composes:
            if self._or_else(node, obj, args[0]):
                return
        if method in idioms.SPOT_METHODS and obj is not None and self._iterating_call(node, obj, method, args):
            return
        if method in idioms.OPTIONAL_EITHER and obj is not None and self._either_call(node, obj, method, args):
            return
        call_id = self._new_id()
        self._call_ids[node.id] = call_id
        flow = self._flow
        callee: Ref | None = None
        receiver_call = -1
        if obj is None:
            callee = self._this_ref((method,))
        else:
            receiver = self._path(obj)
            if receiver is not None and obj.type != "super":
                callee = receiver._replace(attrs=(*receiver.attrs, method))
                self._fn.accesses.append(Access(receiver, self._site(obj), Flow(FLOW_RECEIVER, call=call_id)))
                self._visit_indices(obj)
            elif obj.type == "super":
                receiver_call = self._super_call(obj)
            else:
                self._with_flow(obj, Flow(FLOW_RECEIVER, call=call_id))
                receiver_call = self._call_ids.get(self._stream_kept(obj).id, -1)
        call_args = tuple(self._arg(arg, call_id, index) for index, arg in enumerate(args))
        text = f"{_text(obj)}.{method}" if obj is not None else method
        # Only a call given something can run a function per element (`collect(...)`, `sorted(...)`).
        walks_no_batch = obj is not None and bool(args) and self._walks_no_batch(obj)
        self._fn.calls.append(
            Call(
                call_id, callee, method, text, self._site(node), call_args, receiver_call, flow,
                walks_no_batch=walks_no_batch, composes=composes,
            )
        )
        if method in idioms.MAP_STORES and len(args) >= 2 and callee is not None:
            # `leaderEpochs.put(tp, epoch)` writes into the map, as Python's `leader_epochs[tp] = epoch`
            # does (what it stores types nothing: the value flow reads the call's arguments as before).
            self._store(node, callee._replace(attrs=(*callee.attrs[:-1], "[]")), None, "assign", bump=False)

    def _or_else(self, node: Node, optional: Node, fallback: Node) -> bool:
        """`cur.orElse(hist)`, `cur.orElseGet(() -> hist)`, `cur.or(() -> hist)`: Python's `cur or
        hist`, a choice of the `Optional`'s value or the fallback (the seed's fallback when no current epoch is known).
        A supplier given as a method reference (`cur.or(record::leaderEpoch)`) is called there, as
        `() -> record.leaderEpoch()` is: the fallback is what it returns; one kept in a field, a
        local or a parameter (`cur.orElseGet(fallback)`) runs what that holds, as `fallback.get()`.
        Given to an `or` of no known `Optional` (`base().or(this::isStale)` may be a `Predicate`'s),
        it is kept, not called; on a call's result (`lookup.find(id).or(this::m)`), also called
        where the program finds that call declared to return an `Optional` (`Call.or_of_call`).
        False for a supplier that is not a lambda of one expression: an ordinary call then."""
        fallback = _unparenthesized(fallback)
        if fallback.type == "lambda_expression":
            body = fallback.child_by_field_name("body")
            if body is None or body.type == "block" or _lambda_parameters(fallback.child_by_field_name("parameters")):
                return False
            fallback = body
        self._fn.choices.append(Choice("or", _pos(node), (_pos(optional), _pos(fallback)), self._flow))
        self._visit(optional)
        method = _method_called(node)
        supplies = method == "orElseGet" or method == "or" and self._is_optional(optional)
        if fallback.type in _CALLED_SUPPLIERS and supplies:
            self._element_call(fallback, "get", self._flow, 0)
            return True
        self._visit(fallback)
        root = _optional_chain_root(optional)
        or_of_call = self._call_ids.get(root.id, -1) if root.type == "method_invocation" else -1
        if fallback.type in _CALLED_SUPPLIERS and method == "or" and or_of_call >= 0:
            self._element_call(fallback, "get", self._flow, 0, or_of_call)
        return True

    def _composes_functions(self, receiver: Node, argument: Node) -> bool:
        """Whether `receiver.or(argument)` is a functional interface's (`Predicate`'s), making a
        function of the two, not `Optional`'s taking a supplier: the function given takes
        parameters (a supplier takes none), or the receiver is declared a functional interface,
        also through its combinators (`p.negate().or(q)`, `Predicate.not(p).or(q)`)."""
        argument = _unparenthesized(argument)
        if argument.type == "lambda_expression":
            return bool(_lambda_parameters(argument.child_by_field_name("parameters")))
        return self._holds_function(receiver)

    def _holds_function(self, receiver: Node) -> bool:
        """Whether `receiver` is declared a functional interface, also through its combinators
        (`p.negate()`, `Predicate.not(p)`)."""
        node: Node | None = _unparenthesized(receiver)
        while (
            node is not None and node.type == "method_invocation"
            and _method_called(node) in idioms.FUNCTION_COMBINATORS
        ):
            inner = node.child_by_field_name("object")
            node = _unparenthesized(inner) if inner is not None else None
        if node is None or node.type == "this":
            return False
        if node.type == "method_invocation":  # `Predicate.not(p)`, `Predicate.isEqual(x)`
            factory = node.child_by_field_name("object")
            return factory is not None and idioms.FUNCTION_TYPES.fullmatch(_text(factory)) is not None
        return idioms.FUNCTION_TYPES.fullmatch(self._declared_type(node)) is not None

    def _composed_functions(self, node: Node) -> list[Node]:
        """The functions the predicate `node` composes, each run where it is tested: `known` and
        `this::isStale` of `known.or(this::isStale)`, also through `and`, `negate()` and
        `Predicate.not(p)`, and those a `Consumer`'s or a `Function`'s `andThen` or `compose`
        composes, in the order they run (`g` first of `f.compose(g)`), either side composed in
        turn; [] where `node` composes none. `node` is used as a function (given to an iterating
        method, or its interface's method called on it), so `check().or(this::isStale)` is a
        `Predicate`'s `or`, not an `Optional`'s, whatever `check()` is declared to return."""
        node = _unparenthesized(node)
        receiver = node.child_by_field_name("object") if node.type == "method_invocation" else None
        if receiver is None:
            return []
        method, args = _method_called(node), _code_children(node.child_by_field_name("arguments"))
        if method == "not" and len(args) == 1 and idioms.FUNCTION_TYPES.fullmatch(_text(receiver)):
            operands = args
        elif method == "negate" and not args:
            operands = [receiver]
        elif method in _COMPOSING_METHODS and len(args) == 1:
            operands = [args[0], receiver] if method == "compose" else [receiver, args[0]]
        else:
            return []
        composed = (self._composed_functions(operand) or [_unparenthesized(operand)] for operand in operands)
        return [part for parts in composed for part in parts]

    def _functions_of(self, node: Node) -> list[Node]:
        """The functions `node` is or composes (see `_composed_functions`). What else a composition
        is made of is read here, once, as a value: `base()` of `base().or(...)` is called here, and
        what it returns runs where the composition does."""
        parts = self._composed_functions(node) or [_unparenthesized(node)]
        for part in parts:
            if part.type not in _FUNCTIONS_RUN:
                self._with_flow(part, Flow())
        return [part for part in parts if part.type in _FUNCTIONS_RUN or part.type == "method_invocation"]

    def _run_functions(
        self, functions: list[Node], interface_method: str, arity: int, iterable: Ref | None, receiver_call: int,
        flow: Flow, arguments: list[Node] | None = None,
    ) -> None:
        """Run each of `functions` here with `arity` arguments (elements of `iterable`, or of what
        `receiver_call` gives, or `arguments` where given): a lambda's body is read here; a method
        reference, a name holding a function, an object made or what a call returned is called.
        Composed by a `Function`'s `andThen` or `compose`, only the first is given the element; each
        other takes what the one before returns."""
        for index, function in enumerate(functions):
            given = index == 0 or not interface_method.startswith("apply")
            if function.type == "lambda_expression" and given:
                self._inline_lambda(function, iterable, receiver_call, flow, arguments)
            elif function.type == "lambda_expression":
                self._inline_lambda(function, None, -1, flow)
            else:
                self._element_call(function, interface_method, flow, arity)

    def _run_composed(self, composed: Node, interface_method: str, args: list[Node]) -> None:
        """`known.or(this::isStale).test(m)`, `log.andThen(this::deliver).accept(m)`: the composed
        function runs here, so each function it is made of runs here, given the arguments (a
        lambda's parameters are bound to them; of a `Function`'s, only the first is given them)."""
        functions = self._functions_of(composed)
        for arg in args:
            self._with_flow(arg, Flow())
        self._lambda_arms(composed, functions, interface_method)
        self._run_functions(functions, interface_method, len(args), None, -1, self._flow, args)

    def _lambda_arms(self, composed: Node, functions: list[Node], interface_method: str) -> None:
        """Each lambda of the function `composed` run here, an arm of its own at `composed`, which
        its `return` may leave part-way: every pass runs it, but a predicate's after the first, which
        the `and` or `or` before it may skip (`known.or(m -> ...)` runs it only where `known` fails)."""
        for index, function in enumerate(functions):
            if function.type == "lambda_expression":
                runs = index == 0 or interface_method != "test"
                self._fn.branches.append(Branches(_pos(composed), (_pos(function),), exhaustive=runs))

    def _super_call(self, node: Node) -> int:
        """`super.m()`: a call of `super` whose result receives `m`, as Python's `super().m()`."""
        call_id = self._new_id()
        self._fn.calls.append(Call(call_id, Ref("", "super"), "super", "super", self._site(node)))
        return call_id

    def _v_object_creation_expression(self, node: Node) -> None:
        call_id = self._new_id()
        self._call_ids[node.id] = call_id
        flow = self._flow
        type_node = node.child_by_field_name("type")
        name = type_name(type_node)
        callee = None
        if name:
            first, *rest = name.split(".")
            # A type is named here: a local class in scope, not a local of its name.
            callee = self._local_class_ref(first, tuple(rest))
            if callee is None:
                callee = self._resolve(first, tuple(rest)) if first[:1].isupper() else None
                if callee is None or callee.scope or (callee.attrs and callee.attrs != tuple(rest)):
                    self._used_types.add(first)
                    callee = Ref("", first, tuple(rest))
        args = _code_children(node.child_by_field_name("arguments"))
        call_args = tuple(self._arg(arg, call_id, index) for index, arg in enumerate(args))
        body = next((c for c in _code_children(node) if c.type == "class_body"), None)
        if body is not None:
            # An anonymous class: its methods run when whoever receives the object calls them.
            call_args = (*call_args, *self._anonymous_methods(body))
        method = name.rsplit(".", 1)[-1] if name else ""
        self._fn.calls.append(Call(call_id, callee, method, name, self._site(node), call_args, -1, flow))

    def _anonymous_methods(self, body: Node) -> Iterator[Arg]:
        fields = frozenset(
            _text(declarator.child_by_field_name("name"))
            for member in _code_children(body)
            if member.type == "field_declaration"
            for declarator in member.children_by_field_name("declarator")
        )
        self._anonymous_fields.append(fields)
        try:
            for member in _code_children(body):
                if member.type == "method_declaration":
                    qualname = self._lambda(member, params_node=member.child_by_field_name("parameters"),
                                            body=member.child_by_field_name("body"))
                    yield Arg("", "lambda", function=qualname, text=_text(member.child_by_field_name("name")))
        finally:
            self._anonymous_fields.pop()

    def _v_explicit_constructor_invocation(self, node: Node) -> None:
        """`this(...)` and `super(...)` in a constructor: a call of the other constructor."""
        call_id = self._new_id()
        target = node.child_by_field_name("constructor")
        args = _code_children(node.child_by_field_name("arguments"))
        call_args = tuple(self._arg(arg, call_id, index) for index, arg in enumerate(args))
        if target.type == "this":
            callee = self._this_ref((CONSTRUCTOR,))
            self._fn.calls.append(Call(call_id, callee, CONSTRUCTOR, "this", self._site(node), call_args, -1, Flow()))
        else:
            super_id = self._super_call(target)
            site = self._site(node)
            self._fn.calls.append(Call(call_id, None, CONSTRUCTOR, "super", site, call_args, super_id, Flow()))

    def _arg(self, node: Node, call_id: int, index: int) -> Arg:
        value = _unparenthesized(node)
        return self._untyped_arg(node, call_id, index)._replace(
            static_type=self._static_type(value), typed_by_call=self._declaring_call(value))

    def _declaring_call(self, value: Node) -> int:
        """The call whose result declared the `var` local `value` names (`pending()` of `var ms =
        pending();`, see `Arg.typed_by_call`), -1 for anything else."""
        function = self._declaring(_text(value)) if value.type == "identifier" else None
        declarator = function.declarators.get(function.local_name(_text(value))) if function is not None else None
        if declarator is None or _text(declarator.parent.child_by_field_name("type")) != "var":
            return -1
        return self._call_ids.get(_unparenthesized(declarator.child_by_field_name("value")).id, -1)

    def _untyped_arg(self, node: Node, call_id: int, index: int) -> Arg:
        text = _text(node)
        flow = Flow(FLOW_ARG, (str(index),), call_id)
        value = _unparenthesized(node)
        if value.type == "lambda_expression":
            saved = self._flow
            self._flow = flow
            qualname = self._lambda(value)
            self._flow = saved
            return Arg("", "lambda", function=qualname, text=text)
        self._with_flow(node, flow)
        return self._visited_arg(value, text)

    def _visited_arg(self, value: Node, text: str) -> Arg:
        """What an argument (or an arm of one) passes, once its expression has been visited: of a
        conditional (`fast ? this::a : this::b`), each arm as an argument of its own."""
        if value.type == "lambda_expression":
            return Arg("", "lambda", function=self._function_value(value), text=text)
        if value.type == "method_reference":
            ref = self._method_reference(value)
            return Arg("", "ref", ref=ref, text=text) if ref is not None else Arg("", "other", text=text)
        if value.type in ("method_invocation", "object_creation_expression"):
            return Arg("", "call", call=self._call_ids.get(value.id, -1), text=text)
        if value.type == "cast_expression":
            value = _unparenthesized(value.child_by_field_name("value"))
        ref = self._path(value) if value.type in ("identifier", "field_access", "this", "array_access") else None
        if value.type == "class_literal":
            # `guard(C.class)`: the class's own object, whose monitor `synchronized (C.class)` holds.
            ref = self._class_object(value)
        if ref is not None:
            return Arg("", "ref", ref=ref, text=text, names_value=True)
        if _is_literal(value):
            return Arg("", "const", text=text, passes_null=_uncast(value).type == "null_literal")
        arms = _conditional_arms(value)
        arm_args = tuple(self._visited_arg(_uncast(arm), _text(arm)) for arm in arms) if len(arms) > 1 else ()
        return Arg("", "other", text=text, adds_to=self._added_to(value), arms=arm_args)

    def _static_type(self, value: Node) -> str:
        """The type an argument's expression is known to have (see `Arg.static_type`; `Msg[]` of
        `new Msg[] {m}` and `(Msg[]) o`), "" where unknown: a call's result, an operation's, an
        anonymous class's `this`."""
        if value.type in ("object_creation_expression", "cast_expression"):
            return _any_type_written(value.child_by_field_name("type"))
        if value.type == "array_creation_expression":
            return _array_created(value)
        if value.type == "this":
            return self._class_stack[-1].name if self._class_stack and not self._anonymous_fields else ""
        if value.type in ("identifier", "field_access"):
            return self._declared_type(value)
        return _literal_type(value)

    def _added_to(self, value: Node) -> Ref | None:
        """The path an addition adds to (`epoch` of `setEpoch(epoch + 1)`, `this.epoch` of `1 + this.epoch`)."""
        operator = value.child_by_field_name("operator")
        if value.type != "binary_expression" or operator is None or operator.type != "+":
            return None
        sides = [value.child_by_field_name("left"), value.child_by_field_name("right")]
        paths = [
            self._path(side)
            for side in (_unparenthesized(side) for side in sides if side is not None)
            if side.type in ("identifier", "field_access")
        ]
        found = [path for path in paths if path is not None]
        return found[0] if len(found) == 1 else None

    def _hold_reference_receiver(self, node: Node) -> None:
        """`helper()::check`: the call is made where the reference is, and its result held (see
        `_hold_call_result`), so that the reference names the method of the class the call returns."""
        receiver = _unparenthesized(_code_children(node)[0]) if _code_children(node) else None
        if receiver is not None and receiver.type in _CALL_RECEIVERS and receiver.id not in self._call_results:
            self._with_flow(receiver, Flow())
            self._hold_call_result(receiver)

    def _method_reference(self, node: Node) -> Ref | None:
        """`this::m`, `obj::m`, `Type::m`, `helper()::m` (its result held) as the name path of the
        method (`new` refers to no method)."""
        parts = _code_children(node)
        method = _text(node.children[-1])
        if method == "new" or not parts:
            return None
        target = _unparenthesized(parts[0])
        if target.id in self._call_results:
            return Ref(*self._call_results[target.id], (method,))
        base = self._path(target) if target.type != "super" else self._this_ref(())
        return base._replace(attrs=(*base.attrs, method)) if base is not None else None

    def _lambda(self, node: Node, params_node: Node | None = None, body: Node | None = None) -> str:
        """A lambda (or an anonymous class's method) as a function of its own, handed off."""
        qualname = self._lambda_qualname(node)
        function = _function(qualname, "<lambda>", "lambda", _pos(node), parent=self._fn.qualname,
                             this_scope=self._fn.this_scope)
        self._stack.append(function)
        params_node = params_node if params_node is not None else node.child_by_field_name("parameters")
        function.params = tuple(self._parameter(p) for p in _lambda_parameters(params_node))
        body = body if body is not None else node.child_by_field_name("body")
        with self._own_exits():
            if body.type == "block":
                self._block(_code_children(body))
            else:
                self._with_flow(body, Flow(FLOW_RETURN))
        self._stack.pop()
        self.functions.append(function.freeze())
        return qualname

    def _lambda_qualname(self, node: Node) -> str:
        line, column = _start(node)
        return f"{self._fn.qualname}.<lambda:{line}:{column}>"

    def _function_value(self, value: Node | None) -> str:
        """The qualified name of the lambda `value` is (read already, in the current function), or ""."""
        value = _uncast(value) if value is not None else None
        return self._lambda_qualname(value) if value is not None and value.type == "lambda_expression" else ""

    def _iterating_call(self, node: Node, obj: Node, method: str, args: list[Node]) -> bool:
        """`batch.forEach(m -> ...)`, `batch.stream().filter(...)`: a batch loop at the call whose body
        is the function argument, run once per element with the caller's locks. On an `Optional`
        (`opt.filter(...)`, `opt.ifPresent(...)`) the loop, run once at most, is no batch loop."""
        functions = [a for a in args if _unparenthesized(a).type in ("lambda_expression", "method_reference")]
        if method == "reduce" and len(args) == 3:
            # `reduce(identity, accumulator, combiner)`: the combiner joins partial results, not elements.
            functions = functions[:1] if functions and functions[0] is args[1] else []
        if not functions and len(args) == 1 and method != "reduce" and (
            self._is_function_object(args[0]) or _unparenthesized(args[0]).type == "method_invocation"
        ):
            # `filter(current)`, `filter(new CurrentEpoch(this))`: an object to call;
            # `removeIf(known.or(this::isStale))`: a composed predicate, whose functions each run;
            # `removeIf(stale())`: what the call returns, a lambda or an object, run per element.
            functions = args
        if len(functions) != 1:
            return False
        self._with_flow(obj, self._receiver_flow(obj, method, functions[0]))
        # A composed predicate is made once, before the loop; the functions it composes run per element.
        run = self._functions_of(functions[0])
        receiver_call = self._call_ids.get(_unparenthesized(obj).id, -1)
        # The header: the whole call, but from the method's name in a chain (`.filter(` on its line).
        header = _span(node.child_by_field_name("name"), node) if receiver_call >= 0 else _pos(node)
        loop_id = self._new_id()
        # An `Optional`'s value, if any, is taken on the spot, once: no collection is walked.
        batch = method not in idioms.OPTIONAL_CONSUMERS and not self._walks_no_batch(obj)
        # What a method of another class returns (`holder.find(tp).map(...)`) is known once the
        # program resolves the call: an `Optional` there makes this no batch loop either.
        chained = batch and method in idioms.OPTIONAL_CHAINS
        source = self._call_ids.get(_optional_chain_root(obj).id, -1) if chained else -1
        # Its body is the function, run per element: on no element (no value), it runs no time.
        site = self._site(node)._replace(pos=header)
        self._fn.loops.append(Loop(loop_id, "for", site, batch, _text(obj), source, body=_pos(functions[0])))
        self._fn.loop_stack.append(loop_id)
        # What the function returns is a decision, or, for a mapping (`map(f)`, `flatMap(f)`), what
        # the call gives (the stream of what it returns): it goes where the call's value goes.
        body_flow = Flow(FLOW_CONDITION) if method in idioms.DECIDING_METHODS else Flow()
        body_flow = self._flow if method in idioms.MAPPING_METHODS else body_flow
        for arg in args:
            if arg is not functions[0]:
                self._with_flow(arg, Flow())
        # A map's `forEach` gives its function a key and a value; `reduce`, two elements.
        pairs = method == "reduce" or (method == "forEach" and self._declared_type(obj).endswith("Map"))
        # Its elements are those of the stream that steps keeping them are taken from.
        source = self._stream_kept(obj)
        given = (self._path(source), self._call_ids.get(source.id, -1))
        self._run_functions(run, idioms.SPOT_METHODS[method], 2 if pairs else 1, *given, body_flow)
        self._fn.loop_stack.pop()
        return True

    def _stream_kept(self, node: Node) -> Node:
        """The stream whose elements `node` gives through steps keeping them (see
        `idioms.ELEMENT_KEEPING_STREAM_OPERATIONS`): `plain.stream()` of `plain.stream().filter(p)
        .limit(3)`, a collection's stream, one written out (`Stream.of(f, g)`) or a name declared
        `Stream`; else `node` itself, unparenthesized."""
        node = _unparenthesized(node)
        kept = node
        keeping = idioms.ELEMENT_KEEPING_STREAM_OPERATIONS
        while kept.type == "method_invocation" and _method_called(kept) in keeping:
            receiver = kept.child_by_field_name("object")
            if receiver is None:
                return node
            kept = _unparenthesized(receiver)
        return kept if kept is not node and self._is_a_stream(kept) else node

    def _is_a_stream(self, node: Node) -> bool:
        """Whether `node` is a JDK stream as far as the file says: a JDK collection's (`plain.stream()`
        of a name declared `List`, `new ArrayList<>(plain).stream()`), `Stream.of(f, g)`, or a name
        declared `Stream`. A class of the project's own (a `Stream`, one with a `stream()` method)
        has its own steps, which may give another class, whose methods a call on them runs."""
        if node.type != "method_invocation":
            return self._declared_type(node) == "Stream" and self._names_a_jdk_class("Stream")
        receiver = node.child_by_field_name("object")
        if receiver is None:
            return False
        method = _method_called(node)
        if method == "of":
            return _text(receiver) == "Stream" and self._names_a_jdk_class("Stream")
        streamed = self._static_type(receiver)
        return method in idioms.COLLECTION_STREAMS and self._names_a_jdk_collection(streamed)

    def _names_a_jdk_collection(self, name: str) -> bool:
        """Whether the class this file names `name` is a collection that may be the JDK's (see
        `_names_a_jdk_class`): `List`, `ArrayList`, not a project's `Repo` nor an unknown type."""
        return _COLLECTION_CLASS.search(name) is not None and self._names_a_jdk_class(name)

    def _either_call(self, node: Node, obj: Node, method: str, args: list[Node]) -> bool:
        """`opt.ifPresentOrElse(v -> ..., () -> ...)`: one of the two functions runs on the spot, the
        first given the value if there is one, else the second: the arms of an exhaustive branching
        at the call (an unlock in both runs on every path; in one only, it may not). False unless
        both are lambdas or method references: an ordinary call then, handing them off."""
        functions = [_unparenthesized(arg) for arg in args]
        if len(functions) != 2 or any(f.type not in ("lambda_expression", "method_reference") for f in functions):
            return False
        present, absent = functions
        self._with_flow(obj, self._receiver_flow(obj, method, present))
        receiver_call = self._call_ids.get(_unparenthesized(obj).id, -1)
        self._fn.branches.append(Branches(_pos(node), (_pos(present), _pos(absent)), exhaustive=True))
        accept, run = idioms.OPTIONAL_EITHER[method]
        self._run_functions([present], accept, 1, self._path(obj), receiver_call, Flow())
        self._run_functions([absent], run, 0, None, -1, Flow())
        return True

    def _receiver_flow(self, obj: Node, method: str, function: Node) -> Flow:
        """Where the stream an iterating call is made on goes. `stream.map(f).filter(p)` gives what
        `map` gives (a filter, a peek): where the call's value goes. The elements of a `map`,
        `filter` or `peek` run here (no call to iterate) go into the parameters of the lambda run
        on each, as `for (var e : mapped)` assigns them: `map(r -> r.leaderEpoch()).forEach(e ->
        ...)`; a filter's or peek's own lambda takes them too where its stream is assigned so."""
        flow = self._flow if method in idioms.PASSING_METHODS else Flow(FLOW_ITER)
        inlined = _unparenthesized(obj)
        params = function.child_by_field_name("parameters") if function.type == "lambda_expression" else None
        if inlined.type != "method_invocation" or _method_called(inlined) not in _STREAM_STEPS or params is None:
            return flow
        name_nodes = (param.child_by_field_name("name") or param for param in _lambda_parameters(params))
        names = tuple(self._fn.name_declared_at(_text(name), name) for name in name_nodes)
        if flow.kind == FLOW_ITER:
            return Flow(FLOW_ASSIGN, names)
        if flow.kind == FLOW_ASSIGN:
            return flow._replace(targets=(*flow.targets, *(name for name in names if name not in flow.targets)))
        return flow

    def _walks_no_batch(self, node: Node) -> bool:
        """Whether a loop over `node`, or a stream operation on it, walks no batch (see `_iterates_no_batch`)."""
        return _iterates_no_batch(node, self._is_array, self._is_optional, self._one_value)

    def _one_value(self, node: Node) -> Node | None:
        """The one value the local `node` names ever holds: its declaration's, where nothing in its
        scope (the rest of the block declaring it) assigns it another; None for anything else, a
        field of its name after that block included."""
        if node.type != "identifier":
            return None
        name = _text(node)
        function = self._declaring(name)
        declarator = function.declarators.get(function.local_name(name)) if function is not None else None
        if declarator is None:
            return None
        scope = declarator.parent.parent
        if not scope.start_byte <= node.start_byte < scope.end_byte or name in self._assigned_in(scope):
            return None
        return declarator.child_by_field_name("value")

    def _assigned_in(self, scope: Node) -> frozenset[str]:
        """The locals that code in `scope` assigns, read once per scope: asked again for each read
        there of a local it declares (the scope, a node of this file's tree, never changes)."""
        found = self._assigned.get(scope.id)
        if found is None:
            found = self._assigned[scope.id] = frozenset(_assigned_names(scope))
        return found

    def _is_array(self, node: Node) -> bool:
        """Whether `node` names a local, a parameter or a field of the class declared as an array."""
        node = _unparenthesized(node)
        path = self._path(node) if node.type in ("identifier", "field_access") else None
        if path is None:
            return False
        if path.scope and path.name != THIS:
            return not path.attrs and any(f.qualname == path.scope and path.name in f.arrays for f in self._stack)
        return len(path.attrs) == 1 and path.attrs[0] in self._class_stack[-1].array_fields

    def _is_optional(self, node: Node) -> bool:
        """Whether `node` is an `Optional`, as far as its declaration says: made by `Optional.of`,
        `ofNullable` or `empty`, given by one's `filter`, `map`, `flatMap` or `or`, a field, a local
        or a parameter declared `Optional<...>`, or what a method of the class declared so returns."""
        node = _optional_chain_root(node)
        if node.type in ("identifier", "field_access"):
            return self._declared_type(node) in idioms.OPTIONAL_TYPES
        if node.type != "method_invocation":
            return False
        receiver, method = node.child_by_field_name("object"), _method_called(node)
        if receiver is None or receiver.type == "this":
            return any(method in cls.optional_methods for cls in self._class_stack)
        return _text(receiver) in idioms.OPTIONAL_TYPES and method in idioms.OPTIONAL_FACTORIES

    def _is_function_object(self, node: Node) -> bool:
        """Whether `node`, the one argument of an iterating method, is an object it calls: one made
        there (`new CurrentEpoch(this)`, not an anonymous class), or a field, a local or a parameter
        declared as one of `java.util.function`'s interfaces (`Predicate<Msg> current`) or as a class
        (`CurrentEpoch current`: the class implements the interface the method takes)."""
        node = _unparenthesized(node)
        if node.type == "object_creation_expression":
            return node.child_by_field_name("body") is None
        declared = self._declared_type(node) if node.type in ("identifier", "field_access") else ""
        return bool(declared) and declared not in idioms.JAVA_LANG and declared not in idioms.SCALAR_TYPES

    def _declared_type(self, node: Node) -> str:
        """The type a local, a parameter or a field is declared with (`Map` of `Map<K, V> m`, `long`
        of `long epoch`), or "" where unknown or an array: a local's where the function declaring
        it is (a lambda's body reads those it captures), a field's in the class of the ones around
        that declares it (an inner class reads its outer class's)."""
        path = self._path(_unparenthesized(node))
        if path is None:
            return ""
        if path.scope and path.name != THIS:
            declaring = self._declaring(written_name(path.name))
            if declaring is None or path.attrs:
                return ""
            written = declaring.types.get(path.name, "")
            return written if written.endswith("[]") else written.split("[", 1)[0]  # `Map` of `Map[K, V]`
        cls = self._class_of_field(path)
        if cls is None:
            return ""
        declared = cls.field_types.get(path.attrs[-1]) or cls.primitive_fields.get(path.attrs[-1])
        return (declared or "").split("<", 1)[0]

    def _class_of_field(self, path: Ref) -> _Class | None:
        """Of the classes around, the one whose field `path` names (`this.f`, `f`, `Outer.this.f`, a
        nested class's static `Outer.Holder.CURRENT`), or None for another path."""
        if path.name == THIS:
            return self._class_stack[-1] if len(path.attrs) == 1 else None
        if not path.attrs:
            return None
        return next((cls for cls in reversed(self._class_stack) if path == self._class_ref(path.attrs[-1:], cls)), None)

    def _element_call(self, node: Node, interface_method: str, flow: Flow, arity: int, or_of_call: int = -1) -> None:
        """`batch.forEach(this::handle)`: `handle` is called on each element (on two, an accumulator
        and an element, for `reduce`), so its overload of that many parameters is. `filter(current)`
        calls `interface_method` (`test`) on what the field or the local `current` holds, a function
        or an object, `filter(new CurrentEpoch(this))` on the object made, and `removeIf(check().and(p))`
        on what `check()` returned (`Call.callee_call`). With no element
        (`arity` 0), a supplier called where it is given (`cur.orElseGet(this::fallback)`), where
        call `or_of_call` gives an `Optional` if one is given (see `Call.or_of_call`)."""
        elements = tuple(Arg("", "other", text="<element>") for _ in range(arity))
        call_id = self._new_id()
        callee, method, receiver_call, callee_call = None, interface_method, -1, -1
        if node.type == "method_reference":
            self._hold_reference_receiver(node)
            callee, method = self._method_reference(node), _text(node.children[-1])
        elif node.type == "object_creation_expression":
            self._with_flow(node, Flow(FLOW_RECEIVER, call=call_id))
            receiver_call = self._call_ids.get(node.id, -1)
        elif node.type == "method_invocation":
            callee_call = self._call_ids.get(node.id, -1)  # what `check()` of `check().and(p)` returned
        elif (holder := self._path(node)) is not None:
            callee = holder._replace(attrs=(*holder.attrs, interface_method))
        site = self._site(node)
        self._fn.calls.append(
            Call(
                call_id, callee, method, _text(node), site, elements, receiver_call, flow, callee_call=callee_call,
                or_of_call=or_of_call,
            )
        )

    def _inline_lambda(
        self, node: Node, iterable: Ref | None, receiver_call: int, flow: Flow, arguments: list[Node] | None = None,
    ) -> None:
        """A lambda run on the spot, per element: its parameters and its body's locals are its own.
        Given `arguments` (`p.or(x -> ...).test(m)`), each parameter is bound to its argument."""
        with self._scope():
            params = list(_lambda_parameters(node.child_by_field_name("parameters")))
            for index, param in enumerate(params):
                name_node = param.child_by_field_name("name") or param
                annotation = self._annotation(param.child_by_field_name("type"))
                name = self._declare(name_node, declared=annotation)
                site = self._site(name_node)
                if arguments is not None:
                    value_call, value_ref = self._value_of(arguments[index] if index < len(arguments) else None)
                    self._fn.binds.append(Bind(name, site, "assign", value_call, value_ref, annotation))
                    continue
                kind = "iter" if len(params) == 1 else "iter_part"
                self._fn.binds.append(
                    Bind(name, site, kind, receiver_call, iterable if receiver_call < 0 else None,
                         annotation, -1 if len(params) == 1 else index)
                )
            body = node.child_by_field_name("body")
            self._inlined.append(_pos(node))
            saved_return, self._inlined_return = self._inlined_return, flow
            if body.type == "block":
                self._block(_code_children(body))
            else:
                self._with_flow(body, flow)
            self._inlined_return = saved_return
            self._inlined.pop()

    def _atomic_operation(self, obj: Node | None, method: str, args: list[Node]) -> bool:
        """`UPDATER.incrementAndGet(this)` (a field updater) or `epoch.incrementAndGet()` (an atomic
        number field): a read and/or a write of the field that holds the value."""
        if obj is None or method not in idioms.ATOMIC_BUMPS | idioms.ATOMIC_STORES | idioms.ATOMIC_LOADS:
            return False
        holder = self._path(obj)
        if holder is None or not holder.attrs or holder.name != THIS and holder.scope:
            return False
        rest = args
        if args and _unparenthesized(args[0]).type == "this" or (
            args and _unparenthesized(args[0]).type == "field_access"
            and _unparenthesized(args[0]).child_by_field_name("field").type == "this"
        ):
            # A field updater: the field is `this.<updater>`, mapped to the updated field by the program.
            field_ref = self._this_ref(holder.attrs[-1:])
            rest = args[1:]
        elif holder.name == THIS and self._atomic_field(holder.attrs[-1]):
            field_ref = holder
        else:
            return False
        if field_ref is None:
            return False
        for arg in rest:
            self._with_flow(arg, Flow())
        site = self._site(obj.parent)
        if method not in idioms.ATOMIC_STORES or method.startswith("getAnd") or "compare" in method.lower():
            self._fn.accesses.append(Access(field_ref, site, self._flow))
        if method in idioms.ATOMIC_BUMPS or method in idioms.ATOMIC_STORES:
            bump = method in idioms.ATOMIC_BUMPS or _adds_to_itself(obj, method, rest)
            self._fn.writes.append(Write(field_ref, site, "augassign" if bump else "assign", bump))
        return True

    def _atomic_field(self, name: str) -> bool:
        return any(cls.field_types.get(name) in idioms.ATOMIC_NUMBER_TYPES for cls in self._class_stack)


def _chain(node: Node) -> list[Node]:
    """The links of a chain of field and array accesses, outermost first, down to what it starts
    from (`a[i].b`: itself, `a[i]`, `a`; `f().b`: itself, `f()`)."""
    links = [node]
    while node.type in ("field_access", "array_access", "parenthesized_expression"):
        if node.type == "parenthesized_expression":
            node = _code_children(node)[0]
        else:
            node = node.child_by_field_name("array" if node.type == "array_access" else "object")
        links.append(node)
    return links


def _optional_chain_root(node: Node) -> Node:
    """What a chain of `filter`, `map`, `flatMap` and `or` calls starts from: `find(tp)` of
    `find(tp).map(f).filter(g)`, an `Optional` exactly where that is one."""
    node = _unparenthesized(node)
    while node.type == "method_invocation" and _method_called(node) in idioms.OPTIONAL_CHAINS:
        receiver = node.child_by_field_name("object")
        if receiver is None or receiver.type == "this":
            break  # the object's own method of that name
        node = _unparenthesized(receiver)
    return node


def _uncast(value: Node) -> Node:
    """`value` without the parentheses and casts around it."""
    value = _unparenthesized(value)
    return _uncast(value.child_by_field_name("value")) if value.type == "cast_expression" else value


def _conditional_arms(value: Node) -> list[Node]:
    """The values a conditional or a `switch` expression may give, its arms' (nested ones' too):
    `value` itself where it is neither."""
    value = _uncast(value)
    if value.type == "ternary_expression":
        sides = [value.child_by_field_name("consequence"), value.child_by_field_name("alternative")]
    elif value.type == "switch_expression" and not _is_switch_statement(value):
        sides = _switch_values(value)
    else:
        return [value]
    return [arm for side in sides for arm in _conditional_arms(side)]


def _is_switch_statement(switch: Node) -> bool:
    """Whether a `switch` stands as a statement, where it gives no value."""
    return switch.parent is not None and switch.parent.type in _STATEMENT_HOLDERS


def _switch_values(switch: Node) -> list[Node]:
    """The values a `switch` expression gives: each `case ... -> value;` rule's, and each `yield
    value;`'s of a block arm or a `case ...:` group (not one of a `switch` expression inside it,
    nor of a lambda or a class). An arm that throws gives none."""
    body = switch.child_by_field_name("body")
    if body is None:
        return []
    rules = [part for rule in _code_children(body) if rule.type == "switch_rule" for part in _code_children(rule)]
    given = [_code_children(rule)[0] for rule in rules if rule.type == "expression_statement"]
    yields = [node for node, _ in _descendants(body) if node.type == "yield_statement" and _code_children(node)]
    return given + [_code_children(node)[0] for node in yields if _yielded_from(node) == switch]


def _yielded_from(jump: Node) -> Node | None:
    """The `switch` expression a `yield` gives its value to: the innermost one around it that is no
    statement (not beyond a lambda or a class)."""
    around = jump.parent
    while around is not None and around.type not in ("lambda_expression", "class_body"):
        if around.type == "switch_expression" and not _is_switch_statement(around):
            return around
        around = around.parent
    return None


def _is_function(value: Node) -> bool:
    """A lambda or a method reference (`m -> ...`, `this::isCurrent`), cast or not, or a conditional
    or a `switch` expression one of whose arms is one (`fast ? this::a : this::b`)."""
    return any(arm.type in ("lambda_expression", "method_reference") for arm in _conditional_arms(value))


# Literals of numbers and flags, and the operators of arithmetic on them.
_SCALAR_LITERALS = frozenset(
    {
        "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal",
        "decimal_floating_point_literal", "hex_floating_point_literal", "true", "false",
    }
)
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "<<", ">>", ">>>", "&", "|", "^"})


def _block_ended(jump: Node) -> Node:
    """The block a `return`, `throw` or `break` ends: the one around it; itself where it is an
    `if`'s or a loop's whole body, which ends no block around it."""
    parent = jump.parent
    return parent if parent is not None and parent.type in _BLOCKS else jump


def _type_written(node: Node | None) -> str:
    """The type a `new` or a cast names, type arguments dropped; a primitive's name too."""
    return _primitive_written(node) or type_name(node)


def _value_type_written(node: Node | None, after_name: int = 0, bounded: _Bounded | None = None) -> str:
    """The type a declaration names where no class annotation does: a primitive (`long`), an array
    of a primitive or of a class, type arguments dropped (`long[]`, `Msg[][]`), of as many more
    dimensions as the declaration writes `after_name` (`Msg[]` of `Msg ms[]`); "" for a class. An
    array of a type variable is one of what `bounded` gives for it, as an annotation is (`E[]` of
    `<E extends Msg>` is a `Msg[]`, as javac erases it)."""
    element, dimensions = node, after_name
    if node is not None and node.type == "array_type":
        element, dimensions = node.child_by_field_name("element"), dimensions + _dimensions_written(node)
    if not dimensions:
        return _primitive_written(node)
    written = _type_written(bounded(element) if bounded is not None else element)
    return written + "[]" * dimensions if written else ""


def _type_declared(declaration: Node, bounded: _Bounded) -> str:
    """The type a declaration gives the name it declares, as `Arg.static_type` names one (`Msg[]`
    of `Msg[] ms`, `Msg ms[]` and `Msg[] pending()`, `Msg` of `Msg polled()`, `long`), "" where it
    names none (`void`)."""
    declared = declaration.child_by_field_name("type")
    return _value_type_written(declared, _dimensions_written(declaration), bounded) or _type_written(declared)


def _dimensions_written(node: Node) -> int:
    """How many `[]` an array type writes (`Msg[][]`), or a declaration after the name it declares
    (after a method's parameters), as C does and Java allows: each makes the type declared one
    more dimension of array (`Msg ms[]` a `Msg[]`, `b` of `Msg[] a, b[]` a `Msg[][]`)."""
    dimensions = node.child_by_field_name("dimensions")
    return _text(dimensions).count("[") if dimensions is not None else 0


def _any_type_written(node: Node | None) -> str:
    """The type a declaration, a `new` or a cast names, a class (type arguments dropped), a
    primitive or an array of either (`Msg`, `long`, `Msg[]`); "" where it names none of these."""
    return _value_type_written(node) or _type_written(node)


def _array_of(node: Node | None, bounded: _Bounded) -> str:
    """The array a `T... rest` parameter holds, of the type `node` writes (`long[]`, `Msg[]`,
    `Msg[][]` of `Msg[]... rest`, `Msg[]` of `E... rest` where `bounded` gives `Msg` for `E`), ""
    where it writes none."""
    element = _value_type_written(node, 0, bounded) or _type_written(bounded(node))
    return f"{element}[]" if element else ""


def _array_created(creation: Node) -> str:
    """The array an array creation expression makes, of as many dimensions as it writes, sized
    (`new Msg[n]`, `new long[n][]`) or not (`new Msg[] {m}`); "" where its elements' type is unknown."""
    element = _type_written(creation.child_by_field_name("type"))
    dimensions = sum(
        1 if part.type == "dimensions_expr" else _text(part).count("[")
        for part in creation.children_by_field_name("dimensions")
    )
    return element + "[]" * dimensions if element else ""


def _primitive_written(node: Node | None) -> str:
    """The primitive type a declaration or a cast names (`long`); "" for a class or an array."""
    return _text(node) if node is not None and node.type in _PRIMITIVE_NODES else ""


# tree-sitter's nodes of a primitive type, `int`, `long`, `boolean`...
_PRIMITIVE_NODES = frozenset({"integral_type", "floating_point_type", "boolean_type"})
# The type of a literal by its node, where its text does not tell more (`1L` is a `long`, `1f` a `float`).
_LITERAL_TYPES = {
    "string_literal": "String", "character_literal": "char", "true": "boolean",
    "false": "boolean", "null_literal": "null", "decimal_floating_point_literal": "double",
    "hex_floating_point_literal": "double", "decimal_integer_literal": "int", "hex_integer_literal": "int",
    "octal_integer_literal": "int", "binary_integer_literal": "int",
}


def _literal_type(value: Node) -> str:
    """The type of a literal (`"x"`: `String`, `1L`: `long`, `null`: `null`); "" for another value."""
    written = _LITERAL_TYPES.get(value.type, "")
    suffix = _text(value)[-1:].lower()
    if written == "int" and suffix == "l":
        return "long"
    return "float" if written == "double" and suffix == "f" else written


def _is_literal(value: Node | None) -> bool:
    """A value written out whole that reads nothing: `0`, `"x"`, `null`, `true`."""
    if value is None:
        return False
    value = _unparenthesized(value)
    return value.type.endswith("_literal") or value.type in ("true", "false")


def _is_constant(name: str) -> bool:
    return name.isupper() and any(ch.isalpha() for ch in name)


def _strip_items(attrs: tuple[str, ...]) -> tuple[str, ...]:
    while attrs and attrs[-1] == "[]":
        attrs = attrs[:-1]
    return attrs


def _method_called(invocation: Node) -> str:
    return _text(invocation.child_by_field_name("name"))


def _arity(node: Node) -> int:
    return len(_parameters(node.child_by_field_name("parameters")))


def _method_name(node: Node) -> str:
    return _text(node.child_by_field_name("name")) if node.type == "method_declaration" else CONSTRUCTOR


def _members(body: Node | None) -> list[Node]:
    """The declarations of a class body; an enum's follow its constants."""
    if body is None:
        return []
    members: list[Node] = []
    for child in _code_children(body):
        members.extend(_code_children(child) if child.type == "enum_body_declarations" else [child])
    return members


def _default_visibility(cls: _Class) -> str:
    """The access of a method of `cls` declared with no modifier: an interface's are public."""
    return "public" if cls.interface else _PACKAGE_PRIVATE


def _optional_methods(members: list[Node]) -> set[str]:
    """The names of the methods declared to return an `Optional`."""
    return {
        _method_name(member)
        for member in members
        if member.type == "method_declaration"
        and type_name(member.child_by_field_name("type")) in idioms.OPTIONAL_TYPES
    }


def _parameters(node: Node | None) -> list[Node]:
    if node is None:
        return []
    return [p for p in _code_children(node) if p.type in ("formal_parameter", "spread_parameter")]


def _lambda_parameters(node: Node | None) -> list[Node]:
    if node is None:
        return []
    if node.type == "identifier":
        return [node]
    if node.type == "inferred_parameters":
        return [p for p in _code_children(node) if p.type == "identifier"]
    return _parameters(node)


def _type_nodes(node: Node) -> Iterator[Node]:
    for child in _code_children(node):
        if child.type == "type_list":
            yield from _code_children(child)
        else:
            yield child


def _updated_field(declared: str, value: Node | None) -> str:
    """The field a field updater is built for: `newUpdater(C.class, "consumerEpoch")`."""
    if declared not in idioms.FIELD_UPDATER_TYPES or value is None or value.type != "method_invocation":
        return ""
    for arg in _code_children(value.child_by_field_name("arguments")):
        if arg.type == "string_literal":
            return _text(arg).strip('"')
    return ""


def _lock_statement(statement: Node, *methods: str) -> Node | None:
    """The receiver of `L.lock();` (or `L.unlock();`) as a statement of its own."""
    if statement.type != "expression_statement" or not _code_children(statement):
        return None
    call = _code_children(statement)[0]
    if not _is_call_without_arguments(call) or _text(call.child_by_field_name("name")) not in methods:
        return None
    return call.child_by_field_name("object")


def _acquired_unless(statement: Node, results: Mapping[str, tuple[Node, Node]]) -> tuple[Node, Node] | None:
    """`if (!L.tryLock(...)) { ...; return; }` with no `else`, whose body cannot complete normally
    (`_leaves`: return, throw, continue, break, a loop with no end), or `while (!L.tryLock(1,
    SECONDS)) { ... }` (or `while (!got)`, the body trying into `got`) that no `break` leaves
    (`_left_by_break`: one of a loop inside, or to a label around it, goes elsewhere);
    `got` a local in `results` that holds a `tryLock`'s result: (the receiver L, the call)."""
    if statement.type == "while_statement" and not _left_by_break(statement):
        pass
    elif statement.type != "if_statement" or statement.child_by_field_name("alternative") is not None:
        return None
    elif not _leaves(statement.child_by_field_name("consequence")):
        return None
    return _refused_lock(statement.child_by_field_name("condition"), results)


def _refused_lock(condition: Node, results: Mapping[str, tuple[Node, Node]]) -> tuple[Node, Node] | None:
    """`!L.tryLock(...)` (or `!got`, `got` a local in `results` that holds a `tryLock`'s result),
    `!(L.tryLock() && ready)`, or either operand of `||` (`closed || !L.tryLock()`): (the receiver
    L, the call) of the try whose failure `condition` tests, so that it is false only where it
    succeeded."""
    condition = _unparenthesized(condition)
    if condition.type == "binary_expression" and _text(condition.child_by_field_name("operator")) == "||":
        return _refused_lock(condition.child_by_field_name("left"), results) or _refused_lock(
            condition.child_by_field_name("right"), results
        )
    if condition.type != "unary_expression" or _text(condition.child_by_field_name("operator")) != "!":
        return None
    return _tested_lock(_unparenthesized(condition.child_by_field_name("operand")), results)


def _assignment_of(statement: Node) -> tuple[Node, Node | None] | None:
    """The target and the value of a statement that declares one local (`long stamp = ...;`, the
    value None without one) or assigns (`got = ...;`, `got |= ...;`); None for another statement."""
    if statement.type == "local_variable_declaration":
        declarators = statement.children_by_field_name("declarator")
        if len(declarators) != 1:
            return None
        return declarators[0].child_by_field_name("name"), declarators[0].child_by_field_name("value")
    if statement.type == "expression_statement" and _code_children(statement)[0].type == "assignment_expression":
        assignment = _code_children(statement)[0]
        return assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    return None


def _pattern_variables(condition: Node, holds: bool) -> set[str]:
    """The pattern variables (`o instanceof C c`) in scope where `condition` `holds`, or where it
    fails: Java's flow scoping through `!`, `&&` and `||`."""
    condition = _unparenthesized(condition)
    operator = condition.child_by_field_name("operator")
    if condition.type == "instanceof_expression":
        return _pattern_names(condition) if holds else set()
    if condition.type == "unary_expression" and _text(operator) == "!":
        return _pattern_variables(condition.child_by_field_name("operand"), not holds)
    # `a && b` holds where both hold, `a || b` fails where both fail.
    if condition.type == "binary_expression" and _text(operator) == ("&&" if holds else "||"):
        left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
        return _pattern_variables(left, holds) | _pattern_variables(right, holds)
    return set()


def _patterns_after(statement: Node) -> set[str]:
    """The pattern variables an `if` statement leaves in scope to the end of its block: where one
    arm cannot complete normally (`_leaves`) and the other can, those of the test as it is in the
    other (`if (!(o instanceof C c)) return;`, `... { while (true) ... }` with no `break`)."""
    condition = statement.child_by_field_name("condition")
    consequence, alternative = (statement.child_by_field_name(f) for f in ("consequence", "alternative"))
    alternative_leaves = alternative is not None and _leaves(alternative)
    if _leaves(consequence) == alternative_leaves:
        return set()
    return _pattern_variables(condition, holds=alternative_leaves)


def _patterns_after_loop(loop: Node) -> set[str]:
    """The pattern variables a `while`, `do` or basic `for` statement leaves in scope to the end of
    its block (JLS 6.3.2.3-5): those of its test where it fails, unless its body holds a `break`
    whose target contains the body: the loop or a statement around it, whatever `finally` is on
    its way (`while (!(o instanceof C c)) ...`, `for (; !(o instanceof C c); o = next()) ...`)."""
    condition, body = loop.child_by_field_name("condition"), loop.child_by_field_name("body")
    if condition is None or any(_breaks_around(node, body) for node, _ in _descendants(body)):
        return set()
    return _pattern_variables(condition, holds=False)


def _breaks_around(jump: Node, body: Node) -> bool:
    """Whether `jump` is a `break` whose target contains `body`: one around it starts before it,
    one inside it (`break inner;`) does not."""
    target = _broken_by(jump)
    return target is not None and target.start_byte < body.start_byte


def _pattern_bindings(pattern: Node | None) -> list[tuple[Node, Node | None]]:
    """The variables a pattern declares (an `instanceof`'s, a `case` label's), each with the type
    it writes: `Long epoch`, each component of a record pattern `Stamp(long epoch, var topic)`."""
    if pattern is None:
        return []
    if pattern.type == "instanceof_expression":
        name = pattern.child_by_field_name("name")
        if name is not None:
            return [(name, pattern.child_by_field_name("right"))]
        return _pattern_bindings(pattern.child_by_field_name("pattern"))
    if pattern.type in ("type_pattern", "record_pattern_component") and _code_children(pattern):
        *written, name = _code_children(pattern)
        if name.type == "identifier":
            return [(name, written[-1] if written else None)]
    # A `pattern`, a record pattern, its body, a component that is a record pattern.
    return [binding for child in _code_children(pattern) for binding in _pattern_bindings(child)]


def _pattern_names(pattern: Node) -> set[str]:
    """The names of the variables `pattern` declares (see `_pattern_bindings`)."""
    return {_text(name) for name, _ in _pattern_bindings(pattern)}


def _case_variables(label: Node) -> set[str]:
    """The pattern variables a `case` label puts in scope in its arm: its pattern's, and those its
    guard tests where it holds (`case Message m when m.payload() instanceof Long epoch`)."""
    names: set[str] = set()
    for child in _code_children(label):
        if child.type == "pattern":
            names |= _pattern_names(child)
        elif child.type == "guard" and _code_children(child):
            names |= _pattern_variables(_code_children(child)[0], holds=True)
    return names


def _leaves(statement: Node) -> bool:
    """Whether a statement cannot complete normally (JLS 14.22), so that the rest of its block runs
    only where it does not: a jump (`return`, `throw`, `break`, `continue`, `yield`), a block whose
    last statement cannot, an `if` and its `else` neither of which can, a `switch` with a `default`
    none of whose arms can and no `break` leaving it, a loop testing nothing or `true` with no
    `break` leaving it, a labelled statement that cannot with no `break` leaving it (`_left_by_break`),
    a `synchronized` statement whose block cannot, a `try` whose `finally` cannot or whose body and
    `catch` blocks all cannot (`_try_leaves`); and, beyond JLS 14.22, a call that ends the process
    (`_ends_the_process`). Any other statement may complete, as far as a file tells (a `switch`
    exhaustive by its patterns)."""
    if statement.type == "block":
        statements = _code_children(statement)
        return bool(statements) and _leaves(statements[-1])
    if statement.type == "if_statement":
        arms = [statement.child_by_field_name(arm) for arm in ("consequence", "alternative")]
        return all(arm is not None and _leaves(arm) for arm in arms)
    if statement.type == "switch_expression":
        return _switch_leaves(statement)
    if statement.type in ("while_statement", "for_statement"):
        return _tests_true(statement) and not _left_by_break(statement)
    if statement.type == "do_statement":
        return _do_leaves(statement)
    if statement.type in ("try_statement", "try_with_resources_statement"):
        return _try_leaves(statement)
    if statement.type == "labeled_statement":
        return _leaves(_code_children(statement)[-1]) and not _left_by_break(statement)
    if statement.type == "synchronized_statement":
        return _leaves(statement.child_by_field_name("body"))
    return _jumps(statement)


def _jumps(statement: Node) -> bool:
    """Whether a statement jumps (see `_JUMPS`) or ends the process, so that nothing after it runs
    on its path."""
    return statement.type in _JUMPS or _ends_the_process(statement)


# The calls that end the process: javac takes them to complete normally (JLS 14.22 knows no such
# method), but nothing after one runs, as after a `throw`.
_PROCESS_ENDS = frozenset(
    {"System.exit", "java.lang.System.exit", "Runtime.getRuntime().exit", "Runtime.getRuntime().halt"}
)


def _ends_the_process(statement: Node) -> bool:
    """`System.exit(1);`, `Runtime.getRuntime().halt(1);` (see `_PROCESS_ENDS`)."""
    if statement.type != "expression_statement":
        return False
    called = next(iter(_code_children(statement)), None)
    if called is None or called.type != "method_invocation":
        return False
    receiver, name = called.child_by_field_name("object"), called.child_by_field_name("name")
    return receiver is not None and f"{_text(receiver)}.{_text(name)}" in _PROCESS_ENDS


def _do_leaves(statement: Node) -> bool:
    """Whether a `do` statement cannot complete normally: no `break` leaves it, and its test is
    `true` or never reached: its body cannot complete normally and no `continue` goes back to the
    test (`do { return; } while (retry);`)."""
    body = statement.child_by_field_name("body")
    tested = not _leaves(body) or _continued(body, body)
    return (_tests_true(statement) or not tested) and not _left_by_break(statement)


def _try_leaves(statement: Node) -> bool:
    """Whether a `try` statement (with resources or not) cannot complete normally: its `finally`
    block cannot, or neither its body nor any of its `catch` blocks can (`try { return x; } finally
    { log(); }`)."""
    if _finally_stops(statement):
        return True
    body = statement.child_by_field_name("body")
    return all(block is not None and _leaves(block) for block in (body, *_catch_blocks(statement)))


def _catch_blocks(statement: Node) -> list[Node | None]:
    """The blocks of a `try` statement's `catch` clauses."""
    clauses = _code_children(statement)
    return [clause.child_by_field_name("body") for clause in clauses if clause.type == "catch_clause"]


def _finally_stops(statement: Node) -> bool:
    """Whether a `try` statement has a `finally` block that cannot complete normally: whatever its
    body and `catch` blocks do (return, jump, throw, complete), it goes on as that block does."""
    final = next((clause for clause in _code_children(statement) if clause.type == "finally_clause"), None)
    return final is not None and _leaves(_code_children(final)[-1])


def _left_by_break(statement: Node) -> bool:
    """Whether a `break` leaves a loop, `switch` or labelled statement (JLS 14.22): one whose
    target it is (`break inner;` of a label inside it is not), on whose way out no `try` stops it
    by a `finally` that cannot complete normally (`try { break; } finally { return; }`)."""
    return _jumps_to(statement, _broken_by, statement)


def _continued(inside: Node, body: Node) -> bool:
    """Whether a `continue` in `inside` goes back to the test of the loop whose body is `body` (of
    no loop inside it, nor to a label around it), no `finally` on its way stopping it."""
    return _jumps_to(inside, _continued_body, body)


def _jumps_to(inside: Node, target_of: Callable[[Node], Node | None], target: Node) -> bool:
    """Whether a jump in `inside` whose target (`target_of`: `_broken_by`, `_continued_body`) is
    `target` gets there: no `try` on its way stops it by a `finally` that cannot complete normally."""
    return any(
        target_of(node) == target and not _stopped_on_the_way(node, target) for node, _ in _descendants(inside)
    )


def _stopped_on_the_way(jump: Node, target: Node) -> bool:
    """Whether a `try` between a jump and its target, the jump in its body or a `catch` (not in
    its `finally`), has a `finally` that cannot complete normally (`_finally_stops`)."""
    inside, around = jump, jump.parent
    while around is not None and around != target:
        is_try = around.type in ("try_statement", "try_with_resources_statement")
        if is_try and inside.type != "finally_clause" and _finally_stops(around):
            return True
        inside, around = around, around.parent
    return False


def _switch_leaves(switch: Node) -> bool:
    """Whether a `switch` statement cannot complete normally: it has a `default`, and no path
    through any of its arms goes on after it (see `_arm_leaves`)."""
    body = switch.child_by_field_name("body")
    arms = _switch_arms(body)
    return _has_default(body) and bool(arms) and all(_arm_leaves(switch, groups) for groups in arms)


def _catch(statement: Node, catches: list[Node]) -> Catch | None:
    """Where a `throw` in the body of the `try` statement goes on after its `catch` clauses, as
    JLS 14.22 judges them (`_leaves`): after the statement where one may complete normally, after
    the innermost statement a `break` out of one ends, at the next turn of the innermost loop a
    `continue` out of one goes back to; None where each of them returns or throws (`try { return;
    } finally { log(); }` does)."""
    bodies = [body for catch in catches if (body := catch.child_by_field_name("body"))]
    falls_through = not all(_leaves(body) for body in bodies)
    # Of several statements `break`s end, the innermost: the path goes on after it.
    broken = max(_jumped_out_to(bodies, _broken_by), key=lambda node: node.start_byte, default=None)
    # Of the loops `continue`s go back to, the innermost: the rest of its body is all they skip.
    continued = max(_jumped_out_to(bodies, _continued_body), key=lambda node: node.start_byte, default=None)
    if not (falls_through or broken or continued):
        return None
    return Catch(
        _pos(statement) if falls_through else None,
        _pos(broken) if broken else None,
        _pos(continued) if continued else None,
    )


def _jumped_out_to(bodies: list[Node], target_of: Callable[[Node], Node | None]) -> Iterator[Node]:
    """The targets (`target_of`: `_broken_by`, `_continued_body`) around `bodies` that the jumps in
    them get to, no `finally` on their way stopping them: not those of a loop or `switch` inside."""
    for body in bodies:
        for node, _ in _descendants(body):
            target = target_of(node)
            inside = target is not None and body.start_byte <= target.start_byte < body.end_byte
            if target is not None and not inside and not _stopped_on_the_way(node, target):
                yield target


def _broken_by(jump: Node) -> Node | None:
    """The statement a `break` ends: the loop or `switch` around it, or the statement labelled as
    it names; None for another statement."""
    return _jumped_to(jump, _BREAK_SCOPES) if jump.type == "break_statement" else None


def _continued_body(jump: Node) -> Node | None:
    """The body of the loop a `continue` goes back to: the loop around it, or the one labelled as
    it names; None for another statement."""
    loop = _jumped_to(jump, _LOOPS) if jump.type == "continue_statement" else None
    if loop is not None and loop.type == "labeled_statement":
        loop = _code_children(loop)[-1]
    return loop.child_by_field_name("body") if loop is not None else None


def _jumped_to(jump: Node, scopes: frozenset[str]) -> Node | None:
    """The statement a `break` or `continue` names by its label, or else the innermost of `scopes`
    around it (not beyond a lambda or a class)."""
    label = _text(_code_children(jump)[0]) if _code_children(jump) else ""
    around = jump.parent
    while around is not None and around.type not in ("lambda_expression", "class_body"):
        if label and around.type == "labeled_statement" and _text(_code_children(around)[0]) == label:
            return around
        if not label and around.type in scopes:
            return around
        around = around.parent
    return None


def _else_if_head(statement: Node) -> Node | None:
    """The `if` statement that starts the `else if` chain ending in `statement` (`statement` itself
    where it is no `else if` arm; an `if` statement last in an `else` block counts as one, `else {
    log(); if (c) return; }`, as does one last in an `if` arm whose `else` cannot complete normally,
    `if (c) { if (d) return; } else return;`: the rest after the chain runs past it); None where the
    arm before one of its `else if`s may complete normally, so that the rest of the block runs there
    too, whatever `statement` tests (`if (flag) log(); else if (cur != null) return cur;`)."""
    while (around := _arm_around(statement)) is not None:
        consequence, alternative = around.child_by_field_name("consequence"), around.child_by_field_name("alternative")
        if alternative is not None and within(_pos(statement), _pos(alternative)):
            if consequence is None or not _leaves(consequence):
                return None
        elif alternative is None or not _leaves(alternative):
            break
        statement = around
    return statement


def _rest_past(head: Node) -> tuple[Pos, ...]:
    """The code that runs only past `head`, the `if` statement starting an `else if` chain (see
    `_else_if_head`): the rest of its block, and the rest of the block after each statement around
    it that goes on only past a block holding it (see `_block_around`: `else { if (c) e = cur();
    else return; log(); }`, then `commit(e)`), but not the other arms of those statements, which
    run instead of it; none where no block holds it."""
    if head.parent is None or head.parent.type not in _BLOCKS:
        return ()
    spans = [_span_after(head, head.parent)]
    outer = head
    while (around := _block_around(outer)) is not None and (chain := _chain_head(around)) is not None:
        outer = chain
        if outer.parent is not None:
            spans.append(_span_after(outer, outer.parent))
    return tuple(spans)


def _past(statement: Node, rest: tuple[Pos, ...]) -> tuple[Pos, ...]:
    """The code that runs only past `statement` and that no path leaving it reaches: `rest`, what
    `_rest_past` gives it, and what `_spans_past` finds."""
    return tuple(dict.fromkeys((*rest, *_spans_past(statement))))


def _spans_past(statement: Node) -> list[Pos]:
    """The code after `statement` that a path leaving it (by a `return`, `throw`, `break`,
    `continue` or `yield`) never reaches: the rest of its block and, where that block (or
    `statement` itself) is an arm of an `if` statement, the body of a `synchronized` statement or a
    block in a block, the rest after that statement, outward to a loop, a `switch`, a labelled
    statement, a part of a `try` statement, a lambda or a method, which such a path could go on
    past."""
    spans = []
    node = statement
    while (parent := node.parent) is not None:
        if parent.type == "block":
            if _pos(node)[2:] < _pos(parent)[2:]:
                spans.append(_span_after(node, parent))
        elif parent.type not in ("if_statement", "synchronized_statement"):
            break
        node = parent
    return spans


def _block_around(statement: Node) -> Node | None:
    """The statement around the block that holds `statement`, where a path goes on after it only
    past that block: an `if` statement whose other arm cannot complete normally, a `synchronized`
    statement, a `try` statement none of whose `catch` blocks can (for its body), a `switch`
    statement whose other arms cannot (see `_switch_gone_on_past`); None where there is none."""
    block = statement.parent
    around = block.parent if block is not None and block.type == "block" else None
    if block is not None and block.type == "switch_block_statement_group":
        return _switch_gone_on_past(block, statement)
    if around is not None and around.type == "switch_rule":
        return _switch_gone_on_past(around, statement)
    if around is None or around.type == "synchronized_statement":
        return around
    if around.type in ("try_statement", "try_with_resources_statement"):
        # Past a `try` body alone where no `catch` block completes normally.
        caught_going_on = any(body is None or not _leaves(body) for body in _catch_blocks(around))
        return around if around.child_by_field_name("body") == block and not caught_going_on else None
    if around.type != "if_statement":
        return None
    consequence, alternative = around.child_by_field_name("consequence"), around.child_by_field_name("alternative")
    other = alternative if consequence == block else consequence
    return around if other is not None and _leaves(other) else None


def _switch_gone_on_past(group: Node, statement: Node) -> Node | None:
    """The `switch` statement a case group or rule is an arm of, where a path goes on after the
    statement only past `statement`, in the arm's block: the arm is the group alone (no group
    before falls into it, it falls into none), no `break` before `statement` in it leaves the
    switch, the switch has a `default` and no other arm goes on (see `_arm_leaves`); None
    otherwise."""
    switch = group.parent.parent if group.parent is not None else None
    if switch is None or switch.type != "switch_expression" or not _is_switch_statement(switch):
        return None
    before = (child for child in _code_children(statement.parent) if child.end_byte <= statement.start_byte)
    if any(_jumps_to(child, _broken_by, switch) for child in before):
        return None
    body = switch.child_by_field_name("body")
    arms = _switch_arms(body)
    others = [groups for groups in arms if groups != [group]]
    alone = len(others) == len(arms) - 1
    return switch if alone and _has_default(body) and all(_arm_leaves(switch, groups) for groups in others) else None


def _chain_head(statement: Node) -> Node | None:
    """`statement`, or for an `if` statement the head of its `else if` chain (see `_else_if_head`)."""
    return _else_if_head(statement) if statement.type == "if_statement" else statement


def _arm_around(statement: Node) -> Node | None:
    """The `if` statement one of whose arms is `statement`, or a block that `statement` ends; None
    where there is none."""
    around = statement.parent
    if around is not None and around.type == "block" and _code_children(around)[-1:] == [statement]:
        statement, around = around, around.parent
    return around if around is not None and around.type == "if_statement" else None


def _labelled_as(statement: Node) -> Node:
    """The labelled statement that is `statement` with its labels (`outer: while (...) ...`), or
    `statement` itself where it has none."""
    while statement.parent is not None and statement.parent.type == "labeled_statement":
        statement = statement.parent
    return statement


def _runs_once(loop: Node) -> bool:
    """Whether a `while`, `do` or `for` statement runs its body at least once: a `do`, or a test
    that is missing (`for (;;)`) or `true`."""
    return loop.type == "do_statement" or _tests_true(loop)


def _tests_true(loop: Node) -> bool:
    """Whether a `while`, `do` or `for` statement's test is missing (`for (;;)`) or `true`."""
    condition = loop.child_by_field_name("condition")
    return condition is None or _unparenthesized(condition).type == "true"


# The statements whose blocks run at most once as a part of them: a fallback there holds in the block.
_BLOCK_HOLDERS = frozenset(
    {"if_statement", "try_statement", "try_with_resources_statement", "synchronized_statement", "labeled_statement"}
)
_LOOPS = frozenset({"for_statement", "enhanced_for_statement", "while_statement", "do_statement"})
_BREAK_SCOPES = frozenset({*_LOOPS, "switch_expression", "lambda_expression", "class_body"})


def _and_operands(condition: Node) -> Iterator[Node]:
    """The operands of a `&&` chain (the condition itself for another one), unparenthesized."""
    if condition.type == "binary_expression" and _text(condition.child_by_field_name("operator")) == "&&":
        for side in ("left", "right"):
            yield from _and_operands(_unparenthesized(condition.child_by_field_name(side)))
    else:
        yield condition


@dataclass
class _TryLockKept:
    """Whether each path through the body of `while (local)` back to its condition leaves `local`
    holding the result of a `tryLock` of the loop's lock with no unlock after: a walk of the body
    from its start (True there: the condition let the pass in), True or False after a statement,
    None where no path goes on (it left by `break`, `return`, `throw` or `continue`). Statements
    other than a block, an `if` and an assignment (loops, `try`, `switch`, ...) are not followed:
    after one that names `local` or unlocks the lock, False."""

    local: str
    lock: Ref
    # The lock a lock expression names, None where it cannot tell (then it may be `lock`).
    lock_of: Callable[[Node], Ref | None]
    # The loop's body, where a `continue` of the loop goes on from.
    body: Node
    passes_back: list[bool] = field(default_factory=list)

    def through_each_pass(self) -> bool:
        return self._after(self.body, True) is not False and all(self.passes_back)

    def _after(self, statement: Node, kept: bool) -> bool | None:
        if statement.type == "block":
            return self._through(_code_children(statement), kept)
        if statement.type == "continue_statement":
            # `continue outer;` leaves the loop for the next pass of one around it.
            if _continued_body(statement) == self.body:
                self.passes_back.append(kept)
            return None
        if statement.type in (*_EXITS, "break_statement"):
            return None
        if statement.type == "if_statement":
            return self._after_if(statement, kept)
        assigned = self._assigned_value(statement)
        if assigned is not None:
            tried = _try_lock_call(assigned)
            return tried is not None and self.lock_of(tried[0]) == self.lock
        kept = kept and not self._touches(statement)
        if _continued(statement, self.body):
            self.passes_back.append(kept)
        return kept

    def _through(self, statements: list[Node], kept: bool | None) -> bool | None:
        for statement in statements:
            if kept is None:
                break
            kept = self._after(statement, kept)
        return kept

    def _after_if(self, node: Node, kept: bool) -> bool | None:
        kept = kept and not self._touches(node.child_by_field_name("condition"))
        alternative = node.child_by_field_name("alternative")
        arms = [
            self._after(node.child_by_field_name("consequence"), kept),
            self._after(alternative, kept) if alternative is not None else kept,
        ]
        going_on = [arm for arm in arms if arm is not None]
        return all(going_on) if going_on else None

    def _assigned_value(self, statement: Node) -> Node | None:
        """The value of `local = value;` where nothing else in the statement names `local`."""
        if statement.type != "expression_statement" or _code_children(statement)[0].type != "assignment_expression":
            return None
        assignment = _code_children(statement)[0]
        left, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        plain = _text(assignment.child_by_field_name("operator")) == "="
        named = left.type == "identifier" and _text(left) == self.local
        return value if plain and named and not self._touches(value) else None

    def _touches(self, node: Node) -> bool:
        """Whether `node` names `local` or unlocks the lock (called, or a method reference)."""
        for inner, _ in _descendants(node):
            if inner.type == "identifier" and _text(inner) == self.local:
                return True
            if inner.type in ("method_invocation", "method_reference") and self._may_unlock(inner):
                return True
        return False

    def _may_unlock(self, node: Node) -> bool:
        names = idioms.UNLOCK_METHODS | idioms.STAMP_UNLOCK_METHODS
        if node.type == "method_reference":
            return _text(_code_children(node)[-1]) in names
        receiver = node.child_by_field_name("object")
        return _method_called(node) in names and (receiver is None or self.lock_of(receiver) in (self.lock, None))


def _try_lock_call(node: Node) -> tuple[Node, Node] | None:
    """`L.tryLock(...)` (or `tryAcquire`): (the receiver L, the call); None for another node."""
    node = _unparenthesized(node)
    if node.type != "method_invocation" or _method_called(node) not in idioms.TRY_LOCK_METHODS:
        return None
    receiver = node.child_by_field_name("object")
    return (receiver, node) if receiver is not None else None


def _iterates_no_batch(
    node: Node,
    is_array: Callable[[Node], bool],
    is_optional: Callable[[Node], bool],
    one_value: Callable[[Node], Node | None],
) -> bool:
    """Whether `node` is a collection written out element by element (`new T[] {a, b}`,
    `List.of(a, b)`, `Arrays.asList(a, b)`), a range of numbers that walks no collection
    (`IntStream.range(0, 3)`), an `Optional` (`is_optional`: one value at most), or a stream of one
    of them through operations that take each element once (`List.of(a, b).stream().map(f)`,
    `IntStream.range(0, 3).boxed()`), or a local whose one value (`one_value`) is one of them
    (`var s = Stream.of(a, b);`): a loop over it is no batch loop, as Python's over a literal
    tuple or list, or over `range(3)`, is not. Given one array (`is_array`), those factories take
    its elements: `Stream.of(batch)` walks it."""
    node = _unparenthesized(node)
    value = one_value(node)
    if value is not None:
        return _iterates_no_batch(value, is_array, is_optional, one_value)
    if node.type == "array_creation_expression":
        return node.child_by_field_name("value") is not None
    if node.type == "array_initializer":  # `Message[] both = {first, second};`
        return True
    if is_optional(node):
        return True
    if node.type != "method_invocation":
        return False
    receiver = node.child_by_field_name("object")
    if receiver is None:
        return False
    if _method_called(node) in idioms.ELEMENTWISE_STREAM_OPERATIONS:
        return _iterates_no_batch(receiver, is_array, is_optional, one_value)
    arguments = node.child_by_field_name("arguments")
    if (_text(receiver), _method_called(node)) in idioms.NUMBER_RANGES:
        return not _walks_collection(arguments)
    one_array = len(_code_children(arguments)) == 1 and is_array(_code_children(arguments)[0])
    return (_text(receiver), _method_called(node)) in idioms.LITERAL_COLLECTIONS and not one_array


def _assigned_names(scope: Node) -> Iterator[str]:
    """The locals that code in `scope` assigns (`name = ...`, `name += ...`, `name++`)."""
    for node, _ in _descendants(scope):
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = _code_children(node)[0]
        else:
            continue
        if _unparenthesized(target).type == "identifier":
            yield _text(_unparenthesized(target))


def _walks_collection(node: Node) -> bool:
    """Whether code counts or walks a collection: it names its size, length or iterator."""
    return _COLLECTION_WALK.search(_text(node)) is not None


# `.size()`, `.length` (not `.lengthLimit`) and `.iterator()` in code.
_COLLECTION_WALK = re.compile(r"\.(?:size\(\)|length\b|iterator\(\))")


# `Optional`'s tests of holding a value, and its value or a fallback (`or` takes a supplier of
# another `Optional`).
_OPTIONAL_TESTS = frozenset({"isPresent", "isEmpty"})
_OPTIONAL_FALLBACKS = frozenset({"orElse", "orElseGet", "or"})
# The suppliers `orElseGet` calls where it is given them: a method reference, or what a name holds.
_CALLED_SUPPLIERS = frozenset({"method_reference", "identifier", "field_access"})
# The classes made empty whose `add` keeps an element (`ArrayList`, `HashSet`, `ArrayDeque`, `Vector`,
# `Stack`...).
_COLLECTION_CLASS = re.compile(r"(?:List|Set|Queue|Deque|Collection|Vector|Stack)$")
# A method reference's receivers whose result holds the method (`helper()::check`, `new Audit()::run`).
_CALL_RECEIVERS = frozenset({"method_invocation", "object_creation_expression"})
# The functions a call given them runs: a lambda, a method reference, what a name holds, an object made.
_FUNCTIONS_RUN = _CALLED_SUPPLIERS | {"lambda_expression", "object_creation_expression"}
# The methods of `java.util.function`'s interfaces composing a function of two: `Predicate`'s, and
# `Consumer`'s and `Function`'s.
_COMPOSING_METHODS = frozenset({"and", "or", "andThen", "compose"})
# The methods running a function those compose: a `Predicate`'s, a `Consumer`'s, a `Function`'s.
_COMPOSED_RUNNERS = frozenset({"test", "accept", "apply"})
# The stream operations run where they are called whose elements are those their function gives
# (`map`) or some of those they are called on (`filter`): no call yields them (see `_receiver_flow`).
_STREAM_STEPS = idioms.MAPPING_METHODS | idioms.PASSING_METHODS


def _present_arm(condition: Node | None) -> tuple[int, Node | None]:
    """`Choice.present_arm` of a conditional expression: its consequence runs where the value tested
    holds something for `x != null` and `x.isPresent()` (an `Optional`), its alternative for
    `x == null`, `x.isEmpty()` and `!x.isPresent()`; with the `Optional` an `isPresent()` tests."""
    if condition is None:
        return 0, None
    condition = _unparenthesized(condition)
    negated = condition.type == "unary_expression" and _text(condition.child_by_field_name("operator")) == "!"
    call = _unparenthesized(condition.child_by_field_name("operand")) if negated else condition
    arguments = call.child_by_field_name("arguments") if call.type == "method_invocation" else None
    if arguments is not None and not _code_children(arguments) and _method_called(call) in _OPTIONAL_TESTS:
        return (2 if negated != (_method_called(call) == "isEmpty") else 1), call.child_by_field_name("object")
    if _tested_null(condition, "!="):
        return 1, None
    return (2 if _tested_null(condition, "==") else 0), None


def _tested_local(condition: Node | None) -> tuple[int, str]:
    """The local an `if` tests for holding something (`x != null`, `x.isPresent()`: 1) or for
    missing (`x == null`, `!x.isPresent()`, `x.isEmpty()`: 2), as (that arm, the local); (0, "")."""
    arm, optional = _present_arm(condition)
    if optional is not None:
        optional = _unparenthesized(optional)
        return (arm, _text(optional)) if optional.type == "identifier" else (0, "")
    local = _tested_null(condition, "!=" if arm == 1 else "==") if arm else None
    return (arm, local) if local else (0, "")


def _tested_null(condition: Node | None, operator: str) -> str | None:
    """The local that `name == null` (`operator` "==") or `name != null` (either way round) compares."""
    if condition is None:
        return None
    condition = _unparenthesized(condition)
    if condition.type != "binary_expression" or _text(condition.child_by_field_name("operator")) != operator:
        return None
    left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
    for name, other in ((left, right), (right, left)):
        if name is not None and other is not None and name.type == "identifier" and other.type == "null_literal":
            return _text(name)
    return None


def _parameter_fallbacks(
    body: Node, params: set[str], nested_in: Node | None = None
) -> dict[int, tuple[str, Node, Node | None]]:
    """The statements of a method's `body` giving a parameter of `params` a value where it holds null,
    by node id: the parameter, that value (see `_fallback_assigned`) and the block `nested_in` (None
    for the body itself). Also those of the blocks nested in the body's statements (see
    `_nested_blocks`), but not of a loop's, a lambda's or a class's."""
    found: dict[int, tuple[str, Node, Node | None]] = {}
    for statement in _code_children(body):
        fallback = _fallback_assigned(statement)
        if fallback is not None and fallback[0] in params:
            found[statement.id] = (*fallback, nested_in)
            continue
        for block in _nested_blocks(statement):
            found.update(_parameter_fallbacks(block, params, block))
    return found


def _nested_blocks(statement: Node) -> list[Node]:
    """The blocks a statement runs as part of itself, each at most once: itself (`{ ... }`), an `if`'s
    arms, a `try`'s body, a `synchronized` statement's body, a labelled statement's."""
    if statement.type == "block":
        return [statement]
    if statement.type not in _BLOCK_HOLDERS:
        return []
    return [child for child in _code_children(statement) if child.type == "block"]


def _given_fallback(param: Param, path: Ref | None, call: int, at: Pos, within: Pos | None) -> Param:
    """`param` given a value `path` (or the result of call `call`) where it holds null by the
    statement at `at`, nested in the block `within` (None: the body itself): its fallback for the
    first such statement; after that it holds null no more, and a later one keeps its value."""
    if param.fallback_at is None:
        return param._replace(fallback=path, fallback_call=call, fallback_at=at, fallback_within=within)
    return param._replace(fallback_again_at=(*param.fallback_again_at, at))


def _fallback_assigned(statement: Node) -> tuple[str, Node] | None:
    """The local a statement gives a value where it holds null, and that value, as Python's
    `lock = lock or self._lock` does: `if (name == null) name = value;`, `name = name != null ? name :
    value;` (either way round), `name = Objects.requireNonNullElse(name, value);`,
    `name = Objects.requireNonNullElseGet(name, () -> value);`. None for another statement."""
    if statement.type == "if_statement" and statement.child_by_field_name("alternative") is None:
        consequence = statement.child_by_field_name("consequence")
        inner = _code_children(consequence) if consequence.type == "block" else [consequence]
        assigned = _one_name_assigned(inner[0]) if len(inner) == 1 else None
        tested = _tested_null(statement.child_by_field_name("condition"), "==")
        return assigned if assigned is not None and assigned[0] == tested else None
    assigned = _one_name_assigned(statement)
    given = _given_where_null(*assigned) if assigned is not None else None
    return (assigned[0], given) if assigned is not None and given is not None else None


def _one_name_assigned(statement: Node) -> tuple[str, Node] | None:
    """The local and the value of `name = value;`; None for another statement."""
    expression = _code_children(statement)[0] if statement.type == "expression_statement" else None
    if expression is None or expression.type != "assignment_expression":
        return None
    target, value = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if _text(expression.child_by_field_name("operator")) != "=" or target.type != "identifier":
        return None
    return _text(target), _unparenthesized(value)


def _given_where_null(name: str, value: Node) -> Node | None:
    """What `value` gives where the local `name` holds null, where it gives `name` itself otherwise:
    `other` of `name != null ? name : other`, `name == null ? other : name`,
    `Objects.requireNonNullElse(name, other)` and `Objects.requireNonNullElseGet(name, () -> other)`
    (see `_supplied`). None for another value."""
    if value.type == "ternary_expression":
        condition = value.child_by_field_name("condition")
        present, missing = value.child_by_field_name("consequence"), value.child_by_field_name("alternative")
        if _tested_null(condition, "==") == name:
            present, missing = missing, present
        elif _tested_null(condition, "!=") != name:
            return None
        return _unparenthesized(missing) if _is_local(present, name) else None
    method = _method_called(value) if value.type == "method_invocation" else ""
    if method not in ("requireNonNullElse", "requireNonNullElseGet"):
        return None
    receiver = value.child_by_field_name("object")
    arguments = _code_children(value.child_by_field_name("arguments"))
    if receiver is not None and _text(receiver) not in ("Objects", "java.util.Objects") or len(arguments) != 2:
        return None
    if not _is_local(arguments[0], name):
        return None
    other = _unparenthesized(arguments[1])
    return _supplied(other) if method == "requireNonNullElseGet" else other


def _supplied(supplier: Node) -> Node:
    """The value a supplier gives where it runs at once (`requireNonNullElseGet`): the body of `() ->
    this.lock`, or what its one `return`, its block's last statement, returns (`() -> { log();
    return this.lock; }`); the supplier itself for another (`this::newLock`), a value that is no name
    path."""
    body = supplier.child_by_field_name("body") if supplier.type == "lambda_expression" else None
    if body is not None and body.type == "block":
        statements = _code_children(body)
        returns = [node for node, _ in _descendants(body) if node.type == "return_statement"]
        returns = [node for node in returns if _left(node) == supplier]
        alone = returns[0] if len(returns) == 1 and statements[-1] == returns[0] else None
        body = _code_children(alone)[0] if alone is not None and _code_children(alone) else None
    return _unparenthesized(body) if body is not None else supplier


def _left(jump: Node) -> Node | None:
    """The lambda or the class body a `return` leaves (the method of that body): the innermost around it."""
    around = jump.parent
    while around is not None and around.type not in ("lambda_expression", "class_body"):
        around = around.parent
    return around


def _is_local(node: Node, name: str) -> bool:
    node = _unparenthesized(node)
    return node.type == "identifier" and _text(node) == name


def _tested_lock(condition: Node, results: Mapping[str, tuple[Node, Node]]) -> tuple[Node, Node] | None:
    """`if (L.tryLock(...))`, alone or as an operand of `&&`, or `if (got)` of a local in
    `results`: (the receiver L, the call)."""
    if condition.type == "binary_expression" and _text(condition.child_by_field_name("operator")) == "&&":
        return _tested_lock(_unparenthesized(condition.child_by_field_name("left")), results) or _tested_lock(
            _unparenthesized(condition.child_by_field_name("right")), results
        )
    if condition.type == "identifier":
        return results.get(_text(condition))
    return _try_lock_call(condition)
