"""Configuration: `[tool.epochlint]` in pyproject.toml, or a file of its own (`epochlint.toml`), validated
into a Config.

Every key is checked for type when loaded, regular expressions and exclude patterns are compiled,
and rule codes are checked against the codes the caller knows, so that a mistake in the
configuration is one clear line (exit status 2) instead of a rule that silently never fires.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import stat
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import pathspec

# The standard library's own parser of regular expressions (what re.compile uses): the shape of a
# configured pattern is checked on its parse tree.
from re import _constants, _parser as _regex_parser  # type: ignore[attr-defined]

from epochlint.fileio import owned_by_user
from epochlint.gitignore import MAX_WILDCARDS, pattern_error, wildcards_in_one_name, work_tree_top
from epochlint.notices import warn_once

__all__ = [
    "HANDLER_SUFFIX_WORDS",
    "KEYS",
    "RECEIVER_EPOCH_ATTRIBUTES",
    "Config",
    "ConfigError",
    "display_path",
    "load_config",
    "marks_a_project",
    "name_words",
    "settings_toml",
]


class ConfigError(Exception):
    """A configuration mistake. `str()` is one line naming the file, key or flag and what was expected."""


# Defaults, as the rule catalogue (RULES.md) states them.
DEFAULT_EPOCH_PATTERN = "epoch"
DEFAULT_LOCK_PATTERN = "lock|locks|rlock|mutex|cond|condition|cv"
# Files that are tests (gitignore syntax): analysed and reported, but they never shape the model.
DEFAULT_TEST_PATHS: tuple[str, ...] = ("test_*.py", "*_test.py", "conftest.py", "test/", "tests/")
DEFAULT_LOCK_DECORATORS: tuple[tuple[str, str], ...] = (("synchronized", "_lock"),)
DEFAULT_REWIND_METHODS: tuple[str, ...] = ("seek", "redeliver", "rewind", "reset_cursor")
DEFAULT_COMMIT_SINKS: tuple[str, ...] = ("send_offsets_to_transaction", "store_offsets")
DEFAULT_HISTORICAL_EPOCH_SOURCES: tuple[str, ...] = ("offset_epoch", "last_epoch", "last_fetched_epoch")
DEFAULT_HISTORICAL_EPOCH_RECEIVERS: tuple[str, ...] = (
    "record", "rec", "batch", "msg", "message", "fetch", "fetched", "completed", "part", "position", "pos",
)
DEFAULT_CURRENT_EPOCH_SOURCES: tuple[str, ...] = ("current_leader", "current_leader_epoch", "leader_epoch_for")
DEFAULT_MAX_FILE_SIZE = 1_000_000
# Reported whatever `select` chooses (only an `ignore` that matches them silences them): a file that
# could not be analysed is never passed over in silence, as ruff reports syntax errors whatever is
# selected.
ALWAYS_SELECTED = frozenset({"EPL900"})

# Attributes that carry a historical epoch when read from a record/batch/position-like receiver (EPL003).
RECEIVER_EPOCH_ATTRIBUTES: frozenset[str] = frozenset({"leader_epoch", "epoch"})
# Last words of event handlers' names, which are never rewind operations (EPL005).
HANDLER_SUFFIX_WORDS: frozenset[str] = frozenset(
    {"completed", "complete", "done", "failed", "succeeded", "callback", "handler", "response"}
)

# An underscore-free identifier split at camelCase boundaries: `incomingQueueLock`, `HTTPLock`, `lock2`.
_CAMEL_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+[0-9]*|[0-9]+")


# Names recur across a program (every read of `self._epoch` asks about `_epoch` again): each is
# split once. Bounded, for the audit's long-lived workers.
@lru_cache(maxsize=1 << 16)
def name_words(name: str) -> tuple[str, ...]:
    """The words of an identifier (its last dotted component), split on underscores and camelCase.

    Leading underscores are dropped: `_incomingQueue_lock` -> ('incoming', 'Queue', 'lock').
    Digits stay with the word before them, so `cv2` is one word, not `cv` + `2`.
    """
    last = name.rsplit(".", 1)[-1]
    words: list[str] = []
    for part in last.split("_"):
        if part:
            words.extend(_CAMEL_WORD.findall(part) or [part])
    return tuple(words)


@lru_cache(maxsize=1 << 16)
def snake_name(name: str) -> str:
    """An identifier in lower snake case, so that Java's `offsetEpoch` is Python's `offset_epoch`."""
    return "_".join(word.lower() for word in name_words(name))


def _starts_with(words: list[str], prefix: list[str]) -> bool:
    """Whether a name's `words` start with a rewind entry's: its one word whole (`seek`, not
    `seekable`), or, of several, up to the start of the last (`reset_cursor`: `reset_cursors`)."""
    last = len(prefix) - 1
    if len(words) <= last or words[:last] != prefix[:last]:
        return False
    return words[last] == prefix[last] if last == 0 else words[last].startswith(prefix[last])


@dataclass(frozen=True)
class Config:
    """The validated settings of one run. Build it with `load_config`; the defaults are the spec's.

    `rewind_methods` entries are a name's first underscore-separated (or camelCase) word, or, an
    entry of several words, how the name starts: `seek` matches `seek` and `seek_to_beginning` but
    not `seekable`; `reset_cursor` matches `reset_cursor`, `reset_cursors` and
    `reset_cursor_position`. `commit_sinks` are callee names that commit, beyond
    every callee that has `commit` as a whole word. `historical_epoch_receivers` (an extension beyond
    the spec's key list, like `max_file_size`) are the receiver words whose `leader_epoch`/`epoch` is
    historical.
    """

    root: Path = field(default_factory=Path.cwd)
    config_path: Path | None = None
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    force_exclude: bool = False
    epoch_pattern: str = DEFAULT_EPOCH_PATTERN
    lock_pattern: str = DEFAULT_LOCK_PATTERN
    lock_decorators: tuple[tuple[str, str], ...] = DEFAULT_LOCK_DECORATORS
    iteration_helpers: tuple[str, ...] = ()
    rewind_methods: tuple[str, ...] = DEFAULT_REWIND_METHODS
    commit_sinks: tuple[str, ...] = DEFAULT_COMMIT_SINKS
    historical_epoch_sources: tuple[str, ...] = DEFAULT_HISTORICAL_EPOCH_SOURCES
    historical_epoch_receivers: tuple[str, ...] = DEFAULT_HISTORICAL_EPOCH_RECEIVERS
    current_epoch_sources: tuple[str, ...] = DEFAULT_CURRENT_EPOCH_SOURCES
    guards: tuple[tuple[str, str], ...] = ()
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # Where the `exclude` patterns came from, for messages: "configuration" (the file's `exclude`)
    # and the flags that replaced or extended it.
    exclude_origins: tuple[str, ...] = ()

    # Compiled forms are cached on the instance (cached_property writes to __dict__, which a frozen
    # dataclass allows) and dropped when pickling, so a Config ships cheaply to worker processes.
    def __getstate__(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def fingerprint(self) -> str:
        """A stable hash of every setting that can change a file's facts or findings: not where the
        config lives, and not what only decides which files a run reads (the files are keyed
        wherever facts or findings are cached). So the pre-commit hook's `--force-exclude` run,
        or one with `--extend-exclude`, shares the cache of a plain `check`."""
        settings = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_FINGERPRINTED}
        payload = json.dumps(settings, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
        return hashlib.sha256(b"epochlint-config-v1\0" + payload.encode("ascii")).hexdigest()

    # --- rule selection -------------------------------------------------------------------------

    def is_code_enabled(self, code: str, rel_path: str) -> bool:
        """Whether `code` is reported in the file at `rel_path` (root-relative, posix).

        As in ruff, the more specific of the matching `select` and `ignore` selectors wins
        (`ALL` < `EPL0` < `EPL001`), `ignore` on a tie; a matching per-file-ignores entry always wins.
        """
        chosen = _best_match(self.select, code)
        if chosen < 0 and code in ALWAYS_SELECTED:
            chosen = 0  # as selected by ALL: an `ignore` that matches it still wins
        if chosen < 0 or _best_match(self.ignore, code) >= chosen:
            return False
        return not any(
            _best_match(codes, code) >= 0 and spec.match_file(rel_path) for spec, codes in self._per_file_specs
        )

    @cached_property
    def _per_file_specs(self) -> tuple[tuple[pathspec.PathSpec, tuple[str, ...]], ...]:
        return tuple((_compile_patterns((pattern,)), codes) for pattern, codes in self.per_file_ignores)

    # --- file selection -------------------------------------------------------------------------

    def is_excluded(self, rel_path: str, is_dir: bool) -> bool:
        """Whether a root-relative posix path is excluded by the user's `exclude` patterns."""
        if not self.exclude:
            return False
        return self._exclude_spec.match_file(rel_path + "/" if is_dir else rel_path)

    @cached_property
    def _exclude_spec(self) -> pathspec.PathSpec:
        return _compile_patterns(self.exclude)

    def is_test_path(self, rel_path: str) -> bool:
        """Whether the file at a root-relative posix path is test code (`test-paths`)."""
        return bool(self.test_paths) and self._test_spec.match_file(rel_path)

    @cached_property
    def _test_spec(self) -> pathspec.PathSpec:
        return _compile_patterns(self.test_paths)

    # --- names ----------------------------------------------------------------------------------

    def epoch_name(self, name: str) -> bool:
        """Whether a field named `name` (`self._state.epoch`, `_leader_epochs`) is an epoch field."""
        return self._epoch_re.search(name.rsplit(".", 1)[-1]) is not None

    def lock_name(self, name: str) -> bool:
        """Whether an attribute named `name` is taken for a lock when its constructor is not visible.

        The pattern must match one whole word: `_lock`, `incoming_queue_lock`, `incomingQueueLock` and
        `_cv` match; `block`, `clock`, `seconds` and `locksmith` do not. A pattern that matches the
        whole name (`.*_guard`) is also accepted, for patterns that span words.
        """
        last = name.rsplit(".", 1)[-1].lstrip("_")
        if not last:
            return False
        if self._lock_re.fullmatch(last):
            return True
        return any(self._lock_re.fullmatch(word) for word in name_words(last))

    def rewind_name(self, name: str) -> bool:
        """Whether a method named `name` is a rewind operation (EPL005): public, its leading words
        are one of `rewind_methods`, and it is not named like an event handler (`seek_completed`)."""
        if not name or name.startswith("_"):
            return False
        words = [w.lower() for w in name_words(name)]
        if len(words) > 1 and words[-1] in HANDLER_SUFFIX_WORDS:
            return False
        return any(_starts_with(words, prefix) for prefix in self._rewind_prefixes)

    @cached_property
    def _rewind_prefixes(self) -> tuple[list[str], ...]:
        return tuple(p for p in ([w.lower() for w in name_words(m)] for m in self.rewind_methods) if p)

    def commit_callee(self, name: str) -> bool:
        """Whether a call of `name` commits offsets (EPL003): `commit` as a whole word
        (`commit_sync`, `commitAsync`; not `committed`), or one of `commit_sinks`."""
        last = name.rsplit(".", 1)[-1]
        if last in self.commit_sinks or name in self.commit_sinks:
            return True
        return any(word.lower() == "commit" for word in name_words(last))

    def historical_epoch_read(self, attribute: str, receiver: str | None = None) -> bool:
        """Whether reading `attribute` (on a receiver whose last name is `receiver`) yields a
        historical epoch (EPL003): a configured source attribute, or `leader_epoch`/`epoch` of a
        record, batch, position... value (`position.current_leader.epoch` is not: its receiver
        is `current_leader`). A leading underscore does not change a name: `_offset_epoch` is
        `offset_epoch`."""
        attribute = attribute.lstrip("_")
        if attribute in self.historical_epoch_sources or snake_name(attribute) in self.historical_epoch_sources:
            return True
        attribute = snake_name(attribute)
        if attribute not in RECEIVER_EPOCH_ATTRIBUTES or not receiver:
            return False
        receivers = self._receiver_words
        return any(word.lower() in receivers for word in name_words(receiver))

    @cached_property
    def _receiver_words(self) -> frozenset[str]:
        return frozenset(r.lower() for r in self.historical_epoch_receivers)

    def current_epoch_source(self, name: str) -> bool:
        """Whether `name` (attribute or called function, last component; leading underscores
        aside) reads the current leader epoch."""
        last = name.rsplit(".", 1)[-1].lstrip("_")
        return last in self.current_epoch_sources or snake_name(last) in self.current_epoch_sources

    @cached_property
    def _epoch_re(self) -> re.Pattern[str]:
        return re.compile(self.epoch_pattern, re.IGNORECASE)

    @cached_property
    def _lock_re(self) -> re.Pattern[str]:
        return re.compile(self.lock_pattern, re.IGNORECASE)


_REPEATS = (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT)


def _best_match(selectors: Sequence[str], code: str) -> int:
    """Length of the most specific selector matching `code` (0 for ALL), -1 when none does."""
    best = -1
    for selector in selectors:
        if selector == "ALL":
            best = max(best, 0)
        elif code.startswith(selector):
            best = max(best, len(selector))
    return best


def _compile_patterns(patterns: Sequence[str]) -> pathspec.PathSpec:
    # GitIgnoreSpec is pathspec's gitwildmatch with git's own edge cases; the "gitwildmatch"
    # factory name is deprecated in pathspec 1.x.
    return pathspec.GitIgnoreSpec.from_lines(patterns)


# ------------------------------------------------------------------------------------------------
# Validation: each validator takes the raw TOML value, `where` (the prefix of an error message:
# "pyproject.toml: [tool.epochlint] select", "--select") and the known codes, and returns the
# normalised value for the Config field.

Validator = Callable[[object, str, frozenset[str]], object]


def _show(value: object) -> str:
    """A value as a user would recognise it from their TOML file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def _fail(where: str, message: str) -> ConfigError:
    return ConfigError(f"{where}: {message}")


def _string_list(value: object, where: str, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise _fail(where, f"expected {what}, got a string {_show(value)} (write {json.dumps([value])})")
    if not isinstance(value, (list, tuple)):
        raise _fail(where, f"expected {what}, got {_show(value)}")
    for index, item in enumerate(value, start=1):
        if not isinstance(item, str):
            raise _fail(where, f"expected {what}, but item {index} is {_show(item)}")
    return tuple(value)


def _string_table(value: object, where: str, what: str) -> tuple[tuple[str, object], ...]:
    if not isinstance(value, Mapping):
        raise _fail(where, f"expected a table of {what}, got {_show(value)}")
    return tuple((str(k), v) for k, v in value.items())


def table_key(where: str, key: str) -> str:
    """`where` extended by a table key, quoted as TOML would need it: `guards."Consumer._epoch"`."""
    bare = re.fullmatch(r"[A-Za-z0-9_-]+", key) is not None
    return f"{where}.{key if bare else json.dumps(key)}"


def _check_code(code: str, where: str, known: frozenset[str]) -> None:
    if code == "ALL" or code in known:
        return
    if code and any(k.startswith(code) for k in known):
        return
    raise _fail(where, f"unknown rule code {code!r}{_did_you_mean(code, known)}")


def _did_you_mean(word: str, choices: frozenset[str] | Sequence[str]) -> str:
    pool = sorted(choices)
    for candidate in (word.upper(), word.replace("_", "-")):
        if candidate != word and candidate in pool:
            return f" (did you mean {candidate!r}?)"
    # Every match as close as the closest: `EPL01` is as near EPL001 as EPL901.
    close = difflib.get_close_matches(word, pool, n=3, cutoff=0.85 if len(word) <= 8 else 0.75)
    best = [c for c in close if _likeness(word, c) == _likeness(word, close[0])] if close else []
    return f" (did you mean {' or '.join(repr(c) for c in sorted(best))}?)" if best else ""


def _likeness(word: str, candidate: str) -> float:
    return difflib.SequenceMatcher(None, word, candidate).ratio()


def _codes(value: object, where: str, known: frozenset[str]) -> tuple[str, ...]:
    codes = _string_list(value, where, "a list of rule codes")
    for code in codes:
        _check_code(code, where, known)
    return codes


def _selection(value: object, where: str, known: frozenset[str]) -> tuple[str, ...]:
    codes = _codes(value, where, known)
    if not codes:
        # `--select "$CODES"` with CODES unset would otherwise pass every run, checking nothing.
        raise _fail(
            where, "expected at least one rule code; an empty selection checks nothing (ALL selects every rule)"
        )
    return codes


def _per_file_ignores(value: object, where: str, known: frozenset[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    entries = _string_table(value, where, 'file patterns to lists of rule codes, e.g. {"tests/*" = ["EPL001"]}')
    result: list[tuple[str, tuple[str, ...]]] = []
    for pattern, codes in entries:
        entry_where = table_key(where, pattern)
        _check_pattern(pattern, entry_where)
        result.append((pattern, _codes(codes, entry_where, known)))
    return tuple(result)


def _check_pattern(pattern: str, where: str) -> None:
    if not pattern.strip():
        raise _fail(where, "expected a file pattern, got an empty string")
    if pattern.startswith(("./", "../")):
        # gitignore syntax matches names below the root, never `.` or `..`: nothing, silently.
        hint = f"write '/{pattern[2:]}' for the one at the root" if pattern.startswith("./") else "none is above it"
        raise _fail(
            where,
            f"pattern {_show(pattern)} matches no file: patterns are relative to the project root, in gitignore"
            f" syntax; {hint}",
        )
    if pattern.startswith("#"):
        # In gitignore syntax this line is a comment: the user would exclude nothing, silently.
        raise _fail(where, f"pattern {_show(pattern)} is a comment in gitignore syntax (write '\\{pattern}')")
    wildcards = wildcards_in_one_name(pattern)
    if wildcards > MAX_WILDCARDS:
        raise _fail(
            where,
            f"pattern {_show(pattern)} has {wildcards} '*' wildcards in one name: more than {MAX_WILDCARDS}"
            " can take minutes to match against a long file name; write it with fewer",
        )
    try:
        compiled = _compile_patterns((pattern,))
    except (ValueError, re.error) as error:
        # re.error: pathspec turns a bad character range (`[z-a]`) into a regex that cannot compile.
        raise _fail(where, f"invalid file pattern {_show(pattern)} ({pattern_error(error)})") from None
    if all(compiled_pattern.include is None for compiled_pattern in compiled.patterns):
        # pathspec drops such a pattern without a word (`[`, `a[b`, `/`): it would match nothing.
        hint = " (an unclosed '['; write '\\[' for the character itself)" if "[" in pattern else ""
        raise _fail(where, f"pattern {_show(pattern)} matches no file in gitignore syntax{hint}")


def _patterns(value: object, where: str, _known: frozenset[str]) -> tuple[str, ...]:
    patterns = _string_list(value, where, "a list of file patterns (gitignore syntax)")
    for pattern in patterns:
        _check_pattern(pattern, where)
    return patterns


def _regex(value: object, where: str) -> re.Pattern[str]:
    if not isinstance(value, str):
        raise _fail(where, f"expected a regular expression string, got {_show(value)}")
    if not value:
        raise _fail(where, "expected a regular expression, got an empty string")
    try:
        compiled = re.compile(value, re.IGNORECASE)
    except re.error as error:
        raise _fail(where, f"invalid regular expression {value!r} ({error})") from None
    parsed = _regex_parser.parse(value)
    if _repeats_a_repetition(parsed):
        raise _fail(
            where,
            f"regular expression {value!r} repeats a group that itself repeats or has alternatives"
            " (as `(a+)+` or `(a|aa)+`): matching it can take exponential time on some names; write it"
            " without the outer repetition",
        )
    if _unbounded_in_a_row(parsed)[1] > _MOST_UNBOUNDED_IN_A_ROW:
        raise _fail(
            where,
            f"regular expression {value!r} has more than {_MOST_UNBOUNDED_IN_A_ROW} unbounded repetitions"
            " in a row that can take the same characters (as `\\w*\\w*\\w*`): matching it can take time that"
            " grows as a high power of a name's length; write it with fewer, or with a character between them",
        )
    return compiled


# Each unbounded repetition in a row that can take the characters of the one before multiplies the
# ways a failing match is tried again by the name's length: two are quadratic, harmless on names;
# more hang on long ones. A character written out between two (`.*leader.*epoch`) ends the row:
# only where it occurs can the next one start. Repetitions of characters no other one takes
# (`b*c*d*`) share out a name one way only, however many stand in a row.
_MOST_UNBOUNDED_IN_A_ROW = 2

# The characters a repetition takes, case-folded (patterns are matched ignoring case), or None
# where it may take any (`.`, `\\w`, a range, a negated class).
_Characters = frozenset[str] | None
# The rows of repetitions that may end where the expression has been read, one per way there.
_Rows = frozenset[tuple[_Characters, ...]]
# Ways through alternatives kept apart: `(a|b)(c|d)...` doubles them at each group.
_MOST_ROWS = 64


def _unbounded_in_a_row(parsed: Iterable[tuple[Any, Any]], rows: _Rows = frozenset({()})) -> tuple[_Rows, int]:
    """The unbounded repetitions (`*`, `+`, `{2,}`) that follow one another in the expression with
    no character written out between them (`_`, or a class of such characters, `[_.]`), counting
    on from `rows` before it (one per way of getting there): the rows at its end (the characters
    each repetition takes), and the most of a row's repetitions on the way that can share out one
    stretch of a name."""
    most = max(map(_sharing, rows))
    for op, argument in parsed:
        if op is _constants.LITERAL or (op is _constants.IN and _written_out(argument)):
            rows = frozenset({()})
        elif op in _REPEATS and argument[1] == _constants.MAXREPEAT:
            characters = _characters_of(argument[2])
            rows = frozenset((*row, characters) for row in rows)
        elif op in _REPEATS and argument[1] == 1:  # optional: its body, or nothing
            rows, most = _alternatives_in_a_row([argument[2], []], rows, most)
        elif op is _constants.BRANCH:
            rows, most = _alternatives_in_a_row(argument[1], rows, most)
        elif op is _constants.GROUPREF_EXISTS:
            rows, most = _alternatives_in_a_row([branch or [] for branch in argument[1:]], rows, most)
        elif op is _constants.SUBPATTERN:
            rows, longest = _unbounded_in_a_row(argument[-1], rows)
            most = max(most, longest)
        elif op in (_constants.ASSERT, _constants.ASSERT_NOT):  # tried at each place of the name
            most = max(most, _unbounded_in_a_row(argument[1])[1])
        most = max(most, *map(_sharing, rows))
        if most > _MOST_UNBOUNDED_IN_A_ROW:  # refused already: joined rows would only grow on
            break
    return rows, most


def _alternatives_in_a_row(
    alternatives: Iterable[Iterable[tuple[Any, Any]]], rows: _Rows, most: int
) -> tuple[_Rows, int]:
    """The rows after one of `alternatives`, and the most on the way. Past `_MOST_ROWS` ways, the
    rows are joined into one, each after the other: more than any one way has, never fewer."""
    after: set[tuple[_Characters, ...]] = set()
    for alternative in alternatives:
        ends, longest = _unbounded_in_a_row(alternative, rows)
        after |= ends
        most = max(most, longest)
        if most > _MOST_UNBOUNDED_IN_A_ROW:
            break
    if len(after) > _MOST_ROWS:
        joined = (characters for row in sorted(after, key=_row_order) for characters in row)
        return frozenset({tuple(joined)}), most
    return frozenset(after), most


def _row_order(row: tuple[_Characters, ...]) -> str:
    """An order of rows that does not depend on how sets of strings iterate (their hashes vary by run)."""
    return repr([None if characters is None else sorted(characters) for characters in row])


def _sharing(row: tuple[_Characters, ...]) -> int:
    """The longest run of `row`'s repetitions, in order, each able to take a character that the
    next takes too: those between may match nothing, so these can share out one stretch of a
    name in as many ways as its length to the power of one less than their number."""
    longest: list[int] = []
    for index, characters in enumerate(row):
        before = [longest[earlier] for earlier in range(index) if _overlap(row[earlier], characters)]
        longest.append(1 + max(before, default=0))
    return max(longest, default=0)


def _overlap(first: _Characters, second: _Characters) -> bool:
    return first is None or second is None or not first.isdisjoint(second)


def _characters_of(body: Iterable[tuple[Any, Any]]) -> _Characters:
    """The characters a repetition's body takes, if all are written out (`a`, `[_.]`, `(ab)`)."""
    characters: set[str] = set()
    for op, argument in body:
        if op is _constants.LITERAL:
            characters.add(chr(argument).casefold())
        elif op is _constants.IN and _written_out(argument):
            characters.update(chr(code).casefold() for _, code in argument)
        elif op is _constants.SUBPATTERN and (inner := _characters_of(argument[-1])) is not None:
            characters.update(inner)
        else:
            return None
    return frozenset(characters)


def _written_out(members: Iterable[tuple[Any, Any]]) -> bool:
    """A character class of characters written out one by one (`[_.-]`), no ranges or categories."""
    return all(op is _constants.LITERAL for op, _ in members)


def _repeats_a_repetition(parsed: Iterable[tuple[Any, Any]], inside_repeat: bool = False) -> bool:
    """Whether a parsed expression has a repetition (`*`, `+`, `{2,}`) inside another, or
    alternatives inside one: what makes a backtracking matcher take exponential time."""
    for op, argument in parsed:
        if op in _REPEATS:
            _, most, body = argument
            repeats = most > 1
            if (inside_repeat and repeats) or _repeats_a_repetition(body, inside_repeat or repeats):
                return True
        elif op is _constants.BRANCH:
            if inside_repeat or any(_repeats_a_repetition(branch, inside_repeat) for branch in argument[1]):
                return True
        elif op is _constants.SUBPATTERN and _repeats_a_repetition(argument[-1], inside_repeat):
            return True
        elif op in (_constants.ASSERT, _constants.ASSERT_NOT) and _repeats_a_repetition(argument[1], inside_repeat):
            return True
        elif op is _constants.GROUPREF_EXISTS and any(
            _repeats_a_repetition(branch, inside_repeat) for branch in argument[1:] if branch is not None
        ):
            return True
    return False


def _epoch_pattern(value: object, where: str, _known: frozenset[str]) -> str:
    compiled = _regex(value, where)
    if compiled.search("") is not None:
        # It is searched in names: a pattern that matches "" would make every field an epoch field.
        raise _fail(
            where, f"regular expression {compiled.pattern!r} matches the empty string, so it would match every name"
        )
    return compiled.pattern


def _lock_pattern(value: object, where: str, _known: frozenset[str]) -> str:
    return _regex(value, where).pattern


def _is_dotted_name(text: str, min_parts: int = 1) -> bool:
    parts = text.split(".")
    return len(parts) >= min_parts and all(part.isidentifier() for part in parts)


def _names(what: str) -> Validator:
    def validate(value: object, where: str, _known: frozenset[str]) -> tuple[str, ...]:
        names = _string_list(value, where, f"a list of {what}")
        for name in names:
            if not _is_dotted_name(name):
                raise _fail(where, f"expected a list of {what}, but {_show(name)} is not a Python name")
        return names

    return validate


def _attribute(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"expected an attribute name such as '_lock', got {_show(value)}")
    if value.startswith("self."):
        raise _fail(where, f"expected an attribute name without 'self.', such as {value[5:]!r}, got {_show(value)}")
    if not _is_dotted_name(value):
        raise _fail(where, f"expected an attribute name such as '_lock', got {_show(value)}")
    return value


def _lock_decorators(value: object, where: str, _known: frozenset[str]) -> tuple[tuple[str, str], ...]:
    entries = _string_table(
        value, where, 'decorator names to the lock attribute they hold, e.g. {synchronized = "_lock"}'
    )
    result: list[tuple[str, str]] = []
    for decorator, attribute in entries:
        entry_where = table_key(where, decorator)
        if not _is_dotted_name(decorator):
            raise _fail(entry_where, f"expected a decorator name, got {_show(decorator)}")
        result.append((decorator, _attribute(attribute, entry_where)))
    return tuple(result)


def _guards(value: object, where: str, _known: frozenset[str]) -> tuple[tuple[str, str], ...]:
    entries = _string_table(value, where, 'epoch fields to their lock attribute, e.g. {"Consumer._epoch" = "_lock"}')
    result: list[tuple[str, str]] = []
    for field_path, lock in entries:
        entry_where = table_key(where, field_path)
        if not _is_dotted_name(field_path, min_parts=2):
            raise _fail(
                entry_where,
                f"expected a field as 'Class.field' or 'module.Class.field', got {_show(field_path)}",
            )
        result.append((field_path, _attribute(lock, entry_where)))
    return tuple(result)


def _boolean(value: object, where: str, _known: frozenset[str]) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"expected true or false, got {_show(value)}")
    return value


