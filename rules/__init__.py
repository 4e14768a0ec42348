"""The rule catalogue: one module per rule, each defining one `Rule` subclass."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from rules.base import Example, Rule

__all__ = ["Example", "Rule", "all_rules", "rule_by_code"]


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule, by code. A rule module is any `rules/eplNNN_*.py`."""
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("epl"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule
            and value.__module__ == module.__name__
        )
    return tuple(sorted(found, key=lambda rule: rule.code))


def rule_by_code(code: str) -> type[Rule] | None:
    for rule in all_rules():
        if rule.code == code.upper():
            return rule
    return None
