"""The pipeline of one run: discover -> frontend (facts) -> program -> rules -> findings."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import pickle
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, TypeVar, Union, cast

from epochlint import __version__
from epochlint import findings as findings_module
from epochlint import report as report_module
from epochlint.cache import FindingsCache, PartsCache
from epochlint.collect import (
    Collected,
    Earlier,
    collect_facts,
    can_fork,
    can_fork_beside,
    collector_paused,
    default_jobs,
    forked_beside,
    held_in_memory,
    read_sources,
    restore_facts,
    saved_versions,
    start_forked,
    start_load_sample,
)
from epochlint.config import Config
from epochlint.declarations import warn_of_unmatched_guards
from epochlint.discovery import DiscoveryProblem, SourceFile, discover
from epochlint.findings import Finding
from epochlint.frontend.codec import FactsDecodeError, record_classes_of, restricted_loads
from epochlint.frontend.facts import FileFacts
from epochlint.frontend.java import is_java
from epochlint.layout import Relayout, relayout
from epochlint.prefilter import Reach, text_imports
from epochlint.program.modules import (
    ModuleInfo,
    ModuleLocator,
    imported_names,
    java_top_level_classes,
    module_names,
    namespace_module_names,
)
from epochlint.program.parts import independent_parts
from epochlint.report import RuleInfo, RunResult

# The program (networkx) and the rules are imported where they are used: a run whose findings
# come from the cache never loads them.
if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from epochlint.program.budget import LimitReport, WorkLimitReached
    from epochlint.program.model import Program
    from epochlint.rules import Rule


@dataclass(frozen=True)
class FileResult:
    """What the frontend made of one file: its facts, or why it has none."""

    source: SourceFile
    facts: FileFacts


def selected_rules(config: Config) -> list[type[Rule]]:
    """Rules that some file may report (select/ignore; per-file-ignores apply per finding)."""
    from epochlint.rules import all_rules

    return [rule for rule in all_rules() if _selected_anywhere(config, rule.code)]


def _selected_anywhere(config: Config, code: str) -> bool:
    return config.is_code_enabled(code, "") or bool(config.per_file_ignores)


def build_program(results: Sequence[FileResult], config: Config, names: Mapping[str, str] | None = None) -> Program:
    """Merge the facts of one analysis unit (or of one of its parts, with the whole unit's module
    `names` from `program_module_names`) into a Program."""
    from epochlint.program.model import FileError, Program

    names = names if names is not None else program_module_names(results, config)
    modules: list[ModuleInfo] = []
    errors: list[FileError] = []
    for result in results:
        if result.facts.error:
            errors.append(FileError(result.source.rel, result.facts.error, result.facts.error_pos))
            continue
        rel = result.source.rel
        modules.append(ModuleInfo(names[rel], rel, _is_package(rel), result.facts))
    return Program(modules, config, errors, ModuleLocator(names))


def program_module_names(
    results: Sequence[FileResult], config: Config, unit_names: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The module name of each file of one analysis unit, by root-relative path (`unit_names`: its
    files' `unit_module_names`, when the caller has them)."""
    imported = {name for r in results for name in imported_names(r.facts.imports)}
    if unit_names is None:
        unit_names = unit_module_names([r.source for r in results], config.root)
    names = namespace_module_names(unit_names, imported)
    named = {r.source.rel: _module_name(r.source.rel, names[r.source.rel], r.facts) for r in results}
    java_full_names = {_java_full_name(r.source.rel, r.facts) for r in results if is_java(r.source.rel)}
    return _distinct_java_names(named, names, java_full_names)


def _is_package(rel: str) -> bool:
    return PurePosixPath(rel).name == "__init__.py"


def _distinct_java_names(
    names: dict[str, str], from_path: Mapping[str, str], java_full_names: set[str]
) -> dict[str, str]:
    """`names` where Java files that would share one with another file (`p/X.java` of one package in
    two source folders, two modules of one build; a Python module of that name, which keeps its
    own) are named by their paths instead, as colliding Python files are: one name, one module.
    Such a name is none of another file's nor a Java class's full name, which a Java import looks
    for as a module first (`Sink` of the default package): where the path's is, the path itself.
    Their classes are found by their full names (`Symbols`)."""
    sharing = Counter(names.values())
    renamed = [rel for rel, name in names.items() if is_java(rel) and sharing[name] > 1]
    taken = {name for rel, name in names.items() if rel not in renamed} | java_full_names
    for rel in renamed:
        names[rel] = from_path[rel] if from_path[rel] not in taken else rel
        taken.add(names[rel])
    return names


def _java_full_name(rel: str, facts: FileFacts) -> str:
    """The full name of the class a Java file is named after (`p.X` for `p/X.java`; `X` in the
    default package)."""
    stem = PurePosixPath(rel).stem
    return f"{facts.package}.{stem}" if facts.package else stem


