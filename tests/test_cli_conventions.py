"""The command line's conventions, after ruff's: quiet and concise output, statistics, rules as JSON,
rules by name, one error prefix, help that points at the command that was given."""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from epochlint.cli import main
from tests.conftest import FIXTURES
from tests.test_cli import CONSUMER, ENV, LOOP, RACY_CONSUMER, TWO_LOOP_CONSUMER, WriteTree, epochlint, line_of
from tests.test_stdin import BASE, RACY_SUBCLASS


def test_concise_prints_one_line_a_finding_then_the_summary(write_tree: WriteTree) -> None:
    result = epochlint(write_tree({CONSUMER: TWO_LOOP_CONSUMER}), "check", "--output-format", "concise")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line.split(": EPL001 ")[0] for line in lines[:2]] == [
        f"{CONSUMER}:{line_of(TWO_LOOP_CONSUMER, LOOP, 1)}:9",
        f"{CONSUMER}:{line_of(TWO_LOOP_CONSUMER, LOOP, 2)}:9",
    ]
    assert lines[2:] == ["Found 2 findings (EPL001: 2) in 1 file."]


@pytest.mark.parametrize("fmt", ["console", "concise"])
def test_quiet_prints_the_findings_and_nothing_else(write_tree: WriteTree, fmt: str) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER, "pkg/clean.py": "x = 1\n"})
    result = epochlint(root, "check", "--quiet", "--output-format", fmt)
    assert result.returncode == 1
    assert result.stdout.startswith(f"{CONSUMER}:{line_of(RACY_CONSUMER, LOOP)}:9: EPL001 ")
    assert "Found" not in result.stdout and result.stderr == ""
    clean = epochlint(root, "check", "-q", "pkg/clean.py")
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")


@pytest.mark.parametrize(
    ("variables", "coloured"),
    [
        ({}, False),
        ({"FORCE_COLOR": "1"}, True),
        ({"NO_COLOR": "1"}, False),
        # NO_COLOR left bold text; it leaves out every style, as where both are set.
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_colours_follow_the_variables_the_help_names(
    write_tree: WriteTree, variables: dict[str, str], coloured: bool
) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    assert "FORCE_COLOR=1" in epochlint(root, "check", "--help").stdout
    command = [sys.executable, "-m", "epochlint", "check"]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, env={**ENV, **variables}, timeout=120)
    assert result.returncode == 1
    assert ("\x1b[" in result.stdout) == coloured


def test_a_report_written_to_a_file_has_no_colours_whatever_force_color_says(write_tree: WriteTree) -> None:
    # CI sets FORCE_COLOR=1 for its logs; the report file got the escape codes.
    root = write_tree({CONSUMER: RACY_CONSUMER})
    command = [sys.executable, "-m", "epochlint", "check", "--output-file", "report.txt"]
    result = subprocess.run(
        command, cwd=root, capture_output=True, text=True, env={**ENV, "FORCE_COLOR": "1"}, timeout=120
    )
    assert result.returncode == 1, result.stderr
    report = (root / "report.txt").read_text(encoding="utf-8")
    assert " EPL001 " in report and "\x1b[" not in report


def test_statistics_count_the_findings_per_rule(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: TWO_LOOP_CONSUMER})
    result = epochlint(root, "check", "--statistics")
    assert (result.returncode, result.stdout) == (1, "2  EPL001  unlocked-epoch-read-in-batch-loop\n")
    as_json = json.loads(epochlint(root, "check", "--statistics", "--output-format", "json").stdout)
    assert as_json == [{"code": "EPL001", "name": "unlocked-epoch-read-in-batch-loop", "count": 2}]


