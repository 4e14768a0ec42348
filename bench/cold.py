"""A cold `check` of any checkout against a one-core libcst parse of the same files, as ratios.

    .venv/bin/python bench/cold.py PATH [--pairs N] [--compiled]

PATH is a project checkout (kafka-python's, tests included, is the reference: about 350 files).
Each pair runs, one right after the other, the parse (`run.py`'s PARSE_ALL: every `*.py` file,
in one process) and `epochlint check` with the project's `.epochlint_cache` removed first, on a
snapshot of epochlint compiled to bytecode (as `run.py` does; with `--compiled`, the wheel that
`setup.py` builds with EPOCHLINT_COMPILE=1, its hottest modules compiled by mypyc); pairs
alternate so that a machine whose speed drifts moves both sides alike. Prints each pair's
seconds, CPU and peak memory (of one more cold check, sampled instead of timed: see `run._run`),
their ratio, and the median ratio. The project's cache is removed again at the end.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

from run import (
    PARSE_ALL,
    SNAPSHOT,
    Measure,
    _best,
    _cache_dropper,
    _epochlint,
    _install_tools,
    _run,
    snapshot,
)
from snapshot import COMPILED_HELP


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="the project checkout to analyse")
    parser.add_argument("--pairs", type=int, default=4, help="parse/check pairs to run (default: 4)")
    parser.add_argument("--compiled", action="store_true", help=COMPILED_HELP)
    args = parser.parse_args()
    project = args.path.resolve()
    if not project.is_dir():
        parser.error(f"not a folder: {args.path}")
    _install_tools()
    snapshot(SNAPSHOT, compiled=args.compiled)
    ratios = []
    print("| pair | parse (s) | check, cold (s) | check CPU (s) | check peak memory (MB) | ratio |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    try:
        for pair in range(1, args.pairs + 1):
            parse = _run([sys.executable, "-c", PARSE_ALL, "."], project)
            check = _cold_check(project)
            ratios.append(check.seconds / parse.seconds)
            print(
                f"| {pair} | {parse.seconds:.2f} | {check.seconds:.2f} | {check.cpu:.2f} | {check.peak_mb:.0f}"
                f" | {ratios[-1]:.2f}x |"
            )
    finally:
        shutil.rmtree(project / ".epochlint_cache", ignore_errors=True)
    print(f"\nmedian ratio, cold check / one-core parse: {statistics.median(ratios):.2f}x")


def _cold_check(project: Path) -> Measure:
    return _best(_epochlint(), project, 1, _cache_dropper(project))


if __name__ == "__main__":
    main()
