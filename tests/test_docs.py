"""The documentation users read is generated from the rule modules and never drifts from them."""

from __future__ import annotations

import pytest

from epochlint.cli import main
from epochlint.docs import END, START, rule_section, rule_table, with_rule_table
from epochlint.fix import FIXERS
from epochlint.rules import Rule, all_rules
from tests.conftest import REPO


def test_readme_rule_table_matches_the_rule_modules() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert START in readme and END in readme
    assert with_rule_table(readme) == readme, "run: python -m epochlint.docs README.md"


def test_rule_table_lists_every_rule_with_its_summary() -> None:
    table = rule_table()
    for rule in all_rules():
        assert f"| {rule.code} | `{rule.name}` | {rule.summary} |" in table


def test_readme_holds_every_rules_full_documentation() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for rule in all_rules():
        assert rule_section(rule) in readme, rule.code
        for section in (rule.what, rule.why, rule.seed, rule.fix):
            assert section.strip() and section.strip() in readme, rule.code


def test_fixable_rules_document_their_autofix() -> None:
    for rule in all_rules():
        documented = "`epochlint check --fix` makes this change" in rule.documentation()
        assert documented == (rule.code in FIXERS), rule.code


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_command_prints_the_rule_modules_documentation(
    rule: type[Rule], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rule", rule.code]) == 0
    assert capsys.readouterr().out == rule.documentation()


def test_the_codes_a_configuration_may_name_are_exactly_the_rules() -> None:
    from epochlint.rules import all_rules, rule_codes

    assert rule_codes() == {rule.code for rule in all_rules()}
