"""Output formats. Each module turns a `RunResult` into text on a stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from epochlint.findings import Finding


@dataclass(frozen=True)
class RuleInfo:
    """What a report needs to know about a rule."""

    code: str
    name: str
    summary: str
    documentation: str


@dataclass(frozen=True)
class RunResult:
    """Everything one `epochlint check` run produced, in deterministic order."""

    root: Path
    findings: tuple[Finding, ...]
    rules: tuple[RuleInfo, ...]
    files_analysed: int
    tool_version: str
    # Baseline entries that no longer match any finding (fixed, or suppressed, since it was written).
    stale_baseline: int = 0
    # Findings the baseline hid (`--baseline`).
    baseline_hidden: int = 0
    # Findings recorded in a baseline instead of reported (`--write-baseline`); None: none written.
    baseline_recorded: int | None = None
    notes: tuple[str, ...] = field(default=())
    # Files read but not parsed: the prefilter found nothing in them that a rule could need.
    files_not_relevant: int = 0
    # (root-relative name, content) of the files analysed from memory (stdin, unsaved buffers),
    # not from disk: what a report quotes of them.
    in_memory: tuple[tuple[str, bytes], ...] = ()
    # The files reported but never read (a link not followed, a FIFO): no report quotes them.
    not_read: frozenset[str] = frozenset()