def _positive_int(value: object, where: str, _known: frozenset[str]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, f"expected a whole number of bytes, got {_show(value)}")
    if value <= 0:
        raise _fail(where, f"expected a positive number of bytes, got {value}")
    return value


@dataclass(frozen=True)
class _Key:
    field: str
    validate: Validator


# Every key of `[tool.epochlint]`, in the spec's order; `respect-gitignore`, `force-exclude` and the
# last two are extensions.
KEYS: Mapping[str, _Key] = {
    "select": _Key("select", _selection),
    "ignore": _Key("ignore", _codes),
    "per-file-ignores": _Key("per_file_ignores", _per_file_ignores),
    "exclude": _Key("exclude", _patterns),
    "respect-gitignore": _Key("respect_gitignore", _boolean),
    "force-exclude": _Key("force_exclude", _boolean),
    "epoch-pattern": _Key("epoch_pattern", _epoch_pattern),
    "lock-pattern": _Key("lock_pattern", _lock_pattern),
    "lock-decorators": _Key("lock_decorators", _lock_decorators),
    "iteration-helpers": _Key("iteration_helpers", _names("function names")),
    "rewind-methods": _Key("rewind_methods", _names("method name prefixes")),
    "commit-sinks": _Key("commit_sinks", _names("callee names")),
    "historical-epoch-sources": _Key("historical_epoch_sources", _names("attribute names")),
    "current-epoch-sources": _Key("current_epoch_sources", _names("attribute or function names")),
    "guards": _Key("guards", _guards),
    "test-paths": _Key("test_paths", _patterns),
    "max-file-size": _Key("max_file_size", _positive_int),
    "historical-epoch-receivers": _Key("historical_epoch_receivers", _names("receiver words")),
}