def _module_name(rel: str, from_path: str, facts: FileFacts) -> str:
    """A Java file's module is its class's full name, from the package it declares; a Python
    file's is the one its path gives."""
    return _java_full_name(rel, facts) if facts.package else from_path


def unit_module_names(sources: Sequence[SourceFile], root: Path) -> dict[str, str]:
    """Dotted module names, by root-relative path, of the files of one analysis unit.

    A root that is itself a package (a package's folder checked from inside it) names its modules
    as Python imports them, below the packages that hold the root, where its files import it so:
    `errors.py` in the root `kafka/` is `kafka.errors` when `from kafka.errors import ...` is
    how the others reach it. Files that import each other from the root (`from nested import x`)
    keep their names from it."""
    rels = [s.rel for s in sources]
    packages = _package_dirs(sources, root)
    outer = _enclosing_packages(root)
    if not outer or not _imported_by_name(".".join(outer), sources):
        return module_names(rels, packages)
    prefix = "/".join(outer)
    above = {"/".join(outer[: depth + 1]) for depth in range(len(outer))}
    named = module_names([f"{prefix}/{rel}" for rel in rels], above | {f"{prefix}/{d}" for d in packages})
    return {rel: named[f"{prefix}/{rel}"] for rel in rels}


def _imported_by_name(package: str, sources: Sequence[SourceFile]) -> bool:
    """Whether a file of `sources` imports `package`, or a module in it, by its absolute name
    (read as the prefilter reads imports: the names are needed before any file is parsed)."""
    for source in sources:
        try:
            data = source.path.read_bytes()
        except OSError:
            continue  # reported as unreadable where it is read for its facts
        if any(_reaches(reach, package) for reach in text_imports(data)):
            return True
    return False


def _reaches(reach: Reach, package: str) -> bool:
    """Whether an absolute import names `package` or a module in it (`import a.b.c` reaches all
    of `a`, so the package `a.b` too)."""
    level, module, below = reach
    inside = module == package or module.startswith(f"{package}.")
    return level == 0 and (inside or (below and package.startswith(f"{module}.")))


def _enclosing_packages(root: Path) -> list[str]:
    """The names of the packages whose folders are `root` and those above it, outermost first
    (none when `root` holds no `__init__.py`)."""
    names: list[str] = []
    folder = root
    while folder.name.isidentifier() and _is_file(folder / "__init__.py"):
        names.insert(0, folder.name)
        folder = folder.parent
    return names


def _package_dirs(sources: Sequence[SourceFile], root: Path) -> set[str]:
    """Root-relative folders that are packages (hold an `__init__.py`)."""
    found: set[str] = set()
    checked: set[str] = set()
    for source in sources:
        # Plain string operations: this runs for every file of every run, even one that analyses nothing.
        rel_dir = posixpath.dirname(source.rel)
        abs_dir = os.path.dirname(source.path)
        while rel_dir and rel_dir not in checked:
            checked.add(rel_dir)
            if _is_file(os.path.join(abs_dir, "__init__.py")):
                found.add(rel_dir)
            rel_dir, abs_dir = posixpath.dirname(rel_dir), os.path.dirname(abs_dir)
    return found


def _is_file(path: str | Path) -> bool:
    """Whether `path` is a file; a folder that cannot be searched (no execute permission) holds none
    that can be read, so its files are reported unreadable, not the run ended."""
    return os.path.isfile(path)


def analyse(
    results: Sequence[FileResult], config: Config, *, unit_names: Mapping[str, str] | None = None
) -> tuple[list[Finding], list[type[Rule]], list[LimitReport]]:
    """The findings of one analysis unit, the rules that ran, and the analyses that stopped at
    their work limit. `unit_names` are the files' `unit_module_names`, when the caller has them."""
    found, rules, limits = unsuppressed_findings(results, config, unit_names=unit_names)
    return reported(found, {r.source.rel: r.facts for r in results}, config, rules), rules, limits


