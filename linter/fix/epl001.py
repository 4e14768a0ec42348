"""EPL001 fix: hold the guard around the whole batch loop (the #25204 investigation's option 1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from epochlint.findings import Finding
from epochlint.fix.edits import Edit, SourceTree, Statement, any_node


def edits(tree: SourceTree, findings: Sequence[Finding]) -> list[Edit]:
    """One `with <guard>:` around each loop statement (or the statement holding a comprehension)."""
    grouped: dict[tuple[int, str], tuple[Statement, list[Finding]]] = {}
    for finding in findings:
        assert finding.fix is not None
        statement = _loop_statement(tree, finding)
        if statement is not None:
            key = (id(statement), finding.fix.text)
            grouped.setdefault(key, (statement, []))[1].append(finding)
    return [
        Edit(statement, _held(guard), tuple(served))
        for (_, guard), (statement, served) in grouped.items()
    ]


def _loop_statement(tree: SourceTree, finding: Finding) -> Statement | None:
    """The statement to wrap: the `for` itself, or the simple statement a comprehension is in.

    A loop in a compound statement's header (an `if` test, another loop's iterable) is not wrapped:
    the lock would be held over the whole compound statement. Neither is a loop that yields.
    """
    statement = tree.statement_at(finding.location)
    if isinstance(statement, cst.For):
        wrappable = statement.asynchronous is None and tree.starts_at(statement, finding.location)
    else:
        wrappable = isinstance(statement, cst.SimpleStatementLine)
    if statement is None or not wrappable or tree.block_of(statement) is None:
        return None
    if any_node(statement, lambda node: isinstance(node, (cst.Yield, cst.Await))):
        return None
    return statement


def _held(guard: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def change(statement: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(statement, Statement)
        # Comments above the loop stay above the `with`, which now starts the statement.
        return cst.With(
            items=[cst.WithItem(cst.parse_expression(guard))],
            body=cst.IndentedBlock(body=[statement.with_changes(leading_lines=())]),
            leading_lines=statement.leading_lines,
        )

    return change
