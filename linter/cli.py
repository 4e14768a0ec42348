"""The `epochlint` command line: check, server, rules, rule, graph."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from epochlint import __version__
from epochlint.config import (
    Config,
    ConfigError,
    configured_root_of,
    display_path,
    load_config,
    marks_a_project,
    settings_toml,
)
from epochlint.discovery import UsageError
from epochlint.fileio import path_missing, write_named_file
from epochlint.notices import hold_notices

if TYPE_CHECKING:
    from epochlint.workflow import CheckOutcome
    from epochlint.report.formats import Renderer

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
# The reader of the output closed it: what a shell reports for a command that SIGPIPE ended.
EXIT_READER_GONE = 128 + 13
# SIGINT's: the shell's status for a run stopped by Ctrl-C.
EXIT_INTERRUPTED = 128 + 2

OUTPUT_FORMATS = ("console", "concise", "json", "sarif", "github", "gitlab")
# The formats --statistics can print its counts in.
STATISTICS_FORMATS = ("console", "concise", "json")
CALL_GRAPH_FORMATS = ("json", "dot", "pycg")
LOCK_GRAPH_FORMATS = ("json", "dot")
RULES_FORMATS = ("table", "json")
ERROR_PREFIX = "epochlint: error: "
EXIT_STATUSES = (
    "exit status: 0 when there are no findings (or with --exit-zero), 1 when there are findings, "
    "2 on a usage or configuration error, when the report cannot be written, or on an internal error, "
    "130 when interrupted (Ctrl-C), 141 when the reader of the output closed it early (| head)"
)

# rich reads both variables (https://no-color.org, https://force-color.org).
COLOURS = "Colours only on a terminal: NO_COLOR=1 leaves them out, FORCE_COLOR=1 prints them through a pipe too"


def error_line(message: str) -> str:
    """`message` as every error line reads: one line, behind the one `epochlint: error:` prefix."""
    return ERROR_PREFIX + message.removeprefix("epochlint: ").removeprefix("error: ")


def _given_path(text: str) -> Path:
    """A path given on the command line: an empty one names nothing (Path("") would be the current
    folder, a file name left out by mistake)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return Path(text)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, not a usage block and a line, and it points at the
    help of the command that was given."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, error_line(f"{message} (see '{self.prog} --help')") + "\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # Unknown arguments are the innermost command's to report: `check --bogus` points at
        # `epochlint check --help`, not at the top-level help.
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return int(text)


def _codes(text: str) -> list[str]:
    """Codes and prefixes in any case (`epl001`); a rule's name is refused with its code."""
    codes = [code.strip() for code in text.split(",") if code.strip()]
    for code in codes:
        if "-" in code:
            from epochlint.rules import rule_by_code

            rule = rule_by_code(code)
            if rule is not None:
                raise argparse.ArgumentTypeError(f"{code!r} is the name of {rule.code}: give its code, {rule.code}")
    return [code.upper() if "-" not in code else code for code in codes]


