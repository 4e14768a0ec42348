"""Every kind of wrong value in `[tool.epochlint]` and on the command line, through the real command:
exit status 2, nothing on stdout, and one line on stderr that names the key or flag and says what
was expected. The tree always has a finding, so a 2 is never a findings status in disguise.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from epochlint.cli import main
from tests.conftest import FIXTURES

WriteTree = Callable[..., Path]

CONSUMER = (FIXTURES / "EPL900" / "consumer.py").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Run:
    status: int
    stdout: str
    stderr: str


def epochlint_in_process(cwd: Path, *args: str) -> Run:
    """`epochlint ARGS` in `cwd`, in this process (argparse exits through SystemExit)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 2
    return Run(status, out.getvalue(), err.getvalue())


def assert_usage_error(run: Run, *named: str) -> str:
    assert run.status == 2, run
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr
    for text in named:
        assert text in lines[0], lines[0]
    return lines[0]


def _tree(write_tree: WriteTree, tool_table: str) -> Path:
    return write_tree({"pkg/consumer.py": CONSUMER}, f"[project]\nname = 'sample'\n\n[tool.epochlint]\n{tool_table}\n")


# (key as written, what the message must say was expected)
WRONG_VALUES: dict[str, tuple[str, str, str]] = {
    "select_string": ('select = "EPL001"', "select", "expected a list of rule codes"),
    "select_table": ("select = {}", "select", "expected a list of rule codes, got a table"),
    "select_empty": ("select = []", "select", "expected at least one rule code"),
    "select_unknown": ('select = ["EPL999"]', "select", "unknown rule code 'EPL999'"),
    "select_blank": ('select = [""]', "select", "unknown rule code ''"),
    "select_number_item": ('select = ["EPL001", 1]', "select", "item 2 is 1"),
    "ignore_lowercase": ('ignore = ["epl001"]', "ignore", "did you mean 'EPL001'?"),
    "ignore_bool": ("ignore = true", "ignore", "expected a list of rule codes, got true"),
    "per_file_ignores_list": ('per-file-ignores = ["tests/*"]', "per-file-ignores", "expected a table"),
    "per_file_ignores_empty_pattern": (
        'per-file-ignores = {"" = ["EPL001"]}', 'per-file-ignores.""', "expected a file pattern"
    ),
    "per_file_ignores_codes_string": (
        'per-file-ignores = {"t/*" = "EPL001"}', 'per-file-ignores."t/*"', "expected a list"
    ),
    "exclude_string": ('exclude = "build"', "exclude", "expected a list of file patterns"),
    "exclude_empty": ('exclude = [""]', "exclude", "expected a file pattern, got an empty string"),
    "exclude_comment": ('exclude = ["#gen"]', "exclude", "is a comment in gitignore syntax"),
    "exclude_negation_only": ('exclude = ["!"]', "exclude", "invalid file pattern '!'"),
    "exclude_bad_range": (
        'exclude = ["**/[z-a]"]', "exclude", "invalid file pattern '**/[z-a]' (bad character range z-a)"
    ),
    "exclude_unclosed_bracket": ('exclude = ["gen/["]', "exclude", "pattern 'gen/[' matches no file"),
    "exclude_root_only": ('exclude = ["/"]', "exclude", "pattern '/' matches no file"),
    # gitignore syntax never matches `.` or `..`: the folder was silently left in.
    "exclude_dot_slash": ('exclude = ["./gen"]', "exclude", "write '/gen' for the one at the root"),
    "per_file_ignores_dot_dot": (
        'per-file-ignores = {"../x.py" = ["EPL001"]}', 'per-file-ignores."../x.py"', "pattern '../x.py' matches no file"
    ),
    "per_file_ignores_unclosed_bracket": (
        'per-file-ignores = {"[" = ["EPL001"]}', 'per-file-ignores."["', "an unclosed '['"
    ),
    "test_paths_string": ('test-paths = "tests/"', "test-paths", "expected a list of file patterns"),
    "test_paths_comment": ('test-paths = ["#t"]', "test-paths", "is a comment in gitignore syntax"),
    "epoch_pattern_unclosed": ('epoch-pattern = "(epoch"', "epoch-pattern", "invalid regular expression"),
    "epoch_pattern_empty_match": ('epoch-pattern = "epoch|"', "epoch-pattern", "matches the empty string"),
    "epoch_pattern_list": ('epoch-pattern = ["epoch"]', "epoch-pattern", "expected a regular expression string"),
    "epoch_pattern_bad_escape": ('epoch-pattern = "\\\\"', "epoch-pattern", "invalid regular expression"),
    "lock_pattern_empty": ('lock-pattern = ""', "lock-pattern", "expected a regular expression, got an empty string"),
    "lock_pattern_duplicate_group": ('lock-pattern = "(?P<a>x)(?P<a>y)"', "lock-pattern", "redefinition of group"),
    "lock_decorators_list": ('lock-decorators = ["synchronized"]', "lock-decorators", "expected a table"),
    "lock_decorators_blank_name": (
        'lock-decorators = {"" = "_lock"}', 'lock-decorators.""', "expected a decorator name"
    ),
    "lock_decorators_self": ('lock-decorators = {sync = "self._lock"}', "lock-decorators.sync", "without 'self.'"),
    "iteration_helpers_not_names": ('iteration-helpers = ["each item"]', "iteration-helpers", "is not a Python name"),
    "rewind_methods_empty_name": ('rewind-methods = [""]', "rewind-methods", "is not a Python name"),
    "commit_sinks_bool_item": ("commit-sinks = [true]", "commit-sinks", "item 1 is true"),
    "historical_sources_table": ("historical-epoch-sources = {}", "historical-epoch-sources", "got a table"),
    "current_sources_float": ("current-epoch-sources = 1.5", "current-epoch-sources", "got 1.5"),
    "receivers_dotted_twice": (
        'historical-epoch-receivers = ["a..b"]', "historical-epoch-receivers", "not a Python name"
    ),
    "guards_one_part": ('guards = {"_epoch" = "_lock"}', "guards._epoch", "expected a field as 'Class.field'"),
    "guards_lock_list": ('guards = {"C._epoch" = ["_lock"]}', 'guards."C._epoch"', "expected an attribute name"),
    "guards_number": ("guards = 3", "guards", "expected a table of epoch fields"),
    "max_file_size_zero": ("max-file-size = 0", "max-file-size", "expected a positive number of bytes, got 0"),
    "max_file_size_negative": ("max-file-size = -5", "max-file-size", "positive number of bytes, got -5"),
    "max_file_size_float": ("max-file-size = 1.5", "max-file-size", "expected a whole number of bytes, got 1.5"),
    "max_file_size_text": ('max-file-size = "1MB"', "max-file-size", "got '1MB'"),
    "max_file_size_bool": ("max-file-size = true", "max-file-size", "got true"),
    "respect_gitignore_text": ('respect-gitignore = "no"', "respect-gitignore", "expected true or false, got 'no'"),
    "respect_gitignore_number": ("respect-gitignore = 0", "respect-gitignore", "expected true or false, got 0"),
    "unknown_key": ('epoch-patern = "epoch"', "epoch-patern", "unknown key"),
    "underscore_key": ('epoch_pattern = "epoch"', "epoch_pattern", "did you mean 'epoch-pattern'?"),
    "duplicate_key": ('select = ["ALL"]\nselect = ["ALL"]', "pyproject.toml", "invalid TOML"),
    "not_toml": ("select = [", "pyproject.toml", "invalid TOML"),
    "nested_past_the_parser": ("a = " + "[" * 10_000 + "]" * 10_000, "pyproject.toml", "nested too deeply to read"),
}


