"""Attacks on a run: hostile source files, trees and caches. Each must end in the right findings or a
clear one-line error, never a crash, a hang, a lost file or a silenced finding."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given, strategies as st

from epochlint.text import escaped_name, unescaped_name
from tests.conftest import FIXTURES, HANG_GUARD_SECONDS

WriteTree = Callable[..., Path]

CONSUMER = (FIXTURES / "EPL900" / "consumer.py").read_text(encoding="utf-8")
REPOSITORY = Path(__file__).resolve().parent.parent


def epochlint_command(cwd: Path, *arguments: str, max_file_size: int = -1) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of `epochlint ARGUMENTS` in its own process, with the
    user's own cache (the cache's key) in `cwd/user-cache`; no file it writes can grow past
    `max_file_size` bytes (as on a full disk) when that is given."""
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY), "XDG_CACHE_HOME": str(cwd / "user-cache")}
    limit = (
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({max_file_size}, {max_file_size}))"
        if max_file_size >= 0
        else "pass"
    )
    driver = f"import resource, sys\n{limit}\nfrom epochlint.cli import main\nsys.exit(main(sys.argv[1:]))"
    return [sys.executable, "-c", driver, *arguments], environment


def epochlint(cwd: Path, *arguments: str, max_file_size: int = -1) -> subprocess.CompletedProcess[str]:
    """`epochlint ARGUMENTS` run to its end from `cwd` (a crash there must not end the tests)."""
    command, environment = epochlint_command(cwd, *arguments, max_file_size=max_file_size)
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, env=environment, timeout=HANG_GUARD_SECONDS, check=False
    )


def json_findings(run: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str]]:
    """(path, code, message) of each finding of a `--output-format json` run that ended normally."""
    assert run.returncode in (0, 1) and "Traceback" not in run.stderr, (run.returncode, run.stderr[-2000:])
    return [(f["path"], f["code"], f["message"]) for f in json.loads(run.stdout)["findings"]]


def codes_by_path(findings: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path, code, _ in findings:
        found.setdefault(path, []).append(code)
    return found


# --- crashes with no output ------------------------------------------------------------------------

NESTED_FSTRINGS = {
    # Both crashed libcst's native parser (the process died, no finding printed): the nesting
    # scan took strings as opaque.
    "brackets_2000": b"x = f'{" + b"(" * 2000 + b"a" + b")" * 2000 + b"}'\n",
    "unary_plus_10000": b"x = f'{" + b"+" * 10000 + b"a}'\n",
    "in_a_nested_fstring": b"x = f'{f\"{" + b"-" * 5000 + b"a}\"}'\n",
}


@pytest.mark.parametrize("content", NESTED_FSTRINGS.values(), ids=NESTED_FSTRINGS.keys())
def test_a_deeply_nested_fstring_is_one_epl900_beside_the_other_findings(write_tree: WriteTree, content: bytes) -> None:
    root = write_tree({"consumer.py": CONSUMER, "deep.py": content})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"], "deep.py": ["EPL900"]}
    [message] = [message for path, _, message in findings if path == "deep.py"]
    assert "nested" in message, message


def test_fstrings_of_ordinary_depth_are_analysed(write_tree: WriteTree) -> None:
    consumer = CONSUMER.replace("accepted = []", "accepted = [f'{(((message)))!r:>{width}} {{(( [[' + f\"{x}\"]")
    root = write_tree({"consumer.py": consumer})
    assert codes_by_path(json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))) == {
        "consumer.py": ["EPL001"]
    }


def _consumer_inheriting(base: str, classes: list[str]) -> str:
    """Class definitions, then the racy consumer as a subclass of `base` calling an inherited method."""
    consumer = CONSUMER.replace("class BatchConsumer:", f"class BatchConsumer({base}):")
    consumer = consumer.replace("accepted = []", "accepted = [self.helper()]")
    return "\n".join(classes) + "\n\n" + consumer


def test_an_inheritance_chain_of_500_classes_is_analysed(write_tree: WriteTree) -> None:
    # Ended in RecursionError (one recursive call per class to linearize the hierarchy).
    chain = ["class C0:\n    def helper(self):\n        return 1"]
    chain += [f"class C{i}(C{i - 1}):\n    pass" for i in range(1, 500)]
    root = write_tree({"consumer.py": _consumer_inheriting("C499", chain)})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"]}


