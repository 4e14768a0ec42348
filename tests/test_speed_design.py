"""Speed by design, kept honest: positions and traversal equal libcst's, the prefilter changes no
finding, the cache is never trusted when it should not be, and the output is the same byte for
byte whether facts come from one process, several, or the cache."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

import epochlint.cache as cache_module
import epochlint.collect as collect
from epochlint.cache import CACHE_DIR
from epochlint.config import Config, load_config
from epochlint.engine import check
from epochlint.frontend import facts_from_source, facts_without_parse
from epochlint.frontend.extract import code_of
from epochlint.frontend.positions import UNRECORDED, code_and_positions
from epochlint.frontend.walk import TRIVIA, child_nodes
from epochlint.prefilter import Vocabulary, read_text_facts, text_imports
from epochlint.report import RunResult
from epochlint.report.formats import FORMATS
from tests.conftest import FIXTURES, KNOWN_CODES, REPO

# Real code beyond the fixtures: libcst's own nodes, networkx, rich, the standard library.
REAL_FILES = [
    Path(cst.__file__).parent / "_nodes" / "expression.py",
    Path(cst.__file__).parent / "_nodes" / "statement.py",
    Path(json.__file__).parent / "decoder.py",
    Path(subprocess.__file__),
    Path(shutil.__file__),
    REPO / "linter" / "frontend" / "extract.py",
]
ALL_FIXTURES = sorted(FIXTURES.rglob("*.py"))


def _parsed(path: Path) -> cst.Module | None:
    try:
        return cst.parse_module(path.read_bytes())
    except Exception:  # the EPL900 fixtures: nothing to compare
        return None


@pytest.mark.parametrize("path", [*ALL_FIXTURES, *REAL_FILES], ids=lambda p: p.name)
def test_positions_and_code_are_libcst_own(path: Path) -> None:
    module = _parsed(path)
    if module is None:
        pytest.skip("not parseable")
    text, positions = code_and_positions(module)
    assert text == module.code
    resolved = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    # Whitespace and punctuation need no position of their own: nothing asks for it.
    expected = {node: code_range for node, code_range in resolved.items() if not isinstance(node, UNRECORDED)}
    # libcst's own code generation is whole again after the pass: PositionProvider, which the fixes
    # use, still places whitespace and punctuation.
    assert all(node in resolved for node in _subtree(module) if isinstance(node, UNRECORDED))
    for node, code_range in expected.items():
        start, end = code_range.start, code_range.end
        assert positions[id(node)] == (start.line, start.column + 1, end.line, end.column + 1), node


def _subtree(node: cst.CSTNode) -> list[cst.CSTNode]:
    found, stack = [], [node]
    while stack:
        found.append(stack.pop())
        stack.extend(found[-1].children)
    return found


# Names, literals, attribute paths and other expressions in parentheses, spaced and split over
# lines, also inside an indented block.
_ODD_SPELLINGS = (
    "x = a . b\ny = (a).b\nz = (a . b).c\nf(a .  b, (1), 2.5, 3j, r'q', u.v.w)\n"
    "w = (  # why\n    a\n).b\nv = (a.\n     b)\nt = a.b[0].c\n"
    "g(( a, b ), ((c) ), [d,\n  e], (\n  f\n))\n"
    "def h():\n    if k:\n        return m(x,\n                 (y  +  z))\n"
)


@pytest.mark.parametrize("path", [*ALL_FIXTURES, *REAL_FILES, None], ids=lambda p: p.name if p else "odd")
def test_code_of_nodes_is_libcst_own(path: Path | None) -> None:
    module = cst.parse_module(_ODD_SPELLINGS) if path is None else _parsed(path)
    if module is None:
        pytest.skip("not parseable")
    _, positions = code_and_positions(module)
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.BaseExpression, cst.Arg, cst.Decorator, cst.Param)):
            generated = cst.Module(body=[]).code_for_node(node)
            assert code_of(node) == generated, node
            assert code_of(node, positions) == generated, node  # cut from the module's code
        stack.extend(node.children)


# A field that holds code or trivia: the names imported, or `*`.
_STAR_IMPORTS = "from a import *\nfrom b import c, d\nfrom e import (f)\n"


@pytest.mark.parametrize("path", [*ALL_FIXTURES[:40], *REAL_FILES, None], ids=lambda p: p.name if p else "star")
def test_traversal_order_is_libcst_own(path: Path | None) -> None:
    module = cst.parse_module(_STAR_IMPORTS) if path is None else _parsed(path)
    if module is None:
        pytest.skip("not parseable")
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        theirs = node.children
        mine = child_nodes(node)
        assert [id(c) for c in mine] == [id(c) for c in theirs if not isinstance(c, TRIVIA)], node
        assert not any(isinstance(c, TRIVIA) for c in mine)
        stack.extend(mine)


def test_facts_without_parse_agree_with_the_parse_on_line_counts_and_errors() -> None:
    for path in [*ALL_FIXTURES, *REAL_FILES]:
        data = path.read_bytes()
        full, light = facts_from_source(data), facts_without_parse(data)
        assert (light.lines, light.error) == (full.lines, full.error), path


def test_import_reading() -> None:
    text = (
        b"import a.b as c, d\nfrom ..x.y import (z,  # why\n w as ww)\nfrom . import q\n"
        b"import e, \\\n   f . g\nif x: import h\nfrom m import *\n# import zz\ns = 'we import'\n"
    )
    assert text_imports(text) == [
        (0, "a", True), (0, "a.b", False), (0, "d", True),
        (2, "x.y", False), (2, "x.y.z", True), (2, "x.y.w", True),
        (1, "", False), (1, "q", True),
        (0, "e", True), (0, "f", True), (0, "f.g", False),
        (0, "h", True),
        (0, "m", True),
    ]


def test_seeds() -> None:
    vocabulary = Vocabulary(Config(epoch_pattern="epoch|term"))
    seed = lambda text: read_text_facts(text, vocabulary).seed  # noqa: E731
    assert seed(b"self._term = 0\n")
    assert seed(b"with self._incoming_lock:\n    pass\n")
    assert seed(b"self._mu = threading.Lock()\n")
    assert seed(b"if self._sem.acquire(timeout=1):\n    pass\n")
    assert seed(b"@synchronized\ndef f(self): pass\n")
    assert not seed(b"with open(path) as block:\n    clock = 1\n")
    assert not seed(b"def seek(self, offset): self.commit()\n")


def _json(result: RunResult) -> str:
    stream = io.StringIO()
    FORMATS["json"](result, stream)
    return stream.getvalue()


def _findings(result: RunResult) -> list[object]:
    return json.loads(_json(result))["findings"]  # type: ignore[no-any-return]


def _config(root: Path) -> Config:
    return load_config([root], None, KNOWN_CODES, None)


@pytest.fixture
def fixtures_copy(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES, root / "fixtures")
    (root / "pyproject.toml").write_text("[tool.epochlint]\n")
    return root


def test_serial_parallel_cold_warm_and_prefilter_agree(
    fixtures_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(fixtures_copy)
    paths = [fixtures_copy]
    parses: list[str] = []
    real_facts = collect.file_facts
    monkeypatch.setattr(collect, "file_facts", lambda task: parses.append(task[0]) or real_facts(task))

    cold_serial = _json(check(paths, config, jobs=1))
    assert parses and (fixtures_copy / CACHE_DIR / "CACHEDIR.TAG").is_file()
    parses.clear()
    warm = _json(check(paths, config, jobs=1))
    shutil.rmtree(fixtures_copy / CACHE_DIR / "findings")
    assert _json(check(paths, config, jobs=1)) == warm, "facts from the cache, the program analysed again"
    assert parses == [], "a warm run parses nothing"
    monkeypatch.setattr(collect, "file_facts", real_facts)
    monkeypatch.setattr(collect, "_PARALLEL_MIN_BYTES", 0)
    parallel = _json(check(paths, config, use_cache=False, jobs=2))
    assert cold_serial == warm == parallel

    without_prefilter = check(paths, config, use_cache=False, jobs=2, prefilter=False)
    assert without_prefilter.files_not_relevant == 0
    assert json.loads(cold_serial)["findings"] == _findings(without_prefilter)
    assert json.loads(cold_serial)["summary"]["files_not_relevant"] > 0


# A file's first line is read after its byte order mark, if any: an import there once went unseen.
@pytest.mark.parametrize("start", ["", "\ufeff"], ids=["plain", "byte-order-mark"])
def test_prefilter_keeps_a_race_completed_through_an_import_chain(write_tree, start: str) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(
        {
            "app/__init__.py": "",
            "app/state.py": (
                "import threading\n\n\nclass State:\n    def __init__(self):\n"
                "        self._lock = threading.Lock()\n        self._epoch = 0\n\n"
                "    def bump(self):\n        with self._lock:\n            self._epoch += 1\n\n"
                "    def reset(self):\n        with self._lock:\n            self._epoch = 0\n\n"
                "    def current(self):\n        return self._epoch\n"
            ),
            # No epoch and no lock in its text: it matters only through what it imports.
            "app/helpers.py": f"{start}from app.state import State\n\n\ndef accept(state: State, msg):\n"
            "    return msg.tag == state.current()\n",
            "app/worker.py": (
                f"{start}from app import helpers\n\n\ndef handle(state, batch):\n"
                "    for msg in batch:  # expect: EPL001\n        helpers.accept(state, msg)\n"
            ),
            "app/unrelated.py": "def add(a, b):\n    return a + b\n",
        }
    )
    config = _config(root)
    with_prefilter = check([root], config, use_cache=False, jobs=1)
    without = check([root], config, use_cache=False, jobs=1, prefilter=False)
    assert _findings(with_prefilter) == _findings(without)
    assert with_prefilter.files_not_relevant == 1
    assert with_prefilter.files_analysed == without.files_analysed == 5
    assert [(f.code, f.location.path) for f in with_prefilter.findings] == [("EPL001", "app/worker.py")]


def _entries(root: Path) -> list[Path]:
    return sorted(p for p in (root / CACHE_DIR / "facts").iterdir() if not p.name.startswith("."))


def test_corrupted_truncated_and_foreign_entries_are_parsed_again(fixtures_copy: Path) -> None:
    config = _config(fixtures_copy)
    expected = _json(check([fixtures_copy], config, jobs=1))
    entries = _entries(fixtures_copy)
    entries[0].write_bytes(entries[0].read_bytes()[:40])
    entries[1].write_bytes(b"\0" * 100)
    flipped = bytearray(entries[2].read_bytes())
    flipped[-5] ^= 0xFF
    entries[2].write_bytes(bytes(flipped))
    entries[3].write_bytes(entries[4].read_bytes())
    entries[5].write_bytes(b"")
    shutil.rmtree(fixtures_copy / CACHE_DIR / "findings")
    assert _json(check([fixtures_copy], config, jobs=1)) == expected
    # Every bad entry was rewritten with good facts.
    shutil.rmtree(fixtures_copy / CACHE_DIR / "findings")
    assert _json(check([fixtures_copy], config, jobs=1)) == expected
    assert [p.read_bytes() for p in entries[:6]] != [b""] * 6


def test_unwritable_cache_means_no_cache_and_no_noise(fixtures_copy: Path, capfd: pytest.CaptureFixture[str]) -> None:
    config = _config(fixtures_copy)
    expected = _json(check([fixtures_copy], config, use_cache=False))
    # A file where the cache folder should be: nothing can be created there, whoever runs.
    (fixtures_copy / CACHE_DIR).write_text("not a folder")
    assert _json(check([fixtures_copy], config)) == expected
    assert capfd.readouterr().err == ""


def _cli(root: Path, *extra: str) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "epochlint", "check", ".", "--output-format", "json", "--exit-zero", *extra]
    return subprocess.run(command, cwd=root, capture_output=True, check=False)


def test_concurrent_runs_share_the_cache(fixtures_copy: Path) -> None:
    reference = _cli(fixtures_copy, "--no-cache")
    assert reference.returncode == 0 and not (fixtures_copy / CACHE_DIR).exists(), "--no-cache writes nothing"
    command = [sys.executable, "-m", "epochlint", "check", ".", "--output-format", "json", "--exit-zero"]
    runs = [
        subprocess.Popen(command, cwd=fixtures_copy, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [run.communicate() for run in runs]
    for stdout, stderr in outputs:
        assert stderr == b"", "no progress bar nor noise when stderr is not a terminal"
        assert stdout == reference.stdout
    assert _cli(fixtures_copy).stdout == reference.stdout
    assert not list((fixtures_copy / CACHE_DIR / "facts").glob(".tmp-*")), "no temporary file left behind"


def _recorded_parses(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The sources the frontend parses from now on, in order."""
    parses: list[bytes] = []
    real_facts = collect.file_facts
    monkeypatch.setattr(collect, "file_facts", lambda task: parses.append(task[1]) or real_facts(task))
    return parses


