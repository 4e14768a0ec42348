"""Files the audit writes on the driver (the HTML report, Spark's log settings), written whole or
not at all: an interrupted or failed write leaves the previous file as it was."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TextIO

from epochlint.fileio import mode_for, written_through

@contextmanager
def replaced_atomically(path: Path) -> Iterator[TextIO]:
    """A text stream to a temporary file beside `path`, renamed over `path` once complete: a link's
    target, with the permissions of the file it replaces (or the umask's for a new one)."""
    path = written_through(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(descriptor, mode_for(path))
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
