"""Which files can matter, decided from their bytes before anything is parsed.

Parsing with libcst is the cost of a run, and most files of a project hold no epoch field and
take no lock. A file is a *seed* when its text (code, comments and strings alike: generous on
purpose) can hold what a rule of RULES.md starts from:
- a suppression comment (EPL901 judges it);
- an identifier of the epoch vocabulary: the configured epoch pattern, the historical and current
  epoch sources, EPL007's leader slots, a declared guard;
- a lock: a lock constructor, `.acquire(`, a configured lock decorator, or a `with` statement
  whose items hold a lock-pattern word (a lock whose constructor is not visible);
- a copy that may give a position a new offset and keep its leader (EPL007): the word `replace`,
  `evolve` or `_replace` (called, or imported under another name) and an `offset=` keyword,
  wherever they are in the file.
Commits, rewinds and queue clears matter only next to an epoch field, so they are not seeds.

A file is *relevant* when it is a seed, imports one (transitively: it can call into it, subclass
it, or bind its parameters), or is imported, transitively, by such a file (it can be called, and
call back through what it is passed). Imports are read by regular expression, relative ones
included. Every other file is still read, checked by Python's own parser and counted, but never
handed to libcst.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from epochlint.config import RECEIVER_EPOCH_ATTRIBUTES, Config
from epochlint.program.modules import ModuleLocator, absolute_module, namespace_module_names

__all__ = ["Reach", "TextFacts", "Vocabulary", "linked_files", "read_text_facts", "relevant_files", "text_imports"]

_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_IMPORT_WORD = re.compile(rb"\bimport\b")
# What stands before `import` on its line in an import statement: nothing, or `from ..a.b`
# (after a `;` or a `:` too, as in `if x: import y`), and on the first line after a UTF-8 BOM.
_IMPORT_HEAD = re.compile(
    rb"(?:^(?:\xef\xbb\xbf)?|[;:])[ \t]*(?:from[ \t]+(\.*)[ \t]*([A-Za-z_][\w. \t]*?)?[ \t]+)?$", re.MULTILINE
)
# The imported names: a parenthesised list, or the rest of the logical line.
_IMPORT_TAIL = re.compile(rb"[ \t]*(\([^)]*\)|(?:[^\r\n#;\\]|\\\r?\n)*)")
_DOTTED = re.compile(rb"[A-Za-z_]\w*(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*")
_COMMENT = re.compile(rb"#[^\r\n]*")
_CONTINUATION = re.compile(rb"\\\r?\n")
_BLANKS = re.compile(rb"[ \t]")
# The items of a `with` / `async with` statement, up to its colon.
_WITH = re.compile(rb"^[ \t]*(?:async[ \t]+)?with\b([^:]*):", re.MULTILINE)
_ACQUIRE = re.compile(rb"\.\s*acquire\s*\(")
_LOCK_CONSTRUCTOR = re.compile(rb"\b(?:R?Lock|Condition|(?:Bounded)?Semaphore)\s*\(")
# EPL007's leader slots.
_LEADER_SLOT = re.compile("current_leader|leader_and_epoch", re.IGNORECASE)
# EPL007's copies: `dataclasses.replace(position, offset=...)`, `attrs.evolve`, `position._replace`.
_COPY_CALL = re.compile(rb"\b(?:_replace|replace|evolve)\b")
_OFFSET_KEYWORD = re.compile(rb"\boffset\s*=(?!=)")
# A suppression comment: EPL901 judges it, so its file is parsed.
_SUPPRESSION = re.compile(rb"#[^\r\n]*(?:epochlint:[ \t]*ignore|noqa[ \t]*:[^\r\n]*EPL)", re.IGNORECASE)


# What an import can make a file reach: (level, dotted module, and everything below it?).
# `import a.b` reaches every module of package `a` (`a.c.f()` resolves once `a` is bound), and
# `a.b` by its name;
# `from ..a import b` reaches `..a` itself and everything below `..a.b` (a submodule `b`).
Reach = tuple[int, str, bool]


@dataclass(frozen=True)
class TextFacts:
    """What the text pass found in one file."""

    seed: bool
    imports: tuple[Reach, ...]


class Vocabulary:
    """What makes a file a seed, from the configuration. Verdicts on identifiers are memoised:
    the same names recur in every file."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._exact = frozenset(
            {
                *RECEIVER_EPOCH_ATTRIBUTES,
                *config.historical_epoch_sources,
                *config.current_epoch_sources,
                *(part.lstrip("_") for key, lock in config.guards for part in (*key.split("."), lock)),
            }
        )
        self._decorator = re.compile(
            rb"@\s*(?:[\w.]*\.)?(?:"
            + b"|".join(re.escape(name.rsplit(".", 1)[-1].encode()) for name, _ in config.lock_decorators)
            + rb")\b"
        ) if config.lock_decorators else None
        self._seen: set[bytes] = set()
        self._epoch_words: set[bytes] = set()

    def is_seed(self, data: bytes) -> bool:
        identifiers = set(_IDENTIFIER.findall(data))
        for identifier in identifiers - self._seen:
            self._seen.add(identifier)
            if self._is_epoch_word(identifier.decode("ascii")):
                self._epoch_words.add(identifier)
        return (
            not identifiers.isdisjoint(self._epoch_words)
            or self._takes_lock(data)
            or _SUPPRESSION.search(data) is not None
            or (_COPY_CALL.search(data) is not None and _OFFSET_KEYWORD.search(data) is not None)
        )

    def _is_epoch_word(self, name: str) -> bool:
        return (
            name.lstrip("_") in self._exact
            or self._config.epoch_name(name)
            or _LEADER_SLOT.search(name) is not None
        )

    def _takes_lock(self, data: bytes) -> bool:
        if _ACQUIRE.search(data) or _LOCK_CONSTRUCTOR.search(data):
            return True
        if self._decorator is not None and self._decorator.search(data):
            return True
        lock_name = self._config.lock_name
        return any(
            lock_name(name.decode("ascii"))
            for match in _WITH.finditer(data)
            for name in _IDENTIFIER.findall(match.group(1))
        )


