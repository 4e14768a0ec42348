"""The pipeline of one run: discover -> frontend (facts) -> program -> rules -> findings."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from linter import __version__
from linter.collect import collect_facts, read_source
from linter.config import Config
from linter.discovery import SourceFile, discover
from linter.findings import Finding
from linter.frontend import facts_from_source
from linter.frontend.facts import FileFacts
from linter.program.model import FileError, Program
from linter.program.modules import ModuleInfo, module_names
from linter.report import RuleInfo, RunResult
from rules import Rule, all_rules


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
    return [rule for rule in all_rules() if _selected_anywhere(config, rule.code)]


def _selected_anywhere(config: Config, code: str) -> bool:
    return config.is_code_enabled(code, "") or bool(config.per_file_ignores)


def build_program(results: Sequence[FileResult], config: Config) -> Program:
    """Merge the facts of one analysis unit into a Program."""
    names = unit_module_names([r.source for r in results], config.root)
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
    collected = collect_facts(
        sources, names, config, use_cache=use_cache, jobs=jobs, prefilter=prefilter, progress=progress
    )
    results = [FileResult(s, facts) for s, facts in zip(sources, collected.facts)]
    results.extend(
        FileResult(source, FileFacts(lines=0, error=p.reason)) for source, p in zip(unreadable, problems)
    )
    program = build_program(results, config)
    rules = selected_rules(config)
    findings = run_rules(program, rules)
    return RunResult(
        root=config.root,
        findings=tuple(findings),
        rules=tuple(rule_info(rule) for rule in rules),
        files_analysed=len(results),
        tool_version=__version__,
        files_not_relevant=collected.not_relevant,
    )


def rule_info(rule: type[Rule]) -> RuleInfo:
    return RuleInfo(rule.code, rule.name, rule.summary, rule.documentation())