# Settings the fingerprint leaves out: where the project is, and what decides only which files are read.
_NOT_FINGERPRINTED = frozenset(
    {"root", "config_path", "exclude", "respect_gitignore", "force_exclude", "exclude_origins"}
)

# The keys whose values are tables (tuples of key-value pairs in a Config).
_TABLE_KEYS = frozenset({"per-file-ignores", "lock-decorators", "guards"})


def settings_toml(config: Config) -> str:
    """Every setting of `config` in force, as the TOML of an `epochlint.toml` that would give it
    (`check --show-settings`), after comments naming the root and where the settings came from."""
    source = display_path(config.config_path) if config.config_path else "none (the defaults)"
    lines = [f"# root: {display_path(config.root)}", f"# configuration file: {source}"]
    for key, spec in KEYS.items():
        value = getattr(config, spec.field)
        lines.append(f"{key} = {_toml_table(value) if key in _TABLE_KEYS else _toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_table(entries: Sequence[tuple[str, object]]) -> str:
    return "{" + ", ".join(f"{json.dumps(key)} = {_toml_value(value)}" for key, value in entries) + "}"


def _toml_value(value: object) -> str:
    # JSON's strings, numbers and arrays are TOML's (its \uXXXX escapes too).
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    return json.dumps(value)


def _validate_table(table: Mapping[str, object], prefix: str, known: frozenset[str]) -> dict[str, object]:
    """Validate the settings table; `prefix` starts every message ("pyproject.toml: [tool.epochlint]")."""
    values: dict[str, object] = {}
    for key, raw in table.items():
        spec = KEYS.get(key)
        if spec is None:
            raise ConfigError(f"{prefix} unknown key {key!r}{_unknown_key_hint(key)}")
        values[spec.field] = spec.validate(raw, f"{prefix} {key}", known)
    return values


def _unknown_key_hint(key: str) -> str:
    if key == "tool":
        return " (in a standalone config file the settings are at the top level, without [tool.epochlint])"
    return _did_you_mean(key, tuple(KEYS))


def _apply_overrides(values: dict[str, object], overrides: Mapping[str, object] | None, known: frozenset[str]) -> None:
    """Command-line values over the file's `values`, in order: `select`, `ignore` or any other key
    replaces the value; `extend_select` (`extend_` and a key whose value is a list) adds to it, as
    ruff's `--extend-select` does. Errors name the flag.

    As in ruff, the command line's selection comes after the file's: `--select` starts afresh (the
    file's `ignore` goes with its `select`), and `--extend-select EPL001` enables what the file's
    `ignore` names as precisely."""
    given = {name for name, raw in (overrides or {}).items() if raw is not None}
    for name, raw in (overrides or {}).items():
        extending = name.startswith("extend_")
        if raw is None or (extending and raw == []):  # adding nothing (`--extend-select ""`) changes nothing
            continue
        key = name.removeprefix("extend_").replace("_", "-")
        spec = KEYS.get(key)
        if spec is None:
            raise ValueError(f"unknown configuration override {name!r}")
        validated = spec.validate(raw, f"--extend-{key}" if extending else f"--{key}", known)
        if "ignore" not in given and name == "select":
            values["ignore"] = _DEFAULTS["ignore"]
        elif "ignore" not in given and name == "extend_select":
            added: tuple[str, ...] = validated  # type: ignore[assignment]
            ignored: tuple[str, ...] = values.get("ignore", _DEFAULTS["ignore"])  # type: ignore[assignment]
            values["ignore"] = tuple(code for code in ignored if code not in added)
        if extending:
            validated = (*values.get(spec.field, _DEFAULTS[spec.field]), *validated)  # type: ignore[misc]
        values[spec.field] = validated


# Each setting's value where nothing sets it.
_DEFAULTS: Mapping[str, Any] = {setting.name: setting.default for setting in fields(Config)}


# ------------------------------------------------------------------------------------------------
# Loading


# Messages name a path from the current folder, where the user runs the command; the editor
# server's current folder is none the user chose, so it names paths whole (`name_paths_whole`).
_names_from_current_folder = True


def name_paths_whole() -> None:
    """From now on, messages name every path whole, never from the current folder."""
    global _names_from_current_folder
    _names_from_current_folder = False


def display_path(path: Path) -> str:
    """A path as it should appear in a message: relative to the current directory when inside it
    (and messages name paths from there)."""
    if _names_from_current_folder:
        with suppress(ValueError, OSError):  # outside it, or no current folder (deleted)
            return path.relative_to(Path.cwd()).as_posix()
    return str(path)


def _absolute(path: Path | str) -> Path:
    # abspath, not resolve: the user's view of the tree, symlinked folders included.
    return Path(os.path.abspath(path))


def _read_toml(path: Path) -> dict[str, object]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{display_path(path)}: config file not found") from None
    except OSError as error:
        raise ConfigError(f"{display_path(path)}: cannot read config file: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _line_column(data[: error.start])
        raise ConfigError(f"{display_path(path)}: invalid TOML: not UTF-8 (at line {line}, column {column})") from None
    if text.startswith("\ufeff"):
        raise ConfigError(
            f"{display_path(path)}: invalid TOML: it starts with a byte order mark (BOM); save it as UTF-8 without one"
        )
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"{display_path(path)}: invalid TOML: nested too deeply to read") from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        if message.endswith("(at end of document)"):
            line, column = _line_column(data)
            message = message.replace("(at end of document)", f"(at end of document, line {line}, column {column})")
        raise ConfigError(f"{display_path(path)}: invalid TOML: {message}") from None


def _line_column(prefix: bytes) -> tuple[int, int]:
    """1-based line and column just after `prefix`, the way tomllib counts them."""
    line = prefix.count(b"\n") + 1
    column = len(prefix) - (prefix.rfind(b"\n") + 1) + 1
    return line, column


def _tool_table(data: Mapping[str, object], path: Path) -> Mapping[str, object] | None:
    """The `[tool.epochlint]` table of a pyproject.toml, None when there is none."""
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, Mapping):
        raise ConfigError(f"{display_path(path)}: [tool] expected a table, got {_show(tool)}")
    table = tool.get("epochlint")
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise ConfigError(f"{display_path(path)}: [tool.epochlint] expected a table, got {_show(table)}")
    return table


