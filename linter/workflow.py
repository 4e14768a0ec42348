"""What `check` does around the analysis: which findings it reports (those of the given files, those
not in the baseline), the baseline it records, and the fixes it makes or shows."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from epochlint.baseline import BaselineEntry, read_baseline, without_baseline, write_baseline
from epochlint.collect import read_source
from epochlint.config import Config
from epochlint.discovery import SourceFile, UsageError, discover, in_memory_path, relative_name, renamed
from epochlint.engine import check, covers_the_root, unit_module_names
from epochlint.findings import Finding, Location
from epochlint.notices import notice
from epochlint.prefilter import text_imports
from epochlint.program.modules import absolute_module
from epochlint.report import RuleInfo, RunResult
from epochlint.text import escaped_name

# How many of the project files an analysis left out are named in its notice.
NAMED_LEFT_OUT = 3


@dataclass(frozen=True)
class CheckRequest:
    """The options of one `check` run beyond the configuration."""

    paths: tuple[Path, ...]
    # Analyse the whole project (the configuration's root); report what involves `paths`.
    whole_project: bool = False
    baseline: Path | None = None
    write_baseline: Path | None = None
    fix: bool = False
    diff: bool = False
    # Read and write the facts cache under the project root.
    use_cache: bool = True
    # Show a progress bar on stderr while a large run parses.
    progress: bool = False
    # Processes that parse (default: one per idle core).
    jobs: int | None = None
    # Parse only the files that can matter (off: parse every file, for comparison).
    prefilter: bool = True
    # Files analysed with this content instead of the disk's (stdin, unsaved buffers), by
    # `in_memory_path`; never written by `fix`.
    in_memory: Mapping[Path, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckOutcome:
    """The report to render or, with `--diff`, the fixes to show instead (empty: nothing to fix)
    and how many there are."""

    result: RunResult
    diff: bytes | None = None
    diff_summary: str = ""


def run_check(request: CheckRequest, config: Config) -> CheckOutcome:
    entries = read_baseline(request.baseline) if request.baseline is not None else ()
    analysed = analysed_paths(request.paths, request.whole_project, config)
    if not request.whole_project:
        _note_imports_left_out(analysed, config, request.in_memory)
    found = _found(request, config, analysed, progress=request.progress)
    reported = _reported(found, request, config, entries, analysed)
    if request.diff or request.fix:
        from epochlint.fix.run import plan_fixes, unified_diff, write_fixes  # libcst: only to fix

        fixes = plan_fixes(
            analysed,
            config,
            found.findings,
            reported.findings,
            use_cache=request.use_cache,
            in_memory=request.in_memory,
        )
        if request.diff:
            shown = sum(len(fix.findings) for fix in fixes)
            summary = f"fixes shown: {shown} of {len(reported.findings)} findings (files: {len(fixes)})"
            if shown < len(reported.findings):
                summary += f"; {_left_unfixed(shown)}"
            return CheckOutcome(reported, b"".join(unified_diff(fix) for fix in fixes), summary)
        fixed, left = write_fixes(fixes)
        if fixed:
            found = _found(request, config, analysed, progress=False)
            reported = _reported(found, request, config, entries, analysed)
        count = sum(len(fix.findings) for fix in fixed)
        said = [f"fixes applied: {count} (files changed: {len(fixed)})"]
        # Else their findings would read as having no safe fix.
        said.extend(why.format(files=", ".join(fix.source.rel for fix in files)) for why, files in left.items())
        not_written = [fix for files in left.values() for fix in files]
        if len(reported.findings) > sum(len(fix.findings) for fix in not_written):
            said.append(_left_unfixed(count))
        reported = _noted(reported, "; ".join(said))
    if request.write_baseline is not None:
        kept = _entries_beyond(request.write_baseline, analysed, config, request.in_memory)
        write_baseline(request.write_baseline, reported.findings, kept)
        recorded = f"baseline written to {request.write_baseline} (findings recorded: {len(reported.findings)}"
        recorded += f"; entries kept of files or rules this run did not check: {len(kept)})" if kept else ")"
        reported = _noted(replace(reported, findings=(), baseline_recorded=len(reported.findings)), recorded)
    return CheckOutcome(reported)


def combined(results: Sequence[RunResult], folder: Path) -> RunResult:
    """The results of runs over several projects as one run's, every file named from `folder` (a
    project's own names, from its root, would not say which project's `consumer.py` is meant)."""
    rules: dict[str, RuleInfo] = {}
    findings: list[Finding] = []
    in_memory: list[tuple[str, bytes]] = []
    not_read: set[str] = set()
    for result in results:
        rules.update((rule.code, rule) for rule in result.rules)
        rename = partial(renamed, root=result.root, folder=folder)
        findings.extend(_renamed_finding(finding, rename) for finding in result.findings)
        in_memory.extend((rename(name), data) for name, data in result.in_memory)
        not_read.update(rename(name) for name in result.not_read)
    return RunResult(
        root=folder,
        findings=tuple(findings),
        rules=tuple(sorted(rules.values(), key=lambda rule: rule.code)),
        files_analysed=sum(result.files_analysed for result in results),
        tool_version=results[0].tool_version,
        stale_baseline=sum(result.stale_baseline for result in results),
        baseline_hidden=sum(result.baseline_hidden for result in results),
        notes=tuple(note for result in results for note in result.notes),
        files_not_relevant=sum(result.files_not_relevant for result in results),
        in_memory=tuple(in_memory),
        not_read=frozenset(not_read),
    )


def _renamed_finding(finding: Finding, rename: Callable[[str], str]) -> Finding:
    def moved(location: Location) -> Location:
        return replace(location, path=rename(location.path))

    fix = finding.fix
    return replace(
        finding,
        location=moved(finding.location),
        related=tuple(replace(related, location=moved(related.location)) for related in finding.related),
        chain=tuple(replace(step, location=moved(step.location)) for step in finding.chain),
        fix=replace(fix, location=moved(fix.location)) if fix is not None and fix.location is not None else fix,
    )


def analysed_paths(paths: Sequence[Path], whole_project: bool, config: Config) -> list[Path]:
    """The paths a check analyses: the given ones, and the project's root with `whole_project`."""
    return [config.root, *paths] if whole_project else list(paths)


