"""Work budgets: a bound on analyses whose work can grow faster than the code analysed.

A budget counts steps of work, not seconds, so the same input reaches it on any machine under any
load, and a run's findings never depend on how busy the machine was.
"""

from __future__ import annotations

from dataclasses import dataclass

from epochlint.frontend.facts import Pos


@dataclass
class LimitReport:
    """A limit reached in one unit, and the codes of the rules that asked for the analysis (and so
    report nothing there)."""

    limit: WorkLimitReached
    rules: list[str]

    def __str__(self) -> str:
        return f"{self.limit}; {self.unchecked()}"

    def unchecked(self, where: str = "anywhere in it") -> str:
        """What the unit lost: `EPL008 and EPL009 were not checked anywhere in it`."""
        codes = sorted(self.rules)
        named = " and ".join([", ".join(codes[:-1]), codes[-1]] if len(codes) > 1 else codes)
        return f"{named} {'were' if len(codes) > 1 else 'was'} not checked {where}"


class WorkLimitReached(Exception):
    """An analysis stopped at its budget: what it was, and the place in function `function` whose
    step went past the limit."""

    def __init__(self, what: str, limit: int, function: str, pos: Pos) -> None:
        super().__init__(f"{what} takes more than {limit:,} steps, a fixed work limit")
        self.what = what
        self.limit = limit
        self.function = function
        self.pos = pos

    def __reduce__(self) -> tuple[type[WorkLimitReached], tuple[str, int, str, Pos]]:
        # Made again from its fields (a worker process sends it back), not from its message.
        return (WorkLimitReached, (self.what, self.limit, self.function, self.pos))


@dataclass
class WorkBudget:
    """Steps one analysis of one unit may take; `spend` raises once they are used up."""

    what: str
    limit: int
    spent: int = 0

    def spend(self, steps: int, function: str, pos: Pos) -> None:
        """Count `steps` taken for the place `pos` in `function`."""
        self.spent += steps
        if self.spent > self.limit:
            raise WorkLimitReached(self.what, self.limit, function, pos)