@pytest.mark.parametrize("report", [["--statistics"], ["--output-format", "json"], ["--output-format", "github"]])
def test_what_the_run_did_is_told_on_stderr_where_the_report_has_no_notes(
    write_tree: WriteTree, report: list[str]
) -> None:
    root = write_tree({CONSUMER: TWO_LOOP_CONSUMER})
    result = epochlint(root, "check", "--write-baseline", "baseline.json", *report)
    assert result.returncode == 0
    assert result.stderr == "note: baseline written to baseline.json (findings recorded: 2)\n"
    assert (root / "baseline.json").is_file()
    assert epochlint(root, "check", "--write-baseline", "baseline.json", "--quiet", *report).stderr == ""


def test_rules_as_json_list_every_rule(tmp_path: Path) -> None:
    result = epochlint(tmp_path, "rules", "--output-format", "json")
    rules = {rule["code"]: rule for rule in json.loads(result.stdout)}
    assert rules["EPL001"] == {
        "code": "EPL001",
        "name": "unlocked-epoch-read-in-batch-loop",
        "summary": "A batch loop reads an epoch field without holding the lock that guards it.",
        "fix": True,
    }
    assert rules["EPL901"]["name"] == "unused-suppression"


def test_rule_by_name_is_the_rule_by_code(tmp_path: Path) -> None:
    by_name = epochlint(tmp_path, "rule", "unused-suppression")
    assert by_name.returncode == 0
    assert by_name.stdout == epochlint(tmp_path, "rule", "EPL901").stdout
    assert by_name.stdout.startswith("# EPL901 unused-suppression")


