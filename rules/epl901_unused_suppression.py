"""EPL901: a suppression comment that names an unknown code, or that silenced nothing in this run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from epochlint.findings import Finding, Location
from epochlint.config import Config
from epochlint.frontend.comments import IGNORE_FILE_LINES, is_ignore_file
from epochlint.frontend.facts import FileFacts, Suppression
from epochlint.rules.base import Example, SuppressionRule, SuppressionUse


class UnusedSuppression(SuppressionRule):
    code = "EPL901"
    name = "unused-suppression"
    summary = "A suppression comment names an unknown code, or silenced nothing in this run."
    what = """
A suppression comment (`# epochlint: ignore[...]`, a bare `# epochlint: ignore`, or
`# noqa: EPL...`) that names a code no rule has (a typo such as `EPL01`), or that silenced no
finding in this run, is reported at the comment. A code is judged only when its rule ran on that
file: an `ignore[EPL003]` in a run that selected EPL001 alone, or in a file whose
`per-file-ignores` turn EPL003 off, is left alone; a bare `ignore` is judged only when every rule
ran. In a `# noqa:` list, only the `EPL` codes are epochlint's; a bare `# noqa` belongs to other
linters and never silences epochlint. `ignore-file` and suppressions of EPL901 itself are not
judged, but an `ignore-file` below a file's first 20 lines, where it counts for nothing, is
reported. An `epochlint:` comment that is no directive epochlint reads (`ignroe[EPL001]`,
`ignore EPL001` without brackets, an `ignore[]` that names no code, `guarded-by _lock`, or
`guarded-by=self._lock`, which names the lock as `[tool.epochlint] guards` does not) silences and
declares nothing, and is reported whatever rules ran. Text after an `ignore[...]` list's closing bracket, or after
`ignore-file` and a space, is a reason, as after a `# noqa:` list.
"""
    why = """
A suppression outlives its reason: the code is fixed or moved, and the comment stays, ready to
hide the next finding on that line. A typo in a code or in the directive hides nothing and says it
does. Reporting both (as ruff's RUF100 does for `noqa`) keeps every suppression honest.
"""
    seed = """
Not from a seed: it is how epochlint keeps its suppressions from hiding what they were never meant
to hide.
"""
    example = """
class Consumer:
    def seek(self, offset):
        self._position = offset  # epochlint: ignore[EPL01]  # EPL901: unknown code
        self._fetched = []  # noqa: EPL004  # EPL901: EPL004 reported nothing here
"""
    fix = """
Remove the comment, or the codes in it that silence nothing; correct a mistyped code. If the
finding the comment was written for moved to another line, move the comment with it.
"""
    valid = (
        Example(
            title="a suppression that silences a finding on its line",
            code="""
import threading

class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def poll(self, batch):
        with self._lock:
            self._epoch += 1
        for message in batch:  # noqa: EPL001 (an epoch per batch is read under the lock elsewhere)
            if message.epoch < self._epoch:
                continue
""",
        ),
        Example(
            title="other linters' codes and a bare noqa are not epochlint's",
            code="""
def seek(self, offset):
    self._position = offset  # noqa: E501
    self._fetched = []  # noqa
""",
        ),
    )
    invalid = (
        Example(
            title="a mistyped code, and a suppression whose finding is gone",
            code="""
class Consumer:
    def seek(self, offset):
        self._position = offset  # epochlint: ignore[EPL01]  # expect: EPL901
        self._fetched = []  # noqa: EPL004  # expect: EPL901
""",
        ),
        Example(
            title="a directive epochlint cannot read silences nothing",
            code="""
class Consumer:
    def seek(self, offset):
        self._position = offset  # epochlint: ignroe[EPL005]  # expect: EPL901
        self._fetched = []  # epochlint: ignore EPL004  # expect: EPL901
""",
        ),
    )

    def check_suppressions(
        self, facts_by_rel: Mapping[str, FileFacts], config: Config, use: SuppressionUse
    ) -> Iterable[Finding]:
        from epochlint.rules import rule_codes

        known = rule_codes()
        for rel, facts in facts_by_rel.items():
            if facts.ignore_file:
                continue
            for suppression in facts.suppressions:
                if suppression.unread:
                    unread = _LATE_IGNORE_FILE if is_ignore_file(suppression.unread) else _UNREAD
                    yield self._finding(rel, suppression, unread.format(directive=suppression.unread))
                    continue
                problems = list(_problems(config, rel, suppression, use, known))
                if problems:
                    yield self._finding(rel, suppression, f"Unused suppression: {'; '.join(problems)}.")

    def _finding(self, rel: str, suppression: Suppression, message: str) -> Finding:
        location = Location(rel, suppression.line, suppression.column, suppression.line, suppression.end_column)
        return Finding(
            code=self.code,
            name=self.name,
            message=message,
            location=location,
            fingerprint_key=suppression.unread or ",".join(suppression.codes) or "*",
        )


def _problems(
    config: Config, rel: str, suppression: Suppression, use: SuppressionUse, known: frozenset[str]
) -> Iterator[str]:
    """What is wrong with one suppression: its unknown codes, its codes that silenced nothing."""
    judged = {code for code in use.ran if code != UnusedSuppression.code and config.is_code_enabled(code, rel)}
    silenced_here = {code for path, line, code in use.silenced if path == rel and line == suppression.line}
    if not suppression.codes:
        if judged == known - {UnusedSuppression.code} and not silenced_here:
            yield "it silenced no finding on this line"
        return
    unknown = [code for code in suppression.codes if code not in known]
    named = _codes_named(unknown)
    if named:
        # `ignore[unlocked-epoch-read-in-batch-loop]`: a rule's name, where its code is read.
        yield "; ".join(
            f"`{name.lower()}` is the name of {code}: write its code, ignore[{code}]" for name, code in named
        )
    unknown = [code for code in unknown if code not in dict(named)]
    if unknown:
        yield f"unknown code{'s' if len(unknown) > 1 else ''} {_listed(unknown)}"
    unused = [code for code in suppression.codes if code in judged and code not in silenced_here]
    if unused:
        yield f"{_listed(unused)} reported nothing on this line"


_LATE_IGNORE_FILE = (
    f"`{{directive}}` silences nothing here: ignore-file counts only in a file's first {IGNORE_FILE_LINES} lines."
)
_UNREAD = (
    "Unreadable directive `{directive}`: it silences nothing"
    " (epochlint reads ignore[CODES], ignore, ignore-file and guarded-by=LOCK)."
)


def _codes_named(written: list[str]) -> list[tuple[str, str]]:
    """(as written, code) for each of `written` that is a rule's name, not its code."""
    from epochlint.rules import all_rules

    by_name = {rule.name: rule.code for rule in all_rules()}
    return [(name, by_name[name.lower()]) for name in written if name.lower() in by_name]


def _listed(codes: list[str]) -> str:
    return ", ".join(f"`{code}`" for code in codes)
