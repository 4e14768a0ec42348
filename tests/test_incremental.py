"""One file changed: an edit that only moves code (a comment, lines added above) re-derives nothing,
and every run's output is byte for byte a from-scratch run's, on every fixture folder and on edits
of a module many others import and of a leaf."""

from __future__ import annotations

import gc
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import epochlint.engine as engine
from epochlint.cache import FactsCache
from epochlint.collect import PARSED, can_fork_beside
from epochlint.discovery import in_memory_path
from epochlint.engine import check
from epochlint.findings import ChainStep, Finding, Location
from epochlint.frontend import facts_from_source
from epochlint.layout import relayout
from tests.conftest import FIXTURES
from tests.test_cli import ENV, loaded_by_a_check, replaced
from tests.test_speed_design import _config, _json
from tests.test_stdin import BASE, LOCKED_SUBCLASS, RACY_SUBCLASS

FOLDERS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
_FIRST_DEFINITION = re.compile(r"^(?:class |def |async def )", re.MULTILINE)

Edit = Callable[[str], str]


def lines_added_above(text: str) -> str:
    """Two lines (a blank and a comment) before the first top-level definition: all below moves down."""
    found = _FIRST_DEFINITION.search(text)
    if found is None:
        return text
    return f"{text[: found.start()]}\n# moved down by two lines\n{text[found.start() :]}"


def comment_added(text: str) -> str:
    """A trailing comment on the first top-level definition's line."""
    found = _FIRST_DEFINITION.search(text)
    if found is None:
        return text
    end = text.index("\n", found.start())
    return f"{text[:end]}  # a comment{text[end:]}"


def comment_on_top(text: str) -> str:
    """A comment line before the first: everything moves down, away from the module's start."""
    return f"# a header\n{text}"


def edited(path: Path, edit: Edit) -> None:
    # Latin-1 maps every byte to one character: files in any encoding keep their other bytes.
    path.write_bytes(edit(path.read_bytes().decode("latin-1")).encode("latin-1"))


