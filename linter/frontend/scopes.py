"""Which names a function binds locally, decided before its body is read, as Python decides it."""

from __future__ import annotations

from collections import Counter

import libcst as cst

from epochlint.frontend.walk import FastVisitor


class _BindingCollector(FastVisitor):
    """Collects the names bound in one function body, without entering nested scopes unless
    `enters_nested`."""

    def __init__(self, enters_nested: bool = False) -> None:
        self.enters_nested = enters_nested
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()

    def _bind_name(self, name: str) -> None:
        self.bound.add(name)

    def _bind_target(self, target: cst.BaseExpression) -> None:
        # `type(...) is`: these classes have no subclasses, and `isinstance` against libcst's runs Python code.
        if type(target) is cst.Name:
            self._bind_name(target.value)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            for element in target.elements:
                self._bind_target(element.value)
        elif type(target) is cst.StarredElement:
            self._bind_target(target.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._bind_name(node.name.value)
        return self.enters_nested

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._bind_name(node.name.value)
        return self.enters_nested

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self.enters_nested

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind_target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind_target(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name: cst.BaseExpression = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            if isinstance(name, cst.Name):
                self._bind_name(name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.declared_global.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared_nonlocal.update(item.name.value for item in node.names)


class _StatementBindingCollector(_BindingCollector):
    """A `_BindingCollector` for code without `:=`, where no expression binds a name (a lambda's
    parameters are its own): it enters no expression, and most nodes are expressions."""

    def walk(self, node: cst.CSTNode) -> None:
        kind = type(node)
        is_expression = _IS_EXPRESSION.get(kind)
        if is_expression is None:
            # By a lookup per class: `isinstance` against libcst's abstract classes runs Python code.
            is_expression = _IS_EXPRESSION[kind] = issubclass(kind, cst.BaseExpression)
        if not is_expression:
            super().walk(node)


_IS_EXPRESSION: dict[type, bool] = {}


def function_bindings(
    params: cst.Parameters | None, body: cst.CSTNode, binds_in_expressions: bool = True
) -> tuple[frozenset[str], frozenset[str]]:
    """Return (locals, globals declared) of a function with these parameters and body;
    `binds_in_expressions`: whether its code may bind a name in an expression (it holds `:=`)."""
    collector = _BindingCollector() if binds_in_expressions else _StatementBindingCollector()
    collector.walk(body)
    names = set(collector.bound)
    if params is not None:
        names.update(param.name.value for param in all_params(params))
    names -= collector.declared_global
    names -= collector.declared_nonlocal
    return frozenset(names), frozenset(collector.declared_global)


# The methods that put more elements into the list or set they are called on.
_GROWING_METHODS = frozenset(
    {"append", "extend", "insert", "add", "update", "symmetric_difference_update", "__setitem__", "__iadd__", "__ior__"}
)
# The builtins that only read a collection given to them: passed to one, a list adds nothing.
_READING_BUILTINS = frozenset(
    {
        "all", "any", "enumerate", "filter", "frozenset", "functools.reduce", "iter", "len", "list", "map", "max",
        "min", "print", "reduce", "reversed", "set", "sorted", "sum", "tuple", "zip",
    }
)


class _OnceBoundCollector(_BindingCollector):
    """Counts every binding of each name in a function body and in the scopes nested in it (a
    nested `nonlocal` binding is the function's own), with the value of each plain assignment of a
    name (`name = value`, `name: T = value`), and notes the names whose value grows in place and
    those passed on, to a function or into another container, which may add to a list or a set."""

    def __init__(self) -> None:
        super().__init__(enters_nested=True)
        self.bindings: Counter[str] = Counter()
        self.assigned: dict[str, cst.BaseExpression] = {}
        self.grown: set[str] = set()
        self.passed_on: set[str] = set()

    def _bind_name(self, name: str) -> None:
        self.bindings[name] += 1

    def _bind_target(self, target: cst.BaseExpression) -> None:
        super()._bind_target(target)
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self.grown.add(target.value.value)  # `name[1:] = batch`

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind_target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind_target(node.target)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind_name(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self._bind_name(node.name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        only_target = node.targets[0].target if len(node.targets) == 1 else None
        self._assigned(only_target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        super().visit_AnnAssign(node)
        if node.value is not None:
            self._assigned(node.target, node.value)

    def _assigned(self, target: cst.BaseExpression | None, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.assigned[target.value] = value
        if isinstance(value, cst.Name):
            self.grown.add(value.value)  # `alias = name`: it may grow through `alias`

    def visit_Attribute(self, node: cst.Attribute) -> None:
        # Called there (`name.append(m)`) or later (`add = name.append`, `callback=name.append`).
        if isinstance(node.value, cst.Name) and node.attr.value in _GROWING_METHODS:
            self.grown.add(node.value.value)

    def visit_Call(self, node: cst.Call) -> None:
        # `fill(name, batch)`, `heapq.heappush(name, m)`: the function may add to what it is given.
        if _called_name(node.func) not in _READING_BUILTINS:
            given = (arg.value for arg in node.args if not arg.star)
            self.passed_on.update(value.value for value in given if isinstance(value, cst.Name))

    def visit_Element(self, node: cst.Element) -> None:
        if isinstance(node.value, cst.Name):
            self.passed_on.add(node.value.value)  # `holder = [name]`: added to through `holder[0]`

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if isinstance(node.value, cst.Name):
            self.passed_on.add(node.value.value)


def _called_name(function: cst.BaseExpression) -> str:
    """`len` of `len(x)`, `functools.reduce` of `functools.reduce(f, x)`; "" for any other callee."""
    if isinstance(function, cst.Name):
        return function.value
    if isinstance(function, cst.Attribute) and isinstance(function.value, cst.Name):
        return f"{function.value.value}.{function.attr.value}"
    return ""


def values_bound_once(
    params: cst.Parameters, body: cst.CSTNode, kinds: tuple[type[cst.BaseExpression], ...]
) -> dict[str, cst.BaseExpression]:
    """The locals of a function bound once, by an assignment of an expression of one of `kinds`,
    never bound again (nor by a nested scope, a loop, `del` or `+=`), never declared `global` or
    `nonlocal`, never added to in place (`.append`, `.add`, a slice stored) nor given another name
    that could be, nor, but for a tuple, passed to a function or kept in another container: each
    with that value, which it holds wherever it is read."""
    collector = _OnceBoundCollector()
    collector.walk(body)
    for param in all_params(params):
        collector.bindings[param.name.value] += 1
    shared = collector.declared_global | collector.declared_nonlocal | collector.grown
    return {
        name: value
        for name, value in collector.assigned.items()
        if isinstance(value, kinds) and collector.bindings[name] == 1 and name not in shared
        and (name not in collector.passed_on or isinstance(value, cst.Tuple))
    }


def all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    if type(params.star_arg) is cst.Param:
        found.append(params.star_arg)
    if params.star_kwarg is not None:
        found.append(params.star_kwarg)
    return found