def _check_after_code_added(root: Path, config: Config, edited: Path, parses: list[bytes], why: str) -> None:
    """Add a function to `edited` and check `root` (one job): only `edited` is parsed (`parses`
    records the parses), and the findings are a from-scratch run's."""
    edited.write_text(edited.read_text(encoding="utf-8") + "\n\ndef added():\n    return 1\n", encoding="utf-8")
    changed = check([root], config, jobs=1)
    assert parses == [edited.read_bytes()], why
    assert _json(changed) == _json(check([root], config, use_cache=False))


def _recorded_writers(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What each run's collection returns as its cache writer from now on (None: written in the run),
    on a machine of two cores wherever the tests run."""
    writers: list[object] = []
    real_writer = collect._written_beside
    monkeypatch.setattr(collect, "_written_beside", lambda writes: writers.append(real_writer(writes)) or writers[-1])
    monkeypatch.setattr(collect, "usable_cores", lambda: {0, 1})
    return writers


def test_after_an_edit_only_the_edited_file_is_parsed_and_its_finding_is_gone(
    fixtures_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(fixtures_copy)
    before = check([fixtures_copy], config, jobs=1)
    racy = next(f for f in before.findings if f.code == "EPL001")
    edited = fixtures_copy / racy.location.path
    lines = edited.read_text(encoding="utf-8").splitlines(keepends=True)
    # The finding's line suppressed: the same facts but for the suppression, a different result.
    lines[racy.location.line - 1] = lines[racy.location.line - 1].rstrip("\n") + "  # epochlint: ignore\n"
    edited.write_text("".join(lines), encoding="utf-8")
    parses = _recorded_parses(monkeypatch)

    after = check([fixtures_copy], config, jobs=1)
    assert parses == [], "a comment alone changed: the earlier facts are moved, nothing is parsed"
    assert racy not in after.findings
    assert after.findings == tuple(f for f in before.findings if f != racy)
    assert _json(after) == _json(check([fixtures_copy], config, use_cache=False))
    parses.clear()
    # A change of the code: that file alone is parsed.
    _check_after_code_added(fixtures_copy, config, edited, parses, "only the edited file is parsed")


def test_the_cache_written_beside_the_analysis_is_whole_when_the_run_ends(
    fixtures_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(fixtures_copy)
    writers = _recorded_writers(monkeypatch)
    # Writes slower than the analysis (a busy disk): the run still ends only once they are done.
    real_write = cache_module.write_atomically
    monkeypatch.setattr(
        cache_module, "write_atomically", lambda *args, **kw: time.sleep(0.005) or real_write(*args, **kw)
    )
    check([fixtures_copy], config, jobs=2, exiting=True)
    assert writers and writers[0] is not None, "the fixtures' cache is written by a process of its own"
    parses = _recorded_parses(monkeypatch)
    edited = fixtures_copy / "fixtures" / "EPL001" / "abstract_receiver.py"
    _check_after_code_added(fixtures_copy, config, edited, parses, "every other file's facts were in the cache")


def test_with_one_job_the_cache_is_written_in_the_run_itself(
    fixtures_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writers = _recorded_writers(monkeypatch)
    check([fixtures_copy], _config(fixtures_copy), jobs=1, exiting=True)
    assert writers == [None], "--jobs 1: no process beside the run"
    assert len(list((fixtures_copy / CACHE_DIR / "facts").iterdir())) > 64, "the cache written all the same"


def test_on_one_core_the_cache_is_written_in_the_run_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collect, "usable_cores", lambda: {0})
    written: list[int] = []
    writer = collect._written_beside([lambda index=index: written.append(index) for index in range(100)])
    assert writer is None, "no process beside the run where no core is left for it"
    assert written == list(range(100)), "every write done, in order, before the run goes on"


def test_a_tampered_findings_entry_is_analysed_again_and_never_loaded(fixtures_copy: Path, tmp_path: Path) -> None:
    config = _config(fixtures_copy)
    expected = _json(check([fixtures_copy], config, jobs=1))
    # The run's findings, and the findings before suppressions kept for runs that only move code.
    entries = sorted((fixtures_copy / CACHE_DIR / "findings").iterdir())
    assert len(entries) == 2
    marker = tmp_path / "ran"
    # A well-formed pickle that would run code if it were loaded, under the entry's own key.
    payload = pickle.dumps(_Touch(str(marker)))
    for entry in entries:
        entry.write_bytes(hashlib.sha256(entry.name.encode() + b"\0" + payload).digest() + payload)
    assert _json(check([fixtures_copy], config, jobs=1)) == expected
    assert not marker.exists()
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:50])
    assert _json(check([fixtures_copy], config, jobs=1)) == expected


class _Touch:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, ...]]:
        return (os.system, (f"touch {self.path}",))


def test_the_caches_do_not_grow_without_bound(fixtures_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(fixtures_copy)
    racy = fixtures_copy / "fixtures" / "EPL001" / "acquire_release_try_finally.py"
    original = racy.read_bytes()
    for edit in range(12):
        racy.write_bytes(original + f"# edit {edit}\n".encode())
        check([fixtures_copy], config, jobs=1)
    findings = fixtures_copy / CACHE_DIR / "findings"
    assert len(list(findings.iterdir())) == 8, "the findings of the 8 most recent runs"
    # Facts unused for over a month go when a run adds facts; the facts in use stay.
    stale = _entries(fixtures_copy)
    month_ago = time.time() - 31 * 24 * 3600
    for entry in stale:
        os.utime(entry, (month_ago, month_ago))
    racy.write_bytes(original)
    check([fixtures_copy], config, jobs=1)
    kept = _entries(fixtures_copy)
    assert len(kept) < len(stale)
    shutil.rmtree(findings)
    parses: list[str] = []
    real_facts = collect.file_facts
    monkeypatch.setattr(collect, "file_facts", lambda task: parses.append(task[0]) or real_facts(task))
    check([fixtures_copy], config, jobs=1)
    assert parses == [], "the facts the pruning run used were all kept"


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2 or not Path("/proc/stat").exists(),
    reason="needs two cores this process may pin itself to, and Linux's /proc/stat",
)
def test_a_core_busy_now_is_not_counted_idle() -> None:
    # The load average is a minute's: it still counts work that just ended and misses work that just
    # began. What `--jobs` defaults to follows the cores' state when the run starts.
    mine = os.sched_getaffinity(0)
    first, second = sorted(mine)[:2]
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(spinner.pid, {first})
        os.sched_setaffinity(0, {first, second})
        time.sleep(0.2)  # the spinner is running by now
        assert collect.default_jobs() == 1
        busy = collect._busy_cores({first, second})
        assert busy is not None and busy >= 0.8
    finally:
        spinner.kill()
        spinner.wait()
        os.sched_setaffinity(0, mine)


def test_the_runs_own_work_is_neither_counted_as_load_nor_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    # The measure starts with the run and ends when the number of processes is asked, after the
    # run has read its files: a core this process kept busy meanwhile is still one for a worker.
    # The clock, the cores' ticks and this process's CPU time are the test's, so that other work
    # on the machine cannot change the outcome.
    clock = [100.0]
    # Over 0.2 s, core 0 was busy all the time (this process reading files) and core 1 idle.
    ticks = iter([{"cpu0": (1000, 400), "cpu1": (1000, 400)}, {"cpu0": (1020, 400), "cpu1": (1020, 420)}])
    own_cpu = iter([1.0, 1.2])
    waits: list[float] = []
    monkeypatch.setattr(collect, "usable_cores", lambda: {0, 1})
    monkeypatch.setattr(collect, "_cpu_ticks", lambda cpus: next(ticks))
    monkeypatch.setattr(collect.os, "times", lambda: os.times_result((next(own_cpu), 0.0, 0.0, 0.0, clock[0])))
    monkeypatch.setattr(collect.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(collect.time, "sleep", waits.append)
    collect.start_load_sample()
    clock[0] += 0.2
    assert collect.default_jobs() == 2
    assert waits == []


def test_a_file_pythons_parser_rejects_is_not_counted_as_read_but_not_parsed(write_tree) -> None:  # type: ignore[no-untyped-def]
    """Nothing in either file's text can matter, but the broken one is parsed for its EPL900: only
    the other is "not relevant: read, not parsed"."""
    root = write_tree({"unrelated.py": "def add(a, b):\n    return a + b\n", "broken.py": "def add(a, b:\n"})
    for use_cache in (False, True, True):  # cold, then with the facts and the findings cached
        result = check([root], _config(root), use_cache=use_cache, jobs=1)
        assert [(f.code, f.location.path) for f in result.findings] == [("EPL900", "broken.py")]
        assert result.files_not_relevant == 1