def unsuppressed_findings(
    results: Sequence[FileResult],
    config: Config,
    cached: CachedParts | None = None,
    *,
    exiting: bool = False,
    unit_names: Mapping[str, str] | None = None,
    jobs: int | None = 1,
) -> tuple[list[Finding], list[type[Rule]], list[LimitReport]]:
    """The findings of one analysis unit before suppressions (see `reported`), the rules that ran,
    and the analyses that stopped at their work limit.

    Each independent part of the unit is analysed on its own (its findings are the unit's on its
    files, and a part past a work limit costs the others nothing); with `cached`, a part whose
    files are unchanged is answered from the cache (its work limits are in its EPL900 findings).
    Parts are analysed in up to `jobs` processes (None: as many as `default_jobs`) when there is
    enough to share. Each part's program is freed once its rules have run; with `exiting` (the
    process ends after this run), the largest one, analysed last, is left for the exit to drop:
    freeing kafka-python's costs 0.08 s. `unit_names` are the files' `unit_module_names`, when the
    caller has them."""
    rules = selected_rules(config)
    cached = cached or CachedParts()
    names = program_module_names(results, config, unit_names)
    parts = program_parts(results, names)
    found: list[Finding] = []
    pending: list[tuple[str, list[FileResult]]] = []
    for part in parts:
        part_results = [results[index] for index in part]
        key = cached.key(part_results, names, config)
        earlier = cached.load(key)
        if earlier is None:
            pending.append((key, part_results))
        else:
            found.extend(earlier)
    analysis = _PartsAnalysis([part for _, part in pending], config, names, rules, cached)
    limits: dict[str, LimitReport] = {}
    # Merged in the parts' order, wherever each was analysed: the first place a limit was reached.
    for (key, _), (part_found, reached) in zip(pending, analysis.run(jobs, exiting)):
        _merge_limits(limits, reached)
        cached.store(key, part_found)
        found.extend(part_found)
    cached.keep_for(len(parts))
    return found, rules, list(limits.values())


# What one part's analysis found, and the analyses that stopped at their work limit there.
_PartFound = tuple[list[Finding], dict[str, "LimitReport"]]

# Parts go to worker processes only when those outside the largest hold this many lines: below
# it, starting the workers costs about what they save.
_PARALLEL_MIN_LINES = 10_000


@dataclass(frozen=True)
class _PartsAnalysis:
    """The analysis of the parts of one unit that are not cached."""

    parts: Sequence[Sequence[FileResult]]
    config: Config
    names: Mapping[str, str]
    rules: Sequence[type[Rule]]
    cached: CachedParts

    def run(self, jobs: int | None, exiting: bool) -> list[_PartFound]:
        """Each part's findings, in order: in worker processes where there is enough to share and
        `jobs` allows (forked, a worker reads the facts where they are; without `fork`, here)."""
        sizes = [sum(result.facts.lines for result in part) for part in self.parts]
        if (
            len(sizes) >= 2
            and sum(sizes) - max(sizes) >= _PARALLEL_MIN_LINES
            and can_fork()
        ):
            jobs = jobs or default_jobs()
            if jobs >= 2:
                return self._in_workers(jobs, sizes)
        beside = jobs != 1
        # The largest part last: a run that ends then keeps its program instead of freeing it
        # (0.08 s for kafka-python's), and no two programs are alive at once either way.
        largest = max(range(len(sizes)), key=sizes.__getitem__, default=0)
        order = sorted(range(len(self.parts)), key=lambda index: (index == largest, index))
        found = {index: self.part_found(index, keep=exiting and index == largest, beside=beside) for index in order}
        return [found[index] for index in range(len(self.parts))]

    def part_found(self, index: int, keep: bool = False, beside: bool = False) -> _PartFound:
        """Build part `index`'s program and run the rules on it (some in a process `beside` this
        one, where it pays); then free it unless `keep`."""
        with collector_paused():
            program = build_program([self.cached.full(result) for result in self.parts[index]], self.config, self.names)
            found = rule_findings(program, self.rules, beside=beside)
            reached = program.limits_reached
            if not keep:
                program.release()
                del program
                # The few reference cycles left (networkx's temporary graphs): collected now, or
                # the pause's freeze would keep them for good (a server analyses again and again).
                gc.collect()
        return found, reached

    def _in_workers(self, jobs: int, sizes: Sequence[int]) -> list[_PartFound]:
        """Each batch of parts (see `_batches`) analysed in a process forked for it alone: a
        worker copies the parent's memory pages it touches, and the copies go when it ends. A
        batch whose worker dies (killed, out of memory) is analysed here instead."""
        from multiprocessing.connection import wait

        import epochlint.program.model  # noqa: F401  (loaded once here, not by every worker)

        waiting = _batches(sizes)
        running: dict[Connection, tuple[BaseProcess, list[int]]] = {}
        done: dict[int, _PartFound] = {}
        try:
            while waiting or running:
                while waiting and len(running) < jobs:
                    batch = waiting.pop(0)
                    worker, receiving = start_forked(partial(self._found_in, batch))
                    running[receiving] = (worker, batch)
                for ready in wait(list(running)):
                    receiving = cast("Connection", ready)
                    worker, batch = running.pop(receiving)
                    with suppress(EOFError):  # nothing sent: the worker died
                        done.update(receiving.recv())
                    receiving.close()
                    worker.join()
        finally:
            for worker, _ in running.values():
                worker.kill()
        return [done[index] if index in done else self.part_found(index) for index in range(len(self.parts))]

    def _found_in(self, batch: Sequence[int]) -> dict[int, _PartFound]:
        """What each part of `batch` found (in a worker)."""
        return {index: self.part_found(index) for index in batch}


# Parts go to workers in batches of at least this many lines (a part larger than that alone), so
# that a project of many small parts forks a few workers, not one per part.
_BATCH_LINES = 20_000


