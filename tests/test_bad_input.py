"""Every kind of bad file people have, each beside a real racy consumer that must still be reported.

A bad file gives exactly one EPL900 that says why, at the syntax error's line and column (1:1 when
the file could not be read or decoded), or, when Python itself would run it
(BOM, CRLF, tabs, a declared latin-1 encoding...), it is analysed and its finding is at the right
line and column. Nothing ends in an exception, and nothing is dropped silently.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from epochlint import engine
from epochlint.config import load_config
from epochlint.discovery import DiscoveryProblem, SourceFile
from epochlint.findings import Finding
from epochlint.frontend import facts_from_source, facts_without_parse, stack
from epochlint.frontend.nesting import MAX_BRACKETS, MAX_DEPTH
from epochlint.report import RunResult
from tests.conftest import FIXTURES, KNOWN_CODES, hang_guard, run_check
from tests.test_cli import ENV, RACY_CONSUMER, epochlint

WriteTree = Callable[..., Path]

CONSUMER_PATH = FIXTURES / "EPL900" / "consumer.py"
CONSUMER = CONSUMER_PATH.read_text(encoding="utf-8")
LOOP = "for message in batch:"
READ = "self._epoch:"


def position(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column (in characters) of the first `needle` in `text`, any line ending."""
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(f"{needle!r} not in the text")


def findings_in(result: RunResult, rel: str) -> list[Finding]:
    return [f for f in result.findings if f.location.path == rel]


def assert_race_reported(result: RunResult, rel: str, text: str) -> None:
    """The consumer's EPL001 at its loop, with the chain ending at the epoch read."""
    [race] = [f for f in findings_in(result, rel) if f.code == "EPL001"]
    assert (race.location.line, race.location.column) == position(text, LOOP)
    assert (race.chain[-1].location.line, race.chain[-1].location.column) == position(text, READ)


def unparseable_reason(result: RunResult, rel: str) -> str:
    """The reason of the one EPL900 of `rel`, which must be its only finding, at the place its
    message names (a syntax error's line and column, or where code nests too deeply), or at 1:1."""
    found = findings_in(result, rel)
    assert [f.code for f in found] == ["EPL900"], [(f.code, f.message) for f in found]
    named = re.search(r"(?:syntax error|levels|deep) at line (\d+)(?:, column (\d+))?", found[0].message)
    expected = (int(named.group(1)), int(named.group(2) or 1)) if named else (1, 1)
    assert (found[0].location.line, found[0].location.column) == expected, found[0].message
    assert "\n" not in found[0].message
    return found[0].message


def check_beside_consumer(write_tree: WriteTree, files: dict[str, str | bytes], pyproject: str = "") -> RunResult:
    root = write_tree({"consumer.py": CONSUMER, **files}, pyproject)
    result = run_check(root)
    assert_race_reported(result, "consumer.py", CONSUMER)
    assert result.files_analysed == 1 + len(files)
    return result


# --- files that cannot be analysed -------------------------------------------------------------


def _deep_elif(branches: int) -> bytes:
    return b"if a:\n    pass\n" + b"elif a:\n    pass\n" * branches


