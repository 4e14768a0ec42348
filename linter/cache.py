"""The facts cache: FileFacts by content hash, in `.epochlint_cache/` at the project root.

An entry's key is the hash of the file's content and of what its facts were made by: the tool
version, the facts format, a digest of the frontend's own source (so that an edited frontend never
reads facts an older one wrote), the configuration's fingerprint, and the kind of facts (parsed,
or not relevant). Entries are written to a temporary file and renamed into place, so concurrent
runs and interrupted runs never leave half an entry under a key. An entry is checked against a
digest of its key and payload before it is decoded: a truncated, corrupted or foreign entry is a
miss, never trusted. A cache that cannot be created or written is simply not used.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from contextlib import suppress
from functools import cache
from pathlib import Path

from linter import __version__
from linter.frontend import codec
from linter.frontend.facts import FACTS_FORMAT, FileFacts

__all__ = ["CACHE_DIR", "FactsCache", "FindingsCache"]

CACHE_DIR = ".epochlint_cache"
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

    def _read(self, key: str) -> bytes | None:
        if self._directory is None:
            return None
        try:
            entry = (self._directory / key).read_bytes()
        except OSError:
            return None
        stored, payload = entry[:_DIGEST_SIZE], entry[_DIGEST_SIZE:]
        return payload if stored == _entry_digest(key, payload) else None

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


@cache
def analysis_digest() -> str:
    """A digest of every source file of the engine and the rules: findings depend on nothing else."""
    digest = hashlib.sha256(__version__.encode())
    for package in ("linter", "rules"):
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
