"""The documentation users read is generated from the code and never drifts from it: the README's
rule table, one page per rule under docs/rules/, and the JSON example of a real run."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from epochlint.cli import main
from epochlint.docs import JSON_DOC, JSON_EXAMPLE_SOURCE, RULE_PAGES, generated_files, rule_page_path, rule_table
from epochlint.fix import FIXERS
from epochlint.rules import Rule, all_rules
from tests.conftest import REPO


def test_generated_documents_match_the_code() -> None:
    drifted = [
        path.relative_to(REPO).as_posix()
        for path, text in generated_files(REPO).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    assert not drifted, f"run: python -m epochlint.docs  (drifted: {drifted})"


def test_docs_rules_holds_exactly_one_page_per_rule() -> None:
    pages = sorted(p.relative_to(REPO).as_posix() for p in (REPO / RULE_PAGES).iterdir())
    assert pages == sorted(rule_page_path(rule) for rule in all_rules())


def test_rule_table_links_every_rule_to_its_page() -> None:
    table = rule_table()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for rule in all_rules():
        row = f"| [{rule.code}]({rule_page_path(rule)}) | `{rule.name}` | {rule.summary} |"
        assert row in table and row in readme, rule.code


def test_json_example_is_what_the_command_prints() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", JSON_EXAMPLE_SOURCE, "--output-format", "json", "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    doc = (REPO / JSON_DOC).read_text(encoding="utf-8")
    example = re.search(r"```json\n(.*?)```", doc, re.DOTALL)
    assert example is not None and example.group(1) == printed
    fingerprints = [finding["fingerprint"] for finding in json.loads(printed)["findings"]]
    assert fingerprints and all(re.fullmatch(r"[0-9a-f]{32}", f) for f in fingerprints)
    assert "32 lowercase hexadecimal digits" in doc


def test_fixable_rules_document_their_autofix() -> None:
    for rule in all_rules():
        documented = "`epochlint check --fix` makes this change" in rule.documentation()
        assert documented == (rule.code in FIXERS), rule.code


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_command_prints_the_rule_page(rule: type[Rule], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", rule.code]) == 0
    assert capsys.readouterr().out == (REPO / rule_page_path(rule)).read_text(encoding="utf-8")


def test_the_codes_a_configuration_may_name_are_exactly_the_rules() -> None:
    from epochlint.rules import rule_codes

    assert rule_codes() == {rule.code for rule in all_rules()}