def _patterns(text: str) -> list[str]:
    return [pattern.strip() for pattern in text.split(",") if pattern.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="epochlint",
        description="Static linter for epoch-lock discipline in message-consumer code.",
    )
    parser.add_argument("--version", action="version", version=f"epochlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    _add_check_parser(commands)
    commands.add_parser(
        "server", help="run the Language Server for editors, on stdin and stdout (needs epochlint[lsp])"
    )
    clean = commands.add_parser("clean", help="delete the cache of the project found from PATH")
    clean.add_argument(
        "path",
        nargs="?",
        type=_given_path,
        default=Path("."),
        metavar="PATH",
        help="a file or folder of the project (default: .)",
    )
    clean.add_argument("--config", type=_given_path, metavar="FILE", help=CONFIG_HELP)
    rules = commands.add_parser("rules", help="list every rule")
    rules.add_argument("--output-format", choices=RULES_FORMATS, default="table", help="a table, or JSON for tools")
    rule = commands.add_parser("rule", help="show a rule's documentation")
    rule.add_argument(
        "code", metavar="CODE|NAME", help="a rule's code (EPL001) or name (unlocked-epoch-read-in-batch-loop)"
    )
    _add_graph_parser(commands)

    from epochlint.audit.command import add_audit_parser

    add_audit_parser(commands)
    _describe_commands(parser)
    return parser


def _describe_commands(parser: argparse.ArgumentParser) -> None:
    """Give every command without a description its summary as one, so that its `--help` says what
    it does, as `epochlint --help` and docs/cli.md do."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, command in action.choices.items():
                command.description = command.description or help_sentence(summaries[name])
                _describe_commands(command)


def help_sentence(text: str) -> str:
    """A help text as a sentence: capitalised, with one full stop."""
    return text[0].upper() + text[1:].rstrip(".") + "."


CONFIG_HELP = "configuration file (default: the nearest .epochlint.toml, epochlint.toml or pyproject.toml)"


def _add_check_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    check = commands.add_parser("check", help="analyse files and report findings", epilog=f"{EXIT_STATUSES}. {COLOURS}")
    check.add_argument(
        "paths",
        nargs="*",
        type=_given_path,
        metavar="PATH",
        help="files or folders (default: .); - reads one file from stdin, named by --stdin-filename",
    )
    check.add_argument(
        "--stdin-filename",
        type=_given_path,
        metavar="FILE",
        help="with -, the file that stdin holds: analysed in place of FILE, inside the project found from FILE"
        " (alone where no configuration file, pyproject.toml or git work tree marks one)",
    )
    check.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        help="how to print findings (default: console; concise: one line a finding)",
    )
    check.add_argument("-q", "--quiet", action="store_true", help="print the findings and nothing else")
    check.add_argument(
        "--statistics", action="store_true", help="print how many findings each rule reported, not the findings"
    )
    # Each takes a comma-separated list, and a repeated option adds to the list (as ruff's do).
    for flag, parse, metavar, what in (
        ("--select", _codes, "CODES", "codes or prefixes to enable, instead of the configuration's (and its ignore)"),
        ("--ignore", _codes, "CODES", "codes or prefixes to disable, instead of the configuration's"),
        ("--extend-select", _codes, "CODES", "codes or prefixes to enable beside the configuration's"),
        ("--extend-ignore", _codes, "CODES", "codes or prefixes to disable beside the configuration's"),
        ("--exclude", _patterns, "PATTERNS", "file patterns to leave out, instead of the configuration's"),
        ("--extend-exclude", _patterns, "PATTERNS", "file patterns to leave out beside the configuration's"),
    ):
        check.add_argument(
            flag, type=parse, action="extend", metavar=metavar, help=f"{what} (comma-separated; repeatable)"
        )
    check.add_argument("--config", type=_given_path, metavar="FILE", help=CONFIG_HELP)
    check.add_argument("--exit-zero", action="store_true", help="exit with status 0 even when there are findings")
    check.add_argument(
        "--output-file",
        type=_given_path,
        metavar="FILE",
        help="write the report to FILE instead of stdout (a file is replaced whole; a stream such as /dev/stdout"
        " or a named pipe is written into)",
    )
    check.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the facts cache (.epochlint_cache/)"
    )
    check.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help=(
            "processes that parse files and analyse independent parts (default: one per idle core);"
            " unless 1, a large program's data-flow rules, and a cold run's cache writes, also run in"
            " processes of their own"
        ),
    )
    check.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        help="leave out the files git ignores (.gitignore, .git/info/exclude) when walking folders"
        " (default: the configuration's respect-gitignore, true)",
    )
    check.add_argument(
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        help="leave out the files and folders named on the command line that `exclude` (or a default"
        " folder such as build/) leaves out of a walk, as pre-commit names them (default: the"
        " configuration's force-exclude, false)",
    )
    check.add_argument(
        "--show-files", action="store_true", help="print the files a check would analyse, and nothing else"
    )
    check.add_argument(
        "--show-settings",
        action="store_true",
        help="print the settings in force for the first path (as TOML) and where they come from",
    )
    check.add_argument(
        "--no-prefilter",
        action="store_true",
        help="parse every file, also those whose text cannot matter to any rule (same findings, slower)",
    )
    check.add_argument(
        "--whole-project",
        action="store_true",
        help="analyse the whole project (the configuration's root) and report only the findings that "
        "involve the given files (for pre-commit, which passes the changed files); files of several "
        "projects: each project in turn, in one report naming files from the current folder (console, "
        "concise or github output, without a baseline)",
    )
    baseline = check.add_mutually_exclusive_group()
    baseline.add_argument(
        "--baseline", type=_given_path, metavar="FILE", help="report only findings not recorded in FILE"
    )
    baseline.add_argument("--write-baseline", type=_given_path, metavar="FILE", help="record today's findings in FILE")
    check.add_argument("--fix", action="store_true", help="apply the fixes that are mechanical and safe")
    check.add_argument(
        "--diff",
        action="store_true",
        help="show those fixes as a diff instead of writing them (exit status 1 when there is one to show)",
    )


def _add_graph_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    graph = commands.add_parser(
        "graph",
        help="export the program's graphs",
        description=(
            "Export the program's graphs: the call graph (JSON, dot, PyCG's format)"
            " or the lock-order graph (JSON, dot)."
        ),
    )
    kinds = graph.add_subparsers(dest="kind", metavar="GRAPH", parser_class=_Parser)
    kinds.required = True
    for kind, formats, what in (
        ("calls", CALL_GRAPH_FORMATS, "the call graph: functions and the resolved calls between them"),
        ("locks", LOCK_GRAPH_FORMATS, "the lock-order graph, with the guard of every epoch field"),
    ):
        command = kinds.add_parser(kind, help=what, description=f"Export {what}.")
        command.add_argument("paths", nargs="*", type=_given_path, metavar="PATH", help="files or folders (default: .)")
        command.add_argument("--format", choices=formats, default="json", help="the export format")
        command.add_argument("--config", type=_given_path, metavar="FILE", help=CONFIG_HELP)


def main(argv: Sequence[str] | None = None) -> int:
    stderr = sys.stderr
    sys.stderr = _Diagnostics(stderr)
    try:
        return _main(argv)
    finally:
        sys.stderr = stderr


def _main(argv: Sequence[str] | None) -> int:
    _tolerate_unencodable_output()
    args = build_parser().parse_args(argv)
    if args.command != "server":  # the server speaks through pygls' own writer
        _write_stdout_whole()
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "rules":
            with _report_stream() as stdout:
                return _rules(args.output_format, stdout)
        if args.command == "clean":
            return _clean(args)
        if args.command == "server":
            return _server()
        if args.command == "rule":
            with _report_stream() as stdout:
                return _rule(args.code, stdout)
        if args.command == "audit":
            from epochlint.audit.command import audit

            return audit(args)
        return _graph(args)
    except (ConfigError, UsageError) as error:
        print(error_line(str(error)), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(error_line("interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _reader_gone()
    except Exception as error:  # a bug of ours: one line, not a traceback
        where = _innermost_frame(error)
        print(
            error_line(
                f"internal error: {type(error).__name__}: {_first_line(error)} (at {where}); "
                "please report it with the code that triggers it"
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE


@contextmanager
def _report_stream() -> Iterator[TextIO]:
    """stdout, to write a report to and flush: a write that fails (a full disk, a closed stdout) is
    an error that says so, not a report cut short in silence. A reader that went away is not."""
    if sys.stdout is None:
        raise UsageError("cannot write the report: stdout is closed")
    try:
        yield sys.stdout
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        _discard_stdout()
        raise UsageError(f"cannot write the report to stdout: {error.strerror or error}") from None


def _reader_gone() -> int:
    """The reader of the output closed it (`| head`): stop quietly, with the status a shell gives
    a command killed by SIGPIPE."""
    _discard_stdout()
    return EXIT_READER_GONE


def _discard_stdout() -> None:
    """What is left in stdout's buffer after a write failed goes nowhere: flushing it at exit
    would fail again, with a traceback and another exit status."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    with suppress(OSError, ValueError):  # a stdout without a descriptor has no buffer to lose
        os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


class _Diagnostics(io.TextIOBase):
    """stderr, whose writes never fail: a warning or an error that cannot be shown (stderr closed,
    or on a full disk) must not become a traceback, another exit status, or a line in the report
    on stdout (where `print(file=None)` would put it)."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self._stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._stream, "errors", None)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        with suppress(OSError, ValueError, AttributeError):
            return bool(self._stream is not None and self._stream.isatty())
        return False

    def fileno(self) -> int:
        if self._stream is None:
            raise io.UnsupportedOperation("stderr is closed")
        return self._stream.fileno()

    def write(self, text: str) -> int:
        with suppress(OSError, ValueError, AttributeError):
            if self._stream is not None:
                self._stream.write(text)
        return len(text)

    def flush(self) -> None:
        with suppress(OSError, ValueError, AttributeError):
            if self._stream is not None:
                self._stream.flush()


def _innermost_frame(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "unknown place"
    last = frames[-1]
    return f"{Path(last.filename).name}:{last.lineno} in {last.name}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "no message"


def _tolerate_unencodable_output() -> None:
    """Write what the output encoding cannot hold (a source line in a frame, on a cp1252 or ASCII
    console) as escapes, instead of failing in the middle of a report."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


class _WholeWrites(io.RawIOBase):
    """A descriptor that takes every byte it is given, or fails: Python's buffered writer returns
    a short count when a pipe's reader goes away in the middle of a large write (a JSON report
    into `| head`), and its text layer drops the rest in silence, so the run ended with status 1,
    not the 141 of a reader gone. Here the next write raises BrokenPipeError, as it should."""

    def __init__(self, descriptor: int) -> None:
        super().__init__()
        self._descriptor = descriptor

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._descriptor

    def isatty(self) -> bool:
        return os.isatty(self._descriptor)

    def write(self, data: bytes) -> int:  # type: ignore[override]
        left = memoryview(data).cast("B")
        while left:
            left = left[os.write(self._descriptor, left) :]
        return len(data)


def _write_stdout_whole() -> None:
    """Make the process's stdout write whole (see `_WholeWrites`); a stdout replaced by a caller
    (a test's capture) is left as it is."""
    stdout = sys.stdout
    if stdout is not sys.__stdout__ or not isinstance(stdout, io.TextIOWrapper):
        return
    try:
        descriptor = stdout.fileno()
    except (OSError, ValueError):
        return
    stdout.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_WholeWrites(descriptor)),
        encoding=stdout.encoding,
        errors=stdout.errors,
        line_buffering=stdout.line_buffering,
    )