UNPARSEABLE: dict[str, tuple[bytes, str]] = {
    "python2_print": (b'print "redelivering", consumer.epoch\n', "syntax error at line 1.*Missing parentheses"),
    "truncated": (CONSUMER.encode()[: CONSUMER.index("accepted.append(") + 16], r"syntax error at line \d+"),
    "undecodable_utf8_first_line": (
        b"x = '\xff\xfe'\n",
        r"cannot determine the file's encoding: line 1 is not utf-8 \(invalid start byte, byte 5\) "
        r"and no encoding is declared",
    ),
    # The byte's offset counts from the file's start, not the line's: said so.
    "undecodable_utf8_late": (
        CONSUMER.encode() + b"# caf\xe9\n",
        rf"cannot decode line 21 as utf-8: .* \(byte {len(CONSUMER.encode()) + 5} of the file\)",
    ),
    "lone_surrogate_bytes": (b"x = 1\ny = '\xed\xa0\x80'\n", "cannot decode line 2 as utf-8"),
    "unknown_encoding_cookie": (b"# -*- coding: klingon -*-\nx = 1\n", "unknown encoding: klingon"),
    "bom_contradicts_cookie": (b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nx = 1\n", "encoding problem: utf-8"),
    "utf16": (CONSUMER.encode("utf-16"), "cannot determine the file's encoding"),
    "utf32": (CONSUMER.encode("utf-32"), "cannot determine the file's encoding"),
    "binary_png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "cannot determine the file's encoding"),
    "nul_byte": (
        CONSUMER.replace("accepted = []", "accepted = [\0]").encode(),
        f"syntax error at line {position(CONSUMER, 'accepted = []')[0]}, column 21: .*null bytes",
    ),
    # libcst reads a NUL in a comment or a string; Python refuses the whole file.
    "nul_byte_in_a_comment": (
        CONSUMER.replace("accepted = []", "accepted = []  # \0").encode(),
        f"syntax error at line {position(CONSUMER, 'accepted = []')[0]}, column 26: .*null bytes",
    ),
    "tabs_and_spaces_mixed": (
        b"def f():\n        x = 1\n\ty = 2\n", "syntax error at line 3.*inconsistent use of tabs"
    ),
    "unterminated_triple_quote": (b'x = """never closed\n' + CONSUMER.encode(), "unterminated triple-quoted string"),
    "continuation_at_eof": (b"x = 1 + \\", "syntax error at line 1"),
    # `compile` of these bytes passes, running the file does not: the error is the one a run gives.
    "continuation_before_the_last_crlf": (b"x = 1\r\n\\\r\n", "syntax error at line 2.*unexpected EOF"),
    "101_indentation_levels": (
        b"".join(b" " * i + b"if x:\n" for i in range(101)) + b" " * 101 + b"pass\n",
        "too many levels of indentation",
    ),
    "brackets_5000_deep": (b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", "too deeply nested.*brackets"),
    "lists_3000_deep": (b"x = " + b"[" * 3000 + b"]" * 3000 + b"\n", "too deeply nested.*brackets"),
    "calls_3000_deep": (b"x = " + b"f(" * 3000 + b")" * 3000 + b"\n", "too deeply nested.*brackets"),
    "unary_minus_5000": (
        b"x = " + b"-" * 5000 + b"1\n", "too deeply nested to parse: more than 500 levels at line 1, column 505"
    ),
    "not_5000": (b"x = " + b"not " * 5000 + b"1\n", "too deeply nested to parse"),
    "power_chain_5000": (b"x = " + b"**".join([b"2"] * 5000) + b"\n", "too deeply nested to parse"),
    "sum_chain_5000": (b"x = " + b" + ".join([b"1"] * 5000) + b"\n", "too deeply nested to parse"),
    "and_chain_20000": (b"x = " + b" and ".join([b"a"] * 20000) + b"\n", "too deeply nested to parse"),
    "ternary_chain_5000": (b"x = " + b" if c else ".join([b"a"] * 5000) + b"\n", "too deeply nested to parse"),
    "lambda_5000": (b"x = " + b"lambda: " * 5000 + b"1\n", "too deeply nested to parse"),
    "attribute_chain_5000": (b"x = a" + b".b" * 5000 + b"\n", "too deeply nested to parse"),
    "call_chain_5000": (b"x = f" + b"()" * 5000 + b"\n", "too deeply nested to parse"),
    "subscript_chain_5000": (b"x = a" + b"[0]" * 5000 + b"\n", "too deeply nested to parse"),
    "adjacent_strings_5000": (b"x = (" + b" ".join([b"'a'"] * 5000) + b")\n", "too deeply nested to parse"),
    "elif_chain_3000": (_deep_elif(3000), "too deeply nested to parse: more than 500 levels at line 1003, column 1"),
    # Crashed libcst's native parser at 1000: `=` in a parameter list starts no new expression.
    "lambda_defaults_5000": (
        b"x = " + b"lambda a=" * 5000 + b"1" + b": 1" * 5000 + b"\n", "too deeply nested to parse"
    ),
    "lambda_parameters_5000": (b"x = " + b"lambda a, b=" * 5000 + b"1" + b": a" * 5000 + b"\n", "too deeply nested"),
}


@hang_guard
@pytest.mark.parametrize(("content", "reason"), UNPARSEABLE.values(), ids=UNPARSEABLE.keys())
def test_an_unparseable_file_is_one_epl900_saying_why(write_tree: WriteTree, content: bytes, reason: str) -> None:
    recursion_limit = sys.getrecursionlimit()
    result = check_beside_consumer(write_tree, {"bad.py": content})
    assert sys.getrecursionlimit() == recursion_limit
    message = unparseable_reason(result, "bad.py")
    assert message.startswith("Cannot analyse this file: ")
    assert re.search(reason, message), message


def test_nesting_limits_are_python_own_and_below_a_native_stack_overflow() -> None:
    # CPython itself refuses more than 200 nested brackets; libcst crashed (SIGSEGV) at about 3000.
    assert MAX_BRACKETS == 200 and MAX_DEPTH <= 1000


JUST_UNDER_THE_LIMITS: dict[str, bytes] = {
    "elif_chain_500": _deep_elif(500),
    "unary_minus_500": b"x = " + b"-" * 500 + b"1\n",
    "call_chain_499": b"x = f" + b"()" * 499 + b"\n",
    "subscript_chain_499": b"x = a" + b"[0]" * 499 + b"\n",
    "lists_200_deep": b"x = " + b"[" * 200 + b"]" * 200 + b"\n",
    "calls_200_deep": b"x = " + b"f(" * 200 + b")" * 200 + b"\n",
    "generators_200_deep": b"x = " + b"(a for a in " * 200 + b"b" + b")" * 200 + b"\n",
    "lambda_defaults_249": b"x = " + b"lambda a=" * 249 + b"1" + b": 1" * 249 + b"\n",
    "99_blocks_and_480_deep": (
        b"".join(b" " * i + b"if x:\n" for i in range(99)) + b" " * 99 + b"x = " + b"-" * 480 + b"1\n"
    ),
}


@hang_guard
@pytest.mark.parametrize("content", JUST_UNDER_THE_LIMITS.values(), ids=JUST_UNDER_THE_LIMITS.keys())
def test_nesting_just_under_the_limits_is_analysed(content: bytes) -> None:
    """Past what libcst's tree walks get through at Python's default recursion limit, but not past
    the frontend's own budget, which is the same wherever the file is analysed."""
    recursion_limit = sys.getrecursionlimit()
    assert facts_from_source(content).error == ""
    assert facts_without_parse(content).error == ""
    assert sys.getrecursionlimit() == recursion_limit


def _with_stack_limit(limit_bytes: int) -> Callable[[], None]:
    def set_limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_STACK, (limit_bytes, resource.getrlimit(resource.RLIMIT_STACK)[1]))

    return set_limit


@pytest.mark.skipif(sys.platform == "win32", reason="the stack limit is set with setrlimit")
def test_check_and_fix_of_the_deepest_nesting_let_through_survive_a_small_stack_limit(write_tree) -> None:  # type: ignore[no-untyped-def]
    """libcst's parser crashed the process (SIGSEGV) on such files where the stack may not grow past
    2 MB (`ulimit -s 2048`, as in some containers): the parse and the fixer run on a thread with a
    large stack there."""
    deepest = "".join(f"    {' ' * level}if x:\n" for level in range(95)) + f"    {' ' * 95}x = {'-' * 480}1\n"
    files: dict[str, str | bytes] = {"consumer.py": f"{RACY_CONSUMER}\n\ndef deep(x):\n{deepest}"}
    files.update({f"{name}.py": content for name, content in JUST_UNDER_THE_LIMITS.items()})
    root = write_tree(files)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "epochlint", "check", "--no-cache", "--output-format", "concise", *args]
        return subprocess.run(
            command, cwd=root, env=ENV, capture_output=True, text=True, timeout=300, preexec_fn=_with_stack_limit(2**20)
        )

    found = run()
    assert found.returncode == 1, found.stderr
    # The racy loop's finding, and no EPL900: every file was analysed.
    assert [line.split()[1] for line in found.stdout.splitlines() if ": EPL" in line] == ["EPL001"]
    fixed = run("--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "with self._lock:\n            for message in batch:" in (root / "consumer.py").read_text()
    assert run().returncode == 0


def test_a_recursion_error_in_the_tree_walk_is_an_epl900_and_the_limit_is_restored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stack, "RECURSION_BUDGET", 60)
    recursion_limit = sys.getrecursionlimit()
    facts = facts_from_source(b"x = " + b"-" * 100 + b"1\n")
    assert facts.error == "too deeply nested to analyse"
    assert sys.getrecursionlimit() == recursion_limit