class Analyses:
    """Counts the whole-program analyses the cached runs make (from-scratch runs make one each)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = engine.unsuppressed_findings

        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.count += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(engine, "unsuppressed_findings", counted)


def assert_as_from_scratch(root: Path, analyses: Analyses | None = None) -> str:
    """The cached run's JSON report, after checking it is a from-scratch run's."""
    config = _config(root)
    incremental = _json(check([root], config, jobs=1))
    counted = analyses.count if analyses is not None else 0
    assert incremental == _json(check([root], config, use_cache=False, jobs=1))
    if analyses is not None:
        analyses.count = counted
    return incremental


@pytest.mark.parametrize("folder", FOLDERS)
def test_layout_edits_of_every_file_give_from_scratch_findings_without_analysing(
    folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / folder, root / "fixtures" / folder)
    (root / "pyproject.toml").write_text("[tool.epochlint]\n")
    before = assert_as_from_scratch(root)
    analyses = Analyses(monkeypatch)
    for edit in (lines_added_above, comment_added, comment_on_top):
        for path in sorted(root.rglob("*.py")):
            edited(path, edit)
        after = assert_as_from_scratch(root, analyses)
        assert after.count('"code"') == before.count('"code"'), "the same findings, moved"
    # A syntax error's message names its line: moving it changes what the analysis reads. Anything
    # else moved (lambdas too, named by their place) re-derives nothing.
    if folder != "EPL900":
        assert analyses.count == 0, "moved code re-derives nothing"


@pytest.fixture
def project(write_tree) -> Path:  # type: ignore[no-untyped-def]
    """`pkg/base.py`, imported by every consumer (central), and the consumers (leaves)."""
    files = {"pkg/__init__.py": "", "pkg/base.py": BASE}
    for name in ("orders", "payments", "audit"):
        files[f"pkg/{name}.py"] = RACY_SUBCLASS if name == "orders" else LOCKED_SUBCLASS
    return write_tree(files)  # type: ignore[no-any-return]


@pytest.mark.parametrize("module", ["pkg/base.py", "pkg/orders.py"], ids=["central", "leaf"])
def test_edits_of_a_central_and_a_leaf_module(project: Path, module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert '"EPL001"' in assert_as_from_scratch(project)
    analyses = Analyses(monkeypatch)
    for edit in (lines_added_above, comment_added, comment_on_top):
        edited(project / module, edit)
        assert '"EPL001"' in assert_as_from_scratch(project, analyses)
    assert analyses.count == 0
    # A change of what the code does is analysed, and found.
    if module == "pkg/orders.py":
        (project / module).write_text(LOCKED_SUBCLASS)
    else:
        edited(
            project / module,
            lambda text: text.replace("with self._lock:\n            self._epoch += 1", "self._epoch += 1"),
        )
    result = assert_as_from_scratch(project, analyses)
    assert analyses.count == 1
    assert '"EPL001"' not in result


def test_code_moved_by_blank_lines_and_comments_is_neither_parsed_nor_analysed(project: Path) -> None:
    libraries = ("libcst", "networkx")
    # In one process, a run that parses loads libcst (see the next test for more processes).
    assert loaded_by_a_check(project, libraries, "--jobs", "1") == ["libcst", "networkx"]
    assert loaded_by_a_check(project, libraries) == [], "nothing changed: the findings are read back"
    edited(project / "pkg" / "orders.py", lines_added_above)
    assert loaded_by_a_check(project, libraries) == [], "the earlier facts and findings are moved"


def test_a_run_whose_findings_are_cached_loads_nothing_it_does_not_use(project: Path) -> None:
    """The pre-commit hook on unchanged files reads the findings back: nothing that parses, analyses
    or starts processes is loaded (imports are most of such a run's time)."""
    loaded_by_a_check(project, ())
    unused = ("libcst", "networkx", "multiprocessing", "concurrent.futures", "importlib.metadata")
    assert loaded_by_a_check(project, unused) == []


def test_an_analysis_of_cached_facts_parses_nothing_and_never_loads_libcst(project: Path) -> None:
    """Findings no longer cached (pruned, or those of a branch checked out again), facts still: the
    program is analysed again from the facts alone, and the rules' documentation, which the run's
    result carries for SARIF, needs nothing of the autofix's libcst code."""
    assert loaded_by_a_check(project, ("libcst",), "--jobs", "1") == ["libcst"]
    for kind in ("findings", "parts"):
        shutil.rmtree(project / ".epochlint_cache" / kind)
    assert loaded_by_a_check(project, ("libcst", "networkx")) == ["networkx"]
    assert_as_from_scratch(project)


_CORES_TO_SPARE = can_fork_beside()


def code_added(text: str) -> str:
    return text + "\n\ndef added():\n    return 1\n"


@pytest.mark.skipif(not _CORES_TO_SPARE, reason="needs two cores and fork")
def test_a_changed_file_is_parsed_beside_a_run_that_never_loads_libcst(project: Path) -> None:
    """One file changed, on a machine with a core to spare: the file is parsed in a process forked
    for it while the run loads the analysis, and libcst's import (a tenth of a second) is that
    process's alone. The run finds what a run from scratch finds."""
    loaded_by_a_check(project, ())
    edited(project / "pkg" / "orders.py", code_added)
    assert loaded_by_a_check(project, ("libcst", "networkx")) == ["networkx"]
    assert '"EPL001"' in assert_as_from_scratch(project)  # the run's findings, read back


def _probed_after_code_added(project: Path, patch: str, printed: str) -> str:
    """What `printed` (an expression) gives after a check, in a process of its own, of `project`
    with code added to `pkg/orders.py` since the latest run; `patch` runs before the check."""
    loaded_by_a_check(project, ())
    edited(project / "pkg" / "orders.py", code_added)
    probe = (
        "import json, os, sys\nimport epochlint.collect as collect\nfrom epochlint.cli import main\n"
        f"{patch}\nmain(['check', '--exit-zero', '-q', '.'])\nprint({printed})"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, env=ENV, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[-1]


@pytest.mark.skipif(not _CORES_TO_SPARE, reason="needs two cores and fork")
def test_the_part_of_a_changed_file_is_read_from_the_cache_while_the_file_is_parsed(project: Path) -> None:
    """The whole facts of the unchanged files that the changed one's part of the program needs are
    read while it is parsed elsewhere, not after: none is read again when the part is analysed."""
    recorded = (
        "served, real = [], collect.Collected.full_facts\n"
        "def full_facts(self, index):\n"
        "    if index in self.outlined:\n"
        "        served.append(index in self.read_ahead)\n"
        "    return real(self, index)\n"
        "collect.Collected.full_facts = full_facts"
    )
    served = json.loads(_probed_after_code_added(project, recorded, "json.dumps(served)"))
    assert served == [True] * 3, "base, payments and audit: read ahead"
    assert '"EPL001"' in assert_as_from_scratch(project)


@pytest.mark.skipif(not _CORES_TO_SPARE, reason="needs two cores and fork")
def test_a_changed_file_whose_parsing_process_dies_is_parsed_by_the_run(project: Path) -> None:
    dying = "collect._payloads = lambda tasks: os._exit(1)  # as a process killed for memory ends"
    assert _probed_after_code_added(project, dying, "'libcst' in sys.modules") == "True", "parsed in the run"
    assert '"EPL001"' in assert_as_from_scratch(project)


def test_a_suppression_added_by_moving_a_comment_is_honoured(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_as_from_scratch(project)
    analyses = Analyses(monkeypatch)
    edited(
        project / "pkg" / "orders.py", lambda text: text.replace("in batch:", "in batch:  # epochlint: ignore[EPL001]")
    )
    assert '"EPL001"' not in assert_as_from_scratch(project, analyses)
    assert analyses.count == 0


def test_a_guard_declared_or_undeclared_by_a_comment_is_analysed_again(tmp_path: Path) -> None:
    # A `guarded-by` comment is a comment, yet it decides the guard: adding, changing or removing
    # one changes the findings, as a from-scratch run says.
    consumer = tmp_path / "consumer.py"
    consumer.write_text(
        "import threading\n\n\nclass Consumer:\n    def __init__(self):\n        self._lock = threading.Lock()\n"
        "        self._epoch = 0\n\n    def on_batch(self, batch):\n        for m in batch:\n"
        "            if m.epoch >= self._epoch:\n                print(m)\n",
        encoding="utf-8",
    )
    assert '"EPL001"' not in assert_as_from_scratch(tmp_path)
    declared = "self._epoch = 0  # epochlint: guarded-by=_lock"
    edited(consumer, lambda text: text.replace("self._epoch = 0", declared))
    assert "guard `Consumer._lock`" in assert_as_from_scratch(tmp_path)
    edited(consumer, lambda text: text.replace("guarded-by=_lock", "guarded-by=_state_lock"))
    assert "guard `Consumer._state_lock`" in assert_as_from_scratch(tmp_path)
    edited(consumer, lambda text: text.replace("  # epochlint: guarded-by=_state_lock", ""))
    assert '"EPL001"' not in assert_as_from_scratch(tmp_path)


def test_the_facts_of_versions_edited_away_are_deleted(project: Path) -> None:
    """An editor analyses an unsaved buffer again at each pause in typing: the facts of every
    version, as big as the whole file's, and what the text pass found in it must not pile up in
    the cache for a month (but the version saved on disk's)."""
    config = _config(project)
    orders, base = project / "pkg" / "orders.py", project / "pkg" / "base.py"
    versions = [orders.read_bytes()]
    check([project], config, jobs=1)
    for number in range(3):
        versions.append(versions[0] + f"\n\ndef typed_{number}():\n    return {number}\n".encode())
        check([project], config, jobs=1, in_memory={in_memory_path(orders): versions[-1]})
    cache = FactsCache.open(config.root, config.fingerprint())
    # The version saved on disk is kept: the next run from the command line reads it.
    kept = [True, False, False, True]
    assert [cache.load(cache.key(PARSED, version)) is not None for version in versions] == kept
    assert [cache.load_text(cache.text_key(version)) is not None for version in versions] == kept
    assert cache.load(cache.key(PARSED, base.read_bytes())) is not None, "an unchanged file's are kept"
    assert cache.load_text(cache.text_key(base.read_bytes())) is not None
    # Back to the saved version: what a from-scratch run finds.
    assert_as_from_scratch(project)


def test_a_check_of_the_saved_files_after_typing_in_the_editor_parses_none(project: Path) -> None:
    """The editor analyses each version of an unsaved buffer; the next `epochlint check` (the
    pre-commit hook) reads the files as saved, whose facts the buffer's versions did not replace."""
    config = _config(project)
    orders = project / "pkg" / "orders.py"
    check([project], config, jobs=1)
    for number in range(2):
        typed = orders.read_bytes() + f"\n\ndef typed_{number}():\n    return {number}\n".encode()
        check([project], config, jobs=1, in_memory={in_memory_path(orders): typed})
    assert loaded_by_a_check(project, ("libcst",)) == []


def test_code_moved_after_a_file_is_changed_back_is_not_analysed_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edit, change back (`git checkout`), then add a comment: the version changed back to had its
    facts deleted when it was edited away; without them the comment made the whole part be analysed
    again."""
    orders = project / "pkg" / "orders.py"
    saved = orders.read_bytes()
    assert_as_from_scratch(project)
    orders.write_bytes(saved + b"\n\ndef typed():\n    return 1\n")
    assert_as_from_scratch(project)
    orders.write_bytes(saved)
    assert_as_from_scratch(project)
    config = _config(project)
    cache = FactsCache.open(config.root, config.fingerprint())
    assert cache.load(cache.key(PARSED, saved)) is not None, "the facts of the version changed back to"
    assert cache.load(cache.key(PARSED, saved + b"\n\ndef typed():\n    return 1\n")) is None, "edited away"
    analyses = Analyses(monkeypatch)
    edited(orders, lines_added_above)
    assert '"EPL001"' in assert_as_from_scratch(project, analyses)
    assert analyses.count == 0


def test_lambdas_moved_are_renamed_in_the_findings_that_name_them() -> None:
    source = "import os\n\ndef run(items):\n    return map(lambda x: map(lambda y: y, x), items)\n"
    moved = source.replace("\n\ndef", "\n\n# moved down\n\ndef")
    move = relayout(facts_from_source(source.encode()), facts_from_source(moved.encode()), "pkg.jobs")
    assert move is not None
    inner, outer = "pkg.jobs.run.<lambda:4:16>.<lambda:4:30>", "pkg.jobs.run.<lambda:4:16>"
    where = Location("pkg/jobs.py", 4, 30, 4, 41)
    finding = Finding(
        "EPL001",
        "name",
        f"read in this batch loop (via {inner}), called from `{outer}` and `other.{outer}`",
        where,
        function=inner,
        chain=(ChainStep(where, outer, f"calls `{inner}`"),),
    )
    renamed = move.finding(finding, "pkg/jobs.py")
    assert renamed is not None
    new_inner, new_outer = "pkg.jobs.run.<lambda:6:16>.<lambda:6:30>", "pkg.jobs.run.<lambda:6:16>"
    assert renamed.message == (
        f"read in this batch loop (via {new_inner}), called from `{new_outer}` and `other.{outer}`"
    )
    assert (renamed.function, renamed.chain[0].function) == (new_inner, new_outer)
    assert renamed.chain[0].message == f"calls `{new_inner}`"
    assert (renamed.location.line, renamed.location.column) == (6, 30)


def test_analyses_made_again_and_again_in_one_process_keep_nothing_of_each_other(project: Path) -> None:
    """The editor server analyses every change in one long-lived process: what each analysis built
    is freed, not kept out of the collector's reach for the life of the process."""
    config = _config(project)
    consumer = in_memory_path(project / "pkg" / "orders.py")
    kept = []
    for number in range(4):
        edit = f"{RACY_SUBCLASS}\n\ndef edit_{number}():\n    return {number}\n"
        result = check([project], config, jobs=1, in_memory={consumer: edit.encode()})
        assert [finding.code for finding in result.findings] == ["EPL001"]
        del result
        kept.append(gc.get_freeze_count())
    # Objects kept out of the collector's reach: the first runs warm what lives on (imports,
    # caches of the process); from then on, an analysis that kept its program would add it.
    assert kept[3] - kept[1] < 100, kept


LOOP_HELPER = "def each(batch, handle):\n    for message in batch:\n        handle(message)\n"
# A consumer whose epoch check runs per message of a batch loop in `pkg/loops.py` once it hands
# that loop its check: a file the prefilter finds relevant only when a relevant one imports it.
CHECKED_ONE_BY_ONE = """\
from pkg.base import Base


class Consumer(Base):
    def on_batch(self, batch):
        for message in batch:
            self.deliver(message)

    def _check(self, message):
        if self._is_current(message):
            self.deliver(message)

    def deliver(self, message):
        pass
"""
CHECKED_IN_THE_HELPERS_LOOP = replaced(
    "from pkg.loops import each\n" + CHECKED_ONE_BY_ONE,
    "        for message in batch:\n            self.deliver(message)\n",
    "        each(batch, self._check)\n",
)


def test_an_import_added_makes_the_imported_file_relevant(write_tree) -> None:  # type: ignore[no-untyped-def]
    """The files relevant in the latest run stay relevant while what the prefilter reads in the
    changed files (their imports, their epoch words) is the same; an import added is not."""
    root = write_tree(
        {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/loops.py": LOOP_HELPER, "pkg/orders.py": CHECKED_ONE_BY_ONE}
    )
    assert '"EPL001"' not in assert_as_from_scratch(root)
    (root / "pkg" / "orders.py").write_text(CHECKED_IN_THE_HELPERS_LOOP)
    assert '"EPL001"' in assert_as_from_scratch(root)


def test_a_change_of_code_reads_what_the_prefilter_found_in_the_changed_file_alone(project: Path) -> None:
    """A function added (its imports and epoch words the same): the files relevant in the latest
    run still are, and what the prefilter found in the other files is not read again."""
    config = _config(project)
    check([project], config, jobs=1)
    orders = project / "pkg" / "orders.py"
    before = orders.read_bytes()
    edited(orders, code_added)
    read, result = _keys_asked(FactsCache.load_text.__name__, project)
    cache = FactsCache.open(config.root, config.fingerprint())
    assert sorted(read) == sorted([cache.text_key(before), cache.text_key(orders.read_bytes())])
    assert result == _json(check([project], config, use_cache=False, jobs=1))


def test_an_edit_reads_the_outlines_of_the_unchanged_files_from_one_entry(project: Path) -> None:
    """Once a run has read the outlines of the files it does not parse one by one, it keeps them
    together: the next run after an edit reads one entry for them, and asks for no file's own
    outline but the changed file's. It finds what a run from scratch finds."""
    config = _config(project)
    check([project], config, jobs=1)
    orders = project / "pkg" / "orders.py"
    edited(orders, code_added)
    check([project], config, jobs=1)
    edited(orders, code_added)
    asked, result = _keys_asked(FactsCache.load_outline.__name__, project)
    cache = FactsCache.open(config.root, config.fingerprint())
    assert asked == [cache.key(PARSED, orders.read_bytes())]
    assert result == _json(check([project], config, use_cache=False, jobs=1))


def _keys_asked(method: str, project: Path) -> tuple[list[str], str]:
    """The keys a cached run of `project` asks the facts cache's `method` for, and its JSON output."""
    asked: list[str] = []
    real = getattr(FactsCache, method)

    def counted(cache: FactsCache, key: str):  # type: ignore[no-untyped-def]
        asked.append(key)
        return real(cache, key)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FactsCache, method, counted)
        result = _json(check([project], _config(project), jobs=1))
    return asked, result
