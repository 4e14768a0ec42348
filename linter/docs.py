"""Documentation generated from the rule modules: the README's rule table and each rule's full
documentation (what `epochlint rule CODE` prints), one collapsed section per rule.

`python -m epochlint.docs README.md` rewrites the part between its markers; a test fails when the
README and the rule modules disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

from epochlint.fix import FIXERS
from epochlint.rules import Rule, all_rules

START = "<!-- rules:start -->"
END = "<!-- rules:end -->"


# The README's rule documentation sits under a second-level heading.
README_DEPTH = 2


def rule_table() -> str:
    lines = ["| Code | Name | What it finds | Autofix |", "| --- | --- | --- | --- |"]
    for rule in all_rules():
        fix = "`--fix`" if rule.code in FIXERS else ""
        lines.append(f"| {rule.code} | `{rule.name}` | {rule.summary} | {fix} |")
    return "\n".join(lines)


def rule_listing() -> list[dict[str, object]]:
    """Every rule as `epochlint rules --output-format json` lists it."""
    return [
        {"code": rule.code, "name": rule.name, "summary": rule.summary, "fix": rule.code in FIXERS}
        for rule in all_rules()
    ]


def rule_section(rule: type[Rule]) -> str:
    """A rule's documentation, collapsed under its code and name, its headings nested below ours."""
    body = demoted(rule.documentation(), README_DEPTH)
    return f"<details>\n<summary>{rule.code} {rule.name}</summary>\n\n{body}\n</details>"


def demoted(markdown: str, levels: int) -> str:
    """`markdown` with every heading `levels` deeper; code blocks are left alone."""
    lines = []
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            line = "#" * levels + line
        lines.append(line)
    return "\n".join(lines)


def rules_documentation() -> str:
    """What the README holds between its markers."""
    return "\n\n".join([rule_table(), *(rule_section(rule) for rule in all_rules())])


def with_rule_table(text: str) -> str:
    """`text` with the part between the markers replaced by the current documentation."""
    before, _, rest = text.partition(START)
    _, _, after = rest.partition(END)
    return f"{before}{START}\n{rules_documentation()}\n{END}{after}"


def main(argv: list[str]) -> int:
    for name in argv or ["README.md"]:
        path = Path(name)
        path.write_text(with_rule_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
