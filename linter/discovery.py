"""Which files to analyse: the paths given, with directories expanded to their `*.py` files (and
their `*.java` files, when the Java frontend is installed).

Explicit file arguments are taken (unless `force-exclude` and `exclude` leave them out, as in ruff);
directories are walked with os.scandir, skipping the default excludes, the user's `exclude`
patterns and what git ignores (`respect-gitignore`). The result is sorted and de-duplicated by
resolved path, so the same tree always gives the same list.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from epochlint.config import Config, display_path
from epochlint.fileio import path_missing
from epochlint.frontend.java import JAVA_SUFFIX, MISSING_NOTICE, MISSING_REASON, available, is_java
from epochlint.gitignore import IgnoreChain, chain_above, chain_in
from epochlint.notices import notice, warn_once
from epochlint.text import escaped_name, unescaped_name

__all__ = [
    "DEFAULT_EXCLUDES",
    "DiscoveryProblem",
    "SourceFile",
    "UsageError",
    "discover",
    "in_memory_path",
    "is_source_name",
    "named_path",
    "renamed",
    "relative_name",
]

# Emacs leaves a dangling `.#name.py` link beside each file being edited.
EDITOR_LOCK_PREFIX = ".#"
# Directory names never walked into (unless given explicitly); `*.egg-info` is checked apart.
DEFAULT_EXCLUDES: frozenset[str] = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "build", "dist",
        "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".epochlint_cache", "site-packages",
    }
)
# Stands for `..` in the name of a file outside the project root (`(parent)/other/x.py`): reports
# promise paths that never leave the root, and the name must not be that of the project's own
# `other/x.py`, whose findings it would hide.
PARENT = "(parent)"


@dataclass(frozen=True)
class SourceFile:
    """A file to analyse. `path` is absolute and usable with open(); `rel` is for reports and
    patterns: posix, relative to the project root (`(parent)` for each `..` outside it), printable,
    and the one name of this file in the run: no two files share it, so it keys findings."""

    path: Path
    rel: str


@dataclass(frozen=True)
class DiscoveryProblem:
    """Something that cannot be analysed and must be reported rather than skipped silently."""

    rel: str
    reason: str


class UsageError(Exception):
    """A mistake in the command line itself, such as a path that does not exist. One line."""


@dataclass(frozen=True)
class _Dir:
    path: str  # absolute, as walked (through symlinks)
    real: str  # resolved
    rel: str
    via_link: bool
    # Git's ignore files in force where the folder is met (None: outside a work tree, or not asked).
    ignores: IgnoreChain | None = None


@dataclass(frozen=True)
class _Candidate:
    path: str
    real: str
    rel: str
    via_link: bool


def _is_under(path: str, base: str) -> bool:
    """Whether `path` is `base` or inside it (both absolute, normalised)."""
    if path == base:
        return True
    prefix = base if base.endswith(os.sep) else base + os.sep
    return path.startswith(prefix)


def _join_rel(parent: str, name: str) -> str:
    return f"{parent}/{name}" if parent else name


class _Walker:
    """One discovery run: the walk's state and what it found."""

    def __init__(self, config: Config, follow_external_symlinks: bool, given: Sequence[str]) -> None:
        self.config = config
        self.root = os.path.abspath(config.root)
        self.follow_external = follow_external_symlinks
        self.given_roots = [os.path.realpath(p) for p in given]
        self.visited: set[str] = set()
        self.files: list[_Candidate] = []
        self.problems: list[DiscoveryProblem] = []
        self.links: list[_Dir] = []
        # Source files and folders the configuration's `exclude` patterns (or git's ignore files)
        # left out, and how many of them were under each folder given: one where all was left out
        # must not pass silently.
        self.excluded = 0
        self.gitignored = 0
        self.excluded_under: list[tuple[str, str, int, int]] = []  # (path, name shown, excluded, gitignored)

    def rel(self, path: str) -> str:
        """Posix path relative to the root, each `..` written as PARENT."""
        return name_from(self.root, path)

    def add_argument(self, path: str) -> None:
        rel = self.rel(path)
        shown = rel or "."
        real = os.path.realpath(path)
        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            self.problems.append(DiscoveryProblem(shown, _stat_failure(path, error)))
            return
        if self.config.force_exclude and self.named_but_excluded(rel, stat.S_ISDIR(mode)):
            return
        if stat.S_ISDIR(mode):
            excluded, gitignored = self.excluded, self.gitignored
            ignores = chain_above(path) if self.config.respect_gitignore else None
            self.walk(_Dir(path, real, rel, real != path, ignores))
            self.excluded_under.append((path, shown, self.excluded - excluded, self.gitignored - gitignored))
        elif stat.S_ISREG(mode):
            self.files.append(_Candidate(path, real, shown, real != path))
        else:
            self.problems.append(DiscoveryProblem(shown, f"is {_special_kind(mode)}, not a regular file or directory"))

    def walk_links(self) -> None:
        # Symlinked directories are walked after every real one, so a file reachable both ways is
        # named by its real path, and a link back into the tree finds its target already visited.
        while self.links:
            pending, self.links = sorted(self.links, key=lambda d: (d.rel, d.path)), []
            for directory in pending:
                self.walk(directory)

    def walk(self, start: _Dir) -> None:
        stack = [start]
        while stack:
            directory = stack.pop()
            if directory.real in self.visited:
                continue
            self.visited.add(directory.real)
            stack.extend(reversed(self.scan(directory)))

    def scan(self, directory: _Dir) -> list[_Dir]:
        """Record the files of one directory; return its subdirectories to walk."""
        try:
            with os.scandir(directory.path) as iterator:
                entries = sorted(iterator, key=lambda e: e.name)
        except OSError as error:
            self.problems.append(DiscoveryProblem(directory.rel or ".", f"cannot read directory: {_reason(error)}"))
            return []
        # Only a walk that starts above the root can enter it, where names become root-relative.
        recompute = directory.path != self.root and _is_under(self.root, directory.path)
        ignores = directory.ignores
        if self.config.respect_gitignore:
            ignores = chain_in(directory.path, {entry.name for entry in entries}, ignores)
        subdirectories: list[_Dir] = []
        for entry in entries:
            rel = self.rel(entry.path) if recompute else _join_rel(directory.rel, entry.name)
            try:
                found = self.entry(directory, entry, rel, ignores)
            except OSError as error:
                self.problems.append(DiscoveryProblem(rel, f"cannot read: {_reason(error)}"))
                continue
            if found is not None:
                subdirectories.append(found)
        return subdirectories

    def entry(self, parent: _Dir, entry: os.DirEntry[str], rel: str, ignores: IgnoreChain | None) -> _Dir | None:
        if entry.is_symlink():
            self.link(entry, rel, ignores)
            return None
        if entry.is_dir(follow_symlinks=False):
            if self.dir_excluded(entry.name, rel) or self.git_ignored(ignores, entry.path, is_dir=True):
                return None
            return _Dir(entry.path, os.path.join(parent.real, entry.name), rel, parent.via_link, ignores)
        if not is_source_name(entry.name) or self.left_out(rel, is_dir=False):
            return None
        if self.git_ignored(ignores, entry.path, is_dir=False):
            return None
        if entry.is_file(follow_symlinks=False):
            self.files.append(_Candidate(entry.path, os.path.join(parent.real, entry.name), rel, parent.via_link))
        else:
            # Named like a source file but not one: never read (it could block), never dropped.
            kind = _special_kind(entry.stat(follow_symlinks=False).st_mode)
            self.problems.append(DiscoveryProblem(rel, f"is {kind}, not a regular file"))
        return None

    def link(self, entry: os.DirEntry[str], rel: str, ignores: IgnoreChain | None) -> None:
        try:
            mode = os.stat(entry.path).st_mode
        except OSError as error:
            # A link named like a source file that leads nowhere is reported, never dropped; but
            # for the dangling `.#name.py` lock links editors leave next to the files being edited.
            if (
                _names_source(entry.name)
                and not self.config.is_excluded(rel, is_dir=False)
                and not self.git_ignored(ignores, entry.path, is_dir=False)
            ):
                self.problems.append(DiscoveryProblem(rel, _stat_failure(entry.path, error)))
            return
        walked = stat.S_ISDIR(mode) or is_source_name(entry.name)
        if walked and self.git_ignored(ignores, entry.path, is_dir=stat.S_ISDIR(mode)):
            return  # neither followed nor reported: git ignores it
        real = os.path.realpath(entry.path)
        if not self.follow_external and not any(_is_under(real, r) for r in self.given_roots):
            if self.reports_outside_link(entry.name, rel, mode):
                self.problems.append(DiscoveryProblem(rel, _OUTSIDE_LINK))
            return
        if stat.S_ISDIR(mode):
            if not self.dir_excluded(entry.name, rel):
                self.links.append(_Dir(entry.path, real, rel, True, ignores))
        elif stat.S_ISREG(mode) and is_source_name(entry.name):
            if not self.left_out(rel, is_dir=False):
                self.files.append(_Candidate(entry.path, real, rel, True))

    def reports_outside_link(self, name: str, rel: str, mode: int) -> bool:
        """Whether a link out of the analysed paths would have been walked or read if followed."""
        if stat.S_ISDIR(mode):
            return not self.dir_excluded(name, rel)
        return is_source_name(name) and not self.config.is_excluded(rel, is_dir=False)

    def named_but_excluded(self, rel: str, is_dir: bool) -> bool:
        """Whether a path named on the command line is one the walk would leave out, by the
        default folders or the `exclude` patterns, itself or through a folder above it (inside the
        root): what `force-exclude` leaves out, as pre-commit names excluded files too."""
        parts = rel.split("/") if rel else []
        if not parts or parts[0] == PARENT:
            return False
        folders = ["/".join(parts[: end + 1]) for end in range(len(parts) - 1)]
        if any(self.dir_excluded(folder.rpartition("/")[2], folder) for folder in folders):
            return True
        return self.dir_excluded(parts[-1], rel) if is_dir else self.left_out(rel, is_dir=False)

    def dir_excluded(self, name: str, rel: str) -> bool:
        if name in DEFAULT_EXCLUDES or name.endswith(".egg-info"):
            return True
        return self.left_out(rel, is_dir=True)

    def left_out(self, rel: str, is_dir: bool) -> bool:
        """Whether the configuration's `exclude` patterns leave out `rel` (counted)."""
        excluded = self.config.is_excluded(rel, is_dir)
        self.excluded += excluded
        return excluded

    def git_ignored(self, ignores: IgnoreChain | None, path: str, is_dir: bool) -> bool:
        """Whether git's ignore files leave out the file or folder at `path` (counted)."""
        ignored = ignores is not None and ignores.ignores(path, is_dir)
        self.gitignored += ignored
        return ignored

    def folders_left_out(self) -> list[tuple[str, str]]:
        """The folders given that had every file left out, as shown, each with what left them out
        (`left_out_by`'s words)."""
        return [
            (escaped_name(shown), left_out_by(self.config, bool(excluded), bool(gitignored)))
            for path, shown, excluded, gitignored in self.excluded_under
            if (excluded or gitignored) and not any(_is_under(c.path, path) for c in self.files)
        ]

    def warn_of_folders_left_out(self) -> None:
        """Say which folders given had every file left out by the configuration: a run that checks
        nothing there must not look like a run that found nothing there."""
        for shown, why in self.folders_left_out():
            warn_once(f"{shown}: {why}; name a file to check it anyway")

    def result(self) -> tuple[list[SourceFile], list[DiscoveryProblem]]:
        best: dict[str, _Candidate] = {}
        for candidate in self.files:
            kept = best.get(candidate.real)
            if kept is None or _preference(candidate) < _preference(kept):
                best[candidate.real] = candidate
        files = sorted(
            (SourceFile(Path(c.path), escaped_name(c.rel)) for c in best.values()),
            key=lambda f: (f.rel, str(f.path)),
        )
        _check_names_are_distinct(files)
        unique = {DiscoveryProblem(escaped_name(p.rel), p.reason) for p in self.problems}
        problems = sorted(unique, key=lambda p: (p.rel, p.reason))
        return files, problems


