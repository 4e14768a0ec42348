"""Which names a function binds locally, decided before its body is read, as Python decides it."""

from __future__ import annotations

import libcst as cst

from epochlint.frontend.walk import FastVisitor


class _BindingCollector(FastVisitor):
    """Collects the names bound in one function body, without entering nested scopes."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()

    def _bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bound.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bound.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

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
                self.bound.add(name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.declared_global.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared_nonlocal.update(item.name.value for item in node.names)


def function_bindings(
    params: cst.Parameters | None, body: cst.CSTNode
) -> tuple[frozenset[str], frozenset[str]]:
    """Return (locals, globals declared) of a function with these parameters and body."""
    collector = _BindingCollector()
    collector.walk(body)
    names = set(collector.bound)
    if params is not None:
        names.update(param.name.value for param in all_params(params))
    names -= collector.declared_global
    names -= collector.declared_nonlocal
    return frozenset(names), frozenset(collector.declared_global)


def all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    if isinstance(params.star_arg, cst.Param):
        found.append(params.star_arg)
    if params.star_kwarg is not None:
        found.append(params.star_kwarg)
    return found