def test_a_ladder_of_22_diamonds_is_analysed(write_tree: WriteTree) -> None:
    # Each class's order was computed again for every path to it: 2**22 times for the last one
    # (past two minutes; it finishes in a second once each class is linearized once).
    ladder = ["class D0:\n    def helper(self):\n        return 1"]
    for i in range(22):
        ladder += [
            f"class L{i}(D{i}):\n    pass",
            f"class R{i}(D{i}):\n    pass",
            f"class D{i + 1}(L{i}, R{i}):\n    pass",
        ]
    root = write_tree({"consumer.py": _consumer_inheriting("D22", ladder)})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"]}


# --- the cache: never follow a link it did not make, never trust what it cannot authenticate -----


def cached_run(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return epochlint(root, "check", "--output-format", "json", *arguments)


def test_a_cache_folder_that_is_a_link_is_refused_and_nothing_is_deleted_through_it(
    write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A committed `.epochlint_cache -> ../victim` made pruning delete the victim's files.
    victim = tmp_path_factory.mktemp("victim")
    for name in ("facts", "findings"):
        (victim / name).mkdir()
        for index in range(12):
            (victim / name / f"precious-{index}").write_text("keep me\n")
    root = write_tree({"consumer.py": CONSUMER})
    (root / ".epochlint_cache").symlink_to(victim)
    run = cached_run(root)
    assert codes_by_path(json_findings(run)) == {"consumer.py": ["EPL001"]}
    assert "epochlint: warning: not using the cache: .epochlint_cache" in run.stderr
    assert "symbolic link" in run.stderr
    assert sorted(p.name for p in victim.rglob("*")) == sorted(
        ["facts", "findings", *[f"precious-{i}" for i in range(12)] * 2]
    )


def test_a_dangling_tag_link_in_the_cache_is_not_followed(
    write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # Writing the tag file through the link created its target anywhere the user can write.
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "created-by-the-run"
    root = write_tree({"consumer.py": CONSUMER})
    (root / ".epochlint_cache").mkdir()
    (root / ".epochlint_cache" / "CACHEDIR.TAG").symlink_to(elsewhere)
    run = cached_run(root)
    assert codes_by_path(json_findings(run)) == {"consumer.py": ["EPL001"]}
    assert not os.path.lexists(elsewhere)
    assert "not using the cache: CACHEDIR.TAG" in run.stderr


def _link_cache_entries_to(root: Path, target: Path) -> None:
    entries = [
        p for p in (root / ".epochlint_cache").rglob("*") if p.is_file() and p.parent.name in ("facts", "findings")
    ]
    assert entries
    for entry in entries:
        entry.unlink()
        entry.symlink_to(target)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cache_entries_that_are_links_are_never_read(write_tree: WriteTree) -> None:
    # An entry linked to /dev/zero was read until memory ran out; one linked to a FIFO, forever.
    root = write_tree({"consumer.py": CONSUMER})
    assert codes_by_path(json_findings(cached_run(root))) == {"consumer.py": ["EPL001"]}
    fifo = root / "fifo"
    os.mkfifo(fifo)
    _link_cache_entries_to(root, fifo)
    assert codes_by_path(json_findings(cached_run(root, "fifo", "consumer.py"))) == {
        "consumer.py": ["EPL001"],
        "fifo": ["EPL900"],
    }
    assert codes_by_path(json_findings(cached_run(root, "consumer.py"))) == {"consumer.py": ["EPL001"]}


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_cache_entries_linked_to_an_endless_device_are_never_read(write_tree: WriteTree) -> None:
    root = write_tree({"consumer.py": CONSUMER})
    assert codes_by_path(json_findings(cached_run(root))) == {"consumer.py": ["EPL001"]}
    _link_cache_entries_to(root, Path("/dev/zero"))
    assert codes_by_path(json_findings(cached_run(root, "consumer.py"))) == {"consumer.py": ["EPL001"]}


def _planted_findings(entry: Path) -> bytes:
    """A findings entry saying the run found nothing, with the digest anyone could compute before
    entries were keyed (sha256 of the entry's name and payload)."""
    from epochlint.engine import _Analysed, _LaidOut

    payload = pickle.dumps(_Analysed((), (), 0, _LaidOut((), (), (), (), ())), protocol=5)
    return hashlib.sha256(entry.name.encode() + b"\0" + payload).digest() + payload


def test_a_planted_findings_entry_does_not_silence_the_findings(write_tree: WriteTree) -> None:
    # Committed with `git add -f`, it made a fresh clone print "All checks passed".
    root = write_tree({"consumer.py": CONSUMER})
    assert codes_by_path(json_findings(cached_run(root))) == {"consumer.py": ["EPL001"]}
    entries = list((root / ".epochlint_cache" / "findings").iterdir())
    assert entries
    for entry in entries:
        entry.write_bytes(_planted_findings(entry))
    assert codes_by_path(json_findings(cached_run(root))) == {"consumer.py": ["EPL001"]}


def test_the_cache_key_is_private_to_its_user(write_tree: WriteTree) -> None:
    root = write_tree({"consumer.py": CONSUMER})
    json_findings(cached_run(root))
    key = root / "user-cache" / "epochlint" / "key"
    assert key.stat().st_size == 32
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_a_relative_user_cache_folder_is_ignored_as_the_xdg_spec_says(write_tree: WriteTree) -> None:
    """A relative `XDG_CACHE_HOME` put the key in the folder the run started in: a project's, where
    it would be committed. The user's home cache is used instead."""
    root = write_tree({"consumer.py": CONSUMER})
    command, environment = epochlint_command(root, "check", "--output-format", "json", ".")
    home = root / "home"
    environment = {**environment, "XDG_CACHE_HOME": "relative-cache", "HOME": str(home)}
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, env=environment, timeout=HANG_GUARD_SECONDS)
    assert codes_by_path(json_findings(run)) == {"consumer.py": ["EPL001"]}
    assert not (root / "relative-cache").exists()
    assert (home / ".cache" / "epochlint" / "key").stat().st_size == 32


# --- every file written whole or not at all ----------------------------------------------------------

PADDED_CONSUMER = CONSUMER + "# padding\n" * 800
WRITES = {
    # (arguments, the file written, the error's start); each write would exceed the size limit.
    "fix": (["--fix", "."], "consumer.py", "epochlint: error: cannot write the fix to consumer.py: File too large"),
    "baseline": (
        ["--write-baseline", "baseline.json", "."], "baseline.json", "epochlint: error: cannot write baseline"
    ),
    "output_file": (["--output-file", "report.txt", "."], "report.txt", "epochlint: error: cannot write report.txt"),
}


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX resource limits")
@pytest.mark.parametrize(("arguments", "written", "error"), WRITES.values(), ids=WRITES.keys())
def test_a_write_that_fails_leaves_the_original_whole(
    write_tree: WriteTree, arguments: list[str], written: str, error: str
) -> None:
    # A full disk left a fixed file truncated at 8,192 of 8,203 bytes while the report said
    # "fixes applied: 0"; baselines and reports were written in place too.
    root = write_tree({"consumer.py": PADDED_CONSUMER})
    target = root / written
    original = PADDED_CONSUMER if written == "consumer.py" else "the previous one\n" * 2
    target.write_text(original)
    # The new content is longer than the original: the limit stops it, and nothing else.
    run = epochlint(root, "check", *arguments, max_file_size=len(original.encode()))
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert run.stderr.strip().splitlines()[-1].startswith(error), run.stderr
    assert "Traceback" not in run.stderr
    assert target.read_text() == original
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []


# --- paths: distinct files keep distinct names ---------------------------------------------------------


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs a file system that takes any bytes")
def test_names_differing_only_in_undecodable_bytes_are_both_analysed(write_tree: WriteTree) -> None:
    # Both became `consumer_\ufffd.py`: one file's findings replaced the other's ("All checks passed").
    root = write_tree({"pyproject.toml": "[project]\nname = 'sample'\n"})
    (root / "consumer.py").unlink(missing_ok=True)
    Path(os.fsdecode(bytes(root) + b"/consumer_\xe8.py")).write_text(CONSUMER)
    Path(os.fsdecode(bytes(root) + b"/consumer_\xe9.py")).write_text("x = 1\n")
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json", "."))
    assert codes_by_path(findings) == {"consumer_\\xe8.py": ["EPL001"]}
    console = epochlint(root, "check", "--no-cache", ".")
    assert "consumer_\\xe8.py:17:9: EPL001" in console.stdout
    assert "in 2 files" in console.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="needs backslashes in file names")
@pytest.mark.parametrize("racy", [b"consumer_\\xe8.py", b"consumer_\xe8.py"])
def test_a_name_holding_the_text_of_an_escape_is_not_the_file_with_that_byte(
    write_tree: WriteTree, racy: bytes
) -> None:
    # `consumer_\xe8.py` (a backslash, then `xe8`) was shown, and keyed, as the file whose name
    # holds the byte 0xe8: one file's findings replaced the other's.
    root = write_tree({"pyproject.toml": "[project]\nname = 'sample'\n"})
    (root / "consumer.py").unlink(missing_ok=True)
    for name in (b"consumer_\\xe8.py", b"consumer_\xe8.py"):
        Path(os.fsdecode(bytes(root) + b"/" + name)).write_text(CONSUMER if name == racy else "x = 1\n")
    run = epochlint(root, "check", "--no-cache", "--output-format", "json", ".")
    shown = {b"consumer_\\xe8.py": "consumer_\\\\xe8.py", b"consumer_\xe8.py": "consumer_\\xe8.py"}
    assert codes_by_path(json_findings(run)) == {shown[racy]: ["EPL001"]}
    assert json.loads(run.stdout)["summary"]["files"] == 2


@given(st.binary(min_size=1, max_size=12).filter(lambda name: b"/" not in name and b"\0" not in name))
@example(b"consumer_\\xe8.py")
@example("consumer_\u0085.py".encode())
def test_a_shown_name_reads_back_as_its_one_file_name(name: bytes) -> None:
    # Names key findings, baselines and caches: two files must never show as one. `\x85` was both
    # the byte 0x85 and the character U+0085, and a name holding a backslash and `xe8` was shown as
    # the one holding the byte 0xe8.
    shown = escaped_name(os.fsdecode(name))
    assert shown.isprintable()
    assert os.fsencode(unescaped_name(shown)) == name


def _project_beside(tmp_path: Path, files: dict[str, str]) -> Path:
    """`tmp_path/project` (a pyproject.toml and `files` below it, where `../` leads out of it)."""
    root = tmp_path / "project"
    for name, text in {"pyproject.toml": "[project]\nname = 'sample'\n", **files}.items():
        path = Path(os.path.normpath(root / name))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("inside", "outside", "expected"),
    [
        ("y = 2\n", CONSUMER, {"(parent)/other/x.py": ["EPL001"]}),
        (CONSUMER, "y = 2\n", {"other/x.py": ["EPL001"]}),
        (CONSUMER, CONSUMER, {"(parent)/other/x.py": ["EPL001"], "other/x.py": ["EPL001"]}),
    ],
)
def test_a_file_outside_the_project_never_takes_the_name_of_one_inside(
    tmp_path: Path, inside: str, outside: str, expected: dict[str, list[str]]
) -> None:
    # `check . ../other/x.py` named the outside file `other/x.py` (from the common ancestor), as
    # the project's own `other/x.py`: one hid the other's findings ("All checks passed: 2 files").
    root = _project_beside(tmp_path, {"other/x.py": inside, "../other/x.py": outside})
    run = epochlint(root, "check", "--no-cache", "--output-format", "json", ".", "../other/x.py")
    assert codes_by_path(json_findings(run)) == expected
    assert json.loads(run.stdout)["summary"]["files"] == 2


