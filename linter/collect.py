"""The facts of every file of one run: read each file, decide which can matter, take what the
cache has, and parse the rest, on every core when there is enough of it.

Results never depend on the order work finishes in, nor on the number of workers: facts from a
worker or the cache are decoded into the same values this process builds (and uses as they are,
without an encode and decode round trip; they are encoded only to be cached).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, ContextManager, TypeVar, cast

from epochlint.cache import FactsCache
from epochlint.config import Config
from epochlint.discovery import SourceFile
from epochlint.fileio import over_size_limit, read_regular_file
from epochlint.frontend import codec, facts_from_source, facts_without_parse
from epochlint.frontend.facts import ClassFacts, FileFacts
from epochlint.frontend.java import facts_from_java, is_java
from epochlint.layout import relocated
from epochlint.prefilter import TextFacts, Vocabulary, linked_files, read_text_facts, relevant_files

if TYPE_CHECKING:
    from concurrent.futures import Future
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = [
    "Collected",
    "Earlier",
    "can_fork",
    "can_fork_beside",
    "collect_facts",
    "collector_paused",
    "default_jobs",
    "die_with",
    "forked_beside",
    "held_in_memory",
    "read_source",
    "read_sources",
    "restore_facts",
    "saved_versions",
    "start_forked",
    "start_load_sample",
    "usable_cores",
]

PARSED = "parsed"
NOT_RELEVANT = "not-relevant"
JAVA = "java"
# Below this much source to parse, starting worker processes costs more than it saves.
_PARALLEL_MIN_BYTES = 100_000
# Runs that parse at least this much show a progress bar (on a terminal).
_PROGRESS_MIN_BYTES = 1_000_000

Task = tuple[str, bytes]
# What a process forked beside this one returns, and what this one does meanwhile.
_Forked = TypeVar("_Forked")
_Here = TypeVar("_Here")


@dataclass(frozen=True)
class Earlier:
    """What the latest analysis of the same files (the same paths, module names and configuration)
    read, by root-relative path: the key of each file's facts and of what the text pass found in
    it; and the files it found relevant."""

    facts_keys: Mapping[str, str]
    text_keys: Mapping[str, str]
    relevant: frozenset[str]


@dataclass(frozen=True)
class Collected:
    """Facts aligned with the sources, the key each has in the facts cache (for a file that cannot
    be read, its reason), and how many files were found not relevant.

    Where the cache had a file's facts and only its outline was asked for (`outlined`, by index),
    `facts` holds the outline (see `outline`); `full_facts` gives the whole."""

    facts: list[FileFacts]
    keys: list[str]
    not_relevant: int
    outlined: Mapping[int, Task] = field(default_factory=dict)
    cache: FactsCache = field(default_factory=lambda: FactsCache(None, ""))
    # By index, the earlier facts of the files changed since the latest analysis (read to tell
    # whether only blank lines and comments changed).
    earlier_facts: Mapping[int, FileFacts] = field(default_factory=dict)
    # By root-relative path, the keys of what the prefilter's text pass found in the Python files,
    # when it ran.
    text_keys: Mapping[str, str] = field(default_factory=dict)
    # The process writing the cache, if one does (see `_written_beside`).
    cache_writer: BaseProcess | None = None
    # By index, whole facts of outlined files read while other files were parsed (see `_read_ahead`).
    read_ahead: dict[int, FileFacts] = field(default_factory=dict)
    # The files found relevant (every readable one without the prefilter).
    relevant: frozenset[str] = frozenset()

    def cache_written(self) -> None:
        """Wait until the facts collected are in the cache."""
        if self.cache_writer is not None:
            self.cache_writer.join()

    def full_facts(self, index: int) -> FileFacts:
        """The whole facts of the file at `index`: from the cache, or parsed again if they are gone."""
        task = self.outlined.get(index)
        if task is None:
            return self.facts[index]
        return self.read_ahead.pop(index, None) or self.cache.load(self.keys[index]) or file_facts(task)


def outline(facts: FileFacts) -> FileFacts:
    """What a run needs of a file whose part of the program it does not analyse: its imports and
    the names of its top-level classes (which link the parts: a Java class of no access modifier
    may be declared in a file of another name), package, suppressions, size and error; no
    functions, globals, nor classes' members."""
    top_level = tuple(ClassFacts(cls.qualname, cls.name, cls.pos) for cls in facts.classes if cls.top_level)
    return replace(facts, globals=(), functions=(), classes=top_level)