def test_graph_help_describes_each_graph_and_offers_only_its_formats(tmp_path: Path) -> None:
    graph_help = epochlint(tmp_path, "graph", "--help").stdout
    assert "the call graph: functions and the resolved calls between them" in graph_help
    assert "the lock-order graph, with the guard of every epoch field" in graph_help
    assert "--format {json,dot}" in epochlint(tmp_path, "graph", "locks", "--help").stdout
    assert "--format {json,dot,pycg}" in epochlint(tmp_path, "graph", "calls", "--help").stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        pytest.param(
            ("check", "--bogus"), "unrecognized arguments: --bogus (see 'epochlint check --help')", id="check-bogus"
        ),
        pytest.param(("graph", "locks", "--format", "pycg"), "(see 'epochlint graph locks --help')", id="locks-pycg"),
        pytest.param(("bogus",), "invalid choice: 'bogus'", id="bogus-command"),
        pytest.param(("rule", "EPL999"), "unknown rule 'EPL999'", id="unknown-rule"),
        pytest.param(("check", "--select", "EPL999"), "--select: unknown rule code 'EPL999'", id="config"),
        pytest.param(("check", "--baseline", "missing.json"), "cannot read baseline missing.json", id="baseline"),
        pytest.param(("check", "--statistics", "--output-format", "sarif"), "--statistics prints", id="statistics"),
    ],
)
def test_every_error_is_one_line_with_one_prefix(write_tree: WriteTree, args: tuple[str, ...], said: str) -> None:
    result = epochlint(write_tree({CONSUMER: RACY_CONSUMER}), *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("epochlint: error: "), result.stderr
    assert said in result.stderr


def test_select_less_ignore_that_leaves_nothing_is_an_empty_selection(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    result = epochlint(root, "check", "--select", "EPL001", "--ignore", "EPL001")
    assert result.returncode == 2
    assert result.stderr == (
        "epochlint: error: --select and --ignore: EPL001 less EPL001 selects no rule; an empty selection "
        "checks nothing (ALL selects every rule)\n"
    )
    configured = write_tree({CONSUMER: RACY_CONSUMER}, '[tool.epochlint]\nselect = ["EPL0"]\nignore = ["EPL0"]\n')
    assert "selects no rule" in epochlint(configured, "check").stderr


def test_an_empty_selection_names_the_options_and_the_file_keys_that_made_it(write_tree: WriteTree) -> None:
    # The error blamed the file's select and ignore for an --extend-ignore, and --select alone for
    # the file's ignore.
    selecting = write_tree({CONSUMER: RACY_CONSUMER}, '[tool.epochlint]\nselect = ["EPL001"]\n')
    assert epochlint(selecting, "check", "--extend-ignore", "EPL001").stderr.startswith(
        "epochlint: error: --extend-ignore and pyproject.toml's select: EPL001 less EPL001 selects no rule;"
    )
    ignoring = write_tree({CONSUMER: RACY_CONSUMER}, '[tool.epochlint]\nignore = ["EPL001"]\n')
    assert epochlint(ignoring, "check", "--select", "EPL001", "--extend-ignore", "EPL001").stderr.startswith(
        "epochlint: error: --select and --extend-ignore: EPL001 less EPL001 selects no rule;"
    )


@pytest.mark.parametrize("option", ["--select", "--extend-select"])
def test_the_command_line_selects_a_rule_the_file_ignores(write_tree: WriteTree, option: str) -> None:
    # As in ruff, the command line comes after the file: `--select EPL001` with the file's
    # `ignore = ["EPL001"]` was an error, and `--extend-select EPL001` checked nothing.
    root = write_tree({CONSUMER: RACY_CONSUMER}, '[tool.epochlint]\nignore = ["EPL001"]\n')
    assert epochlint(root, "check").returncode == 0
    result = epochlint(root, "check", "--output-format", "concise", option, "EPL001")
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[-1] == "Found 1 finding (EPL001: 1) in 1 file."


def test_a_file_that_cannot_be_analysed_is_reported_whatever_is_selected(write_tree: WriteTree) -> None:
    # A selection without EPL900 passed over unparseable and oversized files: "All checks passed".
    root = write_tree(
        {CONSUMER: RACY_CONSUMER, "pkg/broken.py": "def f(:\n"}, '[tool.epochlint]\nselect = ["EPL002"]\n'
    )
    result = epochlint(root, "check", "--output-format", "concise")
    assert result.returncode == 1
    assert result.stdout.startswith("pkg/broken.py:1:7: EPL900 Cannot analyse this file: syntax error at line 1")
    (root / "pyproject.toml").write_text('[tool.epochlint]\nselect = ["EPL002"]\nmax-file-size = 100\n')
    # The consumer is over the size limit now.
    assert epochlint(root, "check", "--output-format", "concise").stdout.count(": EPL900 ") == 2
    assert epochlint(root, "check", "--extend-ignore", "EPL900").returncode == 0


def test_check_help_documents_the_exit_statuses(tmp_path: Path) -> None:
    text = " ".join(epochlint(tmp_path, "check", "--help").stdout.split())
    assert (
        "exit status: 0 when there are no findings (or with --exit-zero), 1 when there are findings, "
        "2 on a usage or configuration error" in text
    )


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (["server"], "Run the Language Server for editors, on stdin and stdout"),
        (["check"], "Analyse files and report findings."),
        (["graph", "locks"], "Export the lock-order graph"),
        (["audit"], "3 when something was not analysed"),
    ],
)
def test_every_commands_help_says_what_it_does(tmp_path: Path, command: list[str], says: str) -> None:
    # `server --help` printed its usage line alone, and no command's help said what it does.
    assert says in " ".join(epochlint(tmp_path, *command, "--help").stdout.split())