@pytest.mark.parametrize("content", [c for c, _ in UNPARSEABLE.values()], ids=UNPARSEABLE.keys())
def test_files_no_rule_needs_get_the_same_epl900(content: bytes) -> None:
    """The prefilter's light facts and the full parse say the same about every bad file."""
    assert facts_without_parse(content).error == facts_from_source(content).error != ""


def test_a_limit_of_python_code_generator_is_the_same_epl900_for_a_file_no_rule_needs() -> None:
    # Python's parser accepts a `with` of 21 items; its compiler refuses it (at most 20 nested blocks).
    content = b"def f(a):\n    with " + b", ".join([b"a"] * 21) + b":\n        pass\n"
    assert "too many statically nested blocks" in facts_without_parse(content).error
    assert facts_without_parse(content).error == facts_from_source(content).error


@pytest.mark.parametrize("depth", [MAX_BRACKETS, MAX_BRACKETS + 1])
def test_bracket_limit_is_exact(depth: int) -> None:
    facts = facts_from_source(b"x = " + b"(" * depth + b"1" + b")" * depth + b"\n")
    assert ("brackets nested" in facts.error) is (depth > MAX_BRACKETS), facts.error


def test_nesting_in_strings_and_comments_does_not_count() -> None:
    noise = "(" * 5000
    source = f'x = "{noise}"\ny = """\n{noise}\n"""\n# {noise}\nz = 1\n'.encode()
    facts = facts_from_source(source)
    assert facts.error == "" and facts.lines == 6


