"""The documentation users read is generated from the rule modules and never drifts from them."""

from __future__ import annotations

from linter.docs import END, START, rule_table, with_rule_table
from rules import all_rules
from tests.conftest import REPO


def test_readme_rule_table_matches_the_rule_modules() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert START in readme and END in readme
    assert with_rule_table(readme) == readme, "run: python -m linter.docs README.md"


def test_rule_table_lists_every_rule_with_its_summary() -> None:
    table = rule_table()
    for rule in all_rules():
        assert f"| {rule.code} | `{rule.name}` | {rule.summary} |" in table
