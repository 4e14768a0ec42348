"""The caches in `.epochlint_cache/` at the project root: FileFacts by content hash, and findings.

An entry's key is the hash of the file's content and of what its facts were made by: the tool
version, the facts format, a digest of the frontend's own source (so that an edited frontend never
reads facts an older one wrote), the configuration's fingerprint, and the kind of facts (parsed,
or not relevant). Entries are written to a temporary file and renamed into place, so concurrent
runs and interrupted runs never leave half an entry under a key. An entry is checked against a
digest of its key and payload before it is decoded: a truncated, corrupted or foreign entry is a
miss, never trusted. A cache that cannot be created or written is simply not used.

The findings cache beside it keeps whole runs' findings by a key over all their inputs. Neither
grows without bound: reading an entry marks it used, facts unused for a month are deleted when a
run parses something, and only the findings of the most recent runs are kept.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
import time
from contextlib import suppress
from functools import cache
from pathlib import Path

from epochlint import __version__
from epochlint.frontend import codec
from epochlint.frontend.facts import FACTS_FORMAT, FileFacts

__all__ = ["CACHE_DIR", "FactsCache", "FindingsCache"]

CACHE_DIR = ".epochlint_cache"
# Facts unused for this long are deleted (a branch not checked out for a month is parsed again).
_FACTS_KEPT_SECONDS = 30 * 24 * 3600
# Findings of the most recent runs: enough to switch between a few branches without analysing.
_FINDINGS_KEPT = 8
_DIGEST_SIZE = 32
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by epochlint.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


@cache
def frontend_digest() -> str:
    """A digest of the frontend's source files: facts depend on nothing else."""
    digest = hashlib.sha256(__version__.encode())
    folder = Path(codec.__file__).parent
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class _EntryStore:
    """One folder of the cache: payloads by key, each checked against a digest of key and payload
    when read back. `directory` None means no cache."""

    def __init__(self, directory: Path | None, salt: str) -> None:
        self._directory = directory
        self._salt = salt.encode()

    @classmethod
    def _open(cls, root: Path, folder: str) -> Path | None:
        top = root / CACHE_DIR
        directory = top / folder
        try:
            directory.mkdir(parents=True, exist_ok=True)
            _write_once(top / "CACHEDIR.TAG", _CACHEDIR_TAG)
            _write_once(top / ".gitignore", "# Created by epochlint.\n*\n")
        except OSError:
            return directory if directory.is_dir() else None
        return directory

    @property
    def enabled(self) -> bool:
        """Whether entries are kept (False: no cache, or it could not be written)."""
        return self._directory is not None

    def _read(self, key: str) -> bytes | None:
        if self._directory is None:
            return None
        path = self._directory / key
        try:
            entry = path.read_bytes()
        except OSError:
            return None
        stored, payload = entry[:_DIGEST_SIZE], entry[_DIGEST_SIZE:]
        if stored != _entry_digest(key, payload):
            return None
        with suppress(OSError):
            os.utime(path)  # used now: pruning goes by the time an entry was last used
        return payload

    def prune(self, *, keep: int | None = None, unused_for: float | None = None) -> None:
        """Delete entries beyond the `keep` most recently used, and those unused for `unused_for`
        seconds (temporary files left by a killed run too); an entry in use elsewhere is only
        ever replaced whole, so deleting it costs at most a parse or an analysis."""
        if self._directory is None:
            return
        now = time.time()
        try:
            entries = sorted(
                ((entry.stat().st_mtime, entry.path) for entry in os.scandir(self._directory)),
                reverse=True,
            )
        except OSError:
            return
        for rank, (used, path) in enumerate(entries):
            too_many = keep is not None and rank >= keep
            too_old = unused_for is not None and now - used > unused_for
            if too_many or too_old:
                with suppress(OSError):
                    os.unlink(path)

    def store(self, key: str, payload: bytes) -> None:
        """Store `payload` under `key`; a failure only means no cache next time."""
        if self._directory is None:
            return
        try:
            handle, temporary = tempfile.mkstemp(dir=self._directory, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(_entry_digest(key, payload) + payload)
                os.replace(temporary, self._directory / key)
            except BaseException:
                with suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError:
            self._directory = None


class FactsCache(_EntryStore):
    """Encoded FileFacts by content hash."""

    @classmethod
    def open(cls, root: Path, config_fingerprint: str) -> FactsCache:
        salt = f"{FACTS_FORMAT}\0{frontend_digest()}\0{config_fingerprint}"
        return cls(cls._open(root, "facts"), salt)

    def key(self, kind: str, data: bytes) -> str:
        digest = hashlib.sha256(self._salt)
        digest.update(b"\0" + kind.encode() + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def forget_unused(self) -> None:
        """Delete the facts no run has used for a month: files long changed or deleted."""
        self.prune(unused_for=_FACTS_KEPT_SECONDS)

    def load(self, key: str) -> FileFacts | None:
        """The facts stored under `key`, or None when there are none to trust."""
        payload = self._read(key)
        if payload is None:
            return None
        try:
            return codec.decode(payload)
        except codec.FactsDecodeError:
            return None


class FindingsCache(_EntryStore):
    """A whole run's findings, by a key over every input of the analysis: the content of every
    file, the module names, the configuration and the analysis's own source. Nothing changed
    means nothing to analyse; any change, however small, means the whole program is analysed."""

    @classmethod
    def open(cls, root: Path) -> FindingsCache:
        return cls(cls._open(root, "findings"), analysis_digest())

    def key(self, inputs: bytes) -> str:
        return hashlib.sha256(self._salt + b"\0" + inputs).hexdigest()

    def load(self, key: str) -> bytes | None:
        return self._read(key)

    def store(self, key: str, payload: bytes) -> None:
        super().store(key, payload)
        self.prune(keep=_FINDINGS_KEPT)


@cache
def analysis_digest() -> str:
    """A digest of every source file of the engine and the rules: findings depend on nothing else."""
    digest = hashlib.sha256(__version__.encode())
    for package in ("epochlint", "epochlint.rules"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None
        folder = Path(spec.origin).parent
        for path in sorted(folder.rglob("*.py")):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _entry_digest(key: str, payload: bytes) -> bytes:
    return hashlib.sha256(key.encode() + b"\0" + payload).digest()


def _write_once(path: Path, text: str) -> None:
    if not path.exists():
        path.write_text(text, encoding="utf-8")
