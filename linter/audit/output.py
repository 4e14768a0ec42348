"""Files the audit writes on the driver (the HTML report, Spark's log settings), written whole or
not at all: an interrupted or failed write leaves the previous file as it was."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TextIO

# Readable by others, as a plain open() would leave it under the usual umask.
FILE_MODE = 0o644


@contextmanager
def replaced_atomically(path: Path) -> Iterator[TextIO]:
    """A text stream to a temporary file beside `path`, renamed over `path` once complete."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(descriptor, FILE_MODE)
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