def _batches(sizes: Sequence[int]) -> list[list[int]]:
    """The indexes of the parts of `sizes` lines in batches of `_BATCH_LINES` or more, largest
    parts first, so that no worker is left with a big part at the end."""
    batches: list[list[int]] = []
    lines = 0
    for index in sorted(range(len(sizes)), key=lambda index: -sizes[index]):
        if not batches or lines >= _BATCH_LINES:
            batches.append([])
            lines = 0
        batches[-1].append(index)
        lines += sizes[index]
    return batches


def _merge_limits(limits: dict[str, LimitReport], reached: Mapping[str, LimitReport]) -> None:
    """One report per analysis that stopped, in any part: the first place, every rule that lost it."""
    for what, report in reached.items():
        merged = limits.setdefault(what, replace(report, rules=[]))
        merged.rules.extend(code for code in report.rules if code not in merged.rules)


def program_parts(results: Sequence[FileResult], names: Mapping[str, str]) -> list[list[int]]:
    """The independent parts of one analysis unit (see `epochlint.program.parts`), as indexes into
    `results`, whose module names are `names`."""
    return independent_parts(
        [
            (
                r.source.rel,
                names[r.source.rel],
                _is_package(r.source.rel),
                [(i.level, i.module, i.name) for i in r.facts.imports],
                list(java_top_level_classes(r.facts)) if is_java(r.source.rel) else [],
            )
            for r in results
        ]
    )


class CachedParts:
    """The findings of independent parts analysed before, by their files' facts (none without a
    `store`); the whole facts of a file whose part is to be analysed (`collected` may hold only
    its outline)."""

    def __init__(
        self,
        store: PartsCache | None = None,
        collected: Collected | None = None,
        sources: Sequence[SourceFile] = (),
        problems: Mapping[str, str] | None = None,
    ) -> None:
        self._store = store or PartsCache(None, "")
        self._collected = collected
        self._index = {source.rel: index for index, source in enumerate(sources)}
        keys = collected.keys if collected is not None else []
        self._facts_keys = {**{s.rel: k for s, k in zip(sources, keys)}, **(problems or {})}

    def full(self, result: FileResult) -> FileResult:
        index = self._index.get(result.source.rel)
        if index is None or self._collected is None:
            return result
        return FileResult(result.source, self._collected.full_facts(index))

    def key(self, results: Sequence[FileResult], names: Mapping[str, str], config: Config) -> str:
        if not self._store.enabled:
            return ""  # nothing is kept: no key to compute
        files = [(r.source.rel, names[r.source.rel], self._facts_keys.get(r.source.rel, "")) for r in results]
        inputs = {"config": config.fingerprint(), "files": files}
        return self._store.key(json.dumps(inputs, sort_keys=True, ensure_ascii=True).encode("ascii"))

    def load(self, key: str) -> tuple[Finding, ...] | None:
        part = _decode(self._store.load(key), _PartFindings)
        return part.findings if part is not None else None

    def store(self, key: str, findings: Sequence[Finding]) -> None:
        self._store.store(key, pickle.dumps(_PartFindings(tuple(findings)), protocol=5))

    def keep_for(self, parts: int) -> None:
        self._store.keep_for(parts)


def rule_findings(program: Program, rules: Sequence[type[Rule]], *, beside: bool = False) -> list[Finding]:
    """What the rules (but those about suppressions) find where their codes are enabled,
    suppressed or not, in no set order. With `beside`, the data-flow rules run in a process forked
    for them while this one runs the others, when the program is large enough to pay for it.

    A rule that asks an analysis past its work limit reports nothing; the limit is reported once,
    as EPL900 where it was reached, and kept in `program.limits_reached`.
    """
    from epochlint.program.budget import LimitReport, WorkLimitReached
    from epochlint.rules.base import SuppressionRule
    from epochlint.program.model import LOOP_SEARCH_RULES
    from epochlint.rules.epl900_unparseable_file import loop_limit_finding, work_limit_finding

    checked = [rule for rule in rules if not issubclass(rule, SuppressionRule)]
    forked = [rule for rule in checked if rule.code in _RULES_BESIDE]
    if beside and forked and len(forked) < len(checked) and _worth_a_process(program):
        outcomes = _outcomes_beside(program, checked, forked)
    else:
        outcomes = rule_outcomes(program, checked)
    found: list[Finding] = []
    # In the rules' order, wherever each ran: the first rule to reach a limit names where.
    for rule in checked:
        outcome = outcomes[rule.code]
        if isinstance(outcome, WorkLimitReached):
            program.limits_reached.setdefault(outcome.what, LimitReport(outcome, [])).rules.append(rule.code)
        else:
            found.extend(outcome)
    found.extend(work_limit_finding(program, report) for report in program.limits_reached.values())
    searching = [rule.code for rule in checked if rule.code in LOOP_SEARCH_RULES]
    found.extend(
        loop_limit_finding(program, loop, limit, searching) for loop, limit in program.loops_past_limit.items()
    )
    return [f for f in found if program.config.is_code_enabled(f.code, f.location.path)]


