"""The caches in `.epochlint_cache/` at the project root: FileFacts by content hash, and findings.

The root must be the user's own: a root owned by another user, one every user may write to (`/tmp`,
where a stray ancestor pyproject.toml can put it) or one the user cannot write gets its cache in
the user's cache folder instead (`$XDG_CACHE_HOME/epochlint/projects/`, by a digest of the root's
path): a run never leaves files in a folder that is not the user's project.

An entry's key is the hash of the file's content and of what its facts were made by: the tool
version, the facts format, a digest of the frontend's own source (so that an edited frontend never
reads facts an older one wrote), the configuration's fingerprint, and the kind of facts (parsed,
or not relevant). Entries are written to a temporary file and renamed into place, so concurrent
runs and interrupted runs never leave half an entry under a key. An entry is checked against a
keyed digest (HMAC) of its key and payload before it is decoded, with a secret key kept per user
outside the project (`$XDG_CACHE_HOME/epochlint/key`, mode 0600): a truncated, corrupted, foreign
or planted entry (committed to the repository, say) is a miss, never trusted. A cache that cannot
be created or written is simply not used.

The cache never follows a symbolic link it did not create: a cache folder, entry or tag file that
is a link (committed to make pruning delete files elsewhere, or a read run forever on `/dev/zero`)
is refused with a one-line warning, and the run goes on without the cache.

The findings cache beside it keeps whole runs' findings by a key over all their inputs. Neither
grows without bound: reading an entry marks it used, facts unused for a month are deleted when a
run parses something, and only the findings of the most recent runs are kept.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import os
import shutil
import pickle
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from functools import cache, partial
from pathlib import Path
from typing import TypeVar

from epochlint import __version__, prefilter
from epochlint.fileio import owned_by_user, read_regular, write_atomically
from epochlint.frontend import codec
from epochlint.frontend.facts import FACTS_FORMAT, FileFacts
from epochlint.frontend.java import JAVA_DISTRIBUTIONS
from epochlint.notices import warn_once
from epochlint.prefilter import TextFacts

__all__ = ["CACHE_DIR", "FactsCache", "FindingsCache", "PartsCache"]

CACHE_DIR = ".epochlint_cache"
# Facts unused for this long are deleted (a branch not checked out for a month is parsed again).
_FACTS_KEPT_SECONDS = 30 * 24 * 3600
# Findings of the most recent runs: enough to switch between a few branches without analysing.
_FINDINGS_KEPT = 8
_DIGEST_SIZE = 32
_KEY_SIZE = 32
# Every entry's name: a SHA-256 in hexadecimal.
_ENTRY_NAME = re.compile("[0-9a-f]{64}")
# No entry is this big (facts of the largest file analysed are far smaller): a bound on any read.
_MAX_ENTRY_BYTES = 1 << 30
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by epochlint.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


@cache
def frontend_digest() -> str:
    """A digest of the frontends' source files and of the Java grammar's version: facts depend on
    nothing else."""
    digest = hashlib.sha256(__version__.encode())
    folder = Path(codec.__file__).parent
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    for distribution in JAVA_DISTRIBUTIONS:
        digest.update(f"{distribution}={_installed_version(distribution)}".encode())
    return digest.hexdigest()


def _installed_version(distribution: str) -> str:
    # Imported here: a run whose findings are all cached never asks (8 ms of its 0.2 s).
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return ""


class _EntryStore:
    """One folder of the cache: payloads by key, each checked against a digest of key and payload
    when read back. `directory` None means no cache."""

    def __init__(self, directory: Path | None, salt: str) -> None:
        self._directory = directory
        self._salt = salt.encode()
        # Writes put off by `defer_writes`, in order; None: each is done at once.
        self._deferred: list[Callable[[], None]] | None = None

    def defer_writes(self) -> None:
        """Put off every write (stores and pruning) from now on, until `deferred_writes` takes
        them; entries stored meanwhile are not read back from the folder before then."""
        if self._directory is not None:
            self._deferred = []

    def deferred_writes(self) -> list[Callable[[], None]]:
        """The writes put off since `defer_writes`, in order, for the caller to do; later writes are
        done at once again."""
        writes, self._deferred = self._deferred or [], None
        return writes

    def _write(self, write: Callable[[], None]) -> None:
        if self._deferred is None:
            write()
        else:
            self._deferred.append(write)

    @classmethod
    def _open(cls, root: Path, folder: str) -> Path | None:
        top = _cache_top(root)
        directory = top / folder
        try:
            usable = _own_folder(top) and _own_folder(directory)
            _write_once(top / "CACHEDIR.TAG", _CACHEDIR_TAG)
            _write_once(top / ".gitignore", "# Created by epochlint.\n*\n")
        except _Refused as refusal:
            warn_once(f"not using the cache: {refusal}")
            return None
        return directory if usable and _machine_key() is not None else None

    @property
    def enabled(self) -> bool:
        """Whether entries are kept (False: no cache, or it could not be written)."""
        return self._directory is not None

    def _entry_path(self, key: str) -> str | None:
        """Where the entry under `key` is kept; None without a cache, and for what is no key (the
        stand-in for the facts of an unreadable file holds its reason): no entry has that name."""
        if self._directory is None or not _ENTRY_NAME.fullmatch(key):
            return None
        # A string, not a Path: a run reads an entry or two for every file of the project.
        return os.path.join(self._directory, key)

    def _read(self, key: str) -> bytes | None:
        path = self._entry_path(key)
        if path is None:
            return None
        try:
            descriptor = os.open(path, os.O_RDONLY | _NO_FOLLOW)
        except OSError:
            return None  # absent, or a link: never followed
        try:
            entry = read_regular(descriptor, _MAX_ENTRY_BYTES)
            if isinstance(entry, str):
                return None
            stored, payload = entry[:_DIGEST_SIZE], entry[_DIGEST_SIZE:]
            if not hmac.compare_digest(stored, _entry_digest(key, payload)):
                return None
            os.utime(descriptor)  # used now: pruning goes by the time an entry was last used
        except OSError:
            return None
        finally:
            os.close(descriptor)
        return payload

    def prune(self, *, keep: int | None = None, unused_for: float | None = None) -> None:
        """Delete entries beyond the `keep` most recently used, and those unused for `unused_for`
        seconds (temporary files left by a killed run too); an entry in use elsewhere is only
        ever replaced whole, so deleting it costs at most a parse or an analysis."""
        self._write(partial(self._prune, keep, unused_for))

    def _prune(self, keep: int | None, unused_for: float | None) -> None:
        if self._directory is None:
            return
        now = time.time()
        try:
            entries = sorted(
                ((entry.stat(follow_symlinks=False).st_mtime, entry.path) for entry in os.scandir(self._directory)),
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

    def delete(self, key: str) -> None:
        """Delete the entry under `key`, if there is one."""
        path = self._entry_path(key)
        if path is not None:
            with suppress(OSError):
                os.unlink(path)

    def store(self, key: str, payload: bytes) -> None:
        """Store `payload` under `key`; a failure only means no cache next time."""
        self._write(partial(self._store, key, lambda: payload))

    def _store(self, key: str, payload: Callable[[], bytes]) -> None:
        path = self._entry_path(key)
        if path is None:
            return
        try:
            # No fsync: an entry cut short by a crash fails its digest when read, and is rebuilt.
            data = payload()
            write_atomically(Path(path), _entry_digest(key, data) + data, durable=False)
        except OSError:
            self._directory = None


_Entry = TypeVar("_Entry")


class _Decoded:
    """The entries of one facts folder that a long-lived process (the language server) decoded,
    kept for its next run: those one run used, each run's replacing the run's before. A key
    names its content (a hash of the file and of all an entry depends on), so a kept entry is
    never stale."""

    def __init__(self) -> None:
        self._latest: dict[str, object] = {}
        self._current: dict[str, object] = {}

    def next_run(self) -> None:
        self._latest, self._current = self._current, {}

    def get(self, key: str, load: Callable[[str], _Entry | None]) -> _Entry | None:
        found = self._current.get(key)
        if found is None:
            found = self._latest.pop(key, None)
            if found is None:
                found = load(key)
                if found is None:
                    return None
            self._current[key] = found
        return found  # type: ignore[return-value]

    def put(self, key: str, entry: object) -> None:
        self._current[key] = entry


# Facts folder -> what this process decoded from it; None: nothing is kept (one run a process).
_KEPT: dict[Path, _Decoded] | None = None


def keep_decoded_facts() -> None:
    """Keep the facts each run decodes for the next run of this process: for a process that
    analyses the same project again and again, which then reads and decodes only what changed."""
    global _KEPT
    _KEPT = {} if _KEPT is None else _KEPT


class FactsCache(_EntryStore):
    """Encoded FileFacts by content hash."""

    def __init__(self, directory: Path | None, salt: str) -> None:
        super().__init__(directory, salt)
        self._decoded: _Decoded | None = None
        if _KEPT is not None and directory is not None:
            self._decoded = _KEPT.setdefault(directory, _Decoded())
            self._decoded.next_run()

    @classmethod
    def open(cls, root: Path, config_fingerprint: str) -> FactsCache:
        salt = f"{FACTS_FORMAT}\0{frontend_digest()}\0{config_fingerprint}"
        return cls(cls._open(root, "facts"), salt)

    def _kept(self, key: str, load: Callable[[str], _Entry | None]) -> _Entry | None:
        return self._decoded.get(key, load) if self._decoded is not None else load(key)

    def _keep(self, key: str, entry: object) -> None:
        if self._decoded is not None:
            self._decoded.put(key, entry)

    def store_facts(self, key: str, facts: FileFacts, payload: bytes | None) -> None:
        """Store `facts`, encoded as `payload` (None: not yet encoded), under `key`."""
        if payload is None:
            self._store_encoded(key, facts)
        else:
            self.store(key, payload)
        self._keep(key, facts)

    def _store_encoded(self, key: str, facts: FileFacts) -> None:
        # Encoded where the write is done: off the parse's time when writes are put off.
        self._write(partial(self._store, key, partial(codec.encode, facts)))

    def key(self, kind: str, data: bytes) -> str:
        digest = hashlib.sha256(self._salt)
        digest.update(b"\0" + kind.encode() + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def forget_unused(self) -> None:
        """Delete the facts no run has used for a month: files long changed or deleted."""
        self.prune(unused_for=_FACTS_KEPT_SECONDS)

    def forget(self, keys: Iterable[str], text_keys: Iterable[str]) -> None:
        """Delete the facts stored under `keys` and their outlines, and what the text pass found
        under `text_keys`."""
        for key in keys:
            self.delete(key)
            self.delete(_outline_key(key))
        for key in text_keys:
            self.delete(key)

    def load(self, key: str) -> FileFacts | None:
        """The facts stored under `key`, or None when there are none to trust."""
        return self._kept(key, partial(self._read_as, codec.decode))

    def _read_as(self, decode: Callable[[bytes], _Entry], key: str) -> _Entry | None:
        """The entry under `key` as `decode` reads it; None when there is none to trust."""
        payload = self._read(key)
        if payload is None:
            return None
        try:
            return decode(payload)
        except codec.FactsDecodeError:
            return None

    def text_key(self, data: bytes) -> str:
        """The key of what the text pass finds in `data` (which depends on the prefilter's code too)."""
        return self.key(f"text\0{_prefilter_digest()}", data)

    def load_text(self, key: str) -> TextFacts | None:
        """What the text pass found, stored under `key`, or None when there is nothing to trust."""
        return self._kept(key, partial(self._read_as, _decoded_text_facts))

    def store_text(self, key: str, text: TextFacts) -> None:
        self.store(key, pickle.dumps((text.seed, text.imports), protocol=5))
        self._keep(key, text)

    def load_outline(self, key: str) -> FileFacts | None:
        """The outline of the facts stored under `key` (see `epochlint.collect.outline`), or None."""
        return self.load(_outline_key(key))

    def store_outline(self, key: str, outline: FileFacts) -> None:
        self._store_encoded(_outline_key(key), outline)
        self._keep(_outline_key(key), outline)

    def load_outlines(self, files_key: str) -> dict[str, FileFacts]:
        """The outlines kept together for one set of files (`files_key`), by the key of the facts
        each outlines: one entry read where a run would read one per file."""
        return self._kept(_outlines_key(self._salt, files_key), partial(self._read_as, codec.decode_by_key)) or {}

    def store_outlines(self, files_key: str, outlines: dict[str, FileFacts]) -> None:
        key = _outlines_key(self._salt, files_key)
        self._write(partial(self._store, key, partial(codec.encode_by_key, outlines)))
        self._keep(key, outlines)


@cache
def _prefilter_digest() -> str:
    return hashlib.sha256(Path(prefilter.__file__).read_bytes()).hexdigest()


def _decoded_text_facts(payload: bytes) -> TextFacts | None:
    """What the text pass found, decoded from `(seed, imports)` as stored and checked to be what
    the prefilter reads; None if it is not."""
    value = codec.restricted_loads(payload, {})
    if not (isinstance(value, tuple) and len(value) == 2 and type(value[0]) is bool and type(value[1]) is tuple):
        return None
    seed, imports = value
    for reach in imports:
        if not (isinstance(reach, tuple) and [type(part) for part in reach] == [int, str, bool]):
            return None
    return TextFacts(seed, imports)


def _outline_key(key: str) -> str:
    return hashlib.sha256(b"outline\0" + key.encode()).hexdigest()


def _outlines_key(salt: bytes, files_key: str) -> str:
    return hashlib.sha256(b"outlines\0" + salt + b"\0" + files_key.encode()).hexdigest()


class _AnalysisStore(_EntryStore):
    """Results of the analysis, by a key over its inputs, salted with the analysis's own source."""

    def key(self, inputs: bytes) -> str:
        return hashlib.sha256(self._salt + b"\0" + inputs).hexdigest()

    def load(self, key: str) -> bytes | None:
        return self._read(key)


class FindingsCache(_AnalysisStore):
    """A whole run's findings, by a key over every input of the analysis: the content of every
    file, the module names, the configuration and the analysis's own source. Nothing changed
    means nothing to analyse."""

    @classmethod
    def open(cls, root: Path) -> FindingsCache:
        return cls(cls._open(root, "findings"), analysis_digest())

    def store(self, key: str, payload: bytes) -> None:
        super().store(key, payload)
        self.prune(keep=_FINDINGS_KEPT)


class PartsCache(_AnalysisStore):
    """The findings of each independent part of a run (see `epochlint.program.parts`), by a key over
    the part's files (path, module name, facts), the configuration and the analysis's own source:
    a change analyses again only the part of the program it is in."""

    @classmethod
    def open(cls, root: Path) -> PartsCache:
        return cls(cls._open(root, "parts"), analysis_digest())

    def keep_for(self, parts: int) -> None:
        """Keep the entries of the latest few runs of a unit with this many parts."""
        self.prune(keep=_FINDINGS_KEPT * max(1, parts))


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


class _Refused(Exception):
    """Why the cache is not used: something in its place that epochlint did not make."""


def _own_folder(path: Path) -> bool:
    """Whether `path` is a real folder (made now if missing); a link there is refused (a file
    there, which nothing can follow, only means no cache)."""
    try:
        os.mkdir(path)
    except OSError:
        pass  # there already, or not makeable here (a read-only project): what is there decides
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    if stat.S_ISLNK(mode):
        raise _Refused(f"{path.name} in {path.parent} is a symbolic link")
    return stat.S_ISDIR(mode)


def _write_once(path: Path, text: str) -> None:
    """Create `path` with `text` unless something (a file, a link, even a dangling one) is there."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW, 0o644)
    except FileExistsError:
        if os.path.islink(path):
            raise _Refused(f"{path.name} in {path.parent} is a symbolic link") from None
        return
    except OSError:
        return
    with suppress(OSError), os.fdopen(descriptor, "w", encoding="utf-8") as stream:
        stream.write(text)  # a tag cut short (a full disk) only labels the folder less well


def remove_cache(root: Path) -> Path | None:
    """Delete the cache of the project at `root` (`epochlint clean`); the folder deleted, or None
    where there was none. Only a folder epochlint made (its cache directory tag inside) is deleted,
    never through a link; raises OSError when it cannot be."""
    top = _cache_top(root)
    if os.path.islink(top) or not top.is_dir():
        return None
    try:
        tag = (top / "CACHEDIR.TAG").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if tag != _CACHEDIR_TAG:
        return None
    shutil.rmtree(top)  # links inside are removed, never followed
    return top


def _user_cache_home() -> Path:
    """The XDG base directory spec ignores a relative `XDG_CACHE_HOME`: kept, it would put the
    cache and its key in whatever folder a run starts in, a project's, to be committed."""
    given = os.environ.get("XDG_CACHE_HOME", "")
    base = given if os.path.isabs(given) else os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "epochlint")