@pytest.mark.parametrize("name", ["../other/x.py", "consumer_\udce8.py", "consumer\\xe8.py"])
def test_the_console_quotes_the_source_of_a_file_named_with_escapes_or_from_outside(tmp_path: Path, name: str) -> None:
    # The report read the source back from the root by the name it shows: `(parent)/other/x.py`
    # and `consumer_\xe8.py` are no files there, and their findings came without their lines.
    root = _project_beside(tmp_path, {})
    path = Path(os.path.normpath(root / name))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CONSUMER)
    run = epochlint(root, "check", "--no-cache", ".", os.path.relpath(path, root))
    loop_line = next(line for line in CONSUMER.splitlines() if line.lstrip().startswith("for "))
    assert f"| {loop_line}" in run.stdout, run.stdout


def test_the_console_quotes_a_folder_really_named_like_the_outside_marker(tmp_path: Path) -> None:
    # Read back as `../c.py`, the frame quoted another file's lines (or none).
    root = _project_beside(tmp_path, {"(parent)/c.py": CONSUMER, "../c.py": "\n" * 40})
    run = epochlint(root, "check", "--no-cache", "(parent)/c.py")
    loop_line = next(line for line in CONSUMER.splitlines() if line.lstrip().startswith("for "))
    assert f"| {loop_line}" in run.stdout, run.stdout


