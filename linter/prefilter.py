"""Which files can matter, decided from their bytes before anything is parsed.

Parsing with libcst is the cost of a run, and most files of a project hold no epoch field, no
lock and no commit. A file is a *seed* when any identifier in its text (code, comment or string:
generous on purpose) names something a rule of RULES.md looks at: an epoch field (the configured
epoch pattern), a lock (constructor, lock-pattern word, lock decorator), a commit, a rewind, an
epoch source or a leader slot, or a declared guard. A file is *relevant* when it is a seed, or it
imports one (transitively: it can call into it or subclass it), or one of those imports it
(transitively: code it calls can call back into what it passed). Imports are read by regular
expression, relative ones included. Every other file is still read, checked by Python's own parser
and counted, but never handed to libcst.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from linter.config import RECEIVER_EPOCH_ATTRIBUTES, Config
from linter.program.modules import absolute_module

__all__ = ["TextFacts", "Vocabulary", "read_text_facts", "relevant_files"]

_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# `import a.b as c, d`, also after `;` or `:` on one line.
_IMPORT = re.compile(rb"(?:^|[;:])[ \t]*import[ \t]+((?:[^\r\n#;\\]|\\\r?\n)+)", re.MULTILINE)
# `from ..a.b import (x, y)`; only the module part matters.
_FROM = re.compile(rb"(?:^|[;:])[ \t]*from[ \t]+(\.*)[ \t]*([A-Za-z_][\w.]*)?[ \t\\]+import\b", re.MULTILINE)
_DOTTED = re.compile(rb"[A-Za-z_]\w*(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*")
_CONTINUATION = re.compile(rb"\\\r?\n")
_BLANKS = re.compile(rb"[ \t]")

# Lock constructors whose names are not lock-pattern words (`Lock`, `RLock`, `Condition` are).
_LOCK_CONSTRUCTORS = frozenset({"Semaphore", "BoundedSemaphore"})
# EPL007's leader slots.
_LEADER_SLOT = re.compile("current_leader|leader_and_epoch", re.IGNORECASE)


@dataclass(frozen=True)
class TextFacts:
    """What the text pass found in one file."""

    seed: bool
    # (level, module) for each import: `from ..a import b` is (2, "a"), `import a.b` is (0, "a.b").
    imports: tuple[tuple[int, str], ...]


class Vocabulary:
    """The identifiers that make a file a seed, from the configuration (memoised per identifier)."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._exact = frozenset(
            {
                *_LOCK_CONSTRUCTORS,
                *RECEIVER_EPOCH_ATTRIBUTES,
                *config.historical_epoch_sources,
                *config.current_epoch_sources,
                *config.commit_sinks,
                *(name.rsplit(".", 1)[-1] for name, _ in config.lock_decorators),
                *(attribute.lstrip("_") for _, attribute in config.lock_decorators),
                *(part.lstrip("_") for key, lock in config.guards for part in (*key.split("."), lock)),
            }
        )
        self._known: dict[bytes, bool] = {}

    def matches(self, identifiers: Iterable[bytes]) -> bool:
        known = self._known
        for identifier in identifiers:
            verdict = known.get(identifier)
            if verdict is None:
                verdict = known[identifier] = self._is_relevant(identifier.decode("ascii"))
            if verdict:
                return True
        return False

    def _is_relevant(self, name: str) -> bool:
        config = self._config
        return (
            name.lstrip("_") in self._exact
            or config.epoch_name(name)
            or config.lock_name(name)
            or config.commit_callee(name)
            or config.rewind_name(name)
            or _LEADER_SLOT.search(name) is not None
        )


def read_text_facts(data: bytes, vocabulary: Vocabulary) -> TextFacts:
    seed = vocabulary.matches(set(_IDENTIFIER.findall(data)))
    return TextFacts(seed, tuple(_imports(data)))


def _imports(data: bytes) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for match in _IMPORT.finditer(data):
        for part in _CONTINUATION.sub(b" ", match.group(1)).split(b","):
            dotted = _DOTTED.match(part.strip())
            if dotted is not None:
                found.append((0, _clean(dotted.group())))
    for match in _FROM.finditer(data):
        found.append((len(match.group(1)), _clean(match.group(2) or b"")))
    return found


def _clean(dotted: bytes) -> str:
    return _BLANKS.sub(b"", dotted).decode("ascii")


def relevant_files(
    texts: Mapping[str, TextFacts], names: Mapping[str, str]
) -> set[str]:
    """The root-relative paths of the relevant files among `texts` (module names in `names`)."""
    by_name = {name: rel for rel, name in names.items()}
    ordered = sorted(by_name)
    imports: dict[str, set[str]] = {rel: set() for rel in texts}
    importers: dict[str, set[str]] = {rel: set() for rel in texts}
    for rel, text in texts.items():
        is_package = rel.rsplit("/", 1)[-1] == "__init__.py"
        for level, target in text.imports:
            module = absolute_module(names[rel], is_package, level, target)
            for dependency in _modules_named(module, ordered):
                dep_rel = by_name[dependency]
                if dep_rel != rel and dep_rel in texts:
                    imports[rel].add(dep_rel)
                    importers[dep_rel].add(rel)
    callers = _reachable((rel for rel, text in texts.items() if text.seed), importers)
    return _reachable(callers, imports)


def _modules_named(module: str, ordered: list[str]) -> list[str]:
    """The project's modules that an import of `module` can reach: the module, its submodules
    (`import a` then `a.b.f()`) and the packages above it (whose `__init__` runs first)."""
    if not module:
        return []
    found = []
    start = bisect.bisect_left(ordered, module)
    for name in ordered[start:]:
        if name != module and not name.startswith(module + "."):
            break
        found.append(name)
    parts = module.split(".")
    for size in range(1, len(parts)):
        parent = ".".join(parts[:size])
        index = bisect.bisect_left(ordered, parent)
        if index < len(ordered) and ordered[index] == parent:
            found.append(parent)
    return found


def _reachable(start: Iterable[str], edges: Mapping[str, set[str]]) -> set[str]:
    seen = set(start)
    stack = list(seen)
    while stack:
        for neighbour in edges[stack.pop()]:
            if neighbour not in seen:
                seen.add(neighbour)
                stack.append(neighbour)
    return seen
