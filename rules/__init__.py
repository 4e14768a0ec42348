"""The rule catalogue: one module per rule, each defining one `Rule` subclass."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from epochlint.rules.base import Example, Rule

__all__ = ["Example", "Rule", "all_rules", "rule_by_code", "rule_codes"]


def _rule_modules() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(__path__) if info.name.startswith("epl")]


@cache
def rule_codes() -> frozenset[str]:
    """Every rule's code, from the module names alone (`epl001_...` is EPL001), without importing
    the rules: enough to validate a configuration."""
    return frozenset(name.split("_", 1)[0].upper() for name in _rule_modules())


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule, by code. A rule module is any `rules/eplNNN_*.py`."""
    found: list[type[Rule]] = []
    for name in _rule_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        found.extend(
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule
            and value.__module__ == module.__name__
        )
    return tuple(sorted(found, key=lambda rule: rule.code))


def rule_by_code(code: str) -> type[Rule] | None:
    """The rule with this code (`EPL001`, any case) or name (`unlocked-epoch-read-in-batch-loop`)."""
    for rule in all_rules():
        if code.upper() == rule.code or code.lower() == rule.name:
            return rule
    return None
