"""File discovery: which files a run analyses, under which names, and what it reports instead of skipping."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import epochlint.discovery as discovery
from epochlint.config import Config
from epochlint.discovery import DiscoveryProblem, SourceFile, UsageError, discover


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")


def rels(files: list[SourceFile]) -> list[str]:
    return [f.rel for f in files]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    touch(
        root,
        "src/consumer.py",
        "src/pkg/__init__.py",
        "src/pkg/fetcher.py",
        "src/notes.txt",
        "src/stubs.pyi",
        "src/generated/api.py",
        "src/api_pb2.py",
        "tests/fixtures/bad.py",
        "tests/test_consumer.py",
        "build/lib/consumer.py",
        "dist/x.py",
        ".venv/lib/site.py",
        "venv/lib/site.py",
        ".git/hooks/hook.py",
        "__pycache__/c.py",
        "node_modules/n.py",
        "epochlint.egg-info/e.py",
        "lib/site-packages/s.py",
        "scripts.py/inside.py",
    )
    monkeypatch.chdir(root)
    return root


def config_for(root: Path, exclude: tuple[str, ...] = ()) -> Config:
    return Config(root=root, exclude=exclude)


def test_a_tree_gives_its_python_files_without_default_and_user_excludes(project: Path) -> None:
    config = config_for(project, exclude=("generated/", "*_pb2.py", "tests/fixtures"))
    files, problems = discover([project], config)
    assert rels(files) == [
        "scripts.py/inside.py",  # a directory named x.py is a directory
        "src/consumer.py",
        "src/pkg/__init__.py",
        "src/pkg/fetcher.py",
        "tests/test_consumer.py",
    ]
    assert problems == []
    assert all(f.path.is_absolute() and f.path.is_file() for f in files)


def test_explicit_files_are_taken_even_when_excluded_or_not_named_py(project: Path) -> None:
    config = config_for(project, exclude=("generated/",))
    files, _ = discover([Path("src/generated/api.py"), Path("build/lib/consumer.py"), Path("src/notes.txt")], config)
    assert rels(files) == ["build/lib/consumer.py", "src/generated/api.py", "src/notes.txt"]
    assert files[1].path == project / "src/generated/api.py"


def test_an_explicit_directory_is_walked_even_if_its_name_is_excluded_by_default(project: Path) -> None:
    files, _ = discover([Path("build")], config_for(project))
    assert rels(files) == ["build/lib/consumer.py"]


def test_missing_path_is_a_usage_error(project: Path) -> None:
    with pytest.raises(UsageError, match=r"^epochlint: path not found: foo\.py$"):
        discover([Path("src"), Path("foo.py")], config_for(project))


def test_order_is_sorted_deterministic_and_independent_of_argument_order(project: Path) -> None:
    config = config_for(project)
    first, _ = discover([Path("tests"), Path("src"), Path("src/pkg/fetcher.py")], config)
    second, _ = discover([Path("src/pkg/fetcher.py"), Path("src"), Path("tests")], config)
    assert first == second
    assert rels(first) == sorted(rels(first))
    assert len({f.path.resolve() for f in first}) == len(first)


def test_no_paths_means_the_current_directory(project: Path) -> None:
    files, _ = discover([], config_for(project))
    assert "src/consumer.py" in rels(files)


def test_a_symlink_loop_is_walked_once(project: Path) -> None:
    (project / "src/pkg/up").symlink_to("..", target_is_directory=True)
    (project / "src/pkg/self").symlink_to(".", target_is_directory=True)
    (project / "src/a").symlink_to("b")
    (project / "src/b").symlink_to("a")
    files, problems = discover([Path("src")], config_for(project))
    assert rels(files) == ["src/api_pb2.py", "src/consumer.py", "src/generated/api.py", "src/pkg/__init__.py",
                           "src/pkg/fetcher.py"]
    assert problems == []


def test_a_file_reachable_through_an_internal_symlink_is_listed_once_under_its_real_name(project: Path) -> None:
    (project / "src/alias.py").symlink_to("consumer.py")
    (project / "src/pkg_alias").symlink_to("pkg", target_is_directory=True)
    files, _ = discover([Path("src")], config_for(project))
    assert "src/consumer.py" in rels(files) and "src/alias.py" not in rels(files)
    assert not any(r.startswith("src/pkg_alias/") for r in rels(files))


def test_an_internal_symlink_into_an_excluded_folder_is_followed(project: Path) -> None:
    (project / "src/built").symlink_to(project / "build/lib", target_is_directory=True)
    files, _ = discover([project], config_for(project))
    assert "src/built/consumer.py" in rels(files)


def test_external_symlinks_are_not_followed_unless_asked(project: Path, tmp_path: Path) -> None:
    touch(tmp_path, "shared/common.py", "shared/helper.py")
    (project / "src/shared").symlink_to(tmp_path / "shared", target_is_directory=True)
    (project / "src/helper.py").symlink_to(tmp_path / "shared/helper.py")
    config = config_for(project)

    files, problems = discover([Path("src")], config)
    assert not any("shared" in r or "helper" in r for r in rels(files))
    # Reported, never skipped silently.
    outside = "symbolic link to outside the analysed paths, not followed"
    assert problems == [DiscoveryProblem("src/helper.py", outside), DiscoveryProblem("src/shared", outside)]

    files, _ = discover([Path("src")], config, follow_external_symlinks=True)
    assert {"src/shared/common.py", "src/helper.py"} <= set(rels(files))


def test_an_explicit_symlink_argument_is_taken_even_if_external(project: Path, tmp_path: Path) -> None:
    touch(tmp_path, "shared/common.py")
    (project / "common.py").symlink_to(tmp_path / "shared/common.py")
    files, _ = discover([Path("common.py")], config_for(project))
    assert files == [SourceFile(project / "common.py", "common.py")]


def test_a_broken_symlink_is_a_problem_but_an_editors_lock_link_is_ignored(project: Path) -> None:
    (project / "src/dangling.py").symlink_to("nowhere.py")
    (project / "src/.#consumer.py").symlink_to("user@host.1234")  # an editor's lock link
    for given in ([Path("src")], [Path("src/dangling.py")]):
        files, problems = discover(given, config_for(project))
        assert problems == [DiscoveryProblem("src/dangling.py", "broken symbolic link")]
        assert "src/dangling.py" not in rels(files)
    files, _ = discover([Path("src")], config_for(project))
    assert "src/consumer.py" in rels(files) and "src/.#consumer.py" not in rels(files)


def test_an_unreadable_directory_is_reported_not_skipped(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if os.path.basename(path) == "pkg":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    files, problems = discover([Path("src")], config_for(project))
    assert problems == [DiscoveryProblem("src/pkg", "cannot read directory: Permission denied")]
    assert "src/consumer.py" in rels(files)


def test_files_outside_the_root_are_named_from_it_with_parent_for_dotdot(project: Path, tmp_path: Path) -> None:
    # Named from the common ancestor, `../other/lib/util.py` was `other/lib/util.py`: the name of
    # another file the project could have, whose findings it then hid. `..` is not written either:
    # report paths never leave the root.
    touch(tmp_path, "other/lib/util.py")
    files, _ = discover([tmp_path / "other", Path("src/consumer.py")], config_for(project))
    assert rels(files) == ["(parent)/other/lib/util.py", "src/consumer.py"]
    assert all(".." not in f.rel.split("/") for f in files)


def test_a_walk_from_above_the_root_names_files_inside_it_from_the_root(project: Path, tmp_path: Path) -> None:
    touch(tmp_path, "other/util.py")
    files, _ = discover([tmp_path], config_for(project))
    assert "src/consumer.py" in rels(files)
    assert "(parent)/other/util.py" in rels(files)


def test_an_undecodable_file_name_gets_a_printable_name_and_a_usable_path(project: Path) -> None:
    raw = os.path.join(os.fsencode(project / "src"), b"caf\xe9.py")
    with open(raw, "wb") as handle:
        handle.write(b"x = 1\n")
    files, _ = discover([Path("src")], config_for(project))
    [odd] = [f for f in files if f.rel.startswith("src/caf")]
    assert odd.rel == "src/caf\\xe9.py"
    assert odd.rel.isprintable()
    assert odd.path.read_bytes() == b"x = 1\n"


def test_a_fifo_given_explicitly_is_a_problem(project: Path) -> None:
    os.mkfifo(project / "pipe.py")
    files, problems = discover([Path("pipe.py")], config_for(project))
    said = "is a FIFO (named pipe), not a regular file or directory"
    assert files == [] and problems == [DiscoveryProblem("pipe.py", said)]


def test_force_exclude_leaves_out_named_paths_a_walk_would_leave_out(project: Path, tmp_path: Path) -> None:
    touch(tmp_path, "outside/x.py")
    config = Config(root=project, exclude=("generated/", "*_pb2.py"), force_exclude=True)
    named = [
        project / "src/generated/api.py",  # under an excluded folder
        project / "src/api_pb2.py",  # excluded by name
        project / "build/lib/consumer.py",  # under a default-excluded folder
        project / "src/generated",  # an excluded folder itself
        project / "src/consumer.py",
        tmp_path / "outside/x.py",  # outside the root: no pattern speaks of it
    ]
    files, problems = discover(named, config)
    assert rels(files) == ["(parent)/outside/x.py", "src/consumer.py"]
    assert problems == []
    files, _ = discover(named, Config(root=project, exclude=("generated/", "*_pb2.py")))
    assert len(files) == 5  # without it: every file named