def _check_names_are_distinct(files: Sequence[SourceFile]) -> None:
    """Refuse a run where two files would be reported under one name (a project folder literally
    called `(parent)` beside a file given from outside the root): one would hide the other."""
    for first, second in zip(files, files[1:]):
        if first.rel == second.rel:
            raise UsageError(
                f"epochlint: two files would be reported as {first.rel}: {escaped_name(str(first.path))} and "
                f"{escaped_name(str(second.path))}; give one of them from another folder"
            )


_OUTSIDE_LINK = "symbolic link to outside the analysed paths, not followed"


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def _names_source(name: str) -> bool:
    return is_source_name(name) and not name.startswith(EDITOR_LOCK_PREFIX)


def is_source_name(name: str) -> bool:
    """Whether a file of this name is one `check` analyses when it walks a folder."""
    return name.endswith(".py") or name.endswith(JAVA_SUFFIX)


def _preference(candidate: _Candidate) -> tuple[bool, str, str]:
    # Among several names of one file, the one reached without a symlink, then the first by name.
    return (candidate.via_link, candidate.rel, candidate.path)


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _stat_failure(path: str, error: OSError) -> str:
    if os.path.islink(path):
        return "symbolic link loop" if _is_loop(error) else "broken symbolic link"
    return f"cannot access: {_reason(error)}"


