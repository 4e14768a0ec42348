"""`check --fix` and `check --diff`: fixes made in memory, verified by analysing again, then kept.

A fix is kept only when analysing the project with the fixed files shows its finding gone and no
finding that was not there before: holding a guard around a loop can therefore never bring in a
self-deadlock (EPL008) or a lock-order cycle (EPL009), and whatever a fix does, `check` afterwards
reports none of the findings it fixed.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import libcst as cst

from epochlint.config import Config
from epochlint.discovery import SourceFile, UsageError, discover
from epochlint.fileio import replace_keeps_identity, write_atomically, write_in_place
from epochlint.collect import collect_facts, read_sources
from epochlint.engine import FileResult, analyse, covers_the_root, unit_module_names
from epochlint.findings import Finding
from epochlint.fix import FIXERS, fixable
from epochlint.fix.edits import Edit, SourceTree, apply_edits
from epochlint.frontend import facts_from_source
from epochlint.frontend.stack import with_room_to_recurse

# What a finding is about, without line numbers: the same mistake before and after a fix.
Identity = tuple[str, str, str, str]


@dataclass(frozen=True)
class FileFix:
    """One file's fixed content, and the findings the fix repairs."""

    source: SourceFile
    before: bytes
    after: bytes
    encoding: str
    findings: tuple[Finding, ...]


def plan_fixes(
    paths: Sequence[Path],
    config: Config,
    found: Sequence[Finding],
    wanted: Sequence[Finding],
    *,
    use_cache: bool = True,
    in_memory: Mapping[Path, bytes] | None = None,
) -> list[FileFix]:
    """Verified fixes for the `wanted` findings; `found` is every finding of the run over `paths`
    (with the files in `in_memory` read from there, as `engine.check` reads them).

    A fix is verified on the whole project with every rule, whatever the run was given and
    selected: a guard held around a loop in one file can close a lock-order cycle (EPL009) with
    code in another, and `--select EPL001` must not hide it."""
    candidates = [finding for finding in wanted if fixable(finding)]
    if not candidates:
        return []
    verifying = replace(config, select=("ALL",), ignore=(), per_file_ignores=())
    project = _Project(paths, verifying, use_cache, in_memory or {})
    if verifying != config:
        found = project.findings_after([])
    # The rest of the project, where the run was given part of it.
    whole = None if covers_the_root(paths, config) else _Project([config.root], verifying, use_cache, in_memory or {})

    def safe(fixes: Sequence[FileFix]) -> bool:
        return project.keeps(found, fixes) and (whole is None or whole.adds_nothing(fixes))

    fixes = project.fix(candidates)
    if safe(fixes):
        return fixes
    # Some fix breaks something: find out which, one finding at a time.
    accepted: list[Finding] = []
    for finding in candidates:
        trial = project.fix([*accepted, finding])
        if any(finding in fix.findings for fix in trial) and safe(trial):
            accepted.append(finding)
    return project.fix(accepted)


# Why planned fixes were not written (see `write_fixes`), as the run's note says it of their files.
CHANGED = "not written, as they changed while the run read them: {files} (run again)"
READ_ONLY = "not written, as they are read-only: {files}"


def write_fixes(fixes: Sequence[FileFix]) -> tuple[list[FileFix], dict[str, list[FileFix]]]:
    """Write the fixed files, each whole or not at all; the fixes written, and those left alone by
    why: a file that changed on disk since it was read (or can no longer be read), or that its
    owner made read-only. A file that cannot be written otherwise (a full disk) stays as it was and
    ends the run with a usage error."""
    written: list[FileFix] = []
    left: dict[str, list[FileFix]] = {}
    for fix in fixes:
        try:
            if fix.source.path.read_bytes() != fix.before:
                left.setdefault(CHANGED, []).append(fix)
                continue
        except OSError:
            left.setdefault(CHANGED, []).append(fix)
            continue
        # A file named through a symbolic link is fixed where it is; the link stays a link.
        target = Path(os.path.realpath(fix.source.path))
        if _is_read_only(target):
            left.setdefault(READ_ONLY, []).append(fix)
            continue
        try:
            _write_fixed(target, fix.after)
        except OSError as error:
            raise UsageError(
                f"epochlint: cannot write the fix to {fix.source.rel}: {error.strerror or error}"
                f" (left unchanged; files fixed before it: {len(written)})"
            ) from None
        written.append(fix)
    return written, left


def _write_fixed(target: Path, text: bytes) -> None:
    """Replace the file in one step where that loses nothing of it; write into it where it has other
    hard links or another owner, which a replace would cut off or take over."""
    if replace_keeps_identity(target):
        write_atomically(target, text)
    else:
        write_in_place(target, text)


_WRITABLE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
# A line as `patch` and git read one: up to LF alone (CR is part of the line).
_PATCH_LINE = re.compile(rb"[^\n]*\n|[^\n]+\Z")


def _is_read_only(path: Path) -> bool:
    """A file its owner made read-only is not replaced, though its folder would let it be: one this
    user may not write, or one nobody may (which root may write all the same)."""
    try:
        return not os.access(path, os.W_OK) or not path.stat().st_mode & _WRITABLE
    except OSError:
        return False  # gone: the write says why