def _note_imports_left_out(paths: Sequence[Path], config: Config, in_memory: Mapping[Path, bytes]) -> None:
    """Say on stderr which project files the files named on the command line import but the
    analysis leaves out: a race that runs through them cannot be found, and silence would read as
    an all-clear. (A folder named is a subtree chosen; its imports are not searched.)"""
    if covers_the_root(paths, config):
        return
    folders = [path.resolve() for path in paths if os.path.isdir(path)]
    named = [
        path for path in paths if path not in folders and (os.path.isfile(path) or in_memory_path(path) in in_memory)
    ]
    if not named:
        return
    sources, _ = discover(named, config, in_memory=in_memory.keys(), warn_left_out=False)
    left_out = [
        rel
        for rel, path in _imported_but_left_out(sources, config, in_memory)
        if not any(path.is_relative_to(folder) for folder in folders)
    ]
    if not left_out:
        return
    shown = ", ".join(escaped_name(rel) for rel in left_out[:NAMED_LEFT_OUT])
    more = f" and {len(left_out) - NAMED_LEFT_OUT} more" if len(left_out) > NAMED_LEFT_OUT else ""
    notice(
        f"{len(left_out)} project file(s) imported by the files named left out ({shown}{more}): "
        "findings that run through them cannot be reported; --whole-project analyses the named files inside "
        "their project"
    )


def _imported_but_left_out(
    sources: Sequence[SourceFile], config: Config, in_memory: Mapping[Path, bytes]
) -> list[tuple[str, Path]]:
    """The project's Python files (root-relative name, resolved path), sorted, that `sources`
    import (module by module, as the prefilter reads imports) and that are not among them, but
    for those a walk of the project leaves out too (`exclude`, build and tool folders)."""
    analysed = {source.path for source in sources}
    names = unit_module_names(sources, config.root)
    candidates: set[Path] = set()
    for source in sources:
        if source.path.suffix != ".py":
            continue
        unsaved = in_memory.get(source.path)
        data = unsaved if unsaved is not None else read_source(source, config.max_file_size)
        if isinstance(data, str):
            continue  # unreadable: reported as such by the analysis
        candidates.update(_imported_files(source, names[source.rel], data))
    root = config.root.resolve()
    inside = sorted(
        path for path in candidates - analysed if os.path.isfile(path) and path.resolve().is_relative_to(root)
    )
    if not inside:
        return []
    kept, _ = discover(inside, replace(config, force_exclude=True), warn_left_out=False)
    return sorted((source.rel, source.path.resolve()) for source in kept)


def _imported_files(source: SourceFile, module: str, data: bytes) -> Iterator[Path]:
    """The files that may hold the modules `data` imports, below the folder its module name
    starts from."""
    is_package = source.path.name == "__init__.py"
    # The folder that holds the module's outermost package: `a/b/c.py` is `a.b.c`, two folders up.
    base = source.path.parents[len(module.split(".")) - (0 if is_package else 1)]
    for level, target, _below in text_imports(data):
        imported = absolute_module(module, is_package, level, target)
        if imported:
            folder = base.joinpath(*imported.split("."))
            yield folder.with_name(f"{folder.name}.py")
            yield folder / "__init__.py"