def _start_directory(paths: Sequence[Path]) -> Path:
    if not paths:
        return Path.cwd()
    first = _absolute(paths[0])
    return first if os.path.isdir(first) else first.parent


# The files that hold a project's settings, by precedence in one folder: epochlint's own (the
# settings at the top level, as ruff's `.ruff.toml` and `ruff.toml`), then pyproject.toml.
CONFIGURATION_FILES = (".epochlint.toml", "epochlint.toml", "pyproject.toml")


def configured_root_of(path: Path) -> Path | None:
    """The folder of the nearest configuration file at or above `path` (its project's root), None
    where none is found."""
    found = _nearest_configuration(_start_directory([path]))
    return found.parent if found is not None else None


def _nearest_configuration(start: Path) -> Path | None:
    """The nearest configuration file (`CONFIGURATION_FILES`) at or above `start` that can be
    trusted. One written by another user where every user may write (`/tmp/pyproject.toml`) could
    be anyone's, and its settings (`exclude = ["*"]`) would decide what is checked: it is passed
    over, said in one line (`--config` still reads it)."""
    for folder in (start, *start.parents):
        for name in CONFIGURATION_FILES:
            candidate = folder / name
            if not _is_configuration_file(candidate):
                continue
            if _planted_by_anyone(candidate):
                warn_once(
                    f"ignoring {display_path(candidate)}: another user's file, where every user can write"
                    " (--config reads it)"
                )
                continue
            return candidate
    return None


