"""Lines per second of the two frontends, in one run: the Java frontend (tree-sitter) on Java
consumer code, the Python frontend (libcst) on Python consumer code.

Each frontend turns source bytes into FileFacts (parse and extraction; no cache, no prefilter, one
process), over its corpus `--repeat` times; the fastest pass counts. The Java corpus is the Pulsar
and Kafka consumer sources in `shared/data/java` beside the checkout (or `--java DIR`), the Python
corpus epochlint's own sources (or `--python DIR`).

    python bench/java_frontend.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from epochlint.frontend import facts_from_source
from epochlint.frontend.facts import FileFacts
from epochlint.frontend.java import facts_from_java

PROJECT = Path(__file__).resolve().parent.parent
# `shared/` sits beside the checkout (or one folder higher, for a checkout kept one folder deeper).
SHARED_JAVA = next(
    (p / "shared" / "data" / "java" for p in PROJECT.parents[:2] if (p / "shared" / "data" / "java").is_dir()),
    PROJECT.parent / "shared" / "data" / "java",
)


def corpus(folders: list[Path], suffix: str) -> list[bytes]:
    return [path.read_bytes() for folder in folders for path in sorted(folder.rglob(f"*{suffix}"))]


def lines_per_second(sources: list[bytes], frontend: Callable[[bytes], FileFacts], repeat: int) -> tuple[int, float]:
    """(lines, fastest seconds) of reading every source with `frontend`; a file that fails stops the run."""
    best = float("inf")
    lines = 0
    for _ in range(repeat):
        started = time.perf_counter()
        lines = 0
        for data in sources:
            facts = frontend(data)
            if facts.error:
                raise SystemExit(f"bench: the frontend could not read a file of the corpus: {facts.error}")
            lines += facts.lines
        best = min(best, time.perf_counter() - started)
    return lines, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="passes over each corpus; the fastest counts")
    parser.add_argument("--java", type=Path, action="append", help="folder of Java sources (repeatable)")
    parser.add_argument("--python", type=Path, action="append", help="folder of Python sources (repeatable)")
    args = parser.parse_args()
    java = corpus(args.java or [SHARED_JAVA], ".java")
    python = corpus(args.python or [PROJECT / "linter", PROJECT / "rules"], ".py")
    if not java or not python:
        raise SystemExit("bench: an empty corpus (give --java / --python folders)")
    print("| frontend | files | lines | seconds | lines/s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    rates = {}
    runs = (("java (tree-sitter)", java, facts_from_java), ("python (libcst)", python, facts_from_source))
    for name, sources, frontend in runs:
        lines, seconds = lines_per_second(sources, frontend, args.repeat)
        rates[name] = lines / seconds
        print(f"| {name} | {len(sources)} | {lines} | {seconds:.3f} | {rates[name]:,.0f} |")
    ratio = rates["java (tree-sitter)"] / rates["python (libcst)"]
    print(f"\njava / python lines per second: {ratio:.2f}")


if __name__ == "__main__":
    main()
