"""Autofix: libcst codemods for the findings whose fix is mechanical and safe, one module per rule.

A rule attaches a `FixHint` to each finding it knows how to repair (what only the analysis knows:
the guard, the bump); the rule's fixer here turns hints into edits of the file's syntax tree.
`epochlint.fix.run` applies them, and keeps a fix only when analysing the fixed project again shows
its finding gone and no new finding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from epochlint.findings import Finding
from epochlint.fix import epl001, epl003, epl004
from epochlint.fix.edits import Edit, SourceTree


# Each fixable rule's fixer: the edits that repair its findings (their `FixHint`s) in one file.
# When each applies is part of its rule's documentation (`Rule.autofix`).
FIXERS: dict[str, Callable[[SourceTree, Sequence[Finding]], list[Edit]]] = {
    "EPL001": epl001.edits,
    "EPL003": epl003.edits,
    "EPL004": epl004.edits,
}


def fixable(finding: Finding) -> bool:
    return finding.fix is not None and finding.code in FIXERS