def _is_configuration_file(path: Path) -> bool:
    """Whether the configuration file `path` is there to be read. Nothing there, or a folder that
    cannot be searched (whose files cannot be read either, and are reported so), is none; anything
    else that is not a file (a folder, a link to nothing) is an error, not defaults in silence."""
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.islink(path):
            raise ConfigError(f"{display_path(path)} is a link to nothing: mend or remove it") from None
        return False
    except PermissionError:
        return False
    except OSError as error:
        raise ConfigError(f"cannot read {display_path(path)}: {error.strerror or error}") from None
    if not stat.S_ISREG(status.st_mode):
        raise ConfigError(f"{display_path(path)} is not a file: a configuration file cannot be read from it")
    return True


def _planted_by_anyone(path: Path) -> bool:
    """Whether `path`, or its folder, is writable by every user, and `path` is not the user's own
    (a project on a mount that shows every file as writable by all is still its owner's)."""
    try:
        status, folder = path.stat(), path.parent.stat()
    except OSError:
        return False
    shared = bool((status.st_mode | folder.st_mode) & stat.S_IWOTH)
    return shared and not owned_by_user(status)


def _missing_table_hint(data: Mapping[str, object]) -> str:
    """Point at a misspelt `[tool.epoch-lint]` or `[tool.epoch_lint]`, the likely mistake."""
    tool = data.get("tool")
    if not isinstance(tool, Mapping):
        return ""
    close = difflib.get_close_matches("epochlint", [str(k) for k in tool], n=1, cutoff=0.8)
    return f" (found [tool.{close[0]}])" if close else ""