def test_files_outside_the_project_at_different_depths_keep_distinct_names(tmp_path: Path) -> None:
    # Each was named from its own common ancestor with the root: both `other/x.py`.
    root = _project_beside(tmp_path / "a", {"../other/x.py": CONSUMER, "../../other/x.py": CONSUMER})
    run = epochlint(root, "check", "--no-cache", "--output-format", "json", ".", "../other/x.py", "../../other/x.py")
    assert codes_by_path(json_findings(run)) == {
        "(parent)/(parent)/other/x.py": ["EPL001"], "(parent)/other/x.py": ["EPL001"]
    }


def test_the_baseline_of_a_project_file_never_hides_the_outside_file_of_that_name(tmp_path: Path) -> None:
    root = _project_beside(tmp_path, {"other/x.py": CONSUMER, "../other/x.py": "y = 2\n"})
    recorded = epochlint(root, "check", "--no-cache", "--write-baseline", "baseline.json", ".", "../other/x.py")
    assert recorded.returncode == 0, recorded.stderr
    (tmp_path / "other" / "x.py").write_text(CONSUMER)
    run = epochlint(
        root, "check", "--no-cache", "--baseline", "baseline.json", "--output-format", "json", ".", "../other/x.py"
    )
    assert codes_by_path(json_findings(run)) == {"(parent)/other/x.py": ["EPL001"]}