@pytest.mark.parametrize(("tool_table", "key", "expected"), WRONG_VALUES.values(), ids=WRONG_VALUES.keys())
def test_a_wrong_value_in_the_configuration_names_the_key(
    write_tree: WriteTree, tool_table: str, key: str, expected: str
) -> None:
    root = _tree(write_tree, tool_table)
    line = assert_usage_error(epochlint_in_process(root, "check", "--no-cache"), key, expected)
    assert line.startswith("epochlint: error: pyproject.toml:"), line


def test_a_settings_table_that_is_not_a_table_names_it(write_tree: WriteTree) -> None:
    root = write_tree({"pkg/consumer.py": CONSUMER}, "[project]\nname = 'sample'\n[tool]\nepochlint = 'on'\n")
    assert_usage_error(epochlint_in_process(root, "check"), "[tool.epochlint]", "expected a table, got 'on'")


def test_a_config_file_that_is_not_utf8_says_where(write_tree: WriteTree) -> None:
    root = write_tree({"pkg/consumer.py": CONSUMER})
    (root / "pyproject.toml").write_bytes(b"[project]\nname = 'caf\xe9'\n")
    assert_usage_error(epochlint_in_process(root, "check"), "pyproject.toml", "not UTF-8 (at line 2, column 12)")


def test_a_huge_size_limit_is_accepted_and_files_are_read_as_they_are(write_tree: WriteTree) -> None:
    """A limit far beyond what can be allocated used to crash the read (OverflowError)."""
    root = _tree(write_tree, "max-file-size = 99999999999999999999")
    run = epochlint_in_process(root, "check", "--no-cache")
    assert run.status == 1 and "EPL001" in run.stdout and run.stderr == "", run