def _found(request: CheckRequest, config: Config, analysed: Sequence[Path], progress: bool) -> RunResult:
    return check(
        analysed,
        config,
        use_cache=request.use_cache,
        jobs=request.jobs,
        prefilter=request.prefilter,
        progress=progress,
        in_memory=request.in_memory,
        # The command ends after this run, unless fixes are to be planned and checked again.
        exiting=not (request.diff or request.fix),
    )


def _reported(
    found: RunResult,
    request: CheckRequest,
    config: Config,
    entries: Sequence[BaselineEntry],
    analysed: Sequence[Path],
) -> RunResult:
    result = found
    if request.baseline is not None:
        files = _files(analysed, config, request.in_memory)
        result = without_baseline(result, entries, files, config.is_code_enabled, _vanished_under(analysed, config))
    if request.whole_project:
        result = involving(result, _given_files(request.paths, analysed, config, request.in_memory))
    return result


def involving(result: RunResult, files: frozenset[str]) -> RunResult:
    """The findings that involve one of `files`: located there, or with a step or note there."""
    kept = tuple(f for f in result.findings if any(loc.path in files for loc in _locations(f)))
    return replace(result, findings=kept)


def _locations(finding: Finding) -> Iterator[Location]:
    yield finding.location
    yield from (step.location for step in finding.chain)
    yield from (related.location for related in finding.related)


def _files(paths: Sequence[Path], config: Config, in_memory: Mapping[Path, bytes]) -> frozenset[str]:
    """Root-relative names of the files under `paths`, as findings name them."""
    sources, problems = discover(paths, config, in_memory=in_memory.keys())
    return frozenset(s.rel for s in sources) | frozenset(p.rel for p in problems)


def _given_files(
    paths: Sequence[Path], analysed: Sequence[Path], config: Config, in_memory: Mapping[Path, bytes]
) -> frozenset[str]:
    """Root-relative names of the files under `paths`, as the run over `analysed` names them: a file
    given through a link (`pkglink/x.py`) is named in the findings by its path in the project."""
    given, problems = discover(paths, config, in_memory=in_memory.keys())
    names = {source.rel for source in given} | {problem.rel for problem in problems}
    root = os.path.realpath(config.root)
    real = {os.path.realpath(source.path) for source in given}
    if real <= {os.path.join(root, name) for name in names}:
        return frozenset(names)  # no link on the way below the root: named as the walk names them
    sources, _ = discover(analysed, config, in_memory=in_memory.keys())
    return frozenset(names | {source.rel for source in sources if os.path.realpath(source.path) in real})


def _entries_beyond(
    path: Path, analysed: Sequence[Path], config: Config, in_memory: Mapping[Path, bytes]
) -> tuple[BaselineEntry, ...]:
    """The entries of the baseline at `path` (if one is there) that a run over `analysed` says
    nothing about, as `without_baseline` counts them: of files it did not analyse, or of rules it
    did not run there. Rewriting the baseline keeps them."""
    if not os.path.isfile(path):
        return ()
    try:
        entries = read_baseline(path)
    except UsageError:
        return ()  # not a baseline: replaced, as before
    files = _files(analysed, config, in_memory)
    vanished = _vanished_under(analysed, config)
    return tuple(
        entry
        for entry in entries
        if not ((entry.path in files or vanished(entry.path)) and config.is_code_enabled(entry.code, entry.path))
    )


def _vanished_under(analysed: Sequence[Path], config: Config) -> Callable[[str], bool]:
    """Whether a file, by its name in findings, lies under the folders the run walked (or is a file
    it was given) and is no longer there: deleted since its findings were recorded."""
    given = [relative_name(path, config) for path in analysed]
    folders = tuple(f"{name}/" if name else "" for name, path in zip(given, analysed) if os.path.isdir(path))

    def vanished(rel: str) -> bool:
        # A name outside the root or with escapes names no path as written: never taken for gone.
        if rel.startswith("(parent)") or "\\" in rel or not (rel in given or rel.startswith(folders)):
            return False
        return not os.path.lexists(config.root / rel)

    return vanished


def _left_unfixed(fixed: int) -> str:
    """Why the findings a fix run leaves are left, after the count of those it fixed: each rule's
    page says when its fix is safe."""
    left = "the others have no fix" if fixed else "none has a fix"
    return f"{left} that is safe there ('epochlint rule CODE' says when one is)"


def _noted(result: RunResult, note: str) -> RunResult:
    return replace(result, notes=(*result.notes, note))

