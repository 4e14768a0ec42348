"""Git's ignore files: a folder walk leaves out what git ignores (git itself is the judge), unless
`respect-gitignore` is off; outside a work tree, and in a folder named on the command line, they do
not hide what the user asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from epochlint.config import Config
from epochlint.discovery import SourceFile, discover

# A user-wide excludes file is not the project's, so git is told to read none (an empty value); the
# rest of the machine's git configuration stays, as some machines need it to run git at all.
_NO_USER_EXCLUDES = ("-c", "core.excludesFile=")

_IGNORE_FILES = {
    ".gitignore": "generated/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\ndocs/**/conf.py\n# a comment\n\\#hash.py\n",
    "src/.gitignore": "local.py\n!important_pb2.py\nnested/*.py\n!nested/kept.py\n",
    "src/deeper/.gitignore": "!local.py\n",
    "generated/.gitignore": "!back.py\n",
}
_SOURCES = [
    "consumer.py", "top_only.py", "api_pb2.py", "keep_pb2.py", "#hash.py", "scratch.py",
    "generated/back.py", "generated/api.py",
    "docs/conf.py", "docs/a/b/conf.py", "docs/a/b/other.py",
    "src/top_only.py", "src/local.py", "src/important_pb2.py", "src/other_pb2.py",
    "src/nested/gone.py", "src/nested/kept.py", "src/nested/more/deep.py",
    "src/deeper/local.py", "src/deeper/api_pb2.py",
]


def _git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", *_NO_USER_EXCLUDES, *args], cwd=repo, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr.strip()}"
    return result.stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _rels(files: list[SourceFile]) -> list[str]:
    return [f.rel for f in files]


@pytest.fixture
def work_tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _write(root, {**_IGNORE_FILES, **{name: "x = 1\n" for name in _SOURCES}})
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("scratch.py\n", encoding="utf-8")
    return root


def test_a_walk_leaves_out_exactly_the_files_git_ignores(work_tree: Path) -> None:
    files, problems = discover([work_tree], Config(root=work_tree))
    not_ignored = _git(work_tree, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    assert _rels(files) == sorted(name for name in not_ignored if name.endswith(".py"))
    assert problems == []
    # What the patterns above are about, spelled out: the oracle agreeing on a trivial tree would
    # prove nothing.
    assert {"consumer.py", "keep_pb2.py", "src/important_pb2.py", "src/nested/kept.py", "src/deeper/local.py"} <= set(
        _rels(files)
    )
    assert not {"top_only.py", "api_pb2.py", "#hash.py", "scratch.py", "generated/back.py", "src/local.py"} & set(
        _rels(files)
    )


def test_a_walk_from_a_subfolder_applies_the_ignore_files_above_it(work_tree: Path) -> None:
    files, _ = discover([work_tree / "src"], Config(root=work_tree))
    not_ignored = _git(work_tree / "src", "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    assert _rels(files) == sorted(f"src/{name}" for name in not_ignored if name.endswith(".py"))
    assert "src/other_pb2.py" not in _rels(files)  # the root's `*_pb2.py`


def test_respect_gitignore_off_walks_every_file(work_tree: Path) -> None:
    files, _ = discover([work_tree], Config(root=work_tree, respect_gitignore=False))
    assert _rels(files) == sorted(_SOURCES)


def test_ignore_files_outside_a_work_tree_are_not_read(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "*.py\n", "consumer.py": "x = 1\n"})
    files, _ = discover([tmp_path], Config(root=tmp_path))
    assert _rels(files) == ["consumer.py"]


def test_a_folder_or_file_named_on_the_command_line_is_checked_even_where_git_ignores_it(work_tree: Path) -> None:
    files, _ = discover([work_tree / "generated", work_tree / "api_pb2.py"], Config(root=work_tree))
    # The folder's own ignore file still applies inside it (`!back.py` takes nothing away here).
    assert _rels(files) == ["api_pb2.py", "generated/api.py", "generated/back.py"]


def test_a_nested_repository_has_its_own_ignore_files(work_tree: Path) -> None:
    inner = work_tree / "vendor"
    inner.mkdir()
    _git(inner, "init", "-q")
    _write(inner, {".gitignore": "skip.py\n", "skip.py": "", "api_pb2.py": "", "local.py": ""})
    files, _ = discover([inner], Config(root=work_tree))
    # Neither the outer `*_pb2.py` nor anything but the inner repository's own patterns.
    assert _rels(files) == ["vendor/api_pb2.py", "vendor/local.py"]


def _check(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "epochlint", "check", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_folder_whose_every_file_git_ignores_is_said_and_the_flag_checks_it(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    _write(tmp_path, {".gitignore": "gen/\n", "gen/.gitignore": "*.py\n", "gen/consumer.py": "x = 1\n"})
    run = _check(tmp_path, "gen")
    assert run.returncode == 0
    assert run.stderr == (
        "epochlint: warning: gen: every file under it is ignored by git's ignore files"
        " (`respect-gitignore = false` checks what they ignore); name a file to check it anyway\n"
    )
    assert "No files checked" in run.stdout
    unignored = _check(tmp_path, "--no-respect-gitignore", "--output-format", "json", "gen")
    assert unignored.returncode == 0, unignored.stderr
    assert json.loads(unignored.stdout)["summary"]["files"] == 1


def test_links_git_ignores_are_neither_followed_nor_reported(work_tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    _write(outside, {"lib.py": "x = 1\n"})
    (work_tree / "generated_link").symlink_to(outside)  # outside the paths: else an EPL900
    (work_tree / "dangling_pb2.py").symlink_to(tmp_path / "missing.py")  # broken: else an EPL900
    (work_tree / ".gitignore").write_text("generated_link\n*_pb2.py\n", encoding="utf-8")
    files, problems = discover([work_tree], Config(root=work_tree))
    assert problems == []
    assert "generated_link/lib.py" not in _rels(files)
    _, unignored_problems = discover([work_tree], Config(root=work_tree, respect_gitignore=False))
    assert [p.rel for p in unignored_problems] == ["dangling_pb2.py", "generated_link"]


def test_ignore_patterns_that_cannot_be_matched_safely_are_skipped_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A repository's ignore file is anyone's (an audit reads thousands): a pattern pathspec cannot
    # compile must not end the run, nor one that takes minutes to match a long name stall it.
    _git(tmp_path, "init", "-q")
    slow = "*a*a*a*a*a*a*a*a*b"
    ignore_file = f"[z-a]\n{slow}\n*_pb2.py\n"
    _write(tmp_path, {".gitignore": ignore_file, "api_pb2.py": "", "a" * 60 + ".py": "", "consumer.py": ""})
    files, problems = discover([tmp_path], Config(root=tmp_path))
    assert _rels(files) == ["a" * 60 + ".py", "consumer.py"]  # `*_pb2.py` still applies
    warnings = capsys.readouterr().err.splitlines()
    assert [line.split(": pattern ")[1].split(" skipped")[0] for line in warnings] == ["'[z-a]'", f"'{slow}'"]
    # The reason, without a position that would count in pathspec's regex, not in the pattern.
    assert warnings[0].endswith("it cannot be matched (bad character range z-a)")
    assert all(line.startswith("epochlint: warning: ") for line in warnings)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_an_ignore_file_that_is_a_fifo_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Opened for reading, a FIFO with no writer blocks forever: a repository could hold one.
    _git(tmp_path, "init", "-q")
    _write(tmp_path, {"consumer.py": "", "sub/.gitignore": "*.py\n", "sub/a.py": ""})
    os.mkfifo(tmp_path / ".gitignore")
    files, _ = discover([tmp_path], Config(root=tmp_path))
    assert _rels(files) == ["consumer.py"]  # sub/.gitignore still applies
    warning = capsys.readouterr().err
    assert warning.endswith(".gitignore: not read (not a regular file): its patterns leave out nothing\n")


def test_an_ignore_file_that_is_a_symbolic_link_is_not_read_as_git_does(tmp_path: Path) -> None:
    repository, elsewhere = tmp_path / "repo", tmp_path / "patterns"
    repository.mkdir()
    _git(repository, "init", "-q")
    elsewhere.write_text("ignored.py\n", encoding="utf-8")
    (repository / ".gitignore").symlink_to(elsewhere)
    _write(repository, {"ignored.py": "", "consumer.py": ""})
    files, _ = discover([repository], Config(root=repository))
    not_ignored = _git(repository, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    assert _rels(files) == sorted(name for name in not_ignored if name.endswith(".py")) == ["consumer.py", "ignored.py"]


def test_an_ignore_file_written_with_a_byte_order_mark_and_crlf_is_read_as_git_reads_it(tmp_path: Path) -> None:
    # As an editor on Windows may save it: the mark is not part of the first pattern.
    _git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_bytes(b"\xef\xbb\xbfgenerated/\r\n*_pb2.py\r\n")
    _write(tmp_path, {"generated/api.py": "", "api_pb2.py": "", "consumer.py": ""})
    files, _ = discover([tmp_path], Config(root=tmp_path))
    not_ignored = _git(tmp_path, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    assert _rels(files) == sorted(name for name in not_ignored if name.endswith(".py")) == ["consumer.py"]


def test_a_linked_worktree_reads_its_repositorys_info_exclude_as_git_does(tmp_path: Path) -> None:
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    _git(main, "init", "-q")
    identity = ("-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgSign=false")
    _git(main, *identity, "commit", "-q", "--allow-empty", "-m", "start")
    _git(main, "worktree", "add", "-q", str(linked))
    (main / ".git" / "info").mkdir(exist_ok=True)
    (main / ".git" / "info" / "exclude").write_text("scratch.py\n", encoding="utf-8")
    _write(linked, {"scratch.py": "", "consumer.py": ""})
    files, _ = discover([linked], Config(root=linked))
    not_ignored = _git(linked, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    assert _rels(files) == sorted(name for name in not_ignored if name.endswith(".py")) == ["consumer.py"]
