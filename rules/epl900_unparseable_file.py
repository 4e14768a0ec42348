"""EPL900: a file that cannot be read or parsed."""

from __future__ import annotations

from collections.abc import Iterable

from epochlint.findings import Finding, Location
from epochlint.program.model import Program
from epochlint.rules.base import Example, Rule


class UnparseableFile(Rule):
    code = "EPL900"
    name = "unparseable-file"
    summary = "A file could not be read or parsed, so it was not analysed."
    what = """
A file that epochlint could not analyse: a syntax error, bytes that do not decode in the file's
encoding, a file over the size limit (`max-file-size`), nesting too deep to parse, or a file that
vanished or became unreadable during the run. The finding says why, in one line, at the syntax
error's line and column (as Python's own compiler places it; in a Java file, where tree-sitter
finds the first error), or at line 1, column 1 when the file could not be read or decoded.
"""
    why = """
A linter that skips a file silently lies about it: the file could hold the very race the run was
meant to find. Every other file is still analysed; this finding makes the gap visible.
"""
    seed = """
Not from a seed: it is how epochlint keeps its promise that nothing is lost.
"""
    example = """
def redeliver(self)  # a missing colon: EPL900 at line 1, where the colon is missing
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
        for error in program.errors:
            yield Finding(
                code=self.code,
                name=self.name,
                message=f"Cannot analyse this file: {_sentence(error.reason)}",
                location=Location(error.rel, *error.pos),
                fingerprint_key=error.reason.split(":")[0],
            )


def _sentence(reason: str) -> str:
    return reason if reason.endswith((".", "?", "!")) else reason + "."
