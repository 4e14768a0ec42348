"""`epochlint check - --stdin-filename FILE`: the text on stdin analysed as FILE, inside the whole
project found from FILE, the other files read from disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import ENV, FIXED_CONSUMER, RACY_CONSUMER, WriteTree, replaced

ON_BATCH = "    def on_batch"
# The consumer's lock, epoch and epoch check, in a base class of their own (pkg/base.py).
BASE = replaced(RACY_CONSUMER[: RACY_CONSUMER.index(ON_BATCH)].rstrip() + "\n", "class Consumer:", "class Base:")
# The race runs through `Base._is_current`, in another file, unchanged on disk.
SUBCLASS = "from pkg.base import Base\n\n\nclass Consumer(Base):\n"
RACY_SUBCLASS = SUBCLASS + RACY_CONSUMER[RACY_CONSUMER.index(ON_BATCH) :]
LOCKED_SUBCLASS = SUBCLASS + FIXED_CONSUMER[FIXED_CONSUMER.index(ON_BATCH) :]


def check_stdin(cwd: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", *args],
        cwd=cwd,
        input=text,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=ENV,
        timeout=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def project(write_tree: WriteTree, consumer: str) -> Path:
    return write_tree({"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/consumer.py": consumer})


def json_findings(result: subprocess.CompletedProcess[str]) -> list[tuple[str, int, str]]:
    return [(f["path"], f["line"], f["code"]) for f in json.loads(result.stdout)["findings"]]


def test_stdin_replaces_the_file_on_disk(write_tree: WriteTree) -> None:
    root = project(write_tree, LOCKED_SUBCLASS)
    racy = check_stdin(root, RACY_SUBCLASS, "-", "--stdin-filename", "pkg/consumer.py", "--output-format", "json")
    assert racy.returncode == 1, racy.stderr
    assert json_findings(racy) == [("pkg/consumer.py", 6, "EPL001")]
    # The chain runs into the file on disk, read from there.
    chain = json.loads(racy.stdout)["findings"][0]["chain"]
    assert chain[-1]["path"] == "pkg/base.py"

    root_racy_on_disk = project(write_tree, RACY_SUBCLASS)
    clean = check_stdin(root_racy_on_disk, LOCKED_SUBCLASS, "-", "--stdin-filename", "pkg/consumer.py")
    assert clean.returncode == 0, clean.stdout


def test_console_report_quotes_the_stdin_text(write_tree: WriteTree) -> None:
    root = project(write_tree, "# on disk: nothing like the buffer\n")
    result = check_stdin(root, RACY_SUBCLASS, "-", "--stdin-filename", "pkg/consumer.py")
    assert result.returncode == 1
    assert "pkg/consumer.py:6:9: EPL001" in result.stdout
    assert "6 |         for message in batch:" in result.stdout


def test_a_file_only_on_stdin_is_named_by_its_stdin_filename(write_tree: WriteTree) -> None:
    root = project(write_tree, LOCKED_SUBCLASS)
    result = check_stdin(root, RACY_SUBCLASS, "-", "--stdin-filename", "pkg/new_consumer.py", "--output-format", "json")
    assert json_findings(result) == [("pkg/new_consumer.py", 6, "EPL001")]


def test_only_findings_involving_the_stdin_file_are_reported(write_tree: WriteTree) -> None:
    root = project(write_tree, RACY_SUBCLASS)
    (root / "pkg" / "other.py").write_text(RACY_SUBCLASS)
    result = check_stdin(root, RACY_SUBCLASS, "-", "--stdin-filename", "pkg/other.py", "--output-format", "json")
    assert json_findings(result) == [("pkg/other.py", 6, "EPL001")]


def test_the_project_is_found_from_the_stdin_filename(write_tree: WriteTree, tmp_path: Path) -> None:
    root = project(write_tree, LOCKED_SUBCLASS)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    given = str(root / "pkg" / "consumer.py")
    result = check_stdin(elsewhere, RACY_SUBCLASS, "-", "--stdin-filename", given, "--output-format", "json")
    assert json_findings(result) == [("pkg/consumer.py", 6, "EPL001")]


def test_force_exclude_leaves_out_a_buffer_the_configuration_excludes(write_tree: WriteTree) -> None:
    # As an editor integration passes it: a generated file open in the editor is not linted.
    root = write_tree(
        {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/generated/consumer.py": LOCKED_SUBCLASS},
        pyproject='[tool.epochlint]\nexclude = ["generated/"]\n',
    )
    args = ("-", "--stdin-filename", "pkg/generated/consumer.py", "--output-format", "json")
    assert json_findings(check_stdin(root, RACY_SUBCLASS, *args)) == [("pkg/generated/consumer.py", 6, "EPL001")]
    excluded = check_stdin(root, RACY_SUBCLASS, *args, "--force-exclude")
    assert excluded.returncode == 0 and json_findings(excluded) == []
    # It said "All checks passed: 2 files", the project around the buffer, none of it reported.
    summary = check_stdin(root, RACY_SUBCLASS, *args[:3], "--force-exclude").stdout.splitlines()[-1]
    assert summary.startswith("No files checked:")


def test_a_buffer_whose_every_neighbour_is_excluded_is_checked_without_a_warning(write_tree: WriteTree) -> None:
    # The folder walked for the buffer's project is no folder the user named: that the exclude
    # patterns leave out all of it is no news, and the buffer is checked.
    excluded = '[tool.epochlint]\nexclude = ["generated/"]\n'
    root = write_tree({"generated/consumer.py": RACY_CONSUMER}, pyproject=excluded)
    args = ("-", "--stdin-filename", "generated/consumer.py", "--output-format", "concise")
    result = check_stdin(root, RACY_CONSUMER, *args)
    assert (result.returncode, result.stderr) == (1, "")


def _unconfigured_project(root: Path, consumer: str) -> Path:
    """The project without a pyproject.toml (nor any other mark of a project)."""
    for rel, text in {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/consumer.py": consumer}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_without_a_project_the_stdin_file_is_analysed_alone(tmp_path: Path) -> None:
    # The current folder could be a home folder, with everything in it: not a project to walk.
    root = _unconfigured_project(tmp_path, LOCKED_SUBCLASS)
    result = check_stdin(root, RACY_SUBCLASS, "-", "--stdin-filename", "pkg/consumer.py", "--output-format", "json")
    assert json.loads(result.stdout)["summary"]["files"] == 1
    assert json_findings(result) == []  # the race needs pkg/base.py, not analysed


def test_the_top_of_a_git_work_tree_marks_the_project_without_a_pyproject(tmp_path: Path) -> None:
    root = _unconfigured_project(tmp_path, LOCKED_SUBCLASS)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=ENV)
    result = check_stdin(root / "pkg", RACY_SUBCLASS, "-", "--stdin-filename", "consumer.py", "--output-format", "json")
    # Named from the top of the work tree, and the race through pkg/base.py found.
    assert json_findings(result) == [("pkg/consumer.py", 6, "EPL001")]


@pytest.mark.parametrize("flags", [("--diff",), ("--fix", "--diff")], ids=" ".join)
def test_diff_shows_the_fix_of_the_stdin_text(write_tree: WriteTree, flags: tuple[str, ...]) -> None:
    root = project(write_tree, "")
    result = check_stdin(root, RACY_SUBCLASS, "-", "--stdin-filename", "pkg/consumer.py", *flags)
    assert result.returncode == 1, result.stderr
    assert "+        with self._lock:" in result.stdout
    assert (root / "pkg" / "consumer.py").read_text() == ""


def test_dash_without_stdin_filename_is_a_one_line_usage_error(write_tree: WriteTree) -> None:
    root = project(write_tree, LOCKED_SUBCLASS)
    usage_errors = (
        ["-"],
        ["-", "pkg", "--stdin-filename", "pkg/consumer.py"],
        ["pkg", "--stdin-filename", "x.py"],
        ["-", "--stdin-filename", "pkg"],  # a folder: it was analysed as a Python file named `pkg`
    )
    for args in usage_errors:
        result = check_stdin(root, RACY_SUBCLASS, *args)
        assert result.returncode == 2, args
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("epochlint: error: "), result.stderr


def test_fix_is_refused_for_stdin(write_tree: WriteTree) -> None:
    root = project(write_tree, LOCKED_SUBCLASS)
    result = check_stdin(root, RACY_SUBCLASS, "-", "--stdin-filename", "pkg/consumer.py", "--fix")
    assert result.returncode == 2
    assert "--fix" in result.stderr
    assert (root / "pkg" / "consumer.py").read_text() == LOCKED_SUBCLASS


@pytest.mark.skipif(sys.platform == "win32", reason="closes the child's descriptor 0 before it starts")
def test_a_closed_stdin_is_a_one_line_usage_error(write_tree: WriteTree) -> None:
    root = project(write_tree, LOCKED_SUBCLASS)
    result = subprocess.run(
        [sys.executable, "-m", "epochlint", "check", "-", "--stdin-filename", "pkg/consumer.py"],
        cwd=root,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
        preexec_fn=lambda: os.close(0),
    )
    said = "epochlint: error: cannot read the code to check from stdin: stdin is closed\n"
    assert (result.returncode, result.stdout, result.stderr) == (2, "", said)