@pytest.mark.parametrize("command", [["graph", "calls", "--format", "dot"], ["check"], ["rules"]])
def test_a_reader_closing_the_output_early_ends_the_run_quietly(write_tree: WriteTree, command: list[str]) -> None:
    """`epochlint ... | head`: the run stops with the status a shell gives SIGPIPE, no error line."""
    project = write_tree({CONSUMER: RACY_CONSUMER})
    run = subprocess.Popen(
        [sys.executable, "-m", "epochlint", *command],
        cwd=project,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert run.stdout is not None and run.stderr is not None
    run.stdout.close()  # before a byte is read: the first write fails
    status = run.wait(timeout=120)
    assert run.stderr.read() == b""
    assert status == 141


@pytest.mark.parametrize("output", [[], ["--output-file", "/dev/stdout"]], ids=["stdout", "output-file"])
def test_a_reader_closing_the_output_in_the_middle_of_a_large_report_ends_the_run_quietly(
    tmp_path: Path, output: list[str]
) -> None:
    """`--output-format json | head -1`: the reader goes away after the first pipe-full. Python's
    buffered writer returned a short count there and the rest was dropped in silence: status 1.
    A report written into the stream `--output-file` names ends the same way."""
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    command = [sys.executable, "-m", "epochlint", "check", "--output-format", "json", *output, "fixtures"]
    run = subprocess.Popen(command, cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stderr is not None
    assert run.stdout.readline() == b"{\n"  # the report has begun: more than a pipe holds is on its way
    run.stdout.close()
    status = run.wait(timeout=300)
    assert run.stderr.read() == b""
    assert status == 141


def _children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="Linux's /proc")
def test_ctrl_c_while_workers_parse_ends_the_run_quietly(tmp_path: Path) -> None:
    """Ctrl-C reaches every process of the run: once, a worker interrupted inside the pool's
    protocol printed tracebacks, or left the run waiting for it until a second Ctrl-C."""
    for copy in range(3):
        shutil.copytree(FIXTURES, tmp_path / f"copy{copy}")
    run = subprocess.Popen(
        [sys.executable, "-m", "epochlint", "check", "--no-cache", "--jobs", "2", "."],
        cwd=tmp_path,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job is
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    while run.poll() is None and len(_children(run.pid)) < 2:  # until the workers are parsing
        time.sleep(0.01)
    os.killpg(run.pid, signal.SIGINT)
    _, stderr = run.communicate(timeout=60)
    assert (run.returncode, stderr) == (130, "epochlint: error: interrupted\n")


class _FullDisk(io.RawIOBase):
    """A stream every write to which fails as on a full disk."""

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    "command", [["check", "--output-format", "sarif"], ["check", "--show-settings"], ["rules"], ["graph", "calls"]]
)
def test_a_report_that_cannot_be_written_to_stdout_is_an_error_not_a_report_cut_short(
    write_tree: WriteTree, command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(write_tree({CONSUMER: RACY_CONSUMER}))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(_FullDisk()))
    assert main([*command, "--no-cache"] if command[0] == "check" else command) == 2
    assert capsys.readouterr().err == "epochlint: error: cannot write the report to stdout: No space left on device\n"


@pytest.mark.skipif(sys.platform == "win32", reason="closes the child's descriptor 1 before it starts")
def test_a_report_to_a_closed_stdout_is_an_error(write_tree: WriteTree) -> None:
    project = write_tree({CONSUMER: RACY_CONSUMER})
    closed = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", "--output-format", "json"],
        cwd=project,
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
    )
    assert (closed.returncode, closed.stderr) == (2, "epochlint: error: cannot write the report: stdout is closed\n")


_FULL = Path("/dev/full")


@pytest.mark.skipif(not _FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "command", [["check", "--output-format", "concise"], ["check", "--statistics"], ["rules"], ["clean"]]
)
def test_a_report_to_a_full_disk_is_one_error_line_and_status_2(write_tree: WriteTree, command: list[str]) -> None:
    # The report's bytes left in stdout's buffer are not flushed again at exit (a traceback, 120).
    project = write_tree({CONSUMER: RACY_CONSUMER})
    with _FULL.open("w") as full:
        run = subprocess.run(
            [sys.executable, "-m", "epochlint", *command],
            cwd=project,
            env=ENV,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    said = "epochlint: error: cannot write the report to stdout: No space left on device\n"
    assert (run.returncode, run.stderr) == (2, said)


@pytest.mark.skipif(sys.platform == "win32", reason="closes the child's descriptor 2 before it starts")
def test_a_check_with_stderr_closed_writes_its_report_and_status(write_tree: WriteTree) -> None:
    project = write_tree({CONSUMER: RACY_CONSUMER})
    run = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", "--output-format", "json"],
        cwd=project,
        env=ENV,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(2),
    )
    assert run.returncode == 1
    assert [finding["code"] for finding in json.loads(run.stdout)["findings"]] == ["EPL001"]


