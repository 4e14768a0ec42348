"""EPL900: a file that cannot be read or parsed."""

from __future__ import annotations

import re
from collections.abc import Iterable

from epochlint.findings import Finding, Location
from epochlint.program.budget import LimitReport, WorkLimitReached
from epochlint.program.lockorder import EVENT_STEPS, LOCK_ORDER_STEPS
from epochlint.program.model import LOOP_READS_STEPS, READS_STEPS, BatchLoop, Program
from epochlint.rules.base import Example, Rule


class UnparseableFile(Rule):
    code = "EPL900"
    name = "unparseable-file"
    summary = "A file could not be read or parsed, or an analysis went past its work limit: not analysed."
    what = """
A file that epochlint could not analyse: a syntax error, bytes that do not decode in the file's
encoding, a file over the size limit (`max-file-size`), nesting too deep to parse, or a file that
vanished or became unreadable during the run. The finding says why, in one line, at the syntax
error's line and column (as Python's own compiler places it; in a Java file, where tree-sitter
finds the first error), where Python code first nests too deeply, or at line 1, column 1 when the
file could not be read or decoded. It is
reported whatever `select` chooses: only an `ignore` or a per-file ignore that matches it (`EPL900`,
`EPL9`, `ALL`) silences it.

It also reports an analysis that would take more work than its fixed limit, at the place where the
limit was reached, naming the rules that could not be checked in the part of the program it was
analysing (a file and every file linked to it by imports; the other parts are checked as usual):

- the lock order through calls (EPL008, EPL009) may take {LOCK_ORDER_STEPS:,} steps, each function
  reached from a call made with a lock held, and each pair of locks with each call on its chain,
  counting one. Deeply nested lock-holding calls make a pair of every two locks on a chain and
  reach it at 142 calls;
- the search for epoch bumps and queue clears through calls (EPL004) may take {EVENT_STEPS:,} steps,
  each call on the way from a call to the bump or clear it leads to counting one. A chain of calls
  ending in a bump reaches it at about 1,400 functions;
- the search for epoch reads through calls from batch loops (EPL001, EPL002) may take
  {READS_STEPS:,} steps, each call walked counting one. Paths that reach a function alike are
  walked on once, but inside a call cycle the functions of the cycle a path went through count
  too: calls that fork and join again on one cycle reach it at 16 levels. The search from one
  batch loop may take {LOOP_READS_STEPS:,} of them: a loop past that is reported alone, at the
  loop, and EPL001 and EPL002 check the rest of its part of the program (a cycle of forking calls
  reaches it at 12 levels).

The projects measured spend at most a few hundred steps. The limits count work, not time, so the
same code gets the same findings on any machine.
""".format(
        LOCK_ORDER_STEPS=LOCK_ORDER_STEPS,
        EVENT_STEPS=EVENT_STEPS,
        READS_STEPS=READS_STEPS,
        LOOP_READS_STEPS=LOOP_READS_STEPS,
    )
    why = """
A linter that skips a file silently lies about it: the file could hold the very race the run was
meant to find. Every other file is still analysed; this finding makes the gap visible.
"""
    seed = """
Not from a seed: it is how epochlint keeps its promise that nothing is lost.
"""
    example = """
def redeliver(self)  # EPL900: a missing colon, reported at the line where it is missing
    self._epoch += 1
"""
    fix = """
Fix the syntax or the encoding, raise `max-file-size` in `[tool.epochlint]` if the file is
legitimately large, or exclude generated files with `exclude`.
"""
    valid = (Example(title="a file that parses", code="def redeliver(self):\n    pass\n"),)
    invalid = (
        Example(
            title="a syntax error, reported where it is",
            code="import threading\n\n\ndef redeliver(self)  # expect: EPL900\n    pass\n",
        ),
    )

    def check(self, program: Program) -> Iterable[Finding]:
        # Work limits are reported by the engine, which sees the rules that reach them.
        for error in program.errors:
            yield Finding(
                code=self.code,
                name=self.name,
                message=f"Cannot analyse this file: {_sentence(error.reason)}",
                location=Location(error.rel, *error.pos),
                # What is wrong, not where: the place moves with every line added above it.
                fingerprint_key=_NUMBERS.sub("#", error.reason.split(":")[0]),
            )


_NUMBERS = re.compile(r"\d+")


def _sentence(reason: str) -> str:
    return reason if reason.endswith((".", "?", "!")) else reason + "."


def work_limit_finding(program: Program, report: LimitReport) -> Finding:
    """EPL900 for an analysis of a part of the program that stopped at its work limit, where it stopped."""
    limit = report.limit
    return Finding(
        code=UnparseableFile.code,
        name=UnparseableFile.name,
        message=f"Cannot analyse the part of the program linked to this file by imports: {report}.",
        location=program.location(limit.function, limit.pos),
        function=program.display_function(limit.function),
        fingerprint_key=f"work limit: {limit.what}",
    )


def loop_limit_finding(program: Program, loop: BatchLoop, limit: WorkLimitReached, rules: list[str]) -> Finding:
    """EPL900 for a batch loop whose search for epoch reads stopped at its own work limit, at the
    loop: `rules` (those of EPL001 and EPL002 that ran) checked all else."""
    report = LimitReport(limit, rules)
    return Finding(
        code=UnparseableFile.code,
        name=UnparseableFile.name,
        message=f"Cannot check this batch loop: {limit}; {report.unchecked('for it')}.",
        location=program.location(loop.function, loop.site.pos),
        function=program.display_function(loop.function),
        fingerprint_key=f"work limit: {limit.what}",
    )