def _settings_from_file(path: Path, explicit: bool) -> tuple[Mapping[str, object] | None, str]:
    """The settings table of a config file and the message prefix for its keys."""
    data = _read_toml(path)
    display = display_path(path)
    if path.name != "pyproject.toml":
        return data, f"{display}:"
    table = _tool_table(data, path)
    if table is None and explicit:
        raise ConfigError(f"{display}: no [tool.epochlint] table{_missing_table_hint(data)}")
    return table, f"{display}: [tool.epochlint]"


def load_config(
    paths: Sequence[Path],
    config_file: Path | None,
    known_codes: frozenset[str],
    overrides: Mapping[str, object] | None = None,
) -> Config:
    """Find, read and validate the configuration; raise ConfigError on any mistake.

    With `config_file`, read it: a file named pyproject.toml must have `[tool.epochlint]`; any other
    TOML file holds the settings at its top level. Its folder is the project root. Otherwise, the
    nearest `.epochlint.toml`, `epochlint.toml` (the settings at its top level) or pyproject.toml
    above the first path (or the current directory) marks the root, and gives the settings (a
    pyproject.toml its `[tool.epochlint]`, if it has one; none: defaults); with none at all, the
    top of the git work tree that holds the first path is the root, and outside one
    the current directory, or the first path's folder when that lies outside it (see
    `marks_a_project`). `overrides` (command-line `select`, `ignore`) replace the file's values.
    """
    config_path: Path | None
    if config_file is not None:
        config_path = _absolute(config_file)
        table, prefix = _settings_from_file(config_path, explicit=True)
        root = config_path.parent
    else:
        start = _start_directory(paths)
        found = _nearest_configuration(start)
        if found is None:
            # Paths are shown relative to the root: outside the current directory, the first path is it.
            cwd = Path.cwd()
            top = work_tree_top(str(start))
            root = Path(top) if top is not None else cwd if start == cwd or cwd in start.parents else start
            table, prefix = None, ""
        else:
            table, prefix = _settings_from_file(found, explicit=False)
            root = found.parent
        config_path = found if table is not None else None
    values = _validate_table(table, prefix, known_codes) if table is not None else {}
    origins = _exclude_origins(values, overrides or {})
    # The selection keys the file sets that no command-line option replaces: where an empty
    # selection comes from, with the options that took part in it.
    given = {key for key, value in (overrides or {}).items() if value is not None}
    replaced = {"select", "ignore"} if "select" in given else given  # `--select` starts afresh
    from_file = [key for key in ("select", "ignore") if key in values and key not in replaced]
    _apply_overrides(values, overrides, known_codes)
    config = Config(root=root, config_path=config_path, exclude_origins=origins, **values)  # type: ignore[arg-type]
    _check_selects_a_rule(config, known_codes, overrides or {}, from_file)
    return config


