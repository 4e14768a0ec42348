"""Autofix: libcst codemods for the findings whose fix is mechanical and safe, one module per rule.

A rule attaches a `FixHint` to each finding it knows how to repair (what only the analysis knows:
the guard, the bump); the rule's fixer here turns hints into edits of the file's syntax tree.
`epochlint.fix.run` applies them, and keeps a fix only when analysing the fixed project again shows
its finding gone and no new finding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from epochlint.findings import Finding
from epochlint.fix import epl001, epl003, epl004
from epochlint.fix.edits import Edit, SourceTree


@dataclass(frozen=True)
class Fixer:
    edits: Callable[[SourceTree, Sequence[Finding]], list[Edit]]
    # When the fix is made, completing "`--fix` makes this change when ...".
    applies: str


FIXERS: dict[str, Fixer] = {
    "EPL001": Fixer(epl001.edits, epl001.APPLIES),
    "EPL003": Fixer(epl003.edits, epl003.APPLIES),
    "EPL004": Fixer(epl004.edits, epl004.APPLIES),
}


def fixable(finding: Finding) -> bool:
    return finding.fix is not None and finding.code in FIXERS


def autofix_documentation(code: str) -> str:
    """The paragraph a fixable rule's documentation ends with; empty for other rules."""
    fixer = FIXERS.get(code)
    if fixer is None:
        return ""
    return (
        "`epochlint check --fix` makes this change, and `--fix --diff` shows it without writing, "
        f"when {' '.join(fixer.applies.split())}"
    )
