"""The independent parts of a program (files linked by imports) are analysed on their own: what
they find is what the whole program finds, in one process or several, and a change analyses again
only the part it is in."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import epochlint.cache as cache
import epochlint.collect as collect
import epochlint.engine as engine
from epochlint.cache import CACHE_DIR, FactsCache
from epochlint.collect import collect_facts, read_sources
from epochlint.config import Config, load_config
from epochlint.discovery import discover
from epochlint.engine import (
    FileResult,
    build_program,
    check,
    program_module_names,
    program_parts,
    rule_findings,
    selected_rules,
    unit_module_names,
)
from epochlint.findings import Finding
from epochlint.program import lockorder
from epochlint.frontend.facts import FileFacts
from epochlint.frontend.java import available as java_frontend_available
from epochlint.prefilter import TextFacts, Vocabulary
from epochlint.program.model import Program
from tests.conftest import FIXTURES, KNOWN_CODES
from tests.test_incremental import assert_as_from_scratch
from tests.test_stdin import BASE, LOCKED_SUBCLASS, RACY_SUBCLASS

WriteTree = Callable[..., Path]


def _unit(root: Path) -> tuple[list[FileResult], Config]:
    """Every file under `root` with its facts (Java too, where its extra is installed), never cached."""
    config = load_config([root], None, KNOWN_CODES)
    sources, _ = discover([root], config)
    names = unit_module_names(sources, config.root)
    collected = collect_facts(sources, read_sources(sources, config), names, config, use_cache=False, jobs=1)
    return [FileResult(s, f) for s, f in zip(sources, collected.facts)], config


def _part_sizes(results: list[FileResult], config: Config) -> list[int]:
    return [len(part) for part in program_parts(results, program_module_names(results, config))]


def test_the_parts_of_the_fixtures_find_what_the_whole_program_finds() -> None:
    # Every fixture folder in one unit: dozens of parts, each finding alone what the whole finds.
    results, config = _unit(FIXTURES)
    assert len(_part_sizes(results, config)) > 50
    whole = rule_findings(build_program(results, config), selected_rules(config))
    by_parts, _, _ = engine.unsuppressed_findings(results, config)
    assert whole, "the fixtures have findings"
    assert sorted(by_parts, key=Finding.sort_key) == sorted(whole, key=Finding.sort_key)


def test_parts_analysed_in_worker_processes_find_what_one_process_finds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    results, config = _unit(FIXTURES)
    # Small enough that some parts stop at the lock order's work limit: their reports merge too.
    monkeypatch.setattr(lockorder, "LOCK_ORDER_STEPS", 10)
    monkeypatch.setattr(engine, "_PARALLEL_MIN_LINES", 0)  # the fixtures are small
    monkeypatch.setattr(engine, "_BATCH_LINES", 0)  # a worker per part
    analysed_by = tmp_path / "pids"
    real = engine.rule_findings

    def recorded(program: Program, rules: list, beside: bool = False) -> list[Finding]:  # type: ignore[type-arg]
        with analysed_by.open("a") as pids:
            pids.write(f"{os.getpid()}\n")
        return real(program, rules, beside=beside)

    monkeypatch.setattr(engine, "rule_findings", recorded)
    one, _, one_limits = engine.unsuppressed_findings(results, config, jobs=1)
    assert set(analysed_by.read_text().split()) == {str(os.getpid())}
    analysed_by.unlink()
    several, _, several_limits = engine.unsuppressed_findings(results, config, jobs=2)
    workers = analysed_by.read_text().split()
    assert str(os.getpid()) not in workers
    assert len(set(workers)) == len(workers) == len(_part_sizes(results, config))  # one process each

    assert sorted(several, key=Finding.sort_key) == sorted(one, key=Finding.sort_key)
    assert one_limits, "the limit is reached somewhere"

    assert _described(several_limits) == _described(one_limits)


def test_parts_whose_worker_dies_are_analysed_in_the_run_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    results, config = _unit(FIXTURES)
    expected, _, _ = engine.unsuppressed_findings(results, config, jobs=1)
    monkeypatch.setattr(engine, "_PARALLEL_MIN_LINES", 0)
    run = os.getpid()
    real = engine.rule_findings

    def dying(program: Program, rules: list, beside: bool = False) -> list[Finding]:  # type: ignore[type-arg]
        if os.getpid() != run:
            os._exit(1)  # as a worker killed for memory ends: sending nothing
        return real(program, rules, beside=beside)

    monkeypatch.setattr(engine, "rule_findings", dying)
    found, _, _ = engine.unsuppressed_findings(results, config, jobs=2)
    assert sorted(found, key=Finding.sort_key) == sorted(expected, key=Finding.sort_key)


def _described(limits: list) -> list[tuple[str, str, tuple[int, ...]]]:  # type: ignore[type-arg]
    return [(str(report), report.limit.function, report.limit.pos) for report in limits]


@pytest.mark.parametrize("worker", ["lives", "dies"])
def test_rules_run_beside_the_others_find_what_one_process_finds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, worker: str
) -> None:
    """The data-flow rules run in a process forked for them while the run itself runs the others;
    the findings and the work limits reached (merged in the rules' order) are one process's, and
    so are they when that process dies (its rules then run in the run itself)."""
    results, config = _unit(FIXTURES)
    monkeypatch.setattr(lockorder, "LOCK_ORDER_STEPS", 10)  # some parts stop at a work limit
    one, _, one_limits = engine.unsuppressed_findings(results, config, jobs=1)
    monkeypatch.setattr(engine, "_BESIDE_MIN_FUNCTIONS", 0)  # the fixtures are small
    # Every part analysed in the run itself, however many lines the fixtures grow to: the rules
    # forked beside it are what is tested, not the workers that take whole parts.
    monkeypatch.setattr(engine, "_PARALLEL_MIN_LINES", sys.maxsize)
    run, ran_in = os.getpid(), tmp_path / "pids"
    real = engine.rule_outcomes

    def recorded(program: Program, rules: list) -> dict:  # type: ignore[type-arg]
        if os.getpid() != run:
            with ran_in.open("a") as pids:
                pids.write(" ".join(sorted(rule.code for rule in rules)) + "\n")
            if worker == "dies":
                os._exit(1)  # as a process killed for memory ends: sending nothing
        return real(program, rules)

    monkeypatch.setattr(engine, "rule_outcomes", recorded)
    beside, _, beside_limits = engine.unsuppressed_findings(results, config, jobs=None)
    assert set(ran_in.read_text().splitlines()) == {"EPL003 EPL007"}
    assert sorted(beside, key=Finding.sort_key) == sorted(one, key=Finding.sort_key)
    assert one_limits, "the limit is reached somewhere"
    assert _described(beside_limits) == _described(one_limits)


CONSUMER_PACKAGES = {
    "orders/__init__.py": "",
    "orders/base.py": BASE,
    "orders/consumer.py": "from orders.base import " + RACY_SUBCLASS.split("from pkg.base import ", 1)[1],
    "billing/__init__.py": "",
    "billing/base.py": BASE,
    "billing/consumer.py": "from billing.base import " + LOCKED_SUBCLASS.split("from pkg.base import ", 1)[1],
}


class Programs:
    """The files of each program the runs build, by run."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built: list[list[str]] = []
        real = engine.build_program

        def recorded(results, config, names=None) -> Program:  # type: ignore[no-untyped-def]
            self.built.append(sorted(r.source.rel for r in results))
            return real(results, config, names)

        monkeypatch.setattr(engine, "build_program", recorded)


def test_a_change_analyses_again_only_the_part_of_the_program_it_is_in(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree(CONSUMER_PACKAGES)
    assert '"EPL001"' in assert_as_from_scratch(root)
    programs = Programs(monkeypatch)
    consumer = root / "billing/consumer.py"
    consumer.write_text(consumer.read_text().replace("with self._lock:\n", "if True:\n"))
    assert_as_from_scratch(root)
    # The cached run analysed the changed file's part alone; the from-scratch run after it, every
    # part (the packages' empty `__init__.py`, imported by none, are parts of their own).
    changed_part, *from_scratch = programs.built
    assert changed_part == ["billing/base.py", "billing/consumer.py"]
    assert sorted(from_scratch) == [
        ["billing/__init__.py"], changed_part, ["orders/__init__.py"], ["orders/base.py", "orders/consumer.py"]
    ]


def test_an_import_between_two_parts_makes_them_one(write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(CONSUMER_PACKAGES)
    assert_as_from_scratch(root)
    programs = Programs(monkeypatch)
    # The orders consumer now takes its base class from billing: one part, analysed as one.
    consumer = root / "orders/consumer.py"
    consumer.write_text(consumer.read_text().replace("from orders.base import", "from billing.base import"))
    assert '"EPL001"' in assert_as_from_scratch(root)
    # The cached run analysed the two parts that changed (the orders base is now a part of its
    # own), the largest last.
    assert programs.built[:2] == [["orders/base.py"], ["billing/base.py", "billing/consumer.py", "orders/consumer.py"]]


@pytest.mark.skipif(not java_frontend_available(), reason="the Java frontend is not installed")
def test_a_class_declared_in_another_file_of_the_package_links_the_two(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixture = FIXTURES / "java/EPL001/drains"
    # The two files alone: the folder's others name `Drains.java`'s classes too, and would join them.
    root = write_tree({f"p/{name}": (fixture / name).read_text() for name in ("Direct.java", "Drains.java")})
    assert_as_from_scratch(root)
    programs = Programs(monkeypatch)
    direct = root / "p/Direct.java"
    direct.write_text(direct.read_text().replace("void go(", "void walk("))
    report = assert_as_from_scratch(root)
    # Found from the cached outline of Drains.java, which declares `SlowDrain`: one part.
    assert programs.built[0] == ["p/Direct.java", "p/Drains.java"]
    assert [finding["code"] for finding in json.loads(report)["findings"]] == ["EPL001"] * 5


def test_a_part_past_a_work_limit_leaves_the_others_checked(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    from epochlint.program import lockorder

    inversion = (
        "import threading\n\nA = threading.Lock()\nB = threading.Lock()\n\n\n"
        "def f():\n    with A:\n        with B:\n            pass\n\n\n"
        "def g():\n    with B:\n        with A:\n            pass\n"
    )
    root = write_tree({"first.py": inversion, "second.py": inversion + "\n\ndef h():\n    with A:\n        g()\n"})
    monkeypatch.setattr(lockorder, "LOCK_ORDER_STEPS", 3)
    result = check([root], load_config([root], None, KNOWN_CODES), use_cache=False)
    assert sorted((f.location.path, f.code) for f in result.findings) == [
        ("first.py", "EPL009"),
        ("second.py", "EPL900"),
    ]


def test_a_run_reads_the_whole_facts_of_the_changed_part_alone(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree(CONSUMER_PACKAGES)
    config = load_config([root], None, KNOWN_CODES)
    check([root], config)
    whole_facts = {
        FactsCache.open(root, config.fingerprint()).key("parsed", p.read_bytes()): p for p in root.rglob("*.py")
    }
    read: list[str] = []
    load = FactsCache.load

    def recorded(cache: FactsCache, key: str) -> FileFacts | None:
        if key in whole_facts:
            read.append(whole_facts[key].relative_to(root).as_posix())
        return load(cache, key)

    monkeypatch.setattr(FactsCache, "load", recorded)
    consumer = root / "billing/consumer.py"
    consumer.write_text(consumer.read_text().replace("with self._lock:\n", "if True:\n"))
    check([root], config)
    # The changed file's earlier facts (did only its layout change?) and the rest of its part;
    # the other part's outlines (imports, suppressions) sufficed.
    assert sorted(read) == ["billing/base.py", "billing/consumer.py"]


def test_whole_facts_gone_from_the_cache_are_parsed_again(write_tree: WriteTree) -> None:
    root = write_tree(CONSUMER_PACKAGES)
    config = load_config([root], None, KNOWN_CODES)
    check([root], config)
    facts = FactsCache.open(root, config.fingerprint())
    for path in root.rglob("*.py"):
        (root / CACHE_DIR / "facts" / facts.key("parsed", path.read_bytes())).unlink(missing_ok=True)
    consumer = root / "billing/consumer.py"
    consumer.write_text(consumer.read_text().replace("with self._lock:\n", "if True:\n"))
    assert [(f.location.path, f.code) for f in check([root], config).findings] == [
        ("billing/consumer.py", "EPL001"),
        ("orders/consumer.py", "EPL001"),
    ]


def test_a_process_that_keeps_decoded_facts_parses_only_the_changed_file_again(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The language server analyses one project on every change. It keeps what each run decoded
    # or made for the next run, so even with the cache folder's facts gone from disk, a change
    # parses the changed file alone and finds what a run from scratch finds.
    monkeypatch.setattr(cache, "_KEPT", {})
    root = write_tree(CONSUMER_PACKAGES)
    config = load_config([root], None, KNOWN_CODES)
    check([root], config)
    shutil.rmtree(root / CACHE_DIR / "facts")
    parsed: list[str] = []
    real = collect.file_facts

    def recorded(task: tuple[str, bytes]) -> FileFacts:
        parsed.append(task[1].decode())
        return real(task)

    monkeypatch.setattr(collect, "file_facts", recorded)
    consumer = root / "billing/consumer.py"
    consumer.write_text(consumer.read_text().replace("with self._lock:\n", "if True:\n"))
    found = check([root], config).findings
    assert parsed == [consumer.read_text()]
    monkeypatch.setattr(cache, "_KEPT", None)
    assert found == check([root], config, use_cache=False).findings


def test_a_run_after_a_change_reads_the_text_of_the_changed_file_alone(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree(CONSUMER_PACKAGES)
    config = load_config([root], None, KNOWN_CODES)
    check([root], config)
    read: list[bytes] = []
    real = collect.read_text_facts

    def recorded(data: bytes, vocabulary: Vocabulary) -> TextFacts:
        read.append(data)
        return real(data, vocabulary)

    monkeypatch.setattr(collect, "read_text_facts", recorded)
    consumer = root / "billing/consumer.py"
    consumer.write_text(consumer.read_text().replace("with self._lock:\n", "if True:\n"))
    assert '"EPL001"' in assert_as_from_scratch(root)
    # The cached run read the changed file's text; the from-scratch run after it, every file's.
    assert read[0] == consumer.read_bytes()
    assert len(read) == 1 + len(CONSUMER_PACKAGES)
