"""Call-graph benchmark: `epochlint graph calls --format pycg` on PyCG's micro-benchmark.

    .venv/bin/python bench/callgraph.py [SNIPPETS] [--jobs N]

SNIPPETS is the micro-benchmark's `snippets/` folder (default: `../shared/data/pycg-micro-benchmark/
snippets` beside the checkout). Every case folder holds the modules and `callgraph.json`, the
expected graph in PyCG's format (a function's dotted name mapped to the names it calls). Each case
is analysed by its own `epochlint graph calls CASE --format pycg` process, and its edges are scored
as PyCG's paper counts them: only edges between the program's functions, neither end a builtin
(`<builtin>.print`, `<**PyStr**>.join`); a call into a module the case imports but does not hold
(`ext.Cls`) is counted. Prints a Markdown table of precision, recall
and exactly right cases, per category and in total.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SNIPPETS = REPO.parent / "shared" / "data" / "pycg-micro-benchmark" / "snippets"
EPOCHLINT = Path(sys.executable).parent / "epochlint"

# PyCG's names of what is not the program's: `<builtin>.print`, `<**PyStr**>.join`.
PSEUDO = "<"
Edge = tuple[str, str]


@dataclass(frozen=True)
class CaseScore:
    """One case: its category, and the edges found, expected and both."""

    category: str
    name: str
    found: frozenset[Edge]
    expected: frozenset[Edge]

    @property
    def correct(self) -> int:
        return len(self.found & self.expected)

    @property
    def exact(self) -> bool:
        return self.found == self.expected


@dataclass(frozen=True)
class Totals:
    """Summed scores of a group of cases."""

    cases: int
    exact: int
    found: int
    expected: int
    correct: int

    @property
    def precision(self) -> float:
        return self.correct / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.expected if self.expected else 1.0


def case_folders(snippets: Path) -> list[Path]:
    return sorted(path.parent for path in snippets.glob("*/*/callgraph.json"))


def edges_of(graph: dict[str, list[str]]) -> frozenset[Edge]:
    return frozenset(
        (caller, callee)
        for caller, callees in graph.items()
        for callee in callees
        if not caller.startswith(PSEUDO) and not callee.startswith(PSEUDO)
    )


def analysed_graph(case: Path) -> dict[str, list[str]]:
    completed = subprocess.run(
        [str(EPOCHLINT), "graph", "calls", ".", "--format", "pycg"],
        cwd=case,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise SystemExit(f"epochlint failed on {case}: {completed.stderr.strip()}")
    graph: dict[str, list[str]] = json.loads(completed.stdout)
    return graph


def score_case(case: Path) -> CaseScore:
    expected_graph: dict[str, list[str]] = json.loads((case / "callgraph.json").read_text())
    return CaseScore(case.parent.name, case.name, edges_of(analysed_graph(case)), edges_of(expected_graph))


def total(scores: list[CaseScore]) -> Totals:
    return Totals(
        cases=len(scores),
        exact=sum(score.exact for score in scores),
        found=sum(len(score.found) for score in scores),
        expected=sum(len(score.expected) for score in scores),
        correct=sum(score.correct for score in scores),
    )


def by_category(scores: list[CaseScore]) -> dict[str, Totals]:
    groups: dict[str, list[CaseScore]] = {}
    for score in scores:
        groups.setdefault(score.category, []).append(score)
    return {category: total(group) for category, group in sorted(groups.items())}


def run_benchmark(snippets: Path, jobs: int) -> list[CaseScore]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(score_case, case_folders(snippets)))


def table(scores: list[CaseScore]) -> str:
    rows = ["| category | cases | exact | precision | recall |", "|---|---:|---:|---:|---:|"]
    for category, totals in [*by_category(scores).items(), ("**total**", total(scores))]:
        rows.append(
            f"| {category} | {totals.cases} | {totals.exact} | {totals.precision:.3f} | {totals.recall:.3f} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snippets", nargs="?", type=Path, default=DEFAULT_SNIPPETS)
    parser.add_argument("--jobs", type=int, default=2, help="cases analysed at once")
    parser.add_argument("--misses", action="store_true", help="list the wrong and missing edges")
    args = parser.parse_args()
    if not args.snippets.is_dir():
        raise SystemExit(f"callgraph benchmark: no micro-benchmark at {args.snippets}")
    scores = run_benchmark(args.snippets, args.jobs)
    if args.misses:
        for score in scores:
            for caller, callee in sorted(score.found - score.expected):
                print(f"{score.category}/{score.name}: extra {caller} -> {callee}")
            for caller, callee in sorted(score.expected - score.found):
                print(f"{score.category}/{score.name}: missing {caller} -> {callee}")
    print(table(scores))


if __name__ == "__main__":
    main()
