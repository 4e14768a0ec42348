"""`python -m epochlint`: the same as the `epochlint` command."""

import os
import sys


def _forget_the_working_directory() -> None:
    """`python -m` puts the current directory first on sys.path. Run in the project being analysed,
    its own folders (a `rules/` package is common, or a `rich.py`) would shadow epochlint's and be
    imported, that is executed. The entry stays only where epochlint itself lives (a checkout)."""
    if sys.flags.safe_path or not sys.path:
        return
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    first = os.path.abspath(sys.path[0] or os.curdir)
    if first == os.getcwd() and first != home:
        del sys.path[0]


_forget_the_working_directory()

from epochlint.cli import run  # noqa: E402  (after the path is safe)

run()
