"""The pipeline of one run: discover -> frontend (facts) -> program -> rules -> findings."""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from epochlint import __version__
from epochlint import findings as findings_module
from epochlint import report as report_module
from epochlint.cache import FindingsCache
from epochlint.collect import collect_facts, collector_paused, read_source, read_sources
from epochlint.config import Config
from epochlint.discovery import DiscoveryProblem, SourceFile, discover
from epochlint.findings import Finding
from epochlint.frontend import facts_from_source
from epochlint.frontend.codec import FactsDecodeError, dataclasses_of, restricted_loads
from epochlint.frontend.facts import FileFacts
from epochlint.program.modules import ModuleInfo, imported_names, module_names, namespace_module_names
from epochlint.report import RuleInfo, RunResult

# The program (networkx) and the rules are imported where they are used: a run whose findings
# come from the cache never loads them.
if TYPE_CHECKING:
    from epochlint.program.model import Program
    from epochlint.rules import Rule


@dataclass(frozen=True)
class FileResult:
    """What the frontend made of one file: its facts, or why it has none."""

    source: SourceFile
    facts: FileFacts


def read_file(source: SourceFile, max_size: int) -> FileFacts:
    """Read and parse one file; every failure becomes an error in the facts, never an exception."""
    data = read_source(source, max_size)
    if isinstance(data, str):
        return FileFacts(lines=0, error=data)
    return facts_from_source(data)


def selected_rules(config: Config) -> list[type[Rule]]:
    """Rules that some file may report (select/ignore; per-file-ignores apply per finding)."""
    from epochlint.rules import all_rules

    return [rule for rule in all_rules() if _selected_anywhere(config, rule.code)]


def _selected_anywhere(config: Config, code: str) -> bool:
    return config.is_code_enabled(code, "") or bool(config.per_file_ignores)


def build_program(results: Sequence[FileResult], config: Config) -> Program:
    """Merge the facts of one analysis unit into a Program."""
    from epochlint.program.model import FileError, Program

    imported = {name for r in results for name in imported_names(r.facts.imports)}
    names = namespace_module_names(unit_module_names([r.source for r in results], config.root), imported)
    modules: list[ModuleInfo] = []
    errors: list[FileError] = []
    for result in results:
        if result.facts.error:
            errors.append(FileError(result.source.rel, result.facts.error))
            continue
        rel = result.source.rel
        is_package = PurePosixPath(rel).name == "__init__.py"
        modules.append(ModuleInfo(names[rel], rel, is_package, result.facts))
    return Program(modules, config, errors)


def unit_module_names(sources: Sequence[SourceFile], root: Path) -> dict[str, str]:
    """Dotted module names, by root-relative path, of the files of one analysis unit."""
    return module_names([s.rel for s in sources], _package_dirs(sources, root))


def _package_dirs(sources: Sequence[SourceFile], root: Path) -> set[str]:
    """Root-relative folders that are packages (hold an `__init__.py`)."""
    found: set[str] = set()
    checked: set[str] = set()
    for source in sources:
        rel_dir = PurePosixPath(source.rel).parent
        abs_dir = source.path.parent
        while str(rel_dir) not in checked and str(rel_dir) != ".":
            checked.add(str(rel_dir))
            if (abs_dir / "__init__.py").is_file():
                found.add(str(rel_dir))
            rel_dir, abs_dir = rel_dir.parent, abs_dir.parent
    return found


def analyse(results: Sequence[FileResult], config: Config) -> tuple[list[Finding], list[type[Rule]]]:
    """The findings of one analysis unit, and the rules that ran."""
    rules = selected_rules(config)
    with collector_paused():
        return run_rules(build_program(results, config), rules), rules


def run_rules(program: Program, rules: Sequence[type[Rule]]) -> list[Finding]:
    """Run the rules, drop suppressed and deselected findings, fingerprint and sort the rest."""
    modules_by_rel = {m.rel: m for m in program.modules.values()}
    findings = []
    for rule in rules:
        for finding in rule().check(program):
            if not program.config.is_code_enabled(finding.code, finding.location.path):
                continue
            module = modules_by_rel.get(finding.location.path)
            if module is not None and _suppressed(module.facts, finding):
                continue
            findings.append(finding)
    return _fingerprinted(sorted(set(findings), key=Finding.sort_key))