def test_fix_mends_both_the_project_file_and_the_outside_file_of_that_name(tmp_path: Path) -> None:
    root = _project_beside(tmp_path, {"other/x.py": CONSUMER, "../other/x.py": CONSUMER})
    run = epochlint(root, "check", "--no-cache", "--fix", ".", "../other/x.py")
    assert "Traceback" not in run.stderr, run.stderr
    assert (root / "other" / "x.py").read_text() != CONSUMER
    assert (tmp_path / "other" / "x.py").read_text() == (root / "other" / "x.py").read_text()
    assert epochlint(root, "check", "--no-cache", ".", "../other/x.py").returncode == 0


def test_a_project_folder_named_like_the_outside_marker_is_refused_in_one_line(tmp_path: Path) -> None:
    root = _project_beside(tmp_path, {"(parent)/other/x.py": CONSUMER, "../other/x.py": CONSUMER})
    run = epochlint(root, "check", "--no-cache", ".", "../other/x.py")
    assert run.returncode == 2
    assert run.stderr.startswith("epochlint: error: two files would be reported as (parent)/other/x.py: ")
    assert len(run.stderr.strip().splitlines()) == 1


# --- output: nothing the analysed code holds reaches the terminal or the log as it is ---------------

TROJAN = "\u202e"
SEPARATOR = "\u2028"


@pytest.mark.parametrize("output_format", ["console", "github"])
def test_bidi_overrides_and_line_separators_are_escaped_in_the_output(
    write_tree: WriteTree, output_format: str
) -> None:
    consumer = CONSUMER.replace("for message in batch:", f"for message in batch:  # {TROJAN}{SEPARATOR}\x1b[2J")
    root = write_tree({f"consumer{TROJAN}.py": consumer})
    run = epochlint(root, "check", "--no-cache", "--output-format", output_format, ".")
    assert run.returncode == 1, run.stderr
    assert "EPL001" in run.stdout
    for unsafe in (TROJAN, SEPARATOR, "\x1b"):
        assert unsafe not in run.stdout
    assert "consumer\\u202e.py" in run.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_the_console_never_reads_a_fifo_to_show_a_frame(write_tree: WriteTree) -> None:
    # `check p.py` on a FIFO blocked forever: its EPL900 frame was read from the file, unguarded.
    root = write_tree({"consumer.py": CONSUMER})
    os.mkfifo(root / "p.py")
    os.symlink("/dev/zero", root / "zero.py")
    run = epochlint(root, "check", "--no-cache", "p.py", "zero.py", "consumer.py")
    assert run.returncode == 1, run.stderr
    assert "p.py:1:1: EPL900" in run.stdout and "zero.py:1:1: EPL900" in run.stdout
    assert "consumer.py:17:9: EPL001" in run.stdout


# --- nothing skipped silently -----------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and Unix sockets")
def test_a_fifo_or_socket_named_py_in_a_walked_folder_is_reported(write_tree: WriteTree) -> None:
    root = write_tree({"consumer.py": CONSUMER})
    os.mkfifo(root / "pipe.py")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root / "sock.py"))
        findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json", "."))
    messages = {path: message for path, _, message in findings}
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"], "pipe.py": ["EPL900"], "sock.py": ["EPL900"]}
    assert "a FIFO (named pipe)" in messages["pipe.py"]
    assert "a socket" in messages["sock.py"]


