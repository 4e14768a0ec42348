"""The pre-commit hook, end to end with the real `pre-commit` in temporary git repositories.

pre-commit passes only the changed files; the hook analyses the whole project and reports the
findings that involve those files, so a race completed by a file the change did not touch is
still caught, and an old finding elsewhere does not block an unrelated commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_cli import ENV, RACY_CONSUMER, epochlint

# A consumer whose epoch is guarded by its (reentrant) lock; the project never changes it.
STATE = """\
import threading


class Consumer:
    def __init__(self):
        self.lock = threading.RLock()
        self._epoch = 0

    def seek(self, offset):
        with self.lock:
            self._epoch += 1

    def is_current(self, message):
        return message.epoch >= self._epoch
"""
# The race is completed in `state.py`: the loop here reads the epoch only through `is_current`.
RACY_HANDLER = """\
from pkg.state import Consumer


def on_batch(consumer: Consumer, batch):
    for message in batch:
        if consumer.is_current(message):
            print(message)
"""
LOCKED_HANDLER = """\
from pkg.state import Consumer


def on_batch(consumer: Consumer, batch):
    with consumer.lock:
        for message in batch:
            if consumer.is_current(message):
                print(message)
"""
# The project as committed: it already has a finding, in a file no change below touches.
PROJECT = {
    "pyproject.toml": "[project]\nname = 'shop'\n",
    "pkg/__init__.py": "",
    "pkg/state.py": STATE,
    "pkg/legacy.py": RACY_CONSUMER,
    "pkg/util.py": "def double(x):\n    return 2 * x\n",
}
HOOK_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "linter", "rules")
GIT_ENV = {
    **ENV,
    "GIT_AUTHOR_NAME": "epochlint tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "epochlint tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
}
for _variable in ("PRE_COMMIT_HOME", "PRE_COMMIT_COLOR", "SKIP"):
    GIT_ENV.pop(_variable, None)


def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, encoding="utf-8", env=env or GIT_ENV, timeout=600
    )


def git(cwd: Path, *args: str) -> None:
    result = run(cwd, "git", *args)
    assert result.returncode == 0, result.stderr


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)
    return run(repo, "git", "rev-parse", "HEAD").stdout.strip()


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This project as a hook repository: a git repository of its working tree, and its commit."""
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in HOOK_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q")
    return repo, commit_all(repo, "epochlint")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store for the module: the hook's environment is installed once, by the first run."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path: Path, hook_repo: tuple[Path, str]) -> Path:
    """A committed project whose `.pre-commit-config.yaml` uses the hook: the usual four lines."""
    repo_path, rev = hook_repo
    root = tmp_path / "project"
    config = f"repos:\n  - repo: {repo_path.as_posix()}\n    rev: {rev}\n    hooks:\n      - id: epochlint\n"
    write_files(root, {**PROJECT, ".pre-commit-config.yaml": config})
    git(root, "init", "-q")
    commit_all(root, "the project as it was")
    return root


def pre_commit(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**GIT_ENV, "PRE_COMMIT_HOME": str(home)}
    return run(root, sys.executable, "-m", "pre_commit", *args, "--color=never", env=env)


def stage(root: Path, files: dict[str, str]) -> None:
    write_files(root, files)
    git(root, "add", "-A")


# --- the flag the hook uses, without pre-commit ---------------------------------------------------