def _is_loop(error: OSError) -> bool:
    return error.errno == errno.ELOOP


def discover(
    paths: Sequence[Path],
    config: Config,
    follow_external_symlinks: bool = False,
    in_memory: Collection[Path] = (),
    *,
    keep_all_java: bool = False,
    warn_left_out: bool = True,
) -> tuple[list[SourceFile], list[DiscoveryProblem]]:
    """The files to analyse under `paths` (the current directory when empty), and the problems met.

    Raises UsageError for a path that does not exist, but for the `in_memory` files (an editor's
    unsaved buffer, stdin), which are analysed whether or not they exist on disk (absolute paths,
    as `in_memory_path` makes them). Symlinks inside walked directories are followed when their
    target lies inside one of the given paths (or always, with `follow_external_symlinks`); a link
    that leads back into the tree is never walked twice. A link to a `.py` file or a folder outside
    the given paths is reported, not followed, and so is a FIFO, socket or device named `*.py`:
    nothing is skipped silently.

    Java files are left out, in one notice line, when the Java frontend is not installed; with
    `keep_all_java`, they are kept for the caller to account for them its own way. A folder given
    whose every file the `exclude` patterns leave out is warned of, unless `warn_left_out` is off.
    """
    given = [os.path.abspath(p) for p in paths] if paths else [os.getcwd()]
    memory = {os.fspath(p) for p in in_memory}
    for original, path in zip(paths, given):
        if path_missing(path) and path not in memory:
            raise UsageError(f"epochlint: path not found: {escaped_name(os.fspath(original))}")
    walker = _Walker(config, follow_external_symlinks, given)
    for path in given:
        if path not in memory:
            walker.add_argument(path)
    walker.walk_links()
    if warn_left_out:
        walker.warn_of_folders_left_out()
    files, problems = walker.result()
    if config.force_exclude:
        # A buffer (stdin, an editor's) is named as a file on the command line is.
        memory = {path for path in memory if not walker.named_but_excluded(walker.rel(path), is_dir=False)}
    files, problems = _with_in_memory(files, problems, memory, walker)
    if keep_all_java:
        return files, problems
    return _without_unreadable_java(files, problems, {path for path in given if not os.path.isdir(path)})


