"""EPL003 fix: commit `max(historical, current)`, the KAFKA-19902 analysis's recommended defence."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from epochlint.findings import Finding, FixHint
from epochlint.fix.edits import Edit, SourceTree
from epochlint.frontend.facts import Bind, Ref
from epochlint.program.symbols import FieldId

if TYPE_CHECKING:
    from epochlint.program.dataflow import Hop
    from epochlint.program.model import Program

APPLIES = """
the historical epoch is read right in the epoch argument of the commit value (`OffsetAndMetadata`,
`TopicPartition`), and the current leader epoch is in scope there: a local bound once, before it,
to the current epoch from metadata (`metadata.leader_epoch_for(tp)`,
`position.current_leader.epoch`), or the `current_leader.epoch` of the position the historical
epoch is read from. Both are then numbers, as in kafka-python, which
writes -1 for an epoch it does not know.
"""
# The hop that builds the commit value from the epoch (see rules/epl003).
_BUILD = "build"
_POSITION_WORDS = frozenset({"position", "pos"})


def hint(program: Program, path: Sequence[Hop]) -> FixHint | None:
    """`max(historical, current)` in place of the historical read, when a current epoch is at hand."""
    if len(path) < 2 or path[1].kind != _BUILD or path[1].fid != path[0].fid:
        return None
    source, build = path[0], path[1]
    if not (build.site.pos[:2] <= source.site.pos[:2] and source.site.pos[2:] <= build.site.pos[2:]):
        return None  # read before, into a local that may have other uses
    current = _current_local(program, source) or _current_of_position(program, source)
    if current is None:
        return None
    return FixHint(text=current, location=program.location(source.fid, source.site.pos))


def _current_local(program: Program, source: Hop) -> str | None:
    """A local bound once, before the read, to the current leader epoch from metadata."""
    function = program.symbols.function(source.fid)
    for bind in function.binds:
        if bind.kind != "assign" or bind.site.pos[:2] >= source.site.pos[:2]:
            continue
        if _is_current(program, source.fid, bind) and sum(1 for b in function.binds if b.name == bind.name) == 1:
            return bind.name
    return None


def _is_current(program: Program, fid: str, bind: Bind) -> bool:
    """`x = metadata.leader_epoch_for(tp)`, `x = position.current_leader.epoch`: an epoch, and current."""
    config = program.config
    if bind.value_ref is not None and bind.value_ref.attrs:
        names = [attr for attr in bind.value_ref.attrs if attr != "[]"]
        return any(config.current_epoch_source(n) for n in names) and config.epoch_name(names[-1])
    call = program.symbols.call(fid, bind.value_call) if bind.value_call >= 0 else None
    return call is not None and config.current_epoch_source(call.method) and config.epoch_name(call.method)


def _current_of_position(program: Program, source: Hop) -> str | None:
    """`P.current_leader.epoch` when the source reads `P.<epoch>` and P is a position with a leader."""
    function = program.symbols.function(source.fid)
    read = next((a for a in function.accesses if a.site.pos == source.site.pos), None)
    if read is None or not read.ref.attrs:
        return None
    holder = Ref(read.ref.scope, read.ref.name, read.ref.attrs[:-1])
    if holder.text().rsplit(".", 1)[-1].lower().lstrip("_") not in _POSITION_WORDS:
        return None
    entity = program.symbols.entity(source.fid, holder)
    # Of unknown class, the position is any class of the project with the field read.
    owners = [entity.target] if entity.kind == "instance" else _classes_with(program, read.ref.attrs[-1])
    if not owners or not all(_has_field(program, cid, "current_leader") for cid in owners):
        return None
    return f"{holder.text()}.current_leader.epoch"


def _classes_with(program: Program, attr: str) -> list[str]:
    return [cid for cid in sorted(program.symbols.classes) if _has_field(program, cid, attr)]


def _has_field(program: Program, cid: str, attr: str) -> bool:
    owner = program.symbols.defining_class(cid, attr)
    return bool(program.field_writes.get(FieldId(owner, (attr,)))) or any(
        attr in program.symbols.classes[klass][1].attributes
        for klass in program.symbols.mro(cid)
        if klass in program.symbols.classes
    )


def edits(tree: SourceTree, findings: Sequence[Finding]) -> list[Edit]:
    """One `max(...)` per historical read, whatever the number of commits it reaches."""
    grouped: dict[tuple[int, str], tuple[cst.BaseExpression, list[Finding]]] = {}
    for finding in findings:
        fix = finding.fix
        assert fix is not None and fix.location is not None
        expression = tree.expression_at(fix.location)
        if expression is not None and (not fix.text.isidentifier() or _assigned_before(tree, expression, fix.text)):
            grouped.setdefault((id(expression), fix.text), (expression, []))[1].append(finding)
    return [
        Edit(expression, _at_least(current), tuple(served))
        for (_, current), (expression, served) in grouped.items()
    ]


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
