"""What `check` does around the analysis: which findings it reports (those of the given files, those
not in the baseline), the baseline it records, and the fixes it makes or shows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from epochlint.baseline import BaselineEntry, read_baseline, without_baseline, write_baseline
from epochlint.config import Config
from epochlint.discovery import discover
from epochlint.engine import check
from epochlint.findings import Finding, Location
from epochlint.report import RunResult


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
    diff: str | None = None
    diff_summary: str = ""


def run_check(request: CheckRequest, config: Config) -> CheckOutcome:
    entries = read_baseline(request.baseline) if request.baseline is not None else ()
    analysed = analysed_paths(request.paths, request.whole_project, config)
    found = _found(request, config, analysed, progress=request.progress)
    reported = _reported(found, request, config, entries, analysed)
    if request.diff or request.fix:
        from epochlint.fix.run import plan_fixes, unified_diff, write_fixes  # libcst: only to fix

        fixes = plan_fixes(
            analysed, config, found.findings, reported.findings, use_cache=request.use_cache, in_memory=request.in_memory
        )
        if request.diff:
            shown = sum(len(fix.findings) for fix in fixes)
            summary = f"fixes shown: {shown} of {len(reported.findings)} findings (files: {len(fixes)})"
            return CheckOutcome(reported, "".join(unified_diff(fix) for fix in fixes), summary)
        fixed = write_fixes(fixes)
        if fixed:
            found = _found(request, config, analysed, progress=False)
            reported = _reported(found, request, config, entries, analysed)
        count = sum(len(fix.findings) for fix in fixed)
        reported = _noted(reported, f"fixes applied: {count} (files changed: {len(fixed)})")
    if request.write_baseline is not None:
        write_baseline(request.write_baseline, reported.findings)
        recorded = f"baseline written to {request.write_baseline} (findings recorded: {len(reported.findings)})"
        reported = _noted(replace(reported, findings=(), baseline_recorded=len(reported.findings)), recorded)
    return CheckOutcome(reported)


def analysed_paths(paths: Sequence[Path], whole_project: bool, config: Config) -> list[Path]:
    """The paths a check analyses: the given ones, and the project's root with `whole_project`."""
    return [config.root, *paths] if whole_project else list(paths)


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
        result = without_baseline(result, entries, _files(analysed, config, request.in_memory))
    if request.whole_project:
        result = involving(result, _files(request.paths, config, request.in_memory))
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


def _noted(result: RunResult, note: str) -> RunResult:
    return replace(result, notes=(*result.notes, note))