def why_every_file_left_out(folder: Path, config: Config) -> str | None:
    """What leaves out every file under `folder` that would be checked without the `exclude`
    patterns of `config` and git's ignore files (`left_out_by`'s words); None when some is left."""
    walker = _Walker(config, False, [os.path.abspath(folder)])
    walker.add_argument(os.path.abspath(folder))
    walker.walk_links()
    found = walker.folders_left_out()
    return found[0][1] if found else None


def left_out_by(config: Config, by_exclude: bool, by_git: bool) -> str:
    """What leaves out every file of a folder, for a warning that names the folder first."""
    patterns = _exclude_patterns_named(config)
    if not by_git:
        return f"every file under it is left out by {patterns}"
    git = "git's ignore files (`respect-gitignore = false` checks what they ignore)"
    if by_exclude:
        return f"every file under it is left out by {patterns} and {git}"
    return f"every file under it is ignored by {git}"


def _exclude_patterns_named(config: Config) -> str:
    """Which `exclude` patterns are in force, named by where they come from."""
    origins = config.exclude_origins or ("configuration",)
    where = display_path(config.config_path) if config.config_path else "the configuration"
    named = " and ".join(where if origin == "configuration" else origin for origin in origins)
    return f"the `exclude` patterns of {named}" if "configuration" in origins else f"the patterns of {named}"


