"""The shape every rule module shares, after Fixit's: metadata, documentation and examples in one place."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from epochlint.config import Config
    from epochlint.findings import Finding
    from epochlint.frontend.facts import FileFacts
    from epochlint.program.model import Program


@dataclass(frozen=True)
class Example:
    """A small program for a rule's own tests; findings are marked `# expect: CODE` on their lines."""

    code: str
    title: str = ""


class Rule:
    """Base class of a rule. A subclass sets the metadata and implements `check`.

    Rules ask the Program questions; they never see a syntax tree and never build a graph.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    # Documentation sections, rendered by `epochlint rule CODE` and into docs/rules/CODE.md.
    what: ClassVar[str]
    why: ClassVar[str]
    seed: ClassVar[str]
    example: ClassVar[str]
    # The same mistake in Java, where the rule applies to Java code (marked `// expect: CODE`).
    java_example: ClassVar[str] = ""
    fix: ClassVar[str]
    # When `epochlint check --fix` makes the fix (the docs end "... makes this change when" it); empty
    # for a rule without an autofix.
    autofix: ClassVar[str] = ""
    valid: ClassVar[tuple[Example, ...]] = ()
    invalid: ClassVar[tuple[Example, ...]] = ()

    def check(self, program: Program) -> Iterable[Finding]:
        raise NotImplementedError

    @classmethod
    def documentation(cls) -> str:
        """The rule's full documentation as Markdown."""
        sections = [
            f"# {cls.code} {cls.name}",
            cls.summary,
            "## What it finds",
            cls.what.strip(),
            "## Why it is a bug",
            cls.why.strip(),
            "## Where it comes from",
            cls.seed.strip(),
            "## Example",
            "```python\n" + cls.example.strip("\n") + "\n```",
            "## Java example" if cls.java_example else "",
            "```java\n" + _marks_as_notes(cls.java_example.strip("\n")) + "\n```" if cls.java_example else "",
            "## Fix",
            cls.fix.strip(),
            cls._autofix_paragraph(),
        ]
        return "\n\n".join(section for section in sections if section) + "\n"

    @classmethod
    def _autofix_paragraph(cls) -> str:
        if not cls.autofix:
            return ""
        return (
            "`epochlint check --fix` makes this change, and `--fix --diff` shows it without writing, "
            f"when {' '.join(cls.autofix.split())}"
        )


# The mark the tests read in an example (`// expect: EPL001`).
_EXPECT_MARK = re.compile(r"//\s*expect:\s*")


def _marks_as_notes(code: str) -> str:
    """A marked example as a reader sees it (`// reported here: EPL001`), not with the tests' mark."""
    return _EXPECT_MARK.sub("// reported here: ", code)


@dataclass(frozen=True)
class SuppressionUse:
    """What the other rules' findings made of the suppression comments in one run."""

    # (path, line, code) of every finding a suppression comment silenced.
    silenced: frozenset[tuple[str, int, str]]
    # The codes whose rules ran.
    ran: frozenset[str]


class SuppressionRule(Rule):
    """A rule about the suppression comments themselves: it runs after every other rule, on what
    their findings made of the comments, instead of `check`."""

    def check_suppressions(
        self, facts_by_rel: Mapping[str, FileFacts], config: Config, use: SuppressionUse
    ) -> Iterable[Finding]:
        raise NotImplementedError