# (arguments after `check`, the flag or value the message must name, what it must say)
WRONG_ARGUMENTS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "select_unknown": (("--select", "EPL999"), "--select", "unknown rule code 'EPL999'"),
    "select_empty": (("--select", ""), "--select", "expected at least one rule code"),
    "select_only_commas": (("--select", ",,"), "--select", "expected at least one rule code"),
    "select_missing_value": (("--select",), "--select", "expected one argument"),
    "ignore_with_space": (("--ignore", "EPL 001"), "--ignore", "unknown rule code 'EPL 001'"),
    "select_rule_name": (
        ("--select", "unlocked-epoch-read-in-batch-loop"),
        "--select",
        "'unlocked-epoch-read-in-batch-loop' is the name of EPL001: give its code, EPL001",
    ),
    "ignore_unknown_name_as_typed": (("--ignore", "no-such-rule"), "--ignore", "unknown rule code 'no-such-rule'"),
    "select_typo_two_codes_alike": (("--select", "EPL01"), "--select", "(did you mean 'EPL001' or 'EPL901'?)"),
    "output_format_unknown": (("--output-format", "xml"), "--output-format", "invalid choice: 'xml'"),
    "jobs_zero": (("--jobs", "0"), "--jobs", "expected a positive whole number, got '0'"),
    "jobs_negative": (("--jobs", "-2"), "--jobs", "expected a positive whole number"),
    "jobs_fraction": (("--jobs", "1.5"), "--jobs", "expected a positive whole number, got '1.5'"),
    "jobs_word": (("--jobs", "many"), "--jobs", "got 'many'"),
    "config_missing": (("--config", "nope.toml"), "nope.toml", "config file not found"),
    "config_directory": (("--config", "pkg"), "pkg", "cannot read config file"),
    "config_without_table": (("--config", "pyproject.toml"), "pyproject.toml", "no [tool.epochlint] table"),
    "output_file_in_missing_folder": (("--output-file", "no/such/out.json"), "no/such/out.json", "cannot write"),
    "output_file_is_a_folder": (("--output-file", "pkg"), "pkg", "cannot write"),
    "path_missing": (("no/such/dir",), "no/such/dir", "path not found"),
    # An empty path read as the current folder (or, for --output-file, as a busy device).
    "path_empty": (("",), "PATH", "an empty path names no file or folder"),
    "output_file_empty": (("--output-file", ""), "--output-file", "an empty path names no file or folder"),
    "stdin_filename_empty": (("-", "--stdin-filename", ""), "--stdin-filename", "an empty path names no file"),
    "second_path_missing": (("pkg", "nope.py"), "nope.py", "path not found"),
    "unknown_flag": (("--frobnicate",), "--frobnicate", "unrecognized arguments"),
    "baseline_missing": (("--baseline", "missing.json"), "missing.json", "cannot read baseline"),
    "baseline_and_write_baseline": (
        ("--baseline", "a.json", "--write-baseline", "b.json"), "--write-baseline", "not allowed"
    ),
}


@pytest.mark.parametrize(("args", "named", "expected"), WRONG_ARGUMENTS.values(), ids=WRONG_ARGUMENTS.keys())
def test_a_wrong_command_line_names_the_flag(
    write_tree: WriteTree, args: tuple[str, ...], named: str, expected: str
) -> None:
    root = write_tree({"pkg/consumer.py": CONSUMER})
    assert_usage_error(epochlint_in_process(root, "check", "--no-cache", *args), named, expected)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        pytest.param(("frobnicate",), "frobnicate", id="unknown-command"),
        pytest.param(("rule", "EPL999"), "EPL999", id="unknown-rule"),
        pytest.param(("graph", "imports"), "imports", id="unknown-graph"),
        pytest.param((), "required", id="no-command"),
    ],
)
def test_a_wrong_command_names_it(write_tree: WriteTree, args: tuple[str, ...], named: str) -> None:
    assert_usage_error(epochlint_in_process(write_tree({}), *args), named)


def test_a_config_file_that_cannot_be_read_is_one_line(write_tree: WriteTree) -> None:
    root = write_tree({"pkg/consumer.py": CONSUMER})
    (root / "settings.toml").mkdir()
    assert_usage_error(epochlint_in_process(root, "check", "--config", "settings.toml"), "settings.toml")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda root: (root / "pkg" / ".epochlint.toml").symlink_to(root / "gone.toml"), "is a link to nothing"),
        (lambda root: (root / "pkg" / "pyproject.toml").mkdir(), "is not a file"),
    ],
    ids=["a link to nothing", "a folder"],
)
def test_a_configuration_file_that_is_not_a_file_is_an_error_not_the_defaults(
    write_tree: WriteTree, make: Callable[[Path], object], expected: str
) -> None:
    # Passed over in silence, it left the run on the defaults (or a folder above's settings).
    root = write_tree({"pkg/consumer.py": CONSUMER})
    make(root)
    line = assert_usage_error(epochlint_in_process(root / "pkg", "check"), expected)
    assert line.startswith("epochlint: error: "), line


def test_a_configuration_file_starting_with_a_byte_order_mark_says_so(write_tree: WriteTree) -> None:
    root = write_tree({"pkg/consumer.py": CONSUMER})
    (root / "pyproject.toml").write_bytes(b"\xef\xbb\xbf[tool.epochlint]\n")
    assert_usage_error(epochlint_in_process(root, "check"), "pyproject.toml", "byte order mark (BOM)")
