"""One-line warnings on stderr, each said once per run however often the code that finds it runs
(discovery, for one, runs for the analysis, the baseline and the fixes alike)."""

from __future__ import annotations

import sys

__all__ = ["warn_once"]

_warned: set[str] = set()


def warn_once(message: str) -> None:
    """`epochlint: warning: MESSAGE` on stderr, unless this run has said it already."""
    if message not in _warned:
        _warned.add(message)
        print(f"epochlint: warning: {message}", file=sys.stderr)
