"""Reading and writing files safely: bounded reads from an open descriptor, and atomic writes.

Every file epochlint writes (fixed sources, baselines, reports, cache entries) is written whole to a
temporary file in the same folder, flushed to disk, then renamed over the target: a full disk, a
kill or a crash leaves the original as it was, never a truncated file.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from contextlib import suppress
from pathlib import Path
from typing import TextIO

__all__ = [
    "owned_by_user",
    "path_missing",
    "read_regular",
    "read_regular_file",
    "replace_keeps_identity",
    "write_atomically",
    "write_in_place",
]


def owned_by_user(status: os.stat_result) -> bool:
    """Whether the file or folder `status` describes belongs to the user running epochlint (always
    on Windows, where files have no owner id)."""
    owner = getattr(os, "geteuid", None)
    return owner is None or status.st_uid == owner()


def path_missing(path: str | Path) -> bool:
    """Whether nothing is at `path`. One in a folder that cannot be searched is not missing: it is
    there to be reported as unreadable, where `os.path.lexists` would call it absent."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def over_size_limit(size: int, max_size: int) -> str:
    """Why a file of `size` bytes is not read, naming the setting that raises the limit."""
    return f"file is {size} bytes, over the size limit of {max_size} (the `max-file-size` setting)"


def read_regular(descriptor: int, max_size: int) -> bytes | str:
    """The bytes of the regular file open as `descriptor`, or why they are not read (one line): not a
    regular file (a FIFO, a device), over `max_size`, or growing while read. Never more than the
    file held when it was checked (a read of n bytes allocates n up front)."""
    status = os.fstat(descriptor)
    if stat.S_ISDIR(status.st_mode):
        return "is a directory, not a file"
    if not stat.S_ISREG(status.st_mode):
        return "not a regular file"
    if status.st_size > max_size:
        return over_size_limit(status.st_size, max_size)
    chunks: list[bytes] = []
    wanted = status.st_size + 1
    while wanted > 0:
        chunk = os.read(descriptor, wanted)
        if not chunk:
            break
        chunks.append(chunk)
        wanted -= len(chunk)
    if wanted <= 0:
        return "file changed while it was read (it grew)"
    return b"".join(chunks)


def read_regular_file(path: str | Path, max_size: int, *, follow_links: bool = True) -> bytes | str:
    """`read_regular` of the file at `path`, opened without blocking (a FIFO put there is refused,
    not read forever), and without following a final symbolic link unless `follow_links`. Raises
    OSError when it cannot be opened or read (ELOOP for a link not followed)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags)
    try:
        return read_regular(descriptor, max_size)
    finally:
        os.close(descriptor)


def write_atomically(path: Path, data: bytes, durable: bool = True) -> None:
    """Replace `path` by `data` in one step; an existing file keeps its permissions. Raises OSError
    (the original untouched, no temporary file left) when it cannot be done. `durable` waits for
    the data to reach the disk first (not needed where a torn file is detected and rebuilt)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            if durable:
                os.fsync(stream.fileno())
        os.chmod(temporary, mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def write_in_place(path: Path, data: bytes) -> None:
    """Write `data` into the existing file at `path`, keeping the file itself: its other hard links
    see the new text and its owner stays (a replace made a new file, owned by whoever wrote it).
    Not atomic: a crash part way leaves a torn file, as editors writing in place do. Raises OSError."""
    with open(path, "r+b") as stream:
        stream.write(data)
        stream.truncate()
        stream.flush()
        os.fsync(stream.fileno())


def replace_keeps_identity(path: Path) -> bool:
    """Whether replacing the file at `path` by a new one loses nothing of it: it has no other hard
    link, and this process would own the new file as the old one is owned."""
    status = os.stat(path)
    return status.st_nlink == 1 and owned_by_user(status)


def written_through(path: Path) -> Path:
    """The file a write to `path` replaces, for a file the user named: a symbolic link's target,
    as open() writes it (the link itself is kept), or `path`. (`write_atomically` alone replaces
    a link itself, as the cache, which never follows a link it did not make, needs.)"""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def write_named_file(path: Path, data: bytes) -> None:
    """Write `data` to a file the user named (a report, a baseline): replaced atomically where it
    is a file (a full disk leaves the previous one), but written into where it is a stream: this
    process's own stdout or stderr (`/dev/stdout`, whatever it is redirected to), a FIFO, a
    device. Raises OSError."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        write_atomically(written_through(path), data)
        return
    for stream in (sys.stdout, sys.stderr):
        if _is_open_as(stream, status):
            stream.flush()
            stream.buffer.write(data)
            stream.flush()
            return
    if not stat.S_ISREG(status.st_mode):
        with open(path, "wb") as named:
            named.write(data)
        return
    write_atomically(written_through(path), data)


def _is_open_as(stream: TextIO, status: os.stat_result) -> bool:
    """Whether `stream` writes to the file `status` describes."""
    try:
        own = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (own.st_dev, own.st_ino) == (status.st_dev, status.st_ino)


def mode_for(path: Path) -> int:
    """The permissions of the file being replaced, or those a new file gets (the umask's)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