def test_links_to_outside_the_analysed_paths_are_reported_not_followed(
    write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "racy.py").write_text(CONSUMER)
    root = write_tree({"consumer.py": CONSUMER})
    (root / "linked.py").symlink_to(outside / "racy.py")
    (root / "vendored").symlink_to(outside, target_is_directory=True)
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json", "."))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"], "linked.py": ["EPL900"], "vendored": ["EPL900"]}
    assert all(
        "symbolic link to outside the analysed paths, not followed" in m for p, _, m in findings if p != "consumer.py"
    )


def test_the_console_never_quotes_a_link_it_did_not_follow(
    write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The target was not read for the analysis; the report must not read it to show a frame either.
    outside = tmp_path_factory.mktemp("outside")
    (outside / "private.py").write_text("PRIVATE_TOKEN = 'not for this report'\n")
    root = write_tree({"consumer.py": CONSUMER})
    (root / "linked.py").symlink_to(outside / "private.py")
    run = epochlint(root, "check", "--no-cache", ".")
    assert "linked.py:1:1: EPL900" in run.stdout
    assert "PRIVATE_TOKEN" not in run.stdout


EXCLUDE_ALL = '[tool.epochlint]\nexclude = ["*"]\n'


NEEDS_ROOT = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs to give a file away")


def _shared_folder_above_a_project(tmp_path: Path) -> Path:
    """`tmp_path/shared` (every user may write there) holding a pyproject.toml that excludes every
    file, and below it `project/consumer.py`, with a race and no pyproject.toml of its own."""
    shared = tmp_path / "shared"
    (shared / "project").mkdir(parents=True)
    (shared / "pyproject.toml").write_text(EXCLUDE_ALL)
    (shared / "project" / "consumer.py").write_text(CONSUMER)
    shared.chmod(0o777)
    return shared


@NEEDS_ROOT
def test_a_pyproject_another_user_left_in_a_shared_folder_is_not_the_configuration(tmp_path: Path) -> None:
    # A pyproject.toml in a shared folder above the project (`/tmp/pyproject.toml`) excluded every
    # file ("All checks passed: 0 files") and took the cache into that folder.
    shared = _shared_folder_above_a_project(tmp_path)
    os.chown(shared / "pyproject.toml", 65534, 65534)
    run = epochlint(shared / "project", "check", "--output-format", "json", ".")
    assert codes_by_path(json_findings(run)) == {"consumer.py": ["EPL001"]}
    assert run.stderr.startswith(f"epochlint: warning: ignoring {shared / 'pyproject.toml'}: another user's file")
    assert not (shared / ".epochlint_cache").exists()


def test_the_users_own_pyproject_in_a_shared_folder_is_still_read(tmp_path: Path) -> None:
    # As on a mount that shows every file as writable by all: the settings are the user's own.
    shared = _shared_folder_above_a_project(tmp_path)
    run = epochlint(shared / "project", "check", "--no-cache", ".")
    assert "ignoring" not in run.stderr
    assert "every file under it is left out by the `exclude` patterns" in run.stderr


def test_excludes_that_leave_nothing_to_check_say_so_naming_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "project" / "generated").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[tool.epochlint]\nexclude = ["*.py"]\n')
    (tmp_path / "project" / "consumer.py").write_text(CONSUMER)
    (tmp_path / "project" / "generated" / "api.py").write_text(CONSUMER)
    run = epochlint(tmp_path / "project", "check", "--no-cache", ".")
    assert run.returncode == 0
    assert "All checks passed" not in run.stdout
    assert "No files checked" in run.stdout
    warning = (
        "epochlint: warning: project: every file under it is left out by the `exclude` patterns of "
        f"{tmp_path / 'pyproject.toml'}"
    )
    assert run.stderr.startswith(warning), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_a_folder_named_whose_files_are_all_excluded_is_named_in_a_warning(tmp_path: Path) -> None:
    (tmp_path / "generated").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.epochlint]\nexclude = ["generated/"]\n')
    (tmp_path / "consumer.py").write_text(CONSUMER)
    (tmp_path / "generated" / "api.py").write_text(CONSUMER)
    run = epochlint(tmp_path, "check", "--no-cache", "--output-format", "json", "consumer.py", "generated")
    assert codes_by_path(json_findings(run)) == {"consumer.py": ["EPL001"]}
    assert (
        "epochlint: warning: generated: every file under it is left out by the `exclude` patterns of "
        "pyproject.toml" in run.stderr
    )
    # A file named on the command line is checked whatever the patterns say (as ruff does).
    named = epochlint(tmp_path, "check", "--no-cache", "--output-format", "json", "generated/api.py")
    assert codes_by_path(json_findings(named)) == {"generated/api.py": ["EPL001"]}