def _without_unreadable_java(
    files: list[SourceFile], problems: list[DiscoveryProblem], named: set[str]
) -> tuple[list[SourceFile], list[DiscoveryProblem]]:
    """The files, less the Java ones when the Java frontend is not installed: those found in the
    folders walked are left out (said in one line), and those `named` one by one are EPL900s, as
    any other file named that cannot be analysed (a run of them alone would pass)."""
    java = [f for f in files if is_java(f.rel)]
    if not java or available():
        return files, problems
    walked = sum(1 for f in java if os.fspath(f.path) not in named)
    if walked:
        notice(MISSING_NOTICE.format(count=walked))
    unreadable = [DiscoveryProblem(f.rel, MISSING_REASON) for f in java if os.fspath(f.path) in named]
    return [f for f in files if not is_java(f.rel)], [*problems, *unreadable]


def relative_name(path: Path, config: Config) -> str:
    """The name findings give the file at `path` (as `SourceFile.rel`)."""
    return escaped_name(_Walker(config, False, []).rel(os.path.abspath(path)))


def name_from(folder: str, path: str) -> str:
    """The posix path of `path` relative to `folder` (both absolute), each `..` written as PARENT."""
    if path == folder:
        return ""
    parts = os.path.relpath(path, folder).split(os.sep)
    return "/".join(PARENT if part == os.pardir else part for part in parts)


def renamed(name: str, root: Path, folder: Path) -> str:
    """The name findings give, from `folder`, the file they name `name` from `root`."""
    path = os.path.normpath(os.path.abspath(named_path(root, name)))
    return escaped_name(name_from(os.path.abspath(folder), path))


def named_path(root: Path, name: str) -> Path:
    """The file that findings name `name` (`SourceFile.rel`), below `root` or beside it: a folder
    really named PARENT where there is one (a run never names files both ways: see `discover`)."""
    parts = unescaped_name(name).split("/")
    literal = root.joinpath(*parts)
    if PARENT not in parts or os.path.lexists(literal):
        return literal
    return root.joinpath(*(os.pardir if part == PARENT else part for part in parts))


def in_memory_path(path: Path) -> Path:
    """How `discover` and `read_sources` name a file held in memory: absolute, not resolved."""
    return Path(os.path.abspath(path))


def _with_in_memory(
    files: list[SourceFile], problems: list[DiscoveryProblem], memory: set[str], walker: _Walker
) -> tuple[list[SourceFile], list[DiscoveryProblem]]:
    """The files found on disk, each in-memory file among them once (under the name it has on disk
    when the walk found it), and no problem reported for a file whose content is in memory."""
    if not memory:
        return files, problems
    found_real = {os.path.realpath(f.path) for f in files}
    added = [
        SourceFile(Path(path), escaped_name(walker.rel(path)))
        for path in sorted(memory)
        if os.path.realpath(path) not in found_real
    ]
    merged = sorted([*files, *added], key=lambda f: (f.rel, str(f.path)))
    names = {f.rel for f in added}
    return merged, [p for p in problems if p.rel not in names]
