"""The configuration's `guards` checked against the project's text: a declaration that names a
class or a lock no file has applies to nothing, or to a lock no code can hold, and would otherwise
go unnoticed (a misspelt class is simply never matched).

Read from the text, as the prefilter reads it, so that a run whose findings come from the cache
says the same: the names are searched for, not resolved, so a warning is certain but a declaration
that passes may still match nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from epochlint.config import Config, table_key
from epochlint.discovery import SourceFile
from epochlint.notices import warn_once

__all__ = ["warn_of_unmatched_guards"]


def warn_of_unmatched_guards(config: Config, sources: Sequence[SourceFile], contents: Sequence[bytes | str]) -> None:
    """Warn, once each, of the `guards` entries whose owner or lock no analysed file names."""
    texts = [data for data in contents if isinstance(data, bytes)]
    stems = {PurePosixPath(source.rel).stem for source in sources}
    for field_path, lock in config.guards:
        if problem := _problem(field_path, lock, texts, stems):
            warn_once(f"{table_key('guards', field_path)} = {json.dumps(lock)}: {problem}")


def _problem(field_path: str, lock: str, texts: Sequence[bytes], stems: set[str]) -> str:
    """What is wrong with one declaration, as far as the text shows; empty if nothing."""
    owner = field_path.split(".")[-2]
    # A class's field, or a module's global (`module._EPOCH`).
    if owner not in stems and not _named(rb"^[ \t]*class[ \t]+" + re.escape(owner.encode()) + rb"\b", texts):
        return f"no analysed file defines a class or is a module named {owner!r}: the declaration applies to nothing"
    if not _named(rb"\b" + re.escape(lock.encode()) + rb"\b", texts):
        return f"no analysed file names {lock!r}: no code can hold that guard"
    return ""


def _named(pattern: bytes, texts: Sequence[bytes]) -> bool:
    compiled = re.compile(pattern, re.MULTILINE)
    return any(compiled.search(text) for text in texts)