def _load(args: argparse.Namespace, overrides: dict[str, object] | None = None) -> Config:
    from epochlint.rules import rule_codes

    known = rule_codes()
    return load_config(args.paths or [Path(".")], args.config, known, overrides)


def _check(args: argparse.Namespace) -> int:
    """`check`; with --whole-project, each project the given files belong to is analysed whole in
    turn (pre-commit passes the changed files of a monorepo's projects together)."""
    projects = _files_by_project(args)
    if len(projects) <= 1:
        outcome = _project_outcome(args)
        return outcome if isinstance(outcome, int) else _reported(args, outcome)
    _refuse_beside_several_projects(args, projects)
    from epochlint.workflow import CheckOutcome, combined

    results = []
    for root, files in projects.items():
        project_args = argparse.Namespace(**{**vars(args), "paths": files})
        if root is None:
            project_args.extend_exclude = [*(args.extend_exclude or ()), *_other_projects(project_args, projects)]
        outcome = _project_outcome(project_args)
        # Never a diff nor a listing: refused beside several projects.
        assert not isinstance(outcome, int) and outcome.diff is None
        results.append(outcome.result)
    args.output_format = args.output_format or "console"
    return _reported(args, CheckOutcome(combined(results, Path.cwd())))


def _files_by_project(args: argparse.Namespace) -> dict[Path | None, list[Path]]:
    """The files given, by the root of the project their nearest configuration file makes (None
    for those with none); one group, not looked at, without --whole-project or with --config."""
    paths: list[Path] = args.paths or []
    if not args.whole_project or args.config is not None or Path("-") in paths:
        return {None: paths}
    roots: dict[Path, Path | None] = {}
    projects: dict[Path | None, list[Path]] = {}
    for path in paths:
        folder = Path(os.path.abspath(path)).parent
        if folder not in roots:
            roots[folder] = configured_root_of(folder)
        projects.setdefault(roots[folder], []).append(path)
    return projects