def test_long_flat_code_is_not_deep() -> None:
    """Long but flat: a table of thousands of entries, thousands of statements, a long comparison."""
    table = "TABLE = {\n" + "".join(f"    'k{i}': {i} + 1,\n" for i in range(2000)) + "}\n"
    statements = "".join(f"x{i} = a.b.c + {i}\n" for i in range(2000))
    comparison = "ok = " + " < ".join(["a"] * 2000) + "\n"
    products = "p = " + " + ".join(["2*a**3*b"] * 300) + "\n"
    for source in (table, statements, comparison, products):
        assert facts_from_source(source.encode()).error == "", source[:40]


@hang_guard
def test_a_file_over_the_size_limit_is_refused_before_parsing(write_tree: WriteTree) -> None:
    big = b"x = 1\n" * (10 * 1024 * 1024 // 6 + 1)
    result = check_beside_consumer(write_tree, {"generated.py": big})
    reason = unparseable_reason(result, "generated.py")
    assert f"file is {len(big)} bytes, over the size limit of 1000000" in reason


def test_the_size_limit_is_configurable(write_tree: WriteTree) -> None:
    small = "x = 1\n" * 50
    result = check_beside_consumer(
        write_tree, {"small.py": small}, "[project]\nname = 'sample'\n[tool.epochlint]\nmax-file-size = 100000\n"
    )
    assert findings_in(result, "small.py") == []
    result = run_check(result.root, overrides={"max_file_size": 200})
    assert f"file is {len(small)} bytes, over the size limit of 200" in unparseable_reason(result, "small.py")


def test_a_file_over_the_size_limit_that_grows_is_reported_again_with_its_new_size(write_tree: WriteTree) -> None:
    # The cached run keyed the file by its reason, and looked that up as a cache entry once the
    # reason changed: "internal error: ValueError: embedded null byte".
    pyproject = "[project]\nname = 'sample'\n[tool.epochlint]\nmax-file-size = 1000\n"
    result = check_beside_consumer(write_tree, {"big.py": "x = 1\n" * 300}, pyproject)
    assert "file is 1800 bytes, over the size limit of 1000" in unparseable_reason(result, "big.py")
    with (result.root / "big.py").open("a") as grown:
        grown.write("y = 2\n")
    result = run_check(result.root)
    assert_race_reported(result, "consumer.py", CONSUMER)
    assert "file is 1806 bytes, over the size limit of 1000" in unparseable_reason(result, "big.py")


def test_a_symlink_loop_named_like_a_source_file_is_reported(write_tree: WriteTree) -> None:
    root = write_tree({"consumer.py": CONSUMER})
    (root / "loop_a.py").symlink_to("loop_b.py")
    (root / "loop_b.py").symlink_to("loop_a.py")
    (root / "cycle").symlink_to(".", target_is_directory=True)
    result = run_check(root)
    assert_race_reported(result, "consumer.py", CONSUMER)
    for name in ("loop_a.py", "loop_b.py"):
        assert unparseable_reason(result, name) == "Cannot analyse this file: symbolic link loop."
    assert {f.location.path for f in result.findings} == {"consumer.py", "loop_a.py", "loop_b.py"}


def test_a_symlink_loop_named_on_the_command_line_is_reported_beside_the_other_files(write_tree: WriteTree) -> None:
    # Naming the loop itself ended the run in an internal error: no file was checked.
    root = write_tree({"consumer.py": CONSUMER})
    (root / "loop_a.py").symlink_to("loop_b.py")
    (root / "loop_b.py").symlink_to("loop_a.py")
    result = epochlint(root, "check", "--output-format", "concise", "consumer.py", "loop_a.py")
    assert result.returncode == 1, result.stderr
    assert "loop_a.py:1:1: EPL900 Cannot analyse this file: symbolic link loop." in result.stdout.splitlines()
    assert any(line.startswith("consumer.py:") and " EPL001 " in line for line in result.stdout.splitlines())


# --- files Python would run, so analysed, with positions right ----------------------------------


def _tabs(text: str) -> str:
    return "\n".join(_tab_indented(line) for line in text.split("\n"))


def _tab_indented(line: str) -> str:
    body = line.lstrip(" ")
    return "\t" * ((len(line) - len(body)) // 4) + body


_NON_ASCII_READ = CONSUMER.replace(
    "if message.epoch >= self._epoch:", "if 'caf\u00e9' and message.epoch >= self._epoch:"
)
_LATIN1 = "# -*- coding: latin-1 -*-\n# Gr\u00fc\u00dfe\n" + _NON_ASCII_READ

ANALYSED: dict[str, tuple[bytes, str]] = {
    "bom": (b"\xef\xbb\xbf" + CONSUMER.encode(), CONSUMER),
    "crlf": (CONSUMER.replace("\n", "\r\n").encode(), CONSUMER),
    "cr_only": (CONSUMER.replace("\n", "\r").encode(), CONSUMER),
    "mixed_line_endings": (CONSUMER.replace("\n", "\r\n", 9).encode(), CONSUMER),
    "tabs": (_tabs(CONSUMER).encode(), _tabs(CONSUMER)),
    "form_feed": (("\f" + CONSUMER).encode(), CONSUMER),
    "no_final_newline": (CONSUMER.rstrip("\n").encode(), CONSUMER),
    "utf8_non_ascii_before_the_read": (_NON_ASCII_READ.encode(), _NON_ASCII_READ),
    "latin1_declared_and_used": (_LATIN1.encode("latin-1"), _LATIN1),
    "bom_and_crlf_and_tabs": (b"\xef\xbb\xbf" + _tabs(CONSUMER).replace("\n", "\r\n").encode(), _tabs(CONSUMER)),
}


@pytest.mark.parametrize(("content", "text"), ANALYSED.values(), ids=ANALYSED.keys())
def test_a_file_python_would_run_is_analysed_at_the_right_position(
    write_tree: WriteTree, content: bytes, text: str
) -> None:
    result = check_beside_consumer(write_tree, {"variant.py": content})
    assert_race_reported(result, "variant.py", text)
    assert [f.code for f in findings_in(result, "variant.py")] == ["EPL001"]


EMPTYISH = {
    "empty": b"",
    "only_whitespace": b"   \n\t\n\n",
    "only_a_bom": b"\xef\xbb\xbf",
    "only_comments": b"# nothing here\n# at all\n",
    "only_a_docstring": b'"""Nothing."""\n',
}


@pytest.mark.parametrize("content", EMPTYISH.values(), ids=EMPTYISH.keys())
def test_an_empty_file_is_analysed_without_findings(write_tree: WriteTree, content: bytes) -> None:
    result = check_beside_consumer(write_tree, {"__init__.py": content})
    assert findings_in(result, "__init__.py") == []


def test_a_directory_named_like_a_source_file_is_walked(write_tree: WriteTree) -> None:
    root = write_tree({"consumer.py": CONSUMER, "x.py/inner.py": CONSUMER})
    result = run_check(root)
    assert_race_reported(result, "consumer.py", CONSUMER)
    assert_race_reported(result, "x.py/inner.py", CONSUMER)
    explicit = run_check(root / "x.py")
    assert_race_reported(explicit, "x.py/inner.py", CONSUMER)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs a file system that takes any bytes")
def test_a_file_name_that_is_not_utf8_is_analysed_and_reported_printably(write_tree: WriteTree) -> None:
    root = write_tree({"consumer.py": CONSUMER})
    (Path(os.fsdecode(bytes(root) + b"/caf\xe9.py"))).write_text(CONSUMER)
    (root / "line\nbreak.py").write_text(CONSUMER)
    result = run_check(root)
    assert_race_reported(result, "consumer.py", CONSUMER)
    assert_race_reported(result, "caf\\xe9.py", CONSUMER)
    assert_race_reported(result, "line\\x0abreak.py", CONSUMER)
    assert all(path.isprintable() for path in {f.location.path for f in result.findings})


# --- files that change between discovery and reading ----------------------------------------------


def _after_discovery(monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None]) -> None:
    """Run `change(root)` once the files are discovered and before any is read."""
    real = engine.discover

    def discover_then_change(
        paths: Sequence[Path], config: object, **kwargs: object
    ) -> tuple[list[SourceFile], list[DiscoveryProblem]]:
        found = real(paths, config, **kwargs)  # type: ignore[arg-type]
        change(Path(config.root))  # type: ignore[attr-defined]
        return found

    monkeypatch.setattr(engine, "discover", discover_then_change)


def _make_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _make_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _grow(path: Path) -> None:
    path.write_text(CONSUMER + "x = 1\n" * 400_000)


CHANGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "deleted": (Path.unlink, "file vanished before it could be read"),
    "replaced_by_a_directory": (_make_directory, "is a directory, not a file"),
    # Reading a FIFO with no writer would block forever; it is refused without reading.
    "replaced_by_a_fifo": (_make_fifo, "not a regular file"),
    "grown_past_the_size_limit": (_grow, "over the size limit of 1000000"),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize(("change", "reason"), CHANGES.values(), ids=CHANGES.keys())
def test_a_file_changed_after_discovery_is_reported(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None], reason: str
) -> None:
    root = write_tree({"consumer.py": CONSUMER, "doomed.py": CONSUMER})
    _after_discovery(monkeypatch, lambda r: change(r / "doomed.py"))
    config = load_config([root], None, KNOWN_CODES)
    result = engine.check([root], config, use_cache=False)
    assert_race_reported(result, "consumer.py", CONSUMER)
    assert reason in unparseable_reason(result, "doomed.py")
    assert result.files_analysed == 2