def _key_path() -> Path:
    return _user_cache_home() / "key"


def _cache_top(root: Path) -> Path:
    """The cache folder of the project at `root`: in the root when it is the user's own folder,
    else in the user's cache folder (made private to the user now, if missing)."""
    if _is_users_own_folder(root):
        return root / CACHE_DIR
    projects = _user_cache_home() / "projects"
    with suppress(OSError):  # not makeable: _own_folder finds no folder, and there is no cache
        projects.mkdir(mode=0o700, parents=True, exist_ok=True)
    return projects / hashlib.sha256(os.fsencode(root)).hexdigest()[:32]


def _is_users_own_folder(folder: Path) -> bool:
    """Whether `folder` belongs to the user running epochlint, who alone may write to it."""
    try:
        status = os.stat(folder)
    except OSError:
        return True  # no folder to compare: making the cache there fails, and there is no cache
    return owned_by_user(status) and not status.st_mode & stat.S_IWOTH and os.access(folder, os.W_OK)


@cache
def _machine_key() -> bytes | None:
    """This user's secret key for the entries' digests, made on first use; None when it cannot be
    had (no cache then: an entry that cannot be authenticated is never used)."""
    path = _key_path()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not os.path.lexists(path):
            _create_key(path)
        descriptor = os.open(path, os.O_RDONLY | _NO_FOLLOW)
        try:
            key = read_regular(descriptor, _KEY_SIZE)
        finally:
            os.close(descriptor)
    except OSError as error:
        warn_once(f"not using the cache: cannot make its key {path}: {error.strerror or error}")
        return None
    if isinstance(key, str) or len(key) != _KEY_SIZE:
        warn_once(f"not using the cache: its key {path} is not a {_KEY_SIZE}-byte file")
        return None
    return key


def _create_key(path: Path) -> None:
    """Write a new random key, whole and readable by its owner alone; of two runs making one at
    once, the first to link it in wins and both read that one."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mode 0600
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(os.urandom(_KEY_SIZE))
            stream.flush()
            os.fsync(stream.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(temporary)


def _entry_digest(key: str, payload: bytes) -> bytes:
    machine_key = _machine_key()
    assert machine_key is not None  # a store without a key has no folder, so reads and writes nothing
    return hmac.new(machine_key, key.encode() + b"\0" + payload, hashlib.sha256).digest()