def _other_projects(args: argparse.Namespace, projects: Mapping[Path | None, list[Path]]) -> list[str]:
    """Patterns leaving out, of the project the files with no configuration are analysed in (the
    git work tree or the current directory), the folders of the projects analysed on their own: a
    file is in the project of its nearest configuration, and analysed once."""
    root = _load(args).root
    inside = (Path(os.path.relpath(other, root)) for other in projects if other is not None)
    return [f"/{_literal_pattern(folder.as_posix())}/" for folder in inside if folder.parts[:1] not in ((), ("..",))]


def _literal_pattern(name: str) -> str:
    """`name` as an exclude pattern that matches it alone (`[eu]` is a character class otherwise)."""
    return re.sub(r"([\\*?\[\]])", r"\\\1", name)


def _refuse_beside_several_projects(args: argparse.Namespace, projects: Mapping[Path | None, list[Path]]) -> None:
    """Several projects give several reports, one after the other: not for an option that writes one
    document or one file, or reads one baseline."""
    single = {
        "--output-format json, sarif or gitlab": (args.output_format or "console") in ("json", "sarif", "gitlab"),
        "--output-file": args.output_file is not None,
        "--baseline": args.baseline is not None,
        "--write-baseline": args.write_baseline is not None,
        "--diff": args.diff,
        "--statistics": args.statistics,
        "--show-settings": args.show_settings,
        "--show-files": args.show_files,
    }
    chosen = [option for option, given in single.items() if given]
    if chosen:
        named = ", ".join(display_path(root) if root is not None else "files in no project" for root in projects)
        raise UsageError(
            f"the files given belong to several projects ({named}), each analysed whole with --whole-project;"
            f" {chosen[0]} needs one: check each project on its own"
        )