# The rules that run beside the others: those of the data flow, which share no analysis and no
# work limit with the rest, and take about half of the rules' time (kafka's part of the benchmark
# tree: 0.50-0.57 s for all the rules in one process, 0.34-0.38 s with these beside).
_RULES_BESIDE = frozenset({"EPL003", "EPL007"})
# Below this many functions, forking a process costs about what it saves.
_BESIDE_MIN_FUNCTIONS = 1_000

# What one rule found, or the work limit that stopped it.
RuleOutcome = Union[list[Finding], "WorkLimitReached"]


def rule_outcomes(program: Program, rules: Sequence[type[Rule]]) -> dict[str, RuleOutcome]:
    """What each rule finds, by code, or the work limit that stopped it; run in `rules`' order."""
    from epochlint.program.budget import WorkLimitReached

    outcomes: dict[str, RuleOutcome] = {}
    for rule in rules:
        try:
            outcomes[rule.code] = list(rule().check(program))  # all of a rule's findings, or none of them
        except WorkLimitReached as limit:
            outcomes[rule.code] = limit
    return outcomes


def _worth_a_process(program: Program) -> bool:
    return len(program.symbols.functions) >= _BESIDE_MIN_FUNCTIONS and can_fork_beside()


def _outcomes_beside(
    program: Program, rules: Sequence[type[Rule]], forked: Sequence[type[Rule]]
) -> dict[str, RuleOutcome]:
    """The outcomes of `rules`: those of `forked` from a process forked for them (it reads the
    program where it is), the others from this one meanwhile. Rules whose process dies (killed, out
    of memory, a bug) run here after the others."""
    others = [rule for rule in rules if rule not in forked]
    outcomes, forked_outcomes = forked_beside(
        partial(rule_outcomes, program, forked), partial(rule_outcomes, program, others)
    )
    outcomes.update(forked_outcomes or {})
    outcomes.update(rule_outcomes(program, [rule for rule in forked if rule.code not in outcomes]))
    return outcomes


def reported(
    findings: Sequence[Finding], facts_by_rel: Mapping[str, FileFacts], config: Config, rules: Sequence[type[Rule]]
) -> list[Finding]:
    """`findings` without the suppressed ones and duplicates, sorted and fingerprinted. The rules
    about suppressions run last, on which findings each suppression silenced."""
    from epochlint.rules.base import SuppressionRule, SuppressionUse

    kept: list[Finding] = []
    silenced: set[tuple[str, int, str]] = set()
    _keep_reported(findings, facts_by_rel, kept, silenced, blanket=True)
    use = SuppressionUse(frozenset(silenced), frozenset(rule.code for rule in rules))
    for rule in rules:
        if issubclass(rule, SuppressionRule):
            found = rule().check_suppressions(facts_by_rel, config, use)
            enabled = [f for f in found if config.is_code_enabled(f.code, f.location.path)]
            # A bare `ignore` cannot silence the finding that reports it as unused.
            _keep_reported(enabled, facts_by_rel, kept, set(), blanket=False)
    return _fingerprinted(sorted(set(kept), key=Finding.sort_key))


def _keep_reported(
    found: Iterable[Finding],
    facts_by_rel: Mapping[str, FileFacts],
    kept: list[Finding],
    silenced: set[tuple[str, int, str]],
    *,
    blanket: bool,
) -> None:
    """Add to `kept` the findings that are not suppressed (by a bare `ignore` too, with `blanket`);
    note the suppressed ones in `silenced`."""
    for finding in found:
        facts = facts_by_rel.get(finding.location.path)
        if facts is not None and _suppressed(facts, finding, blanket):
            silenced.add((finding.location.path, finding.location.line, finding.code))
            continue
        kept.append(finding)


def _suppressed(facts: FileFacts, finding: Finding, blanket: bool) -> bool:
    if facts.ignore_file:
        return True
    return any(
        suppression.line == finding.location.line
        and not suppression.unread
        and (finding.code in suppression.codes if suppression.codes else blanket)
        for suppression in facts.suppressions
    )


# A lambda is named after its place (`handlers.<lambda:15:26>`), which the fingerprint leaves out.
_PLACE_IN_NAME = re.compile(r":\d+:\d+>")


def _fingerprinted(findings: list[Finding]) -> list[Finding]:
    """Fingerprints that survive unrelated edits: no line numbers, only what the finding is about.

    Identical keys in one file (the same mistake twice) are told apart by their order.
    """
    seen: dict[str, int] = {}
    result = []
    for finding in findings:
        function = _PLACE_IN_NAME.sub(">", finding.function)
        key = "\x1f".join((finding.code, finding.location.path, function, finding.fingerprint_key))
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        digest = hashlib.sha256(f"{key}\x1f{occurrence}".encode()).hexdigest()[:32]
        result.append(replace(finding, fingerprint=digest))
    return result