@pytest.mark.skipif(not _FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("--select", "EPL999"), ("missing.py",)])
def test_a_usage_error_is_status_2_even_where_it_cannot_be_shown(write_tree: WriteTree, args: tuple[str, ...]) -> None:
    project = write_tree({CONSUMER: RACY_CONSUMER})
    with _FULL.open("w") as full:
        run = subprocess.run([sys.executable, "-m", "epochlint", "check", *args], cwd=project, env=ENV, stderr=full)
    assert run.returncode == 2


def test_a_guard_declared_for_a_class_or_lock_no_file_names_is_warned_of(write_tree: WriteTree) -> None:
    """A misspelt class matches nothing and a lock nobody takes guards nothing: said on every run
    of the project, cached or not, never on a file checked alone (its project may hold them)."""
    pyproject = (
        "[tool.epochlint]\n"
        'guards = { "Consumr._epoch" = "_lock", "Consumer._epoch" = "_mutex", "Consumer._offset" = "_lock" }\n'
    )
    project = write_tree({CONSUMER: RACY_CONSUMER}, pyproject)
    expected = [
        'epochlint: warning: guards."Consumr._epoch" = "_lock": no analysed file defines a class or is a module '
        "named 'Consumr': the declaration applies to nothing",
        "epochlint: warning: guards.\"Consumer._epoch\" = \"_mutex\": no analysed file names '_mutex': no code can "
        "hold that guard",
    ]
    for run in (epochlint(project, "check"), epochlint(project, "check")):  # cold, then from the cache
        assert run.stderr.splitlines() == expected
        assert "without its guard `Consumer._mutex`" in run.stdout  # the declaration is still applied
    assert "guards" not in epochlint(project, "check", CONSUMER).stderr


def _monorepo(root: Path) -> Path:
    """Two projects side by side, each with the race of its consumer running through its base."""
    for project in ("orders", "billing"):
        (root / project / "pkg").mkdir(parents=True)
        (root / project / "pyproject.toml").write_text("[tool.epochlint]\n")
        (root / project / "pkg" / "__init__.py").write_text("")
        (root / project / "pkg" / "base.py").write_text(BASE)
        (root / project / "pkg" / "consumer.py").write_text(RACY_SUBCLASS)
        (root / project / "pkg" / "clean.py").write_text("x = 1\n")
    return root


def test_whole_project_analyses_each_project_the_files_given_belong_to(tmp_path: Path) -> None:
    # As pre-commit passes the changed files of a monorepo: the second project was analysed as
    # part of the first's, so the race its base's change completes was never found.
    root = _monorepo(tmp_path)
    result = epochlint(
        root, "check", "--whole-project", "--output-format", "concise", "orders/pkg/clean.py", "billing/pkg/base.py"
    )
    assert result.returncode == 1, result.stderr
    # One report, each file named from the current folder: `pkg/consumer.py` is in both projects.
    assert [line.split(" ")[0:2] for line in result.stdout.splitlines()[:-1]] == [
        [f"billing/pkg/consumer.py:{line_of(RACY_SUBCLASS, LOOP)}:9:", "EPL001"]
    ]
    summary = "Found 1 finding (EPL001: 1) in 8 files (4 not relevant: read, not parsed)."
    assert result.stdout.splitlines()[-1] == summary