def _project_outcome(args: argparse.Namespace) -> CheckOutcome | int:
    """What `check` finds in one project (the exit status, where it only lists files or settings)."""
    from epochlint.discovery import in_memory_path
    from epochlint.workflow import CheckRequest, run_check

    if args.diff:
        _refuse_beside_diff(args)
    if args.quiet:
        hold_notices()  # the findings and nothing else: what was left out goes unsaid too
    # No default in the parser, so that --diff can tell an asked format from none.
    args.output_format = args.output_format or "console"
    if args.statistics and args.output_format not in STATISTICS_FORMATS:
        raise UsageError(f"--statistics prints its counts as console text or json, not as {args.output_format}")
    stdin_file = _stdin_file(args)
    if stdin_file is not None:
        args.paths = [stdin_file]
    config = _load(
        args,
        {
            "select": args.select,
            "ignore": args.ignore,
            "extend_select": args.extend_select,
            "extend_ignore": args.extend_ignore,
            "exclude": args.exclude,
            "extend_exclude": args.extend_exclude,
            "respect_gitignore": args.respect_gitignore,
            "force_exclude": args.force_exclude,
        },
    )
    if stdin_file is not None:
        # The file on stdin, inside the whole project its name places it in; where nothing marks
        # one, alone (the current directory could be a home folder: nothing to walk for one file).
        # An excluded one (`--force-exclude`) is not checked: no project around it either.
        args.whole_project = args.whole_project or (marks_a_project(config) and not _left_out(stdin_file, config))
    if args.show_settings:
        _write_output(args, lambda stream: stream.write(settings_toml(config)))
        return EXIT_CLEAN
    if args.show_files:
        listing = _files_shown(args, config, stdin_file)
        _write_output(args, lambda stream: stream.write(listing))
        return EXIT_CLEAN
    in_memory = {in_memory_path(stdin_file): _stdin_bytes()} if stdin_file is not None else {}
    request = CheckRequest(
        tuple(args.paths or [Path(".")]),
        args.whole_project,
        args.baseline,
        args.write_baseline,
        args.fix,
        args.diff,
        use_cache=not args.no_cache,
        progress=sys.stderr.isatty() and not args.quiet,
        jobs=args.jobs,
        prefilter=not args.no_prefilter,
        in_memory=in_memory,
    )
    return run_check(request, config)


def _stdin_bytes() -> bytes:
    """The text `check -` analyses."""
    if sys.stdin is None:
        raise UsageError("cannot read the code to check from stdin: stdin is closed")
    try:
        return sys.stdin.buffer.read()
    except OSError as error:
        raise UsageError(f"cannot read the code to check from stdin: {error.strerror or error}") from None