@pytest.mark.parametrize(
    ("file_patterns", "flags", "named"),
    [
        (
            '["generated/"]',
            ["--extend-exclude", "gen*"],
            "the `exclude` patterns of pyproject.toml and --extend-exclude",
        ),
        ('["generated/"]', ["--exclude", "gen*"], "the patterns of --exclude"),
        ("[]", ["--extend-exclude", "gen*"], "the patterns of --extend-exclude"),
    ],
)
def test_the_warning_names_the_flags_whose_patterns_left_the_folder_out(
    tmp_path: Path, file_patterns: str, flags: list[str], named: str
) -> None:
    # Patterns the command line gave are not the configuration file's: the warning says whose they are.
    (tmp_path / "generated").mkdir()
    (tmp_path / "pyproject.toml").write_text(f"[tool.epochlint]\nexclude = {file_patterns}\n")
    (tmp_path / "generated" / "api.py").write_text(CONSUMER)
    run = epochlint(tmp_path, "check", "--no-cache", *flags, "generated")
    assert run.stderr == (
        f"epochlint: warning: generated: every file under it is left out by {named}; name a file to check it anyway\n"
    )


def _not_the_users(folder: Path, how: str) -> None:
    if how == "writable by every user":
        folder.chmod(0o777)
    else:
        os.chown(folder, 65534, 65534)


@pytest.mark.parametrize(
    "how",
    [
        "writable by every user",
        pytest.param(
            "owned by another user",
            marks=pytest.mark.skipif(
                not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs to give a folder away"
            ),
        ),
    ],
)
def test_the_cache_of_a_root_that_is_not_the_users_folder_goes_to_the_users_cache(tmp_path: Path, how: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "consumer.py").write_text(CONSUMER)
    _not_the_users(root, how)
    for _ in range(2):  # the second run reads what the first stored
        assert codes_by_path(json_findings(epochlint(root, "check", "--output-format", "json", "."))) == {
            "consumer.py": ["EPL001"]
        }
    assert not (root / ".epochlint_cache").exists()
    projects = list((root / "user-cache" / "epochlint" / "projects").iterdir())
    assert len(projects) == 1 and any((projects[0] / "facts").iterdir())


# --- configured patterns that would hang ---------------------------------------------------------------

HANGING_PATTERNS = [
    # Each ran for minutes against long names (killed after 30-60 s).
    pytest.param("epoch-pattern", 'epoch-pattern = "(a+)+$"', id="epoch-pattern"),
    pytest.param("lock-pattern", 'lock-pattern = "(a|aa)+$"', id="lock-pattern"),
    pytest.param("exclude", 'exclude = ["*a*a*a*a*a*a*a*a*b"]', id="exclude"),
    # Polynomial, of high degree: still running after 120 s on a 120-character name.
    pytest.param(
        "epoch-pattern", 'epoch-pattern = "\\\\w*\\\\w*\\\\w*\\\\w*\\\\w*\\\\w*!"', id="epoch-pattern-in-a-row"
    ),
    # Let through before: a row inside an optional group (89 s on a 400-character name), and in a lookahead.
    pytest.param(
        "lock-pattern", 'lock-pattern = "(?:\\\\w*\\\\w*\\\\w*)?!"', id="lock-pattern-row-in-an-optional-group"
    ),
    pytest.param(
        "epoch-pattern", 'epoch-pattern = "(?=\\\\w*\\\\w*\\\\w*!)epoch"', id="epoch-pattern-row-in-a-lookahead"
    ),
]


@pytest.mark.parametrize(("key", "setting"), HANGING_PATTERNS)
def test_a_pattern_that_could_hang_is_a_configuration_error_naming_its_key(
    write_tree: WriteTree, key: str, setting: str
) -> None:
    root = write_tree(
        {"consumer.py": CONSUMER, "a" * 200 + ".py": "a" * 100 + " = 1\n"}, f"[tool.epochlint]\n{setting}\n"
    )
    run = epochlint(root, "check", "--no-cache", ".")
    assert run.returncode == 2, (run.returncode, run.stdout[-500:])
    [line] = run.stderr.strip().splitlines()
    assert line.startswith("epochlint: error: pyproject.toml: [tool.epochlint] " + key), line
    assert "exponential" in line or "minutes" in line or "high power" in line


