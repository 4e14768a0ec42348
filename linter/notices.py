"""One-line warnings and notices on stderr. A warning is said once per run however often the code
that finds it runs (discovery, for one, runs for the analysis, the baseline and the fixes alike); a
notice tells what a run left out, and `--quiet` keeps it back."""

from __future__ import annotations

import sys

__all__ = ["hold_notices", "notice", "warn_once"]

_warned: set[str] = set()
_notices_held = False


def warn_once(message: str) -> None:
    """`epochlint: warning: MESSAGE` on stderr, unless this run has said it already."""
    if message not in _warned:
        _warned.add(message)
        print(f"epochlint: warning: {message}", file=sys.stderr)


def notice(message: str) -> None:
    """`epochlint: notice: MESSAGE` on stderr, unless notices are held back."""
    if not _notices_held:
        print(f"epochlint: notice: {message}", file=sys.stderr)


def hold_notices() -> None:
    """From now on, notices are not printed (`--quiet`: the findings and nothing else)."""
    global _notices_held
    _notices_held = True