def _reported(args: argparse.Namespace, outcome: CheckOutcome) -> int:
    """Print what a check found (to --output-file) and the notes; the exit status."""
    if outcome.diff is not None:
        with _report_stream() as stdout:
            stdout.buffer.write(outcome.diff)  # the files' own bytes: a diff is not text of one encoding
        if not args.quiet:
            # On stderr: stdout holds the diff alone, for `patch` or `git apply`.
            print(f"note: {outcome.diff_summary}", file=sys.stderr)
        return EXIT_FINDINGS if outcome.diff and not args.exit_zero else EXIT_CLEAN
    result = outcome.result
    render = _renderer(args)
    _write_output(args, partial(render, result))
    if not args.quiet and not _shows_notes(args):
        # Else what the run did (fixes applied, a baseline written) would be told nowhere.
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _write_output(args: argparse.Namespace, write: Callable[[TextIO], object]) -> None:
    """What `write` writes, to --output-file or else stdout. A file gets it whole, written
    atomically: a full disk leaves the previous report (see `write_named_file`)."""
    if args.output_file is None:
        with _report_stream() as stdout:
            write(stdout)
        return
    report = io.StringIO(newline="\n")
    write(report)
    try:
        write_named_file(args.output_file, report.getvalue().encode("utf-8"))
    except BrokenPipeError:
        raise  # a stream's reader that went away (`--output-file /dev/stdout | head`), as for stdout
    except OSError as error:
        raise UsageError(f"epochlint: cannot write {args.output_file}: {error.strerror}") from None


def _left_out(stdin_file: Path, config: Config) -> bool:
    """Whether the file on stdin, by the name given, is one a walk leaves out and --force-exclude
    applies to it."""
    from epochlint.discovery import discover, in_memory_path

    sources, _ = discover([stdin_file], config, in_memory=[in_memory_path(stdin_file)], warn_left_out=False)
    return not sources


def _files_shown(args: argparse.Namespace, config: Config, stdin_file: Path | None) -> str:
    """The files a check with these arguments would analyse, by the names its report gives them,
    and those it would report as EPL900 without reading them, with why: one a line."""
    from epochlint.discovery import discover, in_memory_path
    from epochlint.workflow import analysed_paths

    analysed = analysed_paths(args.paths or [Path(".")], args.whole_project, config)
    held = [in_memory_path(stdin_file)] if stdin_file is not None else []
    sources, problems = discover(analysed, config, in_memory=held)
    lines = [(source.rel, "") for source in sources]
    lines += [(problem.rel, f"  (EPL900: {problem.reason})") for problem in problems]
    return "".join(f"{name}{why}\n" for name, why in sorted(lines))


def _shows_notes(args: argparse.Namespace) -> bool:
    """Whether the report printed holds the run's notes: the summary of the formats people read
    (those with a quiet form) does."""
    from epochlint.report.formats import QUIET_FORMATS

    return not args.statistics and args.output_format in QUIET_FORMATS


def _refuse_beside_diff(args: argparse.Namespace) -> None:
    """--diff prints a patch on stdout and nothing else: an option that asks for a report or a file
    would be silently ignored."""
    ignored = {
        "--output-format": args.output_format is not None,
        "--output-file": args.output_file is not None,
        "--statistics": args.statistics,
        "--write-baseline": args.write_baseline is not None,
    }
    for option, given in ignored.items():
        if given:
            raise UsageError(
                f"epochlint: error: --diff prints the fixes as a patch on stdout; it cannot be combined with {option}"
            )


def _renderer(args: argparse.Namespace) -> Renderer:
    from epochlint.report import statistics
    from epochlint.report.formats import FORMATS, QUIET_FORMATS

    if args.statistics:
        return statistics.render_json if args.output_format == "json" else statistics.render
    if args.quiet and args.output_format in QUIET_FORMATS:
        return QUIET_FORMATS[args.output_format]
    return FORMATS[args.output_format]


def _stdin_file(args: argparse.Namespace) -> Path | None:
    """The file stdin stands for, when the path is `-`; None when files are read from disk."""
    reads_stdin = Path("-") in args.paths
    if not reads_stdin:
        if args.stdin_filename is not None:
            raise UsageError("epochlint: error: --stdin-filename needs - as the path (to read the file from stdin)")
        return None
    if len(args.paths) > 1:
        raise UsageError("epochlint: error: - (stdin) cannot be combined with other paths")
    if args.stdin_filename is None:
        raise UsageError("epochlint: error: - (stdin) needs --stdin-filename, the name of the file stdin holds")
    if args.fix and not args.diff:  # `--fix --diff` writes nothing
        raise UsageError("epochlint: error: --fix cannot write to stdin (use --diff to see the fixes)")
    if os.path.isdir(args.stdin_filename):
        raise UsageError(
            f"epochlint: error: --stdin-filename {args.stdin_filename} is a folder:"
            " give the name of the file stdin holds"
        )
    return args.stdin_filename