def test_whole_project_reports_a_race_completed_by_an_unchanged_file(tmp_path: Path) -> None:
    write_files(tmp_path, {**PROJECT, "pkg/handler.py": RACY_HANDLER})
    alone = epochlint(tmp_path, "check", "pkg/handler.py")
    assert alone.returncode == 0, "analysed alone, the file cannot show the race"
    assert "notice: 1 project file(s) imported by the files named left out (pkg/state.py)" in alone.stderr
    assert "--whole-project" in alone.stderr  # the all-clear is not silent: the way to the race is named
    assert epochlint(tmp_path, "check", "--quiet", "pkg/handler.py").stderr == ""  # but --quiet asked for silence
    whole = epochlint(tmp_path, "check", "--whole-project", "pkg/handler.py")
    assert whole.returncode == 1, whole.stdout + whole.stderr
    assert "pkg/handler.py:5:5: EPL001" in whole.stdout
    assert "pkg/state.py:14:33" in whole.stdout  # the read, in the unchanged file
    assert "pkg/legacy.py" not in whole.stdout  # an old finding the change does not involve


def test_whole_project_reports_what_involves_a_file_given_through_a_folder_link(tmp_path: Path) -> None:
    # Findings name the file by its path in the project, not by the link it was given through.
    write_files(tmp_path, {**PROJECT, "pkg/handler.py": RACY_HANDLER})
    (tmp_path / "linked").symlink_to(tmp_path / "pkg", target_is_directory=True)
    through_link = epochlint(tmp_path, "check", "--whole-project", "linked/handler.py")
    assert through_link.returncode == 1, through_link.stdout + through_link.stderr
    assert "pkg/handler.py:5:5: EPL001" in through_link.stdout


def test_the_files_left_out_include_those_a_dotted_import_names(tmp_path: Path) -> None:
    dotted = RACY_HANDLER.replace("from pkg.state import Consumer", "import pkg.state\n\nConsumer = pkg.state.Consumer")
    write_files(tmp_path, {**PROJECT, "pkg/handler.py": dotted})
    alone = epochlint(tmp_path, "check", "pkg/handler.py", "pkg/__init__.py")
    assert "notice: 1 project file(s) imported by the files named left out (pkg/state.py)" in alone.stderr


def test_no_notice_where_every_imported_project_file_is_analysed(tmp_path: Path) -> None:
    write_files(tmp_path, {**PROJECT, "pkg/handler.py": RACY_HANDLER})
    for named in (["pkg/handler.py", "pkg"], ["pkg/handler.py", "pkg/state.py", "pkg/__init__.py"], ["."]):
        result = epochlint(tmp_path, "check", *named)
        assert "notice" not in result.stderr, (named, result.stderr)
        assert "pkg/handler.py:5:5: EPL001" in result.stdout, named
    assert "notice" not in epochlint(tmp_path, "check", "--whole-project", "pkg/handler.py").stderr


def test_whole_project_reports_findings_whose_path_runs_through_the_given_file(tmp_path: Path) -> None:
    write_files(tmp_path, {**PROJECT, "pkg/handler.py": RACY_HANDLER})
    result = epochlint(tmp_path, "check", "--whole-project", "pkg/state.py")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pkg/handler.py:5:5: EPL001" in result.stdout