def _exclude_origins(file_values: Mapping[str, object], overrides: Mapping[str, object]) -> tuple[str, ...]:
    """Where the `exclude` patterns in force come from: the file's, unless `--exclude` replaces
    them, and the flags that give patterns."""
    replaced = overrides.get("exclude") is not None
    from_file = ("configuration",) if file_values.get("exclude") and not replaced else ()
    flags = tuple(f"--{name.replace('_', '-')}" for name in ("exclude", "extend_exclude") if overrides.get(name))
    return from_file + flags


def marks_a_project(config: Config) -> bool:
    """Whether the root was found by what marks a project (a configuration file, a pyproject.toml
    or the top of a git work tree), not taken for want of one (the current directory)."""
    root = config.root
    return config.config_path is not None or os.path.isfile(root / "pyproject.toml") or os.path.exists(root / ".git")


def _check_selects_a_rule(
    config: Config, known: frozenset[str], overrides: Mapping[str, object], from_file: Sequence[str]
) -> None:
    """`select` less `ignore` must leave a rule, as an empty `select` must: a run that checks nothing
    would pass whatever the code holds (an EPL900 alone, reported whatever `select` says, is no
    check of the code). The error names what made the selection: the options given, and the keys
    of the configuration file that they left in force."""
    chosen = (code for code in known if code not in ALWAYS_SELECTED or _best_match(config.select, code) >= 0)
    if not known or any(config.is_code_enabled(code, "") for code in chosen):
        return
    names = ("select", "extend_select", "ignore", "extend_ignore")
    sources = [f"--{name.replace('_', '-')}" for name in names if overrides.get(name)]
    if from_file:
        file_keys = " and ".join(from_file)
        sources.append(f"{display_path(config.config_path)}'s {file_keys}" if config.config_path else file_keys)
    where = " and ".join(sources) or "select and ignore"
    raise ConfigError(
        f"{where}: {', '.join(config.select)} less {', '.join(config.ignore)} selects no rule; an empty "
        "selection checks nothing (ALL selects every rule)"
    )
