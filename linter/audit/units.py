"""Analysis units of an audit: each root, each line of a repos file, each repository under a folder.

A unit is analysed as `epochlint check UNIT` would analyse it, with the unit's folder as the root
that paths are relative to and module names start from; its settings come from the nearest
pyproject.toml, as for `check`. A unit whose settings are invalid, or whose folder is missing, is
kept with its error, so that the audit reports it instead of dropping it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import chdir
from dataclasses import dataclass, replace
from pathlib import Path

from epochlint.config import Config, ConfigError, load_config
from epochlint.discovery import DEFAULT_EXCLUDES, UsageError, is_source_name
from epochlint.notices import warn_once
from epochlint.text import escaped_name

REPOSITORY_MARKERS = (".git", "pyproject.toml", "setup.py")


@dataclass(frozen=True)
class Unit:
    """One analysis unit. `root` is absolute; `config` is None when `error` says why."""

    id: int
    name: str
    root: str
    config: Config | None
    error: str = ""


@dataclass(frozen=True)
class _Candidate:
    name: str
    root: str
    missing_is_usage_error: bool


def resolve_units(
    roots: Sequence[Path],
    repos_file: Path | None,
    units_under: Path | None,
    known_codes: frozenset[str],
) -> list[Unit]:
    """The units named by the command line, in order, each folder once.

    Raises UsageError for a ROOT that is not a folder, an unreadable repos file or `--units-under`
    folder, or when nothing names any unit.
    """
    candidates = [_Candidate(_name(str(root)), os.path.abspath(root), True) for root in roots]
    if repos_file is not None:
        candidates.extend(_Candidate(line, os.path.abspath(line), False) for line in _repos_file_lines(repos_file))
    if units_under is not None:
        candidates.extend(_repositories_under(units_under))
    if not candidates:
        raise UsageError("epochlint: audit needs a ROOT, --repos-file or --units-under")
    units: list[Unit] = []
    seen: set[str] = set()
    for candidate in candidates:
        real = os.path.realpath(candidate.root)
        if real in seen:
            continue
        seen.add(real)
        units.append(_unit(len(units), candidate, known_codes))
    return units


def _name(text: str) -> str:
    return escaped_name(os.path.normpath(text))


def _repos_file_lines(path: Path) -> list[str]:
    """Non-empty lines that are not `#` comments; relative paths are taken from the current folder."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"epochlint: cannot read repos file {path}: {error}") from None
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _repositories_under(top: Path) -> Iterator[_Candidate]:
    if not top.is_dir():
        raise UsageError(f"epochlint: --units-under: not a folder: {escaped_name(str(top))}")
    found, loose = _walk_for_repositories(os.path.abspath(top))
    if not found:
        raise UsageError(
            f"epochlint: --units-under {escaped_name(str(top))}: no repository (a folder with "
            f"{', '.join(REPOSITORY_MARKERS)}) under it"
        )
    if loose:
        shown = ", ".join(escaped_name(path) for path in loose[:3]) + (", ..." if len(loose) > 3 else "")
        warn_once(
            f"--units-under {escaped_name(str(top))}: {len(loose)} source file(s) lie in no repository "
            f"under it and are not audited ({shown}); name their folder as a ROOT to audit them"
        )
    for folder in found:
        relative = os.path.relpath(folder, os.path.abspath(top))
        yield _Candidate(_name(os.path.join(str(top), relative)), folder, False)


def _walk_for_repositories(top: str) -> tuple[list[str], list[str]]:
    """Folders at or below `top` that are repositories (a repository's own subfolders are not
    searched, and `top` itself, a repository, is the one unit), and the source files of the
    other folders walked, which no unit holds. Folder links are followed, each folder once."""
    if is_repository(top):
        return [top], []
    found: list[str] = []
    loose: list[str] = []
    seen = {os.path.realpath(top)}
    pending = [top]
    while pending:
        folder = pending.pop()
        subfolders, files = _entries(folder)
        loose.extend(files)
        for path in subfolders:
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            (found if is_repository(path) else pending).append(path)
    return sorted(found), sorted(loose)


def _entries(folder: str) -> tuple[list[str], list[str]]:
    """The subfolders of `folder` a walk enters (not the build and tool folders `check` leaves out,
    nor hidden ones), and its source files."""
    try:
        with os.scandir(folder) as entries:
            listed = [(entry, entry.is_dir()) for entry in entries]
    except OSError:
        # An unreadable folder cannot be told to be a repository or not; its parent may still be.
        return [], []
    subfolders = [
        entry.path for entry, is_dir in listed
        if is_dir and entry.name not in DEFAULT_EXCLUDES and not entry.name.startswith(".")
    ]
    files = [entry.path for entry, is_dir in listed if not is_dir and is_source_name(entry.name)]
    return subfolders, files


def is_repository(path: str) -> bool:
    return any(os.path.lexists(os.path.join(path, marker)) for marker in REPOSITORY_MARKERS)


def _unit(index: int, candidate: _Candidate, known_codes: frozenset[str]) -> Unit:
    if not os.path.isdir(candidate.root):
        reason = "not a folder" if os.path.lexists(candidate.root) else "folder not found"
        if candidate.missing_is_usage_error:
            raise UsageError(f"epochlint: {reason}: {candidate.name}")
        return Unit(index, candidate.name, candidate.root, None, reason)
    try:
        return Unit(index, candidate.name, candidate.root, unit_config(Path(candidate.root), known_codes))
    except ConfigError as error:
        return Unit(index, candidate.name, candidate.root, None, str(error))
    except OSError as error:  # a folder that cannot be entered
        return Unit(index, candidate.name, candidate.root, None, f"cannot open the folder: {error.strerror or error}")


def unit_config(root: Path, known_codes: frozenset[str]) -> Config:
    """The settings `check` would use for `root`, rooted at `root` itself.

    Loaded from inside the unit's folder, so that an error names the settings file as seen from
    the unit (`pyproject.toml: ...`), whichever folder the audit was started in."""
    with chdir(root):
        config = load_config([root], None, known_codes)
    return config if config.root == root else replace(config, root=root)