def test_whole_project_over_several_projects_gives_one_report_that_names_files_from_here(tmp_path: Path) -> None:
    # Each project printed its own report and summary, both naming their files `pkg/...`.
    root = _monorepo(tmp_path)
    result = epochlint(root, "check", "--whole-project", "orders/pkg/consumer.py", "billing/pkg/consumer.py")
    assert result.returncode == 1, result.stderr
    places = [line.split()[1] for line in result.stdout.splitlines() if line.lstrip().startswith("↳")]
    assert {place.split(":")[0] for place in places} == {
        f"{project}/pkg/{module}.py" for project in ("orders", "billing") for module in ("consumer", "base")
    }
    quoted = [line for line in result.stdout.splitlines() if line.split("|")[-1].strip() == LOOP]
    assert len(quoted) == 2  # the source read back in each project
    assert [line for line in result.stdout.splitlines() if line.startswith(("Found", "All checks"))] == [
        "Found 2 findings (EPL001: 2) in 8 files (4 not relevant: read, not parsed)."
    ]


def test_whole_project_analyses_a_file_with_no_project_without_the_projects_beside_it(tmp_path: Path) -> None:
    # The file with no configuration was analysed in the current folder's project, which holds the
    # other projects too: their files were counted (and analysed) twice.
    root = _monorepo(tmp_path)
    (root / "billing").rename(root / "billing [eu]")
    (root / "tools").mkdir()
    (root / "tools" / "script.py").write_text("x = 1\n")
    given = ("orders/pkg/consumer.py", "billing [eu]/pkg/consumer.py", "tools/script.py")
    result = epochlint(root, "check", "--whole-project", *given)
    assert result.returncode == 1, result.stderr
    summary = "Found 2 findings (EPL001: 2) in 9 files (5 not relevant: read, not parsed)."
    assert result.stdout.splitlines()[-1] == summary


def test_whole_project_over_several_projects_refuses_what_needs_one_report(tmp_path: Path) -> None:
    root = _monorepo(tmp_path)
    result = epochlint(
        root, "check", "--whole-project", "--output-format", "json", "orders/pkg/base.py", "billing/pkg/base.py"
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "epochlint: error: the files given belong to several projects (orders, billing), each analysed whole with"
        " --whole-project; --output-format json, sarif or gitlab needs one: check each project on its own\n"
    )


def test_whole_project_over_files_in_no_project_names_them_so(tmp_path: Path) -> None:
    root = _monorepo(tmp_path)
    (root / "tools").mkdir()
    (root / "tools" / "script.py").write_text("x = 1\n")
    given = ("orders/pkg/base.py", "tools/script.py")
    result = epochlint(root, "check", "--whole-project", "--output-format", "sarif", *given)
    assert result.returncode == 2
    assert "several projects (orders, files in no project)" in result.stderr


def test_output_file_naming_this_process_stdout_writes_to_it(write_tree: WriteTree, tmp_path: Path) -> None:
    # `--output-file /dev/stdout` was replaced as a file: an error through a pipe, and a log it was
    # redirected to lost what came before it.
    root = write_tree({CONSUMER: RACY_CONSUMER})
    through_pipe = epochlint(root, "check", "-q", "--output-format", "concise", "--output-file", "/dev/stdout")
    assert through_pipe.returncode == 1, through_pipe.stderr
    assert [line.split(" ")[1] for line in through_pipe.stdout.splitlines()] == ["EPL001"]
    log = tmp_path / "log.txt"
    script = f"echo before; {sys.executable} -m epochlint check -q --output-format concise --output-file /dev/stdout"
    with log.open("w") as redirected:
        subprocess.run(["sh", "-c", script + "; echo after"], cwd=root, stdout=redirected, env=ENV, check=True)
    lines = log.read_text().splitlines()
    assert lines[0] == "before" and lines[-1] == "after" and " EPL001 " in lines[1]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_output_file_naming_a_fifo_writes_into_it(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    os.mkfifo(root / "report.pipe")
    reader = subprocess.Popen(["cat", "report.pipe"], cwd=root, stdout=subprocess.PIPE, text=True)
    result = epochlint(root, "check", "-q", "--output-format", "concise", "--output-file", "report.pipe")
    assert result.returncode == 1, result.stderr
    assert " EPL001 " in reader.communicate(timeout=60)[0]
    assert (root / "report.pipe").is_fifo()