def read_source(source: SourceFile, max_size: int) -> bytes | str:
    """The file's bytes, or why they cannot be read (a one-line reason).

    What was discovered as a file may have changed since. It is opened without blocking and
    checked on the open descriptor: a FIFO or device put in its place is refused, not read forever,
    and no more than its size at that moment is read (at most `max_size`), even from a file that
    is still growing.
    """
    try:
        return read_regular_file(source.path, max_size)
    except FileNotFoundError:
        return "file vanished before it could be read"
    except OSError as error:
        return f"cannot read the file: {error.strerror or error}"


def read_sources(
    sources: Sequence[SourceFile], config: Config, in_memory: Mapping[Path, bytes] | None = None
) -> list[bytes | str]:
    """Every file's bytes, or why they cannot be read, in the order of `sources`; a file held in
    `in_memory` (by `in_memory_path`: an unsaved buffer, stdin) is read from there, not from disk."""
    held = held_in_memory(sources, in_memory or {})
    return [_held_or_read(source, held.get(source.rel), config.max_file_size) for source in sources]


def saved_versions(
    cache: FactsCache, sources: Sequence[SourceFile], held: Mapping[str, bytes], max_size: int
) -> tuple[set[str], set[str]]:
    """The keys under which `cache` may hold the facts, and what the text pass found, of the
    version on disk of each file `held` in memory (by root-relative name: an unsaved buffer)."""
    facts: set[str] = set()
    texts: set[str] = set()
    for source in sources:
        if source.rel not in held:
            continue
        data = read_source(source, max_size)
        if isinstance(data, bytes):  # else there is none, or none to read
            facts.update(cache.key(kind, data) for kind in (PARSED, NOT_RELEVANT, JAVA))
            texts.add(cache.text_key(data))
    return facts, texts


def held_in_memory(sources: Sequence[SourceFile], in_memory: Mapping[Path, bytes]) -> dict[str, bytes]:
    """The content `in_memory` holds for some of `sources`, by their root-relative names."""
    if not in_memory:
        return {}
    by_real_path = {os.path.realpath(path): data for path, data in in_memory.items()}
    held = {}
    for source in sources:
        data = by_real_path.get(os.path.realpath(source.path))
        if data is not None:
            held[source.rel] = data
    return held


def _held_or_read(source: SourceFile, held: bytes | None, max_size: int) -> bytes | str:
    if held is None:
        return read_source(source, max_size)
    if len(held) > max_size:
        return over_size_limit(len(held), max_size)
    return held