def check(
    paths: Sequence[Path],
    config: Config,
    *,
    use_cache: bool = True,
    jobs: int | None = None,
    prefilter: bool = True,
    progress: bool = False,
    in_memory: Mapping[Path, bytes] | None = None,
    exiting: bool = False,
) -> RunResult:
    """One whole `epochlint check` run over `paths`.

    Facts come from the cache under the project root where it has them (`use_cache`); files the
    prefilter finds irrelevant are not parsed (`prefilter`); the rest are parsed by `jobs`
    processes (default: one per idle core), with a progress bar on stderr for large runs (`progress`).
    The files in `in_memory` (by `in_memory_path`) are analysed with that content instead of
    what is on disk, or as new files when there is none. With `exiting`, the process ends after
    this run (see `unsuppressed_findings`), and unless `jobs` is 1 the facts cache is written in a
    process of its own (see `collect_facts`).
    """
    if jobs is None:
        start_load_sample()  # measured while the files are read, for the default number of processes
    held = in_memory or {}
    # With a buffer (stdin, an editor's), the folders walked are its project, which no one named:
    # that exclude patterns leave out all of one is no news.
    sources, problems = discover(paths, config, in_memory=held.keys(), warn_left_out=not held)
    held_files = held_in_memory(sources, held)
    unreadable = [SourceFile(config.root / p.rel, p.rel) for p in problems]
    names = unit_module_names([*sources, *unreadable], config.root)
    contents = read_sources(sources, config, held)
    if config.guards and covers_the_root(paths, config):
        # Only over the whole project: a file checked alone may declare guards for the others.
        warn_of_unmatched_guards(config, sources, contents)
    cache = FindingsCache.open(config.root) if use_cache else FindingsCache(None, "")
    key = cache.key(_analysis_inputs(sources, contents, problems, names, config, prefilter))
    layout_key = cache.key(_analysis_inputs(sources, None, problems, names, config, prefilter))
    analysed = _decode(cache.load(key), _Analysed)
    if analysed is None:
        earlier = _decode(cache.load(layout_key), _LaidOut)
        collected = collect_facts(
            sources,
            contents,
            names,
            config,
            use_cache=use_cache,
            jobs=jobs,
            prefilter=prefilter,
            progress=progress,
            outlines=layout_key if use_cache else None,
            earlier=_earlier(earlier),
            write_beside=exiting and jobs != 1,
            meanwhile=_analysis_loaded,
        )
        results = [FileResult(s, facts) for s, facts in zip(sources, collected.facts)]
        results.extend(
            FileResult(source, FileFacts(lines=0, error=p.reason)) for source, p in zip(unreadable, problems)
        )
        parts_cache = PartsCache.open(config.root) if use_cache else PartsCache(None, "")
        laid_out = _laid_out(earlier, sources, results, collected, parts_cache, config, exiting, names, jobs)
        if earlier is not None:
            saved = saved_versions(collected.cache, sources, held_files, config.max_file_size)
            collected.cache.forget(*_superseded(earlier, collected.keys, collected.text_keys.values(), saved))
        facts_by_rel = {r.source.rel: r.facts for r in results}
        findings = reported(laid_out.findings, facts_by_rel, config, selected_rules(config))
        analysed = _Analysed(tuple(findings), laid_out.rules, collected.not_relevant, laid_out)
        cache.store(key, pickle.dumps(analysed, protocol=5))
        collected.cache_written()
    else:
        earlier = _decode(cache.load(layout_key), _LaidOut)
        _changed_back(earlier, analysed.laid_out, sources, contents, held_files, config)
    # The next run whose files differ from these only in layout starts from this one's findings.
    cache.store(layout_key, pickle.dumps(analysed.laid_out, protocol=5))
    return RunResult(
        root=config.root,
        findings=analysed.findings,
        rules=analysed.rules,
        files_analysed=len(sources) + len(unreadable),
        tool_version=__version__,
        files_not_relevant=analysed.not_relevant,
        in_memory=tuple(sorted(held_files.items())),
        not_read=frozenset(p.rel for p in problems),
    )


def covers_the_root(paths: Sequence[Path], config: Config) -> bool:
    """Whether a run over `paths` (the current directory when empty) analyses the whole project."""
    # realpath, not resolve(): a path given that is a link loop must not raise (it is an EPL900).
    root = os.path.realpath(config.root)
    return any(os.path.realpath(path) == root for path in paths or [Path(".")])


def load_the_analysis() -> None:
    """Import the parser and what the analysis of the facts runs: for a process that analyses again
    later (the editor server, whose first run may have read every finding back from the cache), so
    that its next analysis does not wait for them (0.25-0.3 s)."""
    import epochlint.frontend.extract  # noqa: F401  (libcst)

    _analysis_loaded()