# --- files that cannot be read at all -------------------------------------------------------------

_SETPRIV = shutil.which("setpriv")
# As root, permission bits do not stop a read: the run drops the capabilities that bypass them.
_WITHOUT_ROOT_OVERRIDE = [_SETPRIV or "setpriv", "--bounding-set=-dac_override,-dac_read_search"]
_DRIVER = """
import sys
from pathlib import Path
from epochlint import engine, frontend
from epochlint.cli import main

real = engine.discover
def discover_then_lock(paths, config, **kwargs):
    found = real(paths, config, **kwargs)
    Path(config.root, "locked_during_run.py").chmod(0)
    return found
engine.discover = discover_then_lock
sys.exit(main(["check", "--no-cache", "--output-format", "json"]))
"""


def _unprivileged(cwd: Path, driver: str = _DRIVER, keep_root: bool = False) -> subprocess.CompletedProcess[str]:
    """`driver` run by Python in `cwd`, without root's power to override permissions unless `keep_root`."""
    prefix = _WITHOUT_ROOT_OVERRIDE if os.geteuid() == 0 and not keep_root else []
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    return subprocess.run(
        [*prefix, sys.executable, "-c", driver], cwd=cwd, capture_output=True, text=True, env=environment, timeout=120
    )


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0 and _SETPRIV is None, reason="needs setpriv as root")
def test_unreadable_files_and_folders_are_reported(write_tree: WriteTree) -> None:
    root = write_tree(
        {"consumer.py": CONSUMER, "locked.py": CONSUMER, "locked_during_run.py": CONSUMER, "private/inner.py": CONSUMER}
    )
    (root / "locked.py").chmod(0)
    (root / "private").chmod(0)
    try:
        run = _unprivileged(root)
    finally:
        for path in (root / "locked.py", root / "locked_during_run.py", root / "private"):
            path.chmod(stat.S_IRWXU)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    findings = {(f["path"], f["code"], f["message"]) for f in json.loads(run.stdout)["findings"]}
    assert {(path, code) for path, code, _ in findings} == {
        ("consumer.py", "EPL001"),
        ("locked.py", "EPL900"),
        ("locked_during_run.py", "EPL900"),
        ("private", "EPL900"),
    }
    messages = {path: message for path, _, message in findings}
    assert messages["locked.py"] == messages["locked_during_run.py"] == (
        "Cannot analyse this file: cannot read the file: Permission denied."
    )
    assert messages["private"] == "Cannot analyse this file: cannot read directory: Permission denied."


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0 and _SETPRIV is None, reason="needs setpriv as root")
def test_a_readable_but_unsearchable_folder_is_reported_not_a_crash(write_tree: WriteTree) -> None:
    # Its names can be listed but nothing in it opened: looking for its `__init__.py` ended the run
    # with an internal error (PermissionError).
    root = write_tree({"consumer.py": CONSUMER, "sealed/__init__.py": "", "sealed/inner.py": CONSUMER})
    (root / "sealed").chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        run = _unprivileged(
            root,
            'import sys; from epochlint.cli import main; '
            'sys.exit(main(["check", "--no-cache", "--output-format", "json"]))',
        )
    finally:
        (root / "sealed").chmod(stat.S_IRWXU)
    assert run.returncode == 1 and "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    findings = {(f["path"], f["code"], f["message"]) for f in json.loads(run.stdout)["findings"]}
    unreadable = "Cannot analyse this file: cannot read the file: Permission denied."
    assert {(p, c) for p, c, _ in findings} == {
        ("consumer.py", "EPL001"),
        ("sealed/__init__.py", "EPL900"),
        ("sealed/inner.py", "EPL900"),
    }
    assert {m for p, _, m in findings if p.startswith("sealed/")} == {unreadable}


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0 and _SETPRIV is None, reason="needs setpriv as root")
@pytest.mark.parametrize(
    ("named", "sealed"),
    [(["consumer.py", "sealed/inner.py"], "sealed/inner.py"), (["sealed", "consumer.py"], "sealed")],
    ids=["a file in it", "the folder, first"],
)
def test_a_path_named_in_a_folder_that_cannot_be_entered_is_reported_and_the_others_analysed(
    write_tree: WriteTree, named: list[str], sealed: str
) -> None:
    # Looking for its configuration file, or whether the path was a file, ended the run with an
    # internal error (PermissionError), and the other paths' findings were lost.
    root = write_tree({"consumer.py": CONSUMER, "sealed/inner.py": CONSUMER})
    (root / "sealed").chmod(0)
    try:
        run = _unprivileged(
            root,
            "import sys; from epochlint.cli import main; "
            f"sys.exit(main(['check', '--no-cache', '--output-format', 'json', *{named!r}]))",
        )
    finally:
        (root / "sealed").chmod(stat.S_IRWXU)
    assert run.returncode == 1 and run.stderr == "", run.stderr
    findings = {(f["path"], f["code"], f["message"]) for f in json.loads(run.stdout)["findings"]}
    assert {(p, c) for p, c, _ in findings} == {("consumer.py", "EPL001"), (sealed, "EPL900")}
    assert {m for p, _, m in findings if p == sealed} <= {
        "Cannot analyse this file: cannot access: Permission denied.",
        "Cannot analyse this file: cannot read directory: Permission denied.",
    }


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0 and _SETPRIV is None, reason="needs setpriv as root")
@pytest.mark.parametrize("as_root", [False, True])
def test_fix_leaves_a_read_only_file_alone_and_says_so(write_tree: WriteTree, as_root: bool) -> None:
    # Its folder let the fixed copy be renamed over it: a file made read-only was rewritten. Root,
    # whom every file lets write (a CI container's user), rewrote it still.
    if as_root and os.geteuid() != 0:
        pytest.skip("runs as root only where the tests do")
    root = write_tree({"consumer.py": RACY_CONSUMER})
    (root / "consumer.py").chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    driver = "import sys; from epochlint.cli import main; sys.exit(main(['check', '--no-cache', '--fix']))"
    try:
        run = _unprivileged(root, driver, keep_root=as_root)
    finally:
        (root / "consumer.py").chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert (root / "consumer.py").read_text() == RACY_CONSUMER
    # Left alone and said so, as a file that changed while the run read it: the report goes on
    # (it ended at the read-only file, with no finding reported).
    assert run.returncode == 1, run.stderr
    assert "note: fixes applied: 0 (files changed: 0); not written, as they are read-only: consumer.py" in run.stdout
    assert " EPL001 " in run.stdout


def test_a_function_returning_a_method_call_on_its_own_result_is_analysed(tmp_path: Path) -> None:
    # As sympy's solveset does: what it returns depends on what it returns.
    (tmp_path / "pyproject.toml").write_text("[tool.epochlint]\n")
    (tmp_path / "solve.py").write_text(
        "import threading\n\nLOCK = threading.Lock()\n\n\n"  # a lock: the file is analysed
        "def solve(f, swap):\n    if f:\n        return solve(f[0], swap).xreplace(swap)\n    return f\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", "."], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stderr) == (0, "")