def read_text_facts(data: bytes, vocabulary: Vocabulary) -> TextFacts:
    return TextFacts(vocabulary.is_seed(data), tuple(text_imports(data)))


def text_imports(data: bytes) -> list[Reach]:
    """What the import statements of a file's text reach, read without a parse."""
    found: list[Reach] = []
    for word in _IMPORT_WORD.finditer(data):
        start = word.start()
        head = _IMPORT_HEAD.search(data, data.rfind(b"\n", 0, start) + 1, start)
        tail = _IMPORT_TAIL.match(data, word.end())
        if head is None or tail is None:
            continue
        names = tail.group(1)
        if head.group(1) is None and head.group(2) is None:
            for dotted in _names(names):
                found.append((0, dotted.split(".")[0], True))
                if "." in dotted:
                    # The module itself too, by its whole name: what a namespace package's module
                    # is named by, and the file a notice of files left out names.
                    found.append((0, dotted, False))
            continue
        level = len(head.group(1) or b"")
        module = _clean(head.group(2) or b"")
        found.append((level, module, b"*" in names))
        found.extend((level, f"{module}.{name}" if module else name, True) for name in _names(names))
    return found


def _names(text: bytes) -> list[str]:
    """The dotted names of an import list (`a.b as c, (d,\n e)`), aliases aside."""
    text = _CONTINUATION.sub(b" ", _COMMENT.sub(b"", text)).strip(b" \t\r\n()")
    found = []
    for part in text.split(b","):
        dotted = _DOTTED.match(part.strip(b" \t\r\n()"))
        if dotted is not None:
            found.append(_clean(dotted.group()))
    return found


def _clean(dotted: bytes) -> str:
    return _BLANKS.sub(b"", dotted).decode("ascii")


def relevant_files(
    texts: Mapping[str, TextFacts], names: Mapping[str, str]
) -> set[str]:
    """The root-relative paths of the relevant files among `texts` (module names in `names`)."""
    imports, importers = _import_edges(texts, names)
    callers = _reachable((rel for rel, text in texts.items() if text.seed), importers)
    return _reachable(callers, imports)


def linked_files(texts: Mapping[str, TextFacts], names: Mapping[str, str], start: Iterable[str]) -> set[str]:
    """The files among `texts` linked to those of `start` by imports, either way, through any
    others: the part of the program they are in, as the files' text tells it."""
    imports, importers = _import_edges(texts, names)
    return _reachable(start, {rel: imports[rel] | importers[rel] for rel in texts})


def _import_edges(
    texts: Mapping[str, TextFacts], names: Mapping[str, str]
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """By file: the files among `texts` it imports, and those that import it."""
    # Modules of namespace packages by the names the files import them by, as the program names them.
    imported = {target for text in texts.values() for level, target, _ in text.imports if level == 0}
    names = namespace_module_names(names, imported)
    by_name = {name: rel for rel, name in names.items()}
    ordered = sorted(by_name)
    locator = ModuleLocator(names)
    imports: dict[str, set[str]] = {rel: set() for rel in texts}
    importers: dict[str, set[str]] = {rel: set() for rel in texts}
    for rel, text in texts.items():
        is_package = rel.rsplit("/", 1)[-1] == "__init__.py"
        for level, target, below in text.imports:
            module = absolute_module(names[rel], is_package, level, target)
            reached = _modules_reached(module, below, ordered)
            if (located := locator.located(rel, level, target)) is not None and located != module:
                reached += _modules_reached(located, below, ordered)  # as the program resolves it
            for dependency in reached:
                dep_rel = by_name[dependency]
                if dep_rel != rel and dep_rel in texts:
                    imports[rel].add(dep_rel)
                    importers[dep_rel].add(rel)
    return imports, importers


def _modules_reached(module: str, below: bool, ordered: list[str]) -> list[str]:
    """The project's modules named `module`, and with `below` the ones inside it."""
    found = []
    for name in ordered[bisect.bisect_left(ordered, module) :]:
        if not name.startswith(module):
            break
        if name == module or (below and name.startswith(module + ".")):
            found.append(name)
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