def _analysis_loaded() -> None:
    """Import what the analysis of the facts runs (the program model, networkx, the rules): done
    while workers parse, it is off the one-process part of a run that follows (0.12-0.16 s)."""
    import networkx  # noqa: F401

    import epochlint.program.dataflow  # noqa: F401
    import epochlint.program.lockorder  # noqa: F401
    import epochlint.program.model  # noqa: F401
    from epochlint.rules import all_rules

    all_rules()


@dataclass(frozen=True)
class _LaidOut:
    """The latest run's files, by the key of each one's facts, and the rules' findings before
    suppressions. Kept in the findings cache by a key over everything but the files' content, for
    the next run to reuse where its files differ only in layout."""

    facts_keys: tuple[tuple[str, str], ...]
    findings: tuple[Finding, ...]
    rules: tuple[RuleInfo, ...]
    # By root-relative path, the keys of what the text pass found in the files (see
    # `Collected.text_keys`).
    text_keys: tuple[tuple[str, str], ...]
    # The files found relevant, sorted.
    relevant: tuple[str, ...]


@dataclass(frozen=True)
class _PartFindings:
    """The findings of one independent part before suppressions: kept in the parts cache."""

    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class _Analysed:
    """What the analysis of one set of inputs found: kept in the findings cache."""

    findings: tuple[Finding, ...]
    rules: tuple[RuleInfo, ...]
    not_relevant: int
    laid_out: _LaidOut


def _laid_out(
    earlier: _LaidOut | None,
    sources: Sequence[SourceFile],
    results: Sequence[FileResult],
    collected: Collected,
    parts_cache: PartsCache,
    config: Config,
    exiting: bool,
    unit_names: Mapping[str, str],
    jobs: int | None,
) -> _LaidOut:
    """The findings before suppressions of `results`: the earlier ones moved where the files'
    new layout puts them when they differ only in layout, else from an analysis of the parts of
    the program that changed (the others' from the cache, the rest in up to `jobs` processes).
    `unit_names`: the files' `unit_module_names`."""
    facts_keys = tuple((s.rel, k) for s, k in zip(sources, collected.keys))
    text_keys, relevant = tuple(collected.text_keys.items()), tuple(sorted(collected.relevant))
    moved = _moved(earlier, results, collected, config, unit_names) if earlier is not None else None
    if moved is not None and earlier is not None:
        return _LaidOut(facts_keys, tuple(moved), earlier.rules, text_keys, relevant)
    cached = CachedParts(parts_cache, collected, sources, _problem_keys(results[len(sources) :]))
    found, rules, _ = unsuppressed_findings(
        results, config, cached, exiting=exiting, unit_names=unit_names, jobs=jobs
    )
    return _LaidOut(facts_keys, tuple(found), tuple(rule_info(rule) for rule in rules), text_keys, relevant)


def _earlier(laid_out: _LaidOut | None) -> Earlier | None:
    if laid_out is None:
        return None
    return Earlier(dict(laid_out.facts_keys), dict(laid_out.text_keys), frozenset(laid_out.relevant))


def _superseded(
    earlier: _LaidOut, keys: Sequence[str], text_keys: Iterable[str], saved: tuple[set[str], set[str]]
) -> tuple[set[str], set[str]]:
    """The facts, and the text pass's entries, of the latest run's files that no file of this run
    holds (its facts `keys` and text pass's `text_keys`): versions edited away. But for those of
    the versions on disk of the files this run read from memory (`saved`, see `saved_versions`):
    the next run from the command line reads those.

    Kept, they would pile up for a month: an editor analysing an unsaved buffer again at each pause
    in typing stores a version each time, as big as the facts of the whole file. The version a file
    had in the latest run is all the next run moves facts from; a file changed back is parsed again
    (`_changed_back`)."""
    saved_facts, saved_texts = saved
    facts = {key for _, key in earlier.facts_keys} - set(keys) - saved_facts
    return facts, {key for _, key in earlier.text_keys} - set(text_keys) - saved_texts


def _changed_back(
    earlier: _LaidOut | None,
    laid_out: _LaidOut,
    sources: Sequence[SourceFile],
    contents: Sequence[bytes | str],
    held: Mapping[str, bytes],
    config: Config,
) -> None:
    """After a run whose findings were read back from the cache (`laid_out`'s): the files changed
    back since the latest run (`earlier`) to the version that cached analysis saw had that version's
    facts deleted when it was edited away. Without them the next edit of only blank lines or
    comments would be analysed again instead of moving these findings, so they are parsed and cached
    again, and the facts of the versions edited away now are deleted in turn."""
    if earlier is None or earlier.facts_keys == laid_out.facts_keys:
        return
    before = dict(earlier.facts_keys)
    changed = {rel: key for rel, key in laid_out.facts_keys if before.get(rel) != key}
    cache = restore_facts(sources, contents, changed, config)
    saved = saved_versions(cache, sources, held, config.max_file_size)
    text_keys = [key for _, key in laid_out.text_keys]
    cache.forget(*_superseded(earlier, [key for _, key in laid_out.facts_keys], text_keys, saved))


