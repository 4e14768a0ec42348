"""Each rule's own examples (shown in its documentation) behave as documented."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from epochlint.frontend.java import available as java_frontend_available
from epochlint.rules import Example, Rule, all_rules
from tests.conftest import actual_marks, expected_marks, run_check

CASES = [
    (rule, example, kind)
    for rule in all_rules()
    for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid))
    for example in examples
]


@pytest.mark.parametrize(
    ("rule", "example", "kind"),
    CASES,
    ids=[f"{rule.code}-{kind}-{i}" for i, (rule, _, kind) in enumerate(CASES)],
)
def test_rule_example(rule: type[Rule], example: Example, kind: str, write_tree) -> None:  # type: ignore[no-untyped-def]
    root: Path = write_tree({"example.py": example.code.lstrip("\n")})
    result = run_check(root)
    expected = expected_marks(root, root)
    actual = actual_marks(result)
    if kind == "valid":
        assert not expected
    else:
        assert expected, "an invalid example must mark its findings"
    assert {m for m in actual if m[2] == rule.code} == {m for m in expected if m[2] == rule.code}


def test_every_rule_documents_valid_and_invalid_examples() -> None:
    for rule in all_rules():
        assert rule.valid and rule.invalid, rule.code
        assert rule.code in rule.documentation() and rule.name in rule.documentation()


JAVA_EXAMPLES = [rule for rule in all_rules() if rule.java_example]


@pytest.mark.skipif(
    not java_frontend_available(), reason="the Java frontend is not installed: pip install 'epochlint[java]'"
)
@pytest.mark.parametrize("rule", JAVA_EXAMPLES, ids=[rule.code for rule in JAVA_EXAMPLES])
def test_java_example_reports_its_marks(rule: type[Rule], write_tree) -> None:  # type: ignore[no-untyped-def]
    root: Path = write_tree({"Example.java": rule.java_example.lstrip("\n")})
    expected = expected_marks(root, root)
    assert expected and {code for (_, _, code) in expected} == {rule.code}
    assert actual_marks(run_check(root)) == expected


# The lead example of a rule page marks a finding with its code in a comment of its own
# (`# EPL003`, `# EPL901: unknown code`), not with the tests' `# expect:`.
_PAGE_MARK = re.compile(r"#\s*(EPL\d{3})\b")


@pytest.mark.parametrize("rule", all_rules(), ids=[rule.code for rule in all_rules()])
def test_the_example_on_the_rule_page_reports_what_it_marks(rule: type[Rule], write_tree) -> None:  # type: ignore[no-untyped-def]
    example = rule.example.lstrip("\n")
    root: Path = write_tree({"example.py": example})
    marked = {
        ("example.py", number, code)
        for number, line in enumerate(example.splitlines(), 1)
        for code in _PAGE_MARK.findall(line)
    }
    assert marked, "the example marks where its findings land"
    assert actual_marks(run_check(root)) == Counter(marked)