def _suppressed(facts: FileFacts, finding: Finding) -> bool:
    if facts.ignore_file:
        return True
    for suppression in facts.suppressions:
        if suppression.line == finding.location.line:
            if not suppression.codes or finding.code in suppression.codes:
                return True
    return False


def _fingerprinted(findings: list[Finding]) -> list[Finding]:
    """Fingerprints that survive unrelated edits: no line numbers, only what the finding is about.

    Identical keys in one file (the same mistake twice) are told apart by their order.
    """
    seen: dict[str, int] = {}
    result = []
    for finding in findings:
        key = "\x1f".join(
            (finding.code, finding.location.path, finding.function, finding.fingerprint_key)
        )
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
) -> RunResult:
    """One whole `epochlint check` run over `paths`.

    Facts come from the cache under the project root where it has them (`use_cache`); files the
    prefilter finds irrelevant are not parsed (`prefilter`); the rest are parsed by `jobs`
    processes (default: one per core), with a progress bar on stderr for large runs (`progress`).
    """
    sources, problems = discover(paths, config)
    unreadable = [SourceFile(config.root / p.rel, p.rel) for p in problems]
    names = unit_module_names([*sources, *unreadable], config.root)
    contents = read_sources(sources, config)
    cache = FindingsCache.open(config.root) if use_cache else FindingsCache(None, "")
    key = cache.key(_analysis_inputs(sources, contents, problems, names, config, prefilter))
    analysed = _decode_analysis(cache.load(key))
    if analysed is None:
        collected = collect_facts(
            sources, contents, names, config, use_cache=use_cache, jobs=jobs, prefilter=prefilter, progress=progress
        )
        results = [FileResult(s, facts) for s, facts in zip(sources, collected.facts)]
        results.extend(
            FileResult(source, FileFacts(lines=0, error=p.reason)) for source, p in zip(unreadable, problems)
        )
        findings, rules = analyse(results, config)
        analysed = _Analysed(
            tuple(findings),
            tuple(rule_info(rule) for rule in rules),
            collected.not_relevant,
        )
        cache.store(key, pickle.dumps(analysed, protocol=5))
    return RunResult(
        root=config.root,
        findings=analysed.findings,
        rules=analysed.rules,
        files_analysed=len(sources) + len(unreadable),
        tool_version=__version__,
        files_not_relevant=analysed.not_relevant,
    )


@dataclass(frozen=True)
class _Analysed:
    """What the analysis of one set of inputs found: kept in the findings cache."""

    findings: tuple[Finding, ...]
    rules: tuple[RuleInfo, ...]
    not_relevant: int


_CACHED_CLASSES = {
    findings_module.__name__: dataclasses_of(findings_module),
    report_module.__name__: frozenset({RuleInfo.__name__}),
    __name__: frozenset({_Analysed.__name__}),
}


def _analysis_inputs(
    sources: Sequence[SourceFile],
    contents: Sequence[bytes | str],
    problems: Sequence[DiscoveryProblem],
    names: dict[str, str],
    config: Config,
    prefilter: bool,
) -> bytes:
    """Everything the findings of a run depend on, but for the engine's code (in the cache's salt)."""
    files = [
        (s.rel, names.get(s.rel, ""), hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else data)
        for s, data in zip(sources, contents)
    ]
    unreadable = [(p.rel, names.get(p.rel, ""), p.reason) for p in problems]
    inputs = {"config": config.fingerprint(), "prefilter": prefilter, "files": files, "unreadable": unreadable}
    return json.dumps(inputs, sort_keys=True, ensure_ascii=True).encode("ascii")


def _decode_analysis(payload: bytes | None) -> _Analysed | None:
    """A cached analysis, or None when there is none to trust."""
    if payload is None:
        return None
    try:
        analysed = restricted_loads(payload, _CACHED_CLASSES)
    except FactsDecodeError:
        return None
    return analysed if isinstance(analysed, _Analysed) else None


def rule_info(rule: type[Rule]) -> RuleInfo:
    return RuleInfo(rule.code, rule.name, rule.summary, rule.documentation())
