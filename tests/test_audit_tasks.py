"""The audit's work without Spark: units, reading, the isolated parser, each unit's analysis, and
that `check` never loads PySpark."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from epochlint.audit.isolation import ATTEMPTS, IsolatedParser
from epochlint.audit.tables import (
    STATUS_CONFIG_ERROR,
    STATUS_NO_FRONTEND,
    STATUS_OK,
    STATUS_PARSE_ERROR,
    STATUS_PENDING,
    STATUS_TIMED_OUT,
    STATUS_TOO_LARGE,
    STATUS_UNREADABLE,
    FileRecord,
    ListedFile,
)
from epochlint.audit.tasks import (
    FILE,
    FINDING,
    UNIT,
    analyse_unit,
    list_unit,
    mark_relevant,
    parse_files,
    read_and_hash,
)
from epochlint.audit.units import Unit, resolve_units, unit_config
from epochlint.config import Config
from epochlint.discovery import SourceFile, UsageError
from epochlint.collect import read_source
from epochlint.engine import check
from epochlint.frontend.java import MISSING_REASON as JAVA_MISSING_REASON
from tests.conftest import FIXTURES, KNOWN_CODES
from tests.test_cli import RACY_CONSUMER

# A relevant file (it holds an epoch field and a lock) that takes seconds to parse: with a time
# limit of a second it stands for a file that hangs the parser.
SLOW_SOURCE = (RACY_CONSUMER + "x = 1\n" * 60_000).encode()

WriteTree = Callable[..., Path]


def audit_in_process(unit: Unit, run: str = "run", time_limit: float = 30.0) -> list[tuple[str, tuple[object, ...]]]:
    """Every task of the job, one after the other, in this process."""
    read = [read_and_hash(listed, unit.config) for listed in list_unit(unit)]
    rows = list(mark_relevant(unit, read))
    pending = [(row.sha256, row.relevant, [row.path]) for row in rows if row.status == STATUS_PENDING]
    facts = {(fact.sha256, fact.relevant): fact for fact in parse_files(pending, time_limit, run)}
    records = [FileRecord(row, facts.get((row.sha256, row.relevant))) for row in rows]
    return list(analyse_unit(unit, records, run))


def check_unit(unit: Unit) -> list[tuple[object, ...]]:
    assert unit.config is not None
    return [(f.location.path, f.location.line, f.location.column, f.code, f.message, f.fingerprint)
            for f in check([Path(unit.root)], unit.config, use_cache=False).findings]


def audit_findings(rows: list[tuple[str, tuple[object, ...]]]) -> list[tuple[object, ...]]:
    # finding rows: unit, path, line, column, end_line, end_column, code, name, message, function, fingerprint, ...
    return [(r[1], r[2], r[3], r[6], r[8], r[10]) for tag, r in rows if tag == FINDING]


def one_unit(root: Path) -> Unit:
    (unit,) = resolve_units([root], None, None, KNOWN_CODES)
    return unit


# --- units ------------------------------------------------------------------------------------


def test_units_come_from_roots_repos_file_and_repositories_under_a_folder(tmp_path: Path) -> None:
    for repo, marker in (("a", ".git"), ("b/c", "pyproject.toml"), ("b/d", "setup.py"), ("e/f", "pyproject.toml")):
        (tmp_path / "repos" / repo).mkdir(parents=True)
        (tmp_path / "repos" / repo / marker).write_text("")
    (tmp_path / "repos" / "a" / "inner").mkdir()
    (tmp_path / "repos" / "a" / "inner" / "setup.py").write_text("")  # inside a repository: not a unit
    (tmp_path / "repos" / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "repos" / "node_modules" / "x" / "setup.py").write_text("")
    (tmp_path / "root").mkdir()
    listed = tmp_path / "repos.txt"
    listed.write_text(f"# units\n\n{tmp_path / 'repos' / 'e' / 'f'}\n{tmp_path / 'gone'}\n")
    units = resolve_units([tmp_path / "root"], listed, tmp_path / "repos", KNOWN_CODES)
    roots = [Path(u.root).relative_to(tmp_path).as_posix() for u in units]
    # e/f is named twice (repos file, then found under repos/) and kept once.
    assert roots == ["root", "repos/e/f", "gone", "repos/a", "repos/b/c", "repos/b/d"]
    assert [u.id for u in units] == list(range(6))
    assert units[2].config is None and units[2].error == "folder not found"
    assert all(u.config is not None and u.config.root == Path(u.root) for u in units if u is not units[2])


def test_units_under_a_repository_is_that_repository_and_loose_files_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A folder that is itself a repository gave only the repositories nested in it (snuba's own
    # 1,248 files were left out without a word), and files in no repository were dropped silently.
    (tmp_path / "mono" / "tools" / "nested").mkdir(parents=True)
    (tmp_path / "mono" / ".git").mkdir()
    (tmp_path / "mono" / "tools" / "nested" / "pyproject.toml").write_text("")
    assert [unit.name for unit in resolve_units([], None, tmp_path / "mono", KNOWN_CODES)] == [str(tmp_path / "mono")]
    (tmp_path / "all" / "repo").mkdir(parents=True)
    (tmp_path / "all" / "repo" / "setup.py").write_text("")
    (tmp_path / "all" / "script.py").write_text("print(1)\n")
    (tmp_path / "all" / "linked").symlink_to(tmp_path / "mono")
    units = resolve_units([], None, tmp_path / "all", KNOWN_CODES)
    assert [Path(unit.root).name for unit in units] == ["linked", "repo"]
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1 and "1 source file(s) lie in no repository" in warning and "script.py" in warning


def test_a_unit_with_invalid_settings_is_kept_with_its_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.epochlint]\nselect = 'EPL001'\n")
    unit = one_unit(tmp_path)
    assert unit.config is None and "select" in unit.error
    assert audit_in_process(unit)[-1][1][-1] == unit.error


def test_every_file_of_a_unit_with_invalid_settings_gets_a_config_error_row(write_tree: WriteTree) -> None:
    root = write_tree({
        "pyproject.toml": "[tool.epochlint]\nselct = ['ALL']\n",
        "pkg/__init__.py": "", "pkg/consumer.py": RACY_CONSUMER, "broken.py": "def f(:\n",
    })
    unit = one_unit(root)
    rows = audit_in_process(unit)
    files = {r[1]: (r[4], r[5]) for tag, r in rows if tag == FILE}
    assert files == {
        rel: (STATUS_CONFIG_ERROR, unit.error) for rel in ("broken.py", "pkg/__init__.py", "pkg/consumer.py")
    }
    assert "selct" in unit.error and not [r for tag, r in rows if tag == FINDING]
    (unit_row,) = [r for tag, r in rows if tag == UNIT]
    assert (unit_row.files, unit_row.analysed, unit_row.errored, unit_row.error) == (3, 0, 3, unit.error)  # type: ignore[attr-defined]


def test_java_files_listed_where_the_java_frontend_is_missing_get_a_row_saying_so(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `check` says so in a notice line on stderr: in the audit that line reached only a worker's
    # log, and the files were missing from the tables.
    java = {f"src/{path.name}": path.read_text() for path in sorted((FIXTURES / "java" / "EPL001").glob("*.java"))}
    unit = one_unit(write_tree({**java, "consumer.py": RACY_CONSUMER}))
    monkeypatch.setattr("epochlint.audit.tasks.java_frontend_available", lambda: False)
    rows = audit_in_process(unit)
    files = {r[1]: (r[4], r[5]) for tag, r in rows if tag == FILE}
    assert files == {
        "consumer.py": (STATUS_OK, None),
        **{rel: (STATUS_NO_FRONTEND, JAVA_MISSING_REASON) for rel in java},
    }
    assert "install epochlint with its java extra" in JAVA_MISSING_REASON
    assert {(r[1], r[6]) for tag, r in rows if tag == FINDING} == {("consumer.py", "EPL001")}
    (unit_row,) = [r for tag, r in rows if tag == UNIT]
    assert (unit_row.files, unit_row.analysed, unit_row.errored) == (len(java) + 1, 1, len(java))  # type: ignore[attr-defined]


def test_a_unit_gone_before_it_is_listed_gets_a_row_the_listing_tables_binary_path_takes(
    write_tree: WriteTree,
) -> None:
    # Its row named the unit's folder as text, which the listing table's `path binary` column
    # refuses (Spark raises a type error for a `str` there).
    root = write_tree({"consumer.py": RACY_CONSUMER})
    unit = one_unit(root)
    shutil.rmtree(root)
    (listed,) = list(list_unit(unit))
    row = read_and_hash(listed, unit.config).row
    assert (row.rel, row.path, row.status) == (".", os.fsencode(unit.root), STATUS_UNREADABLE)
    assert row.error is not None and row.error.startswith("cannot list the unit: ")


def test_listing_a_unit_its_exclude_patterns_empty_warns_of_nothing_on_the_worker(
    write_tree: WriteTree, capsys: pytest.CaptureFixture[str]
) -> None:
    # The warning `check` gives reached only a worker's log, naming the unit "."; the driver says it.
    root = write_tree({"pyproject.toml": '[tool.epochlint]\nexclude = ["pkg"]\n', "pkg/consumer.py": RACY_CONSUMER})
    assert list(list_unit(one_unit(root))) == []
    assert capsys.readouterr().err == ""


def test_a_units_settings_error_reads_the_same_from_any_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unit_root = tmp_path / "repos" / "bad"
    unit_root.mkdir(parents=True)
    (unit_root / "pyproject.toml").write_text("[tool.epochlint]\nselect = 'EPL001'\n")
    errors = set()
    for cwd in (tmp_path, unit_root, tmp_path / "repos"):
        monkeypatch.chdir(cwd)
        errors.add(one_unit(unit_root).error)
    (error,) = errors
    assert error.startswith("pyproject.toml: ") and str(tmp_path) not in error


def test_a_missing_root_or_no_unit_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="folder not found"):
        resolve_units([tmp_path / "nope"], None, None, KNOWN_CODES)
    with pytest.raises(UsageError, match="needs a ROOT"):
        resolve_units([], None, None, KNOWN_CODES)


def test_a_unit_is_rooted_at_its_folder_even_inside_a_project(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.epochlint]\nmax-file-size = 123\n")
    (tmp_path / "sub").mkdir()
    config = unit_config(tmp_path / "sub", KNOWN_CODES)
    assert config.root == tmp_path / "sub" and config.max_file_size == 123


# --- reading ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["too large", "vanished"])
def test_read_failures_are_worded_as_check_words_them(tmp_path: Path, case: str) -> None:
    path = tmp_path / "f.py"
    if case == "too large":
        path.write_text("x = 1\n" * 10)
    cap = 20
    row = read_and_hash(ListedFile(0, 0, "f.py", os.fsencode(path), None), Config(max_file_size=cap)).row
    assert row.status == (STATUS_TOO_LARGE if case == "too large" else STATUS_UNREADABLE)
    assert row.error == read_source(SourceFile(path, "f.py"), cap)


def test_a_readable_file_is_hashed_and_waits_for_its_facts(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_bytes(b"x = 1\n")
    read = read_and_hash(ListedFile(3, 7, "f.py", os.fsencode(path), None), Config())
    row = read.row
    assert (row.unit_id, row.file_index, row.size, row.status) == (3, 7, 6, STATUS_PENDING)
    assert read.text is not None and not read.text.seed
    assert row.sha256 == hashlib.sha256(b"x = 1\n").hexdigest()


# --- the isolated parser ----------------------------------------------------------------------


def _parser_children() -> list[int]:
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for pid in (task / "children").read_text().split():
            try:
                if b"epochlint.audit.parser_process" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(int(pid))
            except OSError:  # ended meanwhile
                continue
    return found


def _parsing(pid: int) -> bool:
    # libcst loads its native parser with the first file: a child that has it is parsing, not starting.
    try:
        return b"libcst/native" in Path(f"/proc/{pid}/maps").read_bytes()
    except OSError:
        return False


class _ChildKiller:
    """Kills each new parser child with `signal_number`, `times` times: once it is parsing when
    `parsing`, else at once (while it is starting)."""

    def __init__(self, signal_number: int, times: int, parsing: bool) -> None:
        self.signal_number, self.times, self.parsing = signal_number, times, parsing
        self.killed: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _ChildKiller:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while len(self.killed) < self.times and not self._stop.is_set():
            ready = [
                pid for pid in _parser_children() if pid not in self.killed and (_parsing(pid) or not self.parsing)
            ]
            if ready:
                os.kill(ready[0], self.signal_number)
                self.killed.append(ready[0])
            time.sleep(0.01)


def test_a_parser_child_killed_in_the_middle_of_a_file_is_replaced_and_the_file_parsed_again() -> None:
    parser = IsolatedParser(time_limit=120.0)
    try:
        assert parser.parse(b"x = 1\n").status == STATUS_OK
        with _ChildKiller(signal.SIGKILL, times=1, parsing=True) as killer:
            outcome = parser.parse(SLOW_SOURCE)
    finally:
        parser.close()
    assert len(killer.killed) == 1
    assert (outcome.status, outcome.error, outcome.lasting) == (STATUS_OK, "", True)
    assert outcome.lines == SLOW_SOURCE.count(b"\n")


def test_a_parser_child_killed_while_starting_is_replaced() -> None:
    parser = IsolatedParser(time_limit=120.0)
    try:
        with _ChildKiller(signal.SIGKILL, times=1, parsing=False) as killer:
            outcome = parser.parse(b"x = 1\n")
    finally:
        parser.close()
    assert len(killer.killed) == 1
    assert (outcome.status, outcome.lines) == (STATUS_OK, 1)


def test_a_file_that_crashes_the_parser_each_time_costs_only_that_file_and_is_not_kept() -> None:
    parser = IsolatedParser(time_limit=120.0)
    try:
        assert parser.parse(b"x = 1\n").status == STATUS_OK
        # What a stack overflow in the native parser does, as often as the file is tried.
        with _ChildKiller(signal.SIGSEGV, times=ATTEMPTS, parsing=True):
            crashed = parser.parse(SLOW_SOURCE)
        after = parser.parse(b"y = 2\n")
    finally:
        parser.close()
    assert (crashed.status, crashed.error) == (
        STATUS_PARSE_ERROR,
        f"the parser crashed {ATTEMPTS} times (killed by SIGSEGV)",
    )
    assert not crashed.lasting  # `--resume` tries it again
    assert after.status == STATUS_OK and after.lines == 1


def test_a_file_that_hangs_the_parser_is_stopped_at_the_time_limit() -> None:
    parser = IsolatedParser(time_limit=3.0)
    try:
        outcomes = [parser.parse(source) for source in (b"x = 1\n", SLOW_SOURCE, b"y = 2\n", b"z = (\n")]
    finally:
        parser.close()
    assert [o.status for o in outcomes] == [STATUS_OK, STATUS_TIMED_OUT, STATUS_OK, STATUS_PARSE_ERROR]
    assert outcomes[1].error == "parsing took longer than 3 s" and outcomes[1].seconds < 15
    assert outcomes[3].error.startswith("syntax error")


def test_files_the_prefilter_rules_out_are_only_checked_by_pythons_parser() -> None:
    parser = IsolatedParser(time_limit=30.0)
    try:
        quick = parser.parse(SLOW_SOURCE, relevant=False)
        broken = parser.parse(b"def f(:\n", relevant=False)
    finally:
        parser.close()
    assert (quick.status, quick.lines) == (STATUS_OK, SLOW_SOURCE.count(b"\n"))
    assert broken.status == STATUS_PARSE_ERROR and broken.error.startswith("syntax error")


def test_a_worker_that_ends_without_cleaning_up_leaves_no_folder_behind(tmp_path: Path) -> None:
    # Spark ends its Python workers without running their finalizers; the parser child they keep
    # must not leave its starting folder in the temporary directory of every executor.
    worker = (
        "import os\n"
        "from epochlint.audit.isolation import IsolatedParser\n"
        "parser = IsolatedParser(time_limit=30.0)\n"
        "print(parser.parse(b'x = 1\\n').status, flush=True)\n"
        "os._exit(0)\n"
    )
    environment = {**os.environ, "TMPDIR": str(tmp_path)}
    ran = subprocess.run([sys.executable, "-c", worker], env=environment, capture_output=True, text=True, timeout=120)
    assert ran.stdout.split() == [STATUS_OK]
    assert list(tmp_path.iterdir()) == []


def test_a_file_changed_after_hashing_is_not_given_the_old_hash_facts(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_text("x = 1\n")
    (fact,) = parse_files([("0" * 64, True, [os.fsencode(path)])], 5.0, "run")
    assert fact.status == STATUS_UNREADABLE and not fact.cacheable


def test_copies_of_a_content_are_parsed_from_whichever_can_still_be_read(tmp_path: Path) -> None:
    kept = tmp_path / "kept.py"
    kept.write_bytes(b"x = 1\n")
    digest = hashlib.sha256(b"x = 1\n").hexdigest()
    (fact,) = parse_files([(digest, True, [os.fsencode(tmp_path / "vanished.py"), os.fsencode(kept)])], 30.0, "run")
    assert (fact.status, fact.lines, fact.cacheable) == (STATUS_OK, 1, True)


def test_file_names_are_kept_as_bytes_and_shown_escaped_one_row_each(write_tree: WriteTree) -> None:
    root = write_tree({"pkg/__init__.py": ""})
    for name in (b"consumer_\xe8.py", b"consumer_\xe9.py", b"back\\slash.py", b"back\\x5cslash.py"):
        Path(os.fsdecode(os.path.join(os.fsencode(root), b"pkg", name))).write_bytes(RACY_CONSUMER.encode())
    rows = audit_in_process(one_unit(root))
    files = sorted((r[1], r[4], r[9]) for tag, r in rows if tag == FILE)  # path, status, findings
    assert files == [
        ("pkg/__init__.py", STATUS_OK, 0),
        ("pkg/back\\\\slash.py", STATUS_OK, 1),
        ("pkg/back\\\\x5cslash.py", STATUS_OK, 1),
        ("pkg/consumer_\\xe8.py", STATUS_OK, 1),
        ("pkg/consumer_\\xe9.py", STATUS_OK, 1),
    ]
    assert sorted(r[1] for tag, r in rows if tag == FINDING) == [path for path, _, count in files if count]


# --- a unit's analysis is check's -------------------------------------------------------------


@pytest.mark.parametrize("folder", sorted(p for p in FIXTURES.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_each_fixture_folder_as_a_unit_gives_checks_findings(folder: Path) -> None:
    unit = one_unit(folder)
    rows = audit_in_process(unit)
    assert audit_findings(rows) == check_unit(unit)
    files = [r for tag, r in rows if tag == FILE]
    assert len(files) == check([folder], unit.config, use_cache=False).files_analysed  # type: ignore[arg-type]
    (unit_row,) = [r for tag, r in rows if tag == UNIT]
    assert unit_row.files == len(files) and unit_row.findings == len(audit_findings(rows))  # type: ignore[attr-defined]


def test_a_file_that_hangs_the_parser_becomes_a_row_and_the_rest_is_analysed(write_tree: WriteTree) -> None:
    root = write_tree({"pkg/__init__.py": "", "pkg/consumer.py": RACY_CONSUMER, "slow.py": SLOW_SOURCE,
                       "broken.py": "def f(:\n"})
    rows = audit_in_process(one_unit(root), time_limit=3.0)
    status = {r[1]: r[4] for tag, r in rows if tag == FILE}
    assert status == {"broken.py": STATUS_PARSE_ERROR, "slow.py": STATUS_TIMED_OUT,
                      "pkg/__init__.py": STATUS_OK, "pkg/consumer.py": STATUS_OK}
    codes = sorted((r[1], r[6]) for tag, r in rows if tag == FINDING)
    assert codes == [("broken.py", "EPL900"), ("pkg/consumer.py", "EPL001"), ("slow.py", "EPL900")]


def test_a_unit_whose_analysis_fails_keeps_its_file_rows(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*_: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("epochlint.audit.tasks.analyse", failing)
    rows = audit_in_process(one_unit(write_tree({"a.py": "x = 1\n", "b.py": RACY_CONSUMER})))
    assert sorted(r[1] for tag, r in rows if tag == FILE) == ["a.py", "b.py"]
    assert not [r for tag, r in rows if tag == FINDING]
    (unit_row,) = [r for tag, r in rows if tag == UNIT]
    assert unit_row.error == "the analysis failed: RecursionError: maximum recursion depth exceeded"  # type: ignore[attr-defined]


# --- check stays free of Spark ----------------------------------------------------------------


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_check_and_the_parser_never_import_pyspark(write_tree: WriteTree) -> None:
    root = write_tree({"consumer.py": RACY_CONSUMER})
    code = (
        "import sys, contextlib, io\n"
        "import epochlint.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = epochlint.cli.main(['check', '.'])\n"
        "epochlint.cli.build_parser().parse_args(['audit', 'x'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j'))\n"
        "print(status, loaded)\n"
    )
    result = _python(code, root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1 []"


def test_audit_without_pyspark_exits_2_with_one_line(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.modules['pyspark'] = None  # as if it were not installed\n"
        "import epochlint.cli\n"
        f"sys.exit(epochlint.cli.main(['audit', {str(tmp_path)!r}]))\n"
    )
    result = _python(code, tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "epochlint: error: audit needs PySpark: install epochlint with its spark extra "
        "(pip install 'epochlint[spark]')\n"
    )
    assert os.listdir(tmp_path) == []