def test_whole_project_passes_a_clean_change_despite_old_findings_elsewhere(tmp_path: Path) -> None:
    write_files(tmp_path, {**PROJECT, "pkg/handler.py": LOCKED_HANDLER})
    result = epochlint(tmp_path, "check", "--whole-project", "pkg/handler.py", "pkg/util.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_force_exclude_leaves_out_a_named_file_the_configuration_excludes(tmp_path: Path) -> None:
    excluding = {"pyproject.toml": "[tool.epochlint]\nexclude = ['generated/']\n"}
    write_files(
        tmp_path, {**PROJECT, **excluding, "generated/consumer.py": RACY_CONSUMER, "build/racy.py": RACY_CONSUMER}
    )
    named = ("generated/consumer.py", "build/racy.py")
    result = epochlint(tmp_path, "check", "--whole-project", "--force-exclude", *named)
    assert result.returncode == 0, result.stdout + result.stderr
    # Without it, a file named is checked whatever `exclude` says (as in ruff).
    unforced = epochlint(tmp_path, "check", "--whole-project", *named)
    assert unforced.returncode == 1
    assert "generated/consumer.py:17:9: EPL001" in unforced.stdout and "build/racy.py:17:9: EPL001" in unforced.stdout


# --- the real pre-commit ----------------------------------------------------------------------------


@pytest.mark.slow
def test_pre_commit_passes_a_clean_change(project: Path, pre_commit_home: Path) -> None:
    stage(project, {"pkg/handler.py": LOCKED_HANDLER, "pkg/util.py": "def double(x):\n    return x + x\n"})
    result = pre_commit(project, pre_commit_home, "run")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "epochlint" in result.stdout and "Passed" in result.stdout


@pytest.mark.slow
def test_pre_commit_fails_a_bad_change(project: Path, pre_commit_home: Path) -> None:
    stage(project, {"pkg/consumer.py": RACY_CONSUMER})
    result = pre_commit(project, pre_commit_home, "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Failed" in result.stdout
    assert "pkg/consumer.py:17:9: EPL001" in result.stdout
    assert "pkg/legacy.py" not in result.stdout


@pytest.mark.slow
def test_pre_commit_passes_a_change_to_files_the_configuration_excludes(project: Path, pre_commit_home: Path) -> None:
    stage(
        project,
        {"pyproject.toml": "[tool.epochlint]\nexclude = ['generated/']\n", "generated/consumer.py": RACY_CONSUMER},
    )
    result = pre_commit(project, pre_commit_home, "run")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_pre_commit_fails_a_race_completed_by_an_unchanged_file(project: Path, pre_commit_home: Path) -> None:
    stage(project, {"pkg/handler.py": RACY_HANDLER})
    result = pre_commit(project, pre_commit_home, "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pkg/handler.py:5:5: EPL001" in result.stdout
    assert "via pkg.state.Consumer.is_current" in result.stdout


@pytest.mark.slow
def test_hook_environment_has_no_pyspark(project: Path, pre_commit_home: Path) -> None:
    result = pre_commit(project, pre_commit_home, "install-hooks")
    assert result.returncode == 0, result.stdout + result.stderr
    pythons = sorted(pre_commit_home.glob("repo*/py_env-*/bin/python"))
    assert pythons, f"no hook environment in {sorted(os.listdir(pre_commit_home))}"
    probe = "import importlib.util as u; print(u.find_spec('epochlint') is not None, u.find_spec('pyspark') is None)"
    assert run(project, str(pythons[0]), "-c", probe).stdout.split() == ["True", "True"]


@pytest.mark.slow
def test_try_repo_fails_a_race_completed_by_an_unchanged_file(
    project: Path, hook_repo: tuple[Path, str]
) -> None:
    write_files(project, {"pkg/handler.py": RACY_HANDLER})
    git(project, "add", "-A")
    result = run(
        project, sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo[0]), "epochlint",
        "--files", "pkg/handler.py", "--color=never",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pkg/handler.py:5:5: EPL001" in result.stdout
    assert "pkg/state.py:14:33" in result.stdout


@pytest.mark.slow
def test_the_java_hook_fails_a_racy_java_change(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    # The hook ran on Python files alone, and without the Java frontend: a Java change passed unread.
    repo_path, rev = hook_repo
    root = tmp_path / "project"
    config = f"repos:\n  - repo: {repo_path.as_posix()}\n    rev: {rev}\n    hooks:\n      - id: epochlint-java\n"
    write_files(root, {"pyproject.toml": "[project]\nname = 'shop'\n", ".pre-commit-config.yaml": config})
    git(root, "init", "-q")
    commit_all(root, "the project as it was")
    java = REPO / "fixtures" / "java" / "EPL001"
    stage(
        root,
        {
            f"src/{name}": (java / name).read_text(encoding="utf-8")
            for name in ("Message.java", "MultiTopicsConsumer.java")
        },
    )
    result = pre_commit(root, pre_commit_home, "run")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "src/MultiTopicsConsumer.java:61:9: EPL001" in result.stdout