def collect_facts(
    sources: Sequence[SourceFile],
    contents: Sequence[bytes | str],
    names: Mapping[str, str],
    config: Config,
    *,
    use_cache: bool = True,
    jobs: int | None = None,
    prefilter: bool = True,
    progress: bool = False,
    outlines: str | None = None,
    earlier: Earlier | None = None,
    write_beside: bool = False,
    meanwhile: Callable[[], None] | None = None,
) -> Collected:
    """The facts of `sources`, whose `contents` were read by `read_sources` (module names by
    root-relative path in `names`); with `outlines` (a key naming this set of files), only the
    outline of those the cache has, kept together for the set (one entry read, not one a file).

    `earlier` is what the latest analysis of the same files read: a file changed since in blank
    lines and comments alone has its earlier facts moved to the new lines instead of being parsed
    again (`epochlint.layout.relocated`), and where what the text pass finds in the changed files
    is what it found before, the files relevant then are relevant now.

    With `write_beside`, the cache is written in a process of its own once the files are read (see
    `Collected.cache_written`). `meanwhile` is called while worker processes parse, if any do: work
    for this process that would otherwise wait until the parse is over; the whole facts of the
    cached files in the part of the program the parsed ones are in are read then too (`_read_ahead`)."""
    earlier_keys = earlier.facts_keys if earlier is not None else {}
    readable = {s.rel: data for s, data in zip(sources, contents) if isinstance(data, bytes)}
    cache = FactsCache.open(config.root, config.fingerprint()) if use_cache else FactsCache(None, "")
    if write_beside:
        cache.defer_writes()
    if prefilter:
        relevant, text_keys, texts = _relevant(readable, names, config, cache, earlier)
    else:
        relevant, text_keys, texts = set(readable), {}, dict
    facts: list[FileFacts | None] = []
    keys: dict[int, str] = {}
    tasks: dict[int, Task] = {}
    outlined: dict[int, Task] = {}
    moved: dict[int, FileFacts] = {}
    earlier_facts: dict[int, FileFacts] = {}
    kept_outlines = cache.load_outlines(outlines) if outlines is not None else {}
    outlines_used: dict[str, FileFacts] = {}
    with collector_paused():
        for index, (source, data) in enumerate(zip(sources, contents)):
            if isinstance(data, str):
                facts.append(FileFacts(lines=0, error=data))
                keys[index] = f"unreadable\0{data}"
                continue
            kind = JAVA if is_java(source.rel) else PARSED if source.rel in relevant else NOT_RELEVANT
            keys[index] = cache.key(kind, data)
            cached = None
            if outlines is not None:
                cached = kept_outlines.get(keys[index]) or cache.load_outline(keys[index])
            if cached is not None:
                outlined[index] = (kind, data)
                outlines_used[keys[index]] = cached
            else:
                cached = cache.load(keys[index])
                if cached is None and kind == PARSED and source.rel in earlier_keys:
                    before = cache.load(earlier_keys[source.rel])
                    if before is not None:
                        earlier_facts[index] = before
                        cached = relocated(before, data)
                    if cached is not None:
                        moved[index] = cached
                if cached is None:
                    tasks[index] = (kind, data)
                elif outlines is not None and index not in moved:
                    outlines_used[keys[index]] = outline(cached)
                    cache.store_outline(keys[index], outlines_used[keys[index]])
            facts.append(cached)
    if outlines is not None and not outlines_used.keys() <= kept_outlines.keys():
        # Kept again only when one was missing: those of earlier versions go then.
        cache.store_outlines(outlines, outlines_used)

    def kept(index: int, made: FileFacts, payload: bytes | None) -> None:
        _store(cache, keys[index], made, payload)

    keep = kept if cache.enabled else None
    done = dict(moved)
    if keep is not None:
        for index, made in moved.items():
            keep(index, made, None)
    read_ahead: dict[int, FileFacts] = {}

    def prepared() -> None:  # while other processes parse
        if meanwhile is not None:
            meanwhile()
        parsed = [sources[index].rel for index in tasks if sources[index].rel in text_keys]
        if parsed and outlined:
            read_ahead.update(_read_ahead(linked_files(texts(), names, parsed), sources, outlined, keys, cache))

    done.update(_run(tasks, jobs, progress, keep, prepared if meanwhile is not None else None))
    for index, made in done.items():
        facts[index] = made
    if done:  # a run that adds facts (parsed, or moved from earlier ones) also clears out old ones
        cache.forget_unused()
    return Collected(
        [f for f in facts if f is not None],
        [keys[i] for i in range(len(facts))],
        _not_parsed(readable.keys() - relevant, sources, facts),
        outlined,
        cache,
        earlier_facts,
        text_keys,
        _written_beside(cache.deferred_writes()),
        read_ahead,
        frozenset(relevant),
    )


def _not_parsed(not_relevant: Set[str], sources: Sequence[SourceFile], facts: Sequence[FileFacts | None]) -> int:
    """How many of the files the prefilter found irrelevant were never parsed: one that Python's
    parser rejects was, for its EPL900 (see `facts_without_parse`)."""
    return sum(
        1 for source, made in zip(sources, facts) if source.rel in not_relevant and made is not None and not made.error
    )


# Below this many writes, a process of their own costs about what it saves.
_WRITES_BESIDE_MIN = 64


def _written_beside(writes: Sequence[Callable[[], None]]) -> BaseProcess | None:
    """Do `writes` (a cache's) in a process forked for them, where they are enough to pay for it:
    once the files are read, the program is built in one process, which leaves the other cores
    idle (a cold run of kafka-python's files took 0.4-0.6 s less of its 7.2-7.9 than with the
    writes done as the files were parsed); with one core, it would only add a process. The process
    started, or None when the writes were done here."""
    if len(writes) < _WRITES_BESIDE_MIN or not can_fork_beside():
        for write in writes:
            write()
        return None
    import multiprocessing

    writer = multiprocessing.get_context("fork").Process(target=_write_all, args=(writes, os.getpid()))
    with _interrupts_held():
        writer.start()
    return writer


