"""EPL003 fix: commit `max(historical, current)`, the KAFKA-19902 analysis's recommended defence."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from epochlint.findings import Finding
from epochlint.fix.edits import Edit, SourceTree, any_node


def edits(tree: SourceTree, findings: Sequence[Finding]) -> list[Edit]:
    """One `max(...)` per historical read, whatever the number of commits it reaches."""
    grouped: dict[tuple[int, str], tuple[cst.BaseExpression, list[Finding]]] = {}
    for finding in findings:
        fix = finding.fix
        assert fix is not None and fix.location is not None
        expression = tree.expression_at(fix.location)
        if expression is not None and (not fix.text.isidentifier() or _bound_at(tree, expression, fix.text)):
            grouped.setdefault((id(expression), fix.text), (expression, []))[1].append(finding)
    return [
        Edit(expression, _at_least(current), tuple(served))
        for (_, current), (expression, served) in grouped.items()
    ]


def _bound_at(tree: SourceTree, node: cst.CSTNode, name: str) -> bool:
    """Whether local `name` is bound where `node` runs: assigned before it (`_assigned_before`),
    and never unbound in its function (`del name`, or `except ... as name`, which ends unbound)."""
    function: cst.CSTNode | None = node
    while function is not None and not isinstance(function, cst.FunctionDef):
        function = tree.parent(function)
    if function is not None and any_node(function, lambda child: _unbinds(child, name)):
        return False
    return _assigned_before(tree, node, name)


def _unbinds(node: cst.CSTNode, name: str) -> bool:
    if isinstance(node, cst.Del):
        return any_node(node.target, lambda target: isinstance(target, cst.Name) and target.value == name)
    if isinstance(node, cst.ExceptHandler) and node.name is not None:
        return isinstance(node.name.name, cst.Name) and node.name.name.value == name
    return False


def _assigned_before(tree: SourceTree, node: cst.CSTNode, name: str) -> bool:
    """Whether a statement before `node`'s, in its block or an enclosing one of its function,
    assigns `name`: then it is bound whichever way the code runs to `node`."""
    current: cst.CSTNode | None = node
    while current is not None and not isinstance(current, cst.FunctionDef):
        found = tree.block_of(current)
        if found is not None:
            block, index = found
            if any(_assigns(statement, name) for statement in block.body[:index]):
                return True
        current = tree.parent(current)
    return False


def _assigns(statement: cst.CSTNode, name: str) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return any(
        isinstance(small, cst.Assign)
        and any(isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets)
        for small in statement.body
    )


def _at_least(current: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def change(historical: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(historical, cst.BaseExpression)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return cst.Call(
            func=cst.Name("max"),
            args=[
                cst.Arg(historical.with_changes(lpar=[], rpar=[]), comma=comma),
                cst.Arg(cst.parse_expression(current)),
            ],
            lpar=historical.lpar,
            rpar=historical.rpar,
        )

    return change
