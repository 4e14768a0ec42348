"""Documentation generated from the rule modules: the README's rule table.

`python -m linter.docs README.md` rewrites the table between its markers; a test fails when the
README and the rule modules disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rules import all_rules

START = "<!-- rules:start -->"
END = "<!-- rules:end -->"


def rule_table() -> str:
    lines = ["| Code | Name | What it finds |", "| --- | --- | --- |"]
    for rule in all_rules():
        lines.append(f"| {rule.code} | `{rule.name}` | {rule.summary} |")
    return "\n".join(lines)


def with_rule_table(text: str) -> str:
    """`text` with the part between the markers replaced by the current table."""
    before, _, rest = text.partition(START)
    _, _, after = rest.partition(END)
    return f"{before}{START}\n{rule_table()}\n{END}{after}"


def main(argv: list[str]) -> int:
    for name in argv or ["README.md"]:
        path = Path(name)
        path.write_text(with_rule_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
