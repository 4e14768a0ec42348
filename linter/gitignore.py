"""The files git ignores, as a folder walk meets them: `.gitignore` files and the repository's
`info/exclude`, read with pathspec's implementation of git's own matching.

As in git, and in ruff's default `respect-gitignore`: ignore files apply only inside a git work tree
(a folder with a `.git` at or above it); a deeper `.gitignore` overrides the ones above it, and
`info/exclude` decides only what none of them does; a folder that is ignored is never entered, so
nothing inside it can be taken back; a nested repository starts afresh with its own files. Git's
user-wide excludes file (`core.excludesFile`) is not read: it would take running git, and what it
holds is the user's own, not the project's.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec

from epochlint.fileio import read_regular_file
from epochlint.notices import warn_once
from epochlint.text import escaped_name

__all__ = ["MAX_WILDCARDS", "IgnoreChain", "chain_above", "chain_in", "wildcards_in_one_name", "work_tree_top"]

# More `*` than this in one name of a pattern makes matching a long name take seconds (4: about
# 3 s for a 250-character name, 5: a minute and a half; 3: 0.06 s): pathspec's patterns are regular
# expressions, which backtrack. The configuration refuses such patterns; an ignore file, which an
# audit reads from any repository, has them skipped.
MAX_WILDCARDS = 3
# Larger than any ignore file people write (git's own, for a whole monorepo, is a few hundred lines).
_MAX_IGNORE_FILE_SIZE = 1_000_000

_GIT_IGNORE_FILE = ".gitignore"
_GIT_DIR = ".git"


@dataclass(frozen=True)
class _IgnoreFile:
    folder: str  # absolute: the patterns are relative to it
    spec: pathspec.GitIgnoreSpec


@dataclass(frozen=True)
class IgnoreChain:
    """The ignore files in force in one folder of a work tree: `info/exclude`'s patterns (`base`,
    relative to the top of the work tree) and the `.gitignore` files from the top down."""

    base: tuple[_IgnoreFile, ...]
    files: tuple[_IgnoreFile, ...]

    def ignores(self, path: str, is_dir: bool) -> bool:
        """Whether git ignores the file or folder at `path` (absolute, inside the chain's folder)."""
        # The deepest file with a matching pattern decides; info/exclude only where none does.
        for ignore_file in (*reversed(self.files), *self.base):
            name = os.path.relpath(path, ignore_file.folder).replace(os.sep, "/")
            decided = ignore_file.spec.check_file(name + "/" if is_dir else name).include
            if decided is not None:
                return decided
        return False


_NOTHING_IGNORED = IgnoreChain((), ())


def chain_in(folder: str, names: Collection[str], above: IgnoreChain | None) -> IgnoreChain | None:
    """The chain in force among the entries of `folder` (named `names`), given the one in force
    where it was met (`above`, None outside a work tree)."""
    if _GIT_DIR in names:
        return _work_tree_chain(folder)
    if above is None or _GIT_IGNORE_FILE not in names:
        return above
    found = _read(folder)
    return above if found is None else IgnoreChain(above.base, (*above.files, found))


def chain_above(folder: str) -> IgnoreChain | None:
    """The chain in force where `folder` (absolute) is met, for a walk that starts there: from the
    top of its work tree down to its parent; None outside a work tree, or at its top.

    A folder named on the command line is walked even where git ignores it, as ruff does (a project
    kept in an ignored folder of another repository, or a build output asked for by name): then
    only the ignore files inside it apply."""
    top = work_tree_top(folder)
    if top is None or top == folder:
        return None
    chain: IgnoreChain | None = _work_tree_chain(top)
    current = top
    for part in os.path.relpath(os.path.dirname(folder), top).split(os.sep):
        if part != os.curdir:
            current = os.path.join(current, part)
            chain = chain_in(current, _entry_names(current), chain)
    if chain is not None and chain.ignores(folder, is_dir=True):
        return _NOTHING_IGNORED
    return chain


def work_tree_top(folder: str) -> str | None:
    """The top of the git work tree that holds `folder` (absolute): the nearest folder at or above
    it with a `.git` (a folder, or a file in a linked worktree or a submodule)."""
    current = folder
    while True:
        if os.path.lexists(os.path.join(current, _GIT_DIR)):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _work_tree_chain(top: str) -> IgnoreChain:
    """The chain at the top of a work tree: its repository's `info/exclude` and its own `.gitignore`."""
    repository = _repository_folder(top)
    exclude = None if repository is None else _read(os.path.join(repository, "info"), "exclude", relative_to=top)
    own = _read(top)
    return IgnoreChain(() if exclude is None else (exclude,), () if own is None else (own,))


def _repository_folder(top: str) -> str | None:
    """The folder whose `info/exclude` git reads for the work tree at `top`: its `.git` folder, or
    where a `.git` file (`gitdir: PATH`, in a linked worktree or a submodule) points, and for a
    linked worktree the main repository's folder that its `commondir` names."""
    dot_git = os.path.join(top, _GIT_DIR)
    if os.path.isdir(dot_git):
        return dot_git
    pointer = _small_file(dot_git)
    if pointer is None or not pointer.startswith("gitdir:"):
        return None
    folder = os.path.join(top, pointer.removeprefix("gitdir:").strip())
    common = _small_file(os.path.join(folder, "commondir"))
    return os.path.normpath(os.path.join(folder, common.strip()) if common else folder)


def _small_file(path: str) -> str | None:
    """The text of a file git keeps a path in; None when there is none to read."""
    data = _bytes_of(path, 4096)
    return data.decode("utf-8", errors="replace") if isinstance(data, bytes) else None


def _bytes_of(path: str, max_size: int) -> bytes | str | None:
    """The bytes of the regular file at `path`, why they are not read (a line), or None where
    there is no file to read."""
    try:
        # A link is not followed, as git (2.32 on) does not: it could lead anywhere outside the
        # repository.
        return read_regular_file(path, max_size, follow_links=False)
    except OSError as error:
        return "a symbolic link, which git does not follow either" if error.errno == errno.ELOOP else None


def _read(folder: str, name: str = _GIT_IGNORE_FILE, relative_to: str | None = None) -> _IgnoreFile | None:
    """The patterns of `folder/name`; None when it cannot be read (git passes over it too)."""
    path = os.path.join(folder, name)
    data = _bytes_of(path, _MAX_IGNORE_FILE_SIZE)
    if data is None:
        return None
    if isinstance(data, str):
        warn_once(f"{_shown(path)}: not read ({data}): its patterns leave out nothing")
        return None
    # A byte order mark is not part of the first pattern (git skips it too).
    text = data.decode("utf-8-sig", errors="replace")
    return _IgnoreFile(relative_to or folder, _spec(path, text.splitlines()))


def _spec(path: str, lines: Sequence[str]) -> pathspec.GitIgnoreSpec:
    """The patterns of an ignore file, less those that cannot be matched safely, each said in a
    warning: one that could take minutes per file name, or that pathspec cannot compile (`[z-a]`,
    which git never matches either)."""
    kept: list[str] = []
    for number, line in enumerate(lines, 1):
        where = f"{_shown(path)}:{number}: pattern {line.strip()!r}"
        if wildcards_in_one_name(line) > MAX_WILDCARDS:
            warn_once(f"{where} skipped: more than {MAX_WILDCARDS} '*' wildcards in one name can take minutes to match")
            continue
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except (ValueError, re.error) as error:
            warn_once(f"{where} skipped: it cannot be matched ({pattern_error(error)})")
            continue
        kept.append(line)
    return pathspec.GitIgnoreSpec.from_lines(kept)


def pattern_error(error: ValueError | re.error) -> str:
    """Why pathspec refused a pattern. A regular expression's error is said without its position,
    which counts in the expression pathspec made of the pattern, not in what the user wrote."""
    return error.msg if isinstance(error, re.error) else str(error)


def _shown(path: str) -> str:
    from epochlint.config import display_path  # the configuration reads this module

    return escaped_name(display_path(Path(path)))


def wildcards_in_one_name(pattern: str) -> int:
    """The most `*` wildcards in one name of a gitignore-style pattern (`**` not counted)."""
    return max(segment.replace("**", "").count("*") for segment in pattern.split("/"))


def _entry_names(folder: str) -> frozenset[str]:
    try:
        return frozenset(os.listdir(folder))
    except OSError:
        return frozenset()