def _write_all(writes: Sequence[Callable[[], None]], parent: int) -> None:
    die_with(parent)
    try:
        for write in writes:
            write()
    except BaseException:
        os._exit(1)  # an interrupted run: the entries not written are made again next time


def _store(cache: FactsCache, key: str, facts: FileFacts, payload: bytes | None) -> None:
    cache.store_facts(key, facts, payload)
    cache.store_outline(key, outline(facts))


def restore_facts(
    sources: Sequence[SourceFile], contents: Sequence[bytes | str], wanted: Mapping[str, str], config: Config
) -> FactsCache:
    """Parse again, and cache, those of the files in `wanted` (their facts key by root-relative
    path) whose facts the cache no longer has; the facts cache is returned."""
    cache = FactsCache.open(config.root, config.fingerprint())
    for source, data in zip(sources, contents):
        key = wanted.get(source.rel)
        if key is None or not isinstance(data, bytes) or cache.load(key) is not None:
            continue
        # The key names how the file was read (parsed, only counted, Java).
        kind = next((kind for kind in (PARSED, NOT_RELEVANT, JAVA) if cache.key(kind, data) == key), None)
        if kind is not None:
            facts = file_facts((kind, data))
            _store(cache, key, facts, None)
    return cache


@contextmanager
def collector_paused() -> Iterator[None]:
    """Facts, and what the program derives from them, are millions of small acyclic objects: the
    cycle collector, run again and again as they are built and while they are alive, would cost
    as much as the work itself (half of an analysis's time, measured).

    What was built meanwhile is then frozen (left out of every later collection) before the
    collector resumes: else the first allocation after it would make it walk all of it at once,
    and again whenever it reaches the older generations (a third of a run, measured). Frozen
    objects are still freed by reference counting as soon as they are no longer used."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _relevant(
    readable: Mapping[str, bytes], names: Mapping[str, str], config: Config, cache: FactsCache, earlier: Earlier | None
) -> tuple[set[str], dict[str, str], Callable[[], dict[str, TextFacts]]]:
    """The Python files that can matter (Java files are always parsed: the text pass reads Python),
    the cache key of what the text pass found in each Python file, and what it found (read when
    asked: an earlier analysis can answer without it)."""
    vocabulary = Vocabulary(config)
    keys = {rel: cache.text_key(data) for rel, data in readable.items() if not is_java(rel)}
    java = {rel for rel in readable if is_java(rel)}

    @lru_cache(maxsize=None)
    def texts() -> dict[str, TextFacts]:
        return {rel: _text_facts(keys[rel], readable[rel], vocabulary, cache) for rel in keys}

    if earlier is not None and _texts_as_before(keys, earlier.text_keys, readable, vocabulary, cache):
        return set(earlier.relevant), keys, texts
    return relevant_files(texts(), names) | java, keys, texts


def _texts_as_before(
    keys: Mapping[str, str],
    before: Mapping[str, str],
    readable: Mapping[str, bytes],
    vocabulary: Vocabulary,
    cache: FactsCache,
) -> bool:
    """Whether the text pass finds in every Python file (its key in `keys`) what it found in the
    latest analysis of the same files (keys `before`): then the same files are relevant (the
    relevant ones follow from what it found and the module names alone). Only the files changed
    since are read."""
    if keys.keys() != before.keys():
        return False
    for rel, key in keys.items():
        if key != before[rel]:
            found_before = cache.load_text(before[rel])
            if found_before is None or found_before != _text_facts(key, readable[rel], vocabulary, cache):
                return False
    return True


def _read_ahead(
    linked: set[str],
    sources: Sequence[SourceFile],
    outlined: Mapping[int, Task],
    keys: Mapping[int, str],
    cache: FactsCache,
) -> dict[int, FileFacts]:
    """The whole facts of the outlined files among `linked`, by index: the files of the part of the
    program that the files being parsed are in, which its analysis reads once they are parsed.
    Read while they are (a file or two changed: its parse, in a process of its own, takes longer
    than what this one has to do meanwhile)."""
    found: dict[int, FileFacts] = {}
    with collector_paused():
        for index in outlined:
            if sources[index].rel in linked and (facts := cache.load(keys[index])) is not None:
                found[index] = facts
    return found


def _text_facts(key: str, data: bytes, vocabulary: Vocabulary, cache: FactsCache) -> TextFacts:
    """What the text pass finds in `data`: from the cache under `key`, or read now (and cached)."""
    found = cache.load_text(key)
    if found is None:
        found = read_text_facts(data, vocabulary)
        cache.store_text(key, found)
    return found


def file_facts(task: Task) -> FileFacts:
    """Facts of one file: parsed, or only counted when no rule can need it."""
    kind, data = task
    with collector_paused():  # a syntax tree is acyclic too: freed by reference counting alone
        return source_facts(kind, data)


def facts_payload(task: Task) -> bytes:
    """Facts of one file, encoded: what a worker sends back."""
    return codec.encode(file_facts(task))


# Called with a file's index, its facts and their encoding (None where they were made in this
# process: encoded where they are written) as soon as they are made, to cache them: while worker
# processes parse the other files, not after all of them.
Keep = Callable[[int, FileFacts, bytes | None], None]


def default_jobs() -> int:
    """Processes worth starting: one per core that other work leaves idle. Two parsing processes
    on cores that are already busy are no faster than one, and cost more CPU."""
    cores = usable_cores()
    busy = _busy_cores(cores)
    if busy is None:
        return len(cores)
    return max(1, min(len(cores), round(len(cores) - busy)))


# Long enough for the kernel's tick counts (100 a second per core) to tell a busy core from an idle one.
_SAMPLE_SECONDS = 0.1
# A sample started longer ago than this says too little of the cores' state now: another is taken.
_SAMPLE_MAX_SECONDS = 1.0


@dataclass(frozen=True)
class _LoadSample:
    """The cores' tick counts at one moment, and the CPU time this process and its ended workers
    had spent by then."""

    when: float
    ticks: dict[str, tuple[int, int]]
    own_seconds: float

    @classmethod
    def now(cls, cpus: set[str]) -> _LoadSample:
        spent = os.times()
        own = spent.user + spent.system + spent.children_user + spent.children_system
        return cls(time.monotonic(), _cpu_ticks(cpus), own)


# Started when a run begins (`start_load_sample`), ended by the first `default_jobs` after it.
_started: _LoadSample | None = None


def start_load_sample() -> None:
    """Start measuring how busy other work keeps the cores, for the run that begins: `default_jobs`
    then ends the measure instead of waiting a tenth of a second for one (the run's first steps,
    reading the files, take that long; what this process spends meanwhile is not counted)."""
    global _started
    try:
        _started = _LoadSample.now({f"cpu{number}" for number in usable_cores()})
    except (OSError, ValueError):
        _started = None


def _busy_cores(cores: set[int]) -> float | None:
    """How many of `cores` other work keeps busy: measured from /proc/stat over a tenth of a
    second or more where there is one (the load average is a minute's, and still counts the
    command that ended just before this one), else the load average; None without either."""
    global _started
    cpus = {f"cpu{number}" for number in cores}
    started, _started = _started, None
    try:
        if started is None or started.ticks.keys() != cpus or time.monotonic() - started.when > _SAMPLE_MAX_SECONDS:
            started = _LoadSample.now(cpus)
        if (wait := _SAMPLE_SECONDS - (time.monotonic() - started.when)) > 0:
            time.sleep(wait)
        ended = _LoadSample.now(cpus)
    except (OSError, ValueError):
        try:
            return os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average on this system
            return None
    busy = 0.0
    for cpu, (total, idle) in ended.ticks.items():
        start_total, start_idle = started.ticks.get(cpu, (total, idle))  # a core brought online meanwhile
        if total > start_total:
            busy += 1 - (idle - start_idle) / (total - start_total)
    # The cores this process kept busy meanwhile are not taken by other work.
    own = (ended.own_seconds - started.own_seconds) / max(ended.when - started.when, _SAMPLE_SECONDS)
    return max(0.0, busy - own)


def _cpu_ticks(cpus: set[str]) -> dict[str, tuple[int, int]]:
    """Ticks spent in all, and idle (waiting for I/O included), by core, since boot."""
    ticks: dict[str, tuple[int, int]] = {}
    with open("/proc/stat", encoding="ascii") as stat:
        for line in stat:
            name, *fields = line.split()
            if name in cpus:
                # user nice system idle iowait irq softirq steal (guest time is counted in user)
                counts = [int(count) for count in fields[:8]]
                ticks[name] = (sum(counts), counts[3] + counts[4])
    if not ticks:
        raise ValueError("no core of this process in /proc/stat")
    return ticks


def source_facts(kind: str, data: bytes) -> FileFacts:
    """The facts of one file by how it is to be read: a Java file, a relevant or another Python file."""
    if kind == JAVA:
        return facts_from_java(data)
    return facts_from_source(data) if kind == PARSED else facts_without_parse(data)


def usable_cores() -> set[int]:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return os.sched_getaffinity(0)
    return set(range(os.cpu_count() or 1))


def _run(
    tasks: Mapping[int, Task],
    jobs: int | None,
    progress: bool,
    keep: Keep | None,
    meanwhile: Callable[[], None] | None = None,
) -> dict[int, FileFacts]:
    """The facts of `tasks`, in `jobs` processes (by default as many as `default_jobs`, asked only
    when there is enough to share), each handed to `keep` as it is made (none is encoded without);
    `meanwhile` runs here while those processes parse."""
    size = sum(len(data) for _, data in tasks.values())
    with _progress_bar(len(tasks) if progress and size >= _PROGRESS_MIN_BYTES else 0) as advance:
        if len(tasks) >= 2 and size >= _PARALLEL_MIN_BYTES:
            jobs = jobs or default_jobs()
            if jobs >= 2:
                return _run_in_pool(tasks, jobs, advance, keep, meanwhile)
        elif tasks and meanwhile is not None and jobs != 1 and _parser_unloaded_and_cores_to_spare():
            return _run_beside(tasks, advance, keep, meanwhile)
        return _run_here(tasks, advance, keep)


def _parser_unloaded_and_cores_to_spare() -> bool:
    return "libcst" not in sys.modules and can_fork_beside()


def _run_beside(
    tasks: Mapping[int, Task], advance: Callable[[], None], keep: Keep | None, meanwhile: Callable[[], None]
) -> dict[int, FileFacts]:
    """The facts of a few small `tasks` (a file or two changed), made in one process forked for
    them while this one runs `meanwhile`: the parser is loaded there (0.12-0.15 s, where the
    file's parse takes a few hundredths), never here, when the rest of the run has no use for it.
    A worker that dies (killed, out of memory) leaves the work to this process."""
    _, payloads = forked_beside(partial(_payloads, tasks), meanwhile)
    if payloads is None:
        return _run_here(tasks, advance, keep)
    done: dict[int, FileFacts] = {}
    with collector_paused():
        for index, payload in payloads.items():
            done[index] = facts = codec.decode(payload)
            if keep is not None:
                keep(index, facts, payload)
            advance()
    return done


def _payloads(tasks: Mapping[int, Task]) -> dict[int, bytes]:
    return {index: facts_payload(task) for index, task in tasks.items()}


def _run_here(tasks: Mapping[int, Task], advance: Callable[[], None], keep: Keep | None) -> dict[int, FileFacts]:
    done: dict[int, FileFacts] = {}
    for index, task in tasks.items():
        done[index] = facts = file_facts(task)
        if keep is not None:
            keep(index, facts, None)
        advance()
    return done


def _run_in_pool(
    tasks: Mapping[int, Task],
    jobs: int,
    advance: Callable[[], None],
    keep: Keep | None,
    meanwhile: Callable[[], None] | None = None,
) -> dict[int, FileFacts]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    # Workers are forked where possible, after libcst is loaded here, so none imports it again.
    import epochlint.frontend.extract  # noqa: F401

    context = multiprocessing.get_context("fork" if can_fork() else None)
    done: dict[int, FileFacts] = {}
    # Largest first, so that no worker is left with a big file at the end.
    order = sorted(tasks, key=lambda i: -len(tasks[i][1]))
    try:
        workers = min(jobs, len(tasks))
        with ProcessPoolExecutor(workers, context, initializer=die_with, initargs=(os.getpid(),)) as pool:
            with _interrupts_held():  # the workers start, and are made to ignore Ctrl-C, meanwhile
                futures: dict[Future[bytes], int] = {pool.submit(facts_payload, tasks[i]): i for i in order}
            try:
                if meanwhile is not None:
                    meanwhile()
                for future in as_completed(futures):
                    payload = future.result()
                    index = futures[future]
                    with collector_paused():
                        done[index] = facts = codec.decode(payload)
                        if keep is not None:
                            keep(index, facts, payload)
                    advance()
            except KeyboardInterrupt:
                # The workers ignore Ctrl-C: ended here, they neither parse on nor hold up the exit.
                pool.shutdown(wait=False, cancel_futures=True)
                for worker in multiprocessing.active_children():
                    worker.terminate()
                raise
    except BrokenProcessPool:
        # A worker died (killed, out of memory): what it had is done here instead.
        rest = {i: task for i, task in tasks.items() if i not in done}
        done.update(_run_here(rest, advance, keep))
    return done


def can_fork() -> bool:
    """Whether processes can be started by forking this one (not on Windows). The process machinery
    is loaded only where a process is started: a run whose findings are all cached starts none."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def can_fork_beside() -> bool:
    """Whether a process forked to work beside this one would have a core of its own: with one
    core, it would only add a process."""
    return can_fork() and len(usable_cores()) >= 2


# Linux's prctl(2) option: the signal a process gets when its parent ends.
_PR_SET_PDEATHSIG = 1


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C back from this process while it forks workers: a worker starts with it held
    until it ignores it (`die_with`), and this process gets it, if it came, when the block ends."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # Windows: workers are spawned, not forked
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def die_with(parent: int) -> None:
    """Make this worker end when the run that started it ends, however it ends (SIGTERM, SIGKILL):
    else a killed run leaves its workers working on, orphaned. Linux only; elsewhere workers
    notice a dead parent only at their next task. Ctrl-C, which reaches every process of the run,
    is the run's to handle: it ends its workers (a worker interrupted in the middle of the pool's
    protocol printed tracebacks, or left the run waiting for it)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held while it was forked
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)  # the parent ended before the request took effect


def start_forked(work: Callable[[], object]) -> tuple[BaseProcess, Connection]:
    """A process forked to run `work` and send back what it returns, and the end to receive it
    from. It reads the run's memory where it is (copying only the pages it touches), ends with the
    run, and sends nothing when it fails or is killed: the caller then does the work itself, and
    reports a failure as it would have without the process."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    worker = context.Process(target=_send_result, args=(work, sending, os.getpid()), daemon=True)
    with _interrupts_held():
        worker.start()
    sending.close()
    return worker, receiving


def forked_beside(work: Callable[[], _Forked], here: Callable[[], _Here]) -> tuple[_Here, _Forked | None]:
    """`here()`, run in this process while `work()` runs in one forked for it (see `start_forked`),
    and what `work()` returned: None when its process died, which the caller then makes up for."""
    worker, receiving = start_forked(work)
    try:
        done_here = here()
        with suppress(EOFError):  # nothing sent: the worker died
            return done_here, cast(_Forked, receiving.recv())
        return done_here, None
    finally:
        receiving.close()
        worker.kill()  # ended already, unless `here()` failed
        worker.join()


def _send_result(work: Callable[[], object], sending: Connection, parent: int) -> None:
    die_with(parent)
    try:
        sending.send(work())
    except BaseException:
        os._exit(1)
    sending.close()


def _progress_bar(total: int) -> ContextManager[Callable[[], None]]:
    if total == 0:
        return nullcontext(lambda: None)
    return _RichProgress(total)


class _RichProgress:
    """A transient progress bar on stderr, for a terminal."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("parsing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(file=sys.stderr),
            transient=True,
            # No refresh thread: worker processes may be forked while the bar is shown.
            auto_refresh=False,
        )
        self._task = self._progress.add_task("parsing", total=total)

    def __enter__(self) -> Callable[[], None]:
        self._progress.start()
        return self._advance

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def _advance(self) -> None:
        self._progress.advance(self._task)
        self._progress.refresh()