def _clean(args: argparse.Namespace) -> int:
    """Delete the cache of the project that `args.path` is in (where `check` keeps it)."""
    from epochlint.cache import remove_cache
    from epochlint.rules import rule_codes

    if path_missing(args.path):
        raise UsageError(f"epochlint: path not found: {args.path}")
    root = load_config([args.path], args.config, rule_codes()).root
    project = "the current folder" if root == Path.cwd() else display_path(root)
    try:
        removed = remove_cache(root)
    except OSError as error:
        reason = error.strerror or error
        raise UsageError(f"epochlint: cannot delete the cache of the project in {project}: {reason}") from None
    with _report_stream() as stdout:
        if removed is None:
            print(f"No cache to delete for the project in {project}.", file=stdout)
        else:
            print(f"Deleted {display_path(removed)}, the cache of the project in {project}.", file=stdout)
    return EXIT_CLEAN


def _server() -> int:
    try:
        from epochlint.server import serve
    except ImportError as error:
        raise UsageError(
            f"epochlint: error: the server needs pygls ({error}); install epochlint with its lsp extra (pygls)"
        ) from None
    return serve()


def _rules(output_format: str, stream: TextIO) -> int:
    from rich.table import Table

    from epochlint.docs import rule_listing
    from epochlint.fix import FIXERS
    from epochlint.report.console import StreamConsole
    from epochlint.rules import all_rules

    if output_format == "json":
        stream.write(json.dumps(rule_listing(), indent=2) + "\n")
        return EXIT_CLEAN
    table = Table(title="epochlint rules")
    table.add_column("Code", style="bold")
    table.add_column("Name", no_wrap=True)
    table.add_column("Summary")
    table.add_column("Autofix", no_wrap=True)
    for rule in all_rules():
        table.add_row(rule.code, rule.name, rule.summary, "--fix" if rule.code in FIXERS else "")
    StreamConsole(file=stream, soft_wrap=False).print(table)
    return EXIT_CLEAN


def _rule(code: str, stream: TextIO) -> int:
    from rich.markdown import Markdown

    from epochlint.report.console import StreamConsole
    from epochlint.rules import all_rules, rule_by_code

    rule = rule_by_code(code)
    if rule is None:
        known = ", ".join(r.code for r in all_rules())
        raise UsageError(f"unknown rule '{code}' (a code or a name; known codes: {known}; see 'epochlint rules')")
    console = StreamConsole(file=stream)
    if console.is_terminal:
        console.print(Markdown(rule.documentation()))
    else:
        stream.write(rule.documentation())
    return EXIT_CLEAN


def _graph(args: argparse.Namespace) -> int:
    from epochlint.collect import collect_facts, read_sources
    from epochlint.discovery import discover
    from epochlint.engine import FileResult, build_program, unit_module_names
    from epochlint.program.budget import WorkLimitReached
    from epochlint.report.graphs import write_call_graph, write_lock_graph

    config = _load(args)
    sources, problems = discover(args.paths or [Path(".")], config)
    names = unit_module_names(sources, config.root)
    # Every file in full, each by its own frontend (Java's too), as `check` reads them.
    collected = collect_facts(sources, read_sources(sources, config), names, config, prefilter=False)
    results = [FileResult(source, facts) for source, facts in zip(sources, collected.facts)]
    program = build_program(results, config)
    for problem in problems:
        print(f"epochlint: warning: {problem.rel}: {problem.reason}", file=sys.stderr)
    for result in results:
        if result.facts.error:
            print(f"epochlint: warning: {result.source.rel}: not in the graph: {result.facts.error}", file=sys.stderr)
    write = write_lock_graph if args.kind == "locks" else write_call_graph
    try:
        with _report_stream() as stdout:
            write(program, args.format, stdout)
    except WorkLimitReached as limit:
        where = program.location(limit.function, limit.pos)
        place = f"{where.path}:{where.line}:{where.column}"
        print(error_line(f"cannot draw the graph: {limit} (at {place})"), file=sys.stderr)
        return EXIT_USAGE
    return EXIT_CLEAN


def run() -> NoReturn:
    status = main()
    if status == EXIT_INTERRUPTED:
        # The worker processes the same Ctrl-C stopped leave concurrent.futures' exit hook a
        # closed pipe, which it reports with a traceback: what is left to do is flush and go.
        with suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)
    sys.exit(status)