def _problem_keys(unreadable: Sequence[FileResult]) -> dict[str, str]:
    """What stands for the facts of files that discovery found unreadable: their reason."""
    return {r.source.rel: f"unreadable\0{r.facts.error}" for r in unreadable}


def _moved(
    earlier: _LaidOut,
    results: Sequence[FileResult],
    collected: Collected,
    config: Config,
    unit_names: Mapping[str, str],
) -> list[Finding] | None:
    """The earlier findings moved to where the files' new layout puts them; None when a file
    changed more than its layout (or its earlier facts are gone)."""
    if [rel for rel, _ in earlier.facts_keys] != [r.source.rel for r in results[: len(collected.keys)]]:
        return None
    moves: list[tuple[str, Relayout]] = []
    names: dict[str, str] = {}
    for index, ((rel, old_key), new_key) in enumerate(zip(earlier.facts_keys, collected.keys)):
        if old_key == new_key:
            continue
        old_facts = collected.earlier_facts.get(index) or collected.cache.load(old_key)
        if old_facts is None:
            return None
        # Where only layout changed, imports did not: the module names are the earlier run's.
        names = names or program_module_names(results, config, unit_names)
        move = relayout(old_facts, collected.full_facts(index), names[rel])
        if move is None:
            return None
        moves.append((rel, move))
    findings = []
    for finding in earlier.findings:
        for rel, move in moves:
            moved = move.finding(finding, rel)
            if moved is None:
                return None
            finding = moved
        findings.append(finding)
    return findings


_CACHED_CLASSES = {
    findings_module.__name__: record_classes_of(findings_module),
    report_module.__name__: frozenset({RuleInfo.__name__}),
    __name__: frozenset({_Analysed.__name__, _LaidOut.__name__, _PartFindings.__name__}),
}


def _analysis_inputs(
    sources: Sequence[SourceFile],
    contents: Sequence[bytes | str] | None,
    problems: Sequence[DiscoveryProblem],
    names: dict[str, str],
    config: Config,
    prefilter: bool,
) -> bytes:
    """Everything the findings of a run depend on, but for the engine's code (in the cache's salt);
    without `contents`, everything but the files' content."""
    files = [
        (s.rel, names.get(s.rel, ""), _content_digest(contents[index]) if contents is not None else "")
        for index, s in enumerate(sources)
    ]
    unreadable = [(p.rel, names.get(p.rel, ""), p.reason) for p in problems]
    inputs = {"config": config.fingerprint(), "prefilter": prefilter, "files": files, "unreadable": unreadable}
    if contents is None:
        inputs["layout"] = True
    return json.dumps(inputs, sort_keys=True, ensure_ascii=True).encode("ascii")


def _content_digest(data: bytes | str) -> str:
    return hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else data


_Cached = TypeVar("_Cached")


def _decode(payload: bytes | None, kind: type[_Cached]) -> _Cached | None:
    """A cached analysis of type `kind`, or None when there is none to trust."""
    if payload is None:
        return None
    try:
        analysed = restricted_loads(payload, _CACHED_CLASSES)
    except FactsDecodeError:
        return None
    return analysed if isinstance(analysed, kind) and _well_formed(analysed) else None


def _well_formed(cached: object) -> bool:
    """Whether a decoded entry has the types a run's report relies on (else it is not used)."""
    if isinstance(cached, _PartFindings):
        return _findings_tuple(cached.findings)
    if isinstance(cached, _Analysed):
        return (
            type(cached.not_relevant) is int
            and _findings_and_rules(cached.findings, cached.rules)
            and isinstance(cached.laid_out, _LaidOut)
            and _well_formed(cached.laid_out)
        )
    return (
        isinstance(cached, _LaidOut)
        and _findings_and_rules(cached.findings, cached.rules)
        and _string_pairs(cached.facts_keys)
        and _string_pairs(cached.text_keys)
        and isinstance(cached.relevant, tuple)
        and all(isinstance(rel, str) for rel in cached.relevant)
    )


def _string_pairs(pairs: object) -> bool:
    return isinstance(pairs, tuple) and all(
        isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(part, str) for part in pair) for pair in pairs
    )


def _findings_and_rules(findings: object, rules: object) -> bool:
    return _findings_tuple(findings) and isinstance(rules, tuple) and all(isinstance(rule, RuleInfo) for rule in rules)


def _findings_tuple(findings: object) -> bool:
    return isinstance(findings, tuple) and all(isinstance(finding, Finding) for finding in findings)


def rule_info(rule: type[Rule]) -> RuleInfo:
    return RuleInfo(rule.code, rule.name, rule.summary, rule.documentation())