def test_patterns_with_ordinary_repetition_are_accepted(write_tree: WriteTree) -> None:
    # Repetitions of characters no other one in the row takes (`(a|b*)c*d*`) share out a name one way only;
    # the repetitions of two alternatives are on no one way together.
    settings = (
        'epoch-pattern = ".*(?:leader_)?epoch.*|[a-z]+[_.][a-z]+[_.]epoch|q(a|b*)c*d*_epoch|(?:qa.*|qb.*).*_epoch"\n'
        'lock-pattern = "lock|mutex(_\\\\w+)?"\nexclude = ["*_pb2*.py"]\n'
    )
    root = write_tree({"consumer.py": CONSUMER}, f"[tool.epochlint]\n{settings}")
    assert codes_by_path(json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))) == {
        "consumer.py": ["EPL001"]
    }


# --- no orphans ----------------------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                # The fields after the command's name (in parentheses): state, then parent.
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait_for(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers end with their run on Linux")
@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_run_killed_during_a_parallel_parse_leaves_no_worker(write_tree: WriteTree, signal_number: int) -> None:
    # Ten workers were found parsing on 45 minutes after their run was killed.
    body = CONSUMER.split("class BatchConsumer:")[1]
    module = "import threading\n" + "".join(f"class C{i}:{body}" for i in range(80))
    root = write_tree({f"m{index}.py": module for index in range(24)})
    command, environment = epochlint_command(root, "check", "--no-cache", "--jobs", "2", ".")
    run = subprocess.Popen(command, cwd=root, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()

    def both_workers_started() -> bool:
        workers.update(_children(run.pid))
        return len(workers) >= 2

    try:
        assert _wait_for(both_workers_started)
        run.send_signal(signal_number)
        run.wait(HANG_GUARD_SECONDS)
        assert _wait_for(lambda: not any(_running(worker) for worker in workers)), "workers outlived their run"
    finally:
        run.kill()
        for worker in workers:
            if _running(worker):
                os.kill(worker, signal.SIGKILL)


# --- super-linear inputs: the right answer, or an EPL900 saying why -----------------------------------

LOCKED_MODULE = "import threading\n\nLOCK = threading.Lock()\n\n"  # a lock: the file is analysed


def test_a_with_of_5000_items_is_python_s_own_error_not_a_73_mb_fact(write_tree: WriteTree) -> None:
    names = ", ".join(f"a{i}" for i in range(5000))
    root = write_tree(
        {"consumer.py": CONSUMER, "withs.py": f"{LOCKED_MODULE}def f({names}):\n    with {names}:\n        pass\n"}
    )
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"], "withs.py": ["EPL900"]}
    [message] = [m for p, _, m in findings if p == "withs.py"]
    assert "syntax error at line 6: too many statically nested blocks" in message


def test_a_comprehension_python_accepts_is_not_called_a_syntax_error(write_tree: WriteTree) -> None:
    clauses = " ".join(f"for a{i} in b" for i in range(5000))
    source = f"{LOCKED_MODULE}x = [a {clauses}]\n"
    compile(source, "comprehension.py", "exec")  # valid Python
    root = write_tree({"consumer.py": CONSUMER, "comprehension.py": source})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"], "comprehension.py": ["EPL900"]}
    [message] = [m for p, _, m in findings if p == "comprehension.py"]
    assert not message.startswith("Cannot analyse this file: syntax error")
    assert "beyond the limits of the parser" in message and "Python itself reports no syntax error" in message


def test_many_batch_loops_with_lambdas_are_each_reported(write_tree: WriteTree) -> None:
    loops = 60
    body = "".join(
        f"        for m{i} in batch:\n            key{i} = lambda m: m.offset\n"
        f"            if m{i}.epoch >= self._epoch:\n"
        f"                key{i}(m{i})\n"
        for i in range(loops)
    )
    root = write_tree({"consumer.py": CONSUMER + f"\n    def many(self, batch: list) -> None:\n{body}"})
    findings = json_findings(epochlint(root, "check", "--no-cache", "--output-format", "json"))
    assert codes_by_path(findings) == {"consumer.py": ["EPL001"] * (loops + 1)}
