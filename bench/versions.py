"""Two installed versions of epochlint on the same work, side by side: a cold run, and one file
changed by a code edit (a function added) of a module many import and of a leaf, each version on
its own warm copy of the benchmark tree.

    .venv/bin/python bench/versions.py OLD NEW [--repeat N] [--instructions]

OLD and NEW are `epochlint` executables, each installed in an environment of its own (for example
a worktree of an older commit installed with `pip install -e`). Each repetition runs the two
versions at once, one per core, so that a machine shared with other work slows both alike, and
prints each one's CPU seconds (user + system) and NEW / OLD; the medians end the report. With
`--instructions`, each command runs once under valgrind instead (`cachegrind`, no cache
simulation: about 25 times slower) and the instructions it executed are counted: a count that other
work on the machine does not change, for differences smaller than the noise of CPU times.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from run import WORK, _tree

# The modules edited: the fetcher (imported by the consumer, the coordinator and their tests) and
# the subscription state (a leaf of the consumer's, where its epochs are kept).
EDITED = {"central": "kafka/consumer/fetcher.py", "leaf": "kafka/consumer/subscription_state.py"}
_INSTRUCTIONS = re.compile(r"I\s+refs:\s+([\d,]+)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path, help="the older version's epochlint executable")
    parser.add_argument("new", type=Path, help="the newer version's epochlint executable")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (with --instructions: 1)")
    parser.add_argument("--instructions", action="store_true", help="count instructions under valgrind")
    args = parser.parse_args()
    versions = {"old": args.old.resolve(), "new": args.new.resolve()}
    for name, executable in versions.items():
        if not os.access(executable, os.X_OK) or executable.is_dir():
            parser.error(f"{name} version: {executable} is not an executable file")
    trees = {name: _warm_copy(name, executable) for name, executable in versions.items()}
    repeat = 1 if args.instructions else args.repeat
    measured: dict[str, list[dict[str, float]]] = {}
    for rep in range(repeat):
        for work, edit in (("cold", ""), *((f"one file changed, {role}", rel) for role, rel in EDITED.items())):
            commands = {}
            for name, executable in versions.items():
                if edit:
                    with open(trees[name] / edit, "a", encoding="utf-8") as module:
                        module.write(f"\n\ndef _versions_edit_{rep}(value):\n    return value + {rep}\n")
                extra = ["--no-cache"] if not edit else []
                commands[name] = [str(executable), "check", ".", "--jobs", "1", "--exit-zero", *extra]
            row = _side_by_side(commands, trees, args.instructions)
            measured.setdefault(work, []).append(row)
            shown = ", ".join(f"{name} {_number(value)}" for name, value in row.items())
            print(f"{rep + 1}. {work}: {shown}", file=sys.stderr)
    print(_table(measured, "instructions" if args.instructions else "CPU seconds"))


def _warm_copy(name: str, executable: Path) -> Path:
    """A copy of the 1x benchmark tree whose facts cache `executable` has filled."""
    target = WORK / f"versions-{name}"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(_tree(1), target, ignore=shutil.ignore_patterns(".epochlint_cache"))
    subprocess.run([str(executable), "check", ".", "--exit-zero"], cwd=target, check=True, stdout=subprocess.DEVNULL)
    return target


def _side_by_side(commands: dict[str, list[str]], trees: dict[str, Path], instructions: bool) -> dict[str, float]:
    """Each version's cost, both run at once; `ratio` is new / old."""
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    running = {}
    for name, command in commands.items():
        if instructions:
            command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *command]
        running[name] = subprocess.Popen(
            ["/usr/bin/time", "-f", "%U %S", *command],
            cwd=trees[name],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    row = {}
    for name, process in running.items():
        _, errors = process.communicate()
        if instructions:
            found = _INSTRUCTIONS.search(errors)
            if found is None:
                sys.exit(f"valgrind reported no instruction count for {name}:\n{errors[-2000:]}")
            row[name] = float(found.group(1).replace(",", ""))
        else:
            user, system = errors.strip().splitlines()[-1].split()
            row[name] = float(user) + float(system)
    row["ratio"] = row["new"] / row["old"]
    return row


def _table(measured: dict[str, list[dict[str, float]]], unit: str) -> str:
    out = [f"| Work (1x tree) | Old ({unit}) | New ({unit}) | New / old, median | By repetition |"]
    out.append("| --- | ---: | ---: | ---: | --- |")
    for work, rows in measured.items():
        old = statistics.median(row["old"] for row in rows)
        new = statistics.median(row["new"] for row in rows)
        ratios = [row["ratio"] for row in rows]
        shown = ", ".join(f"{r:.2f}" for r in ratios)
        out.append(f"| {work} | {_number(old)} | {_number(new)} | {statistics.median(ratios):.3f} | {shown} |")
    return "\n".join(out)


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 1e6 else f"{value:.2f}"


if __name__ == "__main__":
    main()