def unified_diff(fix: FileFix) -> bytes:
    """The fix as a unified diff with `a/` and `b/` paths relative to the project root. Its lines are
    the file's own bytes, as git writes them, so that the diff applies to a file in any encoding
    (a latin-1 line printed as UTF-8 is another line for `patch`)."""
    # A name with a space ends in a tab, as git writes it, so that `patch` reads the whole name.
    name = os.fsencode(fix.source.rel) + (b"\t" if " " in fix.source.rel else b"")
    lines = difflib.diff_bytes(
        difflib.unified_diff,
        _patch_lines(fix.before),
        _patch_lines(fix.after),
        b"a/" + name,
        b"b/" + name,
    )
    return b"".join(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n" for line in lines)


def _patch_lines(data: bytes) -> list[bytes]:
    """The file's lines for a diff: a file of lone-CR line ends is one line to `patch`, which
    rejected a diff that split it at every CR."""
    return _PATCH_LINE.findall(data)


def _edited_file(finding: Finding) -> str:
    """The file a fix edits: where its hint points (a historical read may be far from the commit)."""
    assert finding.fix is not None
    return (finding.fix.location or finding.location).path


def _identity(finding: Finding) -> Identity:
    return (finding.code, finding.location.path, finding.function, finding.fingerprint_key)


class _Project:
    """The analysed files, read once, to be analysed again with some of them fixed."""

    def __init__(
        self, paths: Sequence[Path], config: Config, use_cache: bool, in_memory: Mapping[Path, bytes]
    ) -> None:
        self.config = config
        # Files that cannot be discovered or read have no facts and no fix: they never change.
        sources, _ = discover(paths, config, in_memory=in_memory.keys())
        self.files = {source.rel: source for source in sources}
        # Fixes are matched to files by where they are: another run may name a file through a link.
        self._real_paths = {source.rel: os.path.realpath(source.path) for source in sources}
        # The files' module names, for every analysis of the project fixed.
        self.names = unit_module_names(sources, config.root)
        contents = read_sources(sources, config, in_memory)
        self.contents = {s.rel: data for s, data in zip(sources, contents) if isinstance(data, bytes)}
        collected = collect_facts(sources, contents, self.names, config, use_cache=use_cache)
        self.results = [FileResult(source, facts) for source, facts in zip(sources, collected.facts)]
        self._trees: dict[str, tuple[bytes, SourceTree] | None] = {}
        self._before: Counter[Identity] | None = None

    def fix(self, findings: Sequence[Finding]) -> list[FileFix]:
        by_file: dict[str, list[Finding]] = {}
        for finding in findings:
            by_file.setdefault(_edited_file(finding), []).append(finding)
        fixes = []
        for rel, in_file in sorted(by_file.items()):
            fix = self._fix_file(rel, in_file)
            if fix is not None:
                fixes.append(fix)
        return fixes

    def _fix_file(self, rel: str, findings: Sequence[Finding]) -> FileFix | None:
        """The fix of `findings` in file `rel`; None when there is none, or the file cannot be read,
        parsed, or walked by libcst (nested deeper than its tree walks go)."""
        try:
            return with_room_to_recurse(partial(self._fixed_file, rel, findings))
        except RecursionError:
            return None

    def _fixed_file(self, rel: str, findings: Sequence[Finding]) -> FileFix | None:
        parsed = self._tree(rel)
        if parsed is None:
            return None
        data, tree = parsed
        edits: list[Edit] = []
        for code, fixer in FIXERS.items():
            edits.extend(fixer(tree, [f for f in findings if f.code == code]))
        if not edits:
            return None
        after = apply_edits(tree, edits)
        served = tuple(finding for edit in edits for finding in edit.findings)
        return FileFix(self.files[rel], data, after, tree.module.encoding, served)

    def _tree(self, rel: str) -> tuple[bytes, SourceTree] | None:
        """The file's bytes and tree; None when it cannot be read or parsed (it is never fixed)."""
        if rel not in self._trees:
            self._trees[rel] = None
            data = self.contents.get(rel)
            if data is not None:
                try:
                    self._trees[rel] = (data, SourceTree(data))
                except (cst.ParserSyntaxError, SyntaxError, UnicodeDecodeError, LookupError):
                    return None
        return self._trees[rel]

    def keeps(self, found: Sequence[Finding], fixes: Sequence[FileFix]) -> bool:
        """Whether every fixed finding is gone after `fixes`, and no other finding appeared."""
        after = Counter(_identity(finding) for finding in self.findings_after(fixes))
        fixed = Counter(_identity(finding) for fix in fixes for finding in fix.findings)
        return not (after + fixed - Counter(_identity(finding) for finding in found))

    def _fixed(self, result: FileResult, changed: Mapping[str, bytes]) -> FileResult:
        """`result`, or the facts of its fixed text where `changed` (by real path) has one."""
        fixed = changed.get(self._real_paths[result.source.rel])
        return result if fixed is None else FileResult(result.source, facts_from_source(fixed))

    def adds_nothing(self, fixes: Sequence[FileFix]) -> bool:
        """Whether no finding appears with `fixes` made that the project does not have now."""
        if self._before is None:
            self._before = Counter(_identity(finding) for finding in self.findings_after([]))
        return not Counter(_identity(finding) for finding in self.findings_after(fixes)) - self._before

    def findings_after(self, fixes: Sequence[FileFix]) -> list[Finding]:
        """The project's findings with `fixes` made (none: as it is)."""
        changed = {os.path.realpath(fix.source.path): fix.after for fix in fixes}
        results = [self._fixed(result, changed) for result in self.results]
        findings, _, _ = analyse(results, self.config, unit_names=self.names)  # part by part, as `check` does
        return findings
