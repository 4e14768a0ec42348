"""Baselines: record today's findings, report only new ones, and say when entries went stale."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.test_cli import (
    CONSUMER,
    FIXED_CONSUMER,
    LOOP,
    RACY_CONSUMER,
    SHIFTED_CONSUMER,
    TWO_LOOP_CONSUMER,
    epochlint,
    finding_lines,
    line_of,
)

WriteTree = Callable[..., Path]
BASELINE = "epochlint-baseline.json"


def write_baseline(root: Path) -> dict[str, dict[str, str]]:
    result = epochlint(root, "check", "--write-baseline", BASELINE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"baseline written to {BASELINE} (findings recorded:" in result.stdout
    assert finding_lines(result.stdout, "EPL001") == []
    return json.loads((root / BASELINE).read_text(encoding="utf-8"))["findings"]  # type: ignore[no-any-return]


def test_baseline_records_each_finding_by_fingerprint_for_humans_too(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: TWO_LOOP_CONSUMER})
    entries = write_baseline(root)
    report = json.loads(epochlint(root, "check", "--output-format", "json").stdout)
    assert sorted(entries) == sorted(f["fingerprint"] for f in report["findings"])
    for finding in report["findings"]:
        entry = entries[finding["fingerprint"]]
        assert entry == {"code": "EPL001", "path": CONSUMER, "message": finding["message"]}


def test_baseline_file_is_sorted_and_byte_stable(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: TWO_LOOP_CONSUMER})
    write_baseline(root)
    first = (root / BASELINE).read_bytes()
    write_baseline(root)
    assert (root / BASELINE).read_bytes() == first
    document = json.loads(first)
    assert first.decode() == json.dumps(document, indent=2, sort_keys=True) + "\n"
    assert document["version"] == 1 and document["tool"] == "epochlint"
    assert b'"line"' not in first


def test_baseline_hides_recorded_findings(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    write_baseline(root)
    result = epochlint(root, "check", "--baseline", BASELINE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "All checks passed: 1 file, no findings (1 hidden by the baseline)."


def test_baseline_reports_only_new_findings(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    write_baseline(root)
    write_tree({CONSUMER: TWO_LOOP_CONSUMER})
    result = epochlint(root, "check", "--baseline", BASELINE)
    assert result.returncode == 1, result.stdout + result.stderr
    [header] = finding_lines(result.stdout, "EPL001")
    assert header.startswith(f"{CONSUMER}:{line_of(TWO_LOOP_CONSUMER, LOOP, 2)}:")
    assert result.stdout.splitlines()[-1] == "Found 1 finding (EPL001: 1) in 1 file (1 hidden by the baseline)."
    summary = json.loads(epochlint(root, "check", "--baseline", BASELINE, "--output-format", "json").stdout)["summary"]
    assert (summary["findings"], summary["baseline_hidden"]) == (1, 1)


def test_writing_a_baseline_says_what_it_recorded_and_passes_nothing(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: TWO_LOOP_CONSUMER})
    result = epochlint(root, "check", "--write-baseline", BASELINE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed" not in result.stdout
    assert result.stdout.splitlines()[-2:] == [
        f"note: baseline written to {BASELINE} (findings recorded: 2)",
        "Recorded 2 findings of 1 file in the baseline; none reported.",
    ]


def test_baseline_survives_moved_lines(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    write_baseline(root)
    write_tree({CONSUMER: SHIFTED_CONSUMER})
    result = epochlint(root, "check", "--baseline", BASELINE, "--output-format", "json")
    summary = json.loads(result.stdout)["summary"]
    assert (result.returncode, summary["findings"], summary["stale_baseline"]) == (0, 0, 0)


LAMBDA_HANDLERS = (
    "    def handlers(self):\n"
    "        return {'batch': lambda batch: [m for m in batch if m.epoch >= self._epoch]}\n\n"
)


LAMBDA_CONSUMER = RACY_CONSUMER.replace("    def deliver(", LAMBDA_HANDLERS + "    def deliver(")
SYNTAX_ERROR = "import threading\n\n\nprint 'legacy epoch'\n"


# A syntax error's message names its place; a lambda is named after its place.
@pytest.mark.parametrize(
    ("files", "recorded"), [({"legacy.py": SYNTAX_ERROR}, 1), ({CONSUMER: LAMBDA_CONSUMER}, 2)]
)
def test_baseline_survives_moved_lines_of_findings_named_after_their_place(
    write_tree: WriteTree, files: dict[str, str], recorded: int
) -> None:
    root = write_tree(files)
    assert len(write_baseline(root)) == recorded
    write_tree({rel: "# a line above\n" + text for rel, text in files.items()})
    result = epochlint(root, "check", "--baseline", BASELINE, "--output-format", "json")
    summary = json.loads(result.stdout)["summary"]
    assert (result.returncode, summary["findings"], summary["stale_baseline"]) == (0, 0, 0)


def test_fixed_finding_leaves_the_baseline_stale_and_check_says_so(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    write_baseline(root)
    write_tree({CONSUMER: FIXED_CONSUMER})
    result = epochlint(root, "check", "--baseline", BASELINE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 baseline entry no longer matches any finding" in result.stdout
    summary = json.loads(epochlint(root, "check", "--baseline", BASELINE, "--output-format", "json").stdout)["summary"]
    assert summary["stale_baseline"] == 1


def test_entries_of_files_outside_the_run_are_not_stale(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER, "pkg/other.py": "def unrelated():\n    return 1\n"})
    write_baseline(root)
    result = epochlint(root, "check", "pkg/other.py", "--baseline", BASELINE, "--output-format", "json")
    assert json.loads(result.stdout)["summary"]["stale_baseline"] == 0


def test_entries_of_a_deleted_file_are_stale_where_the_run_looked(write_tree: WriteTree) -> None:
    # The file's entries were never called stale: it was not analysed, being gone.
    root = write_tree({CONSUMER: RACY_CONSUMER, "pkg/other.py": RACY_CONSUMER})
    write_baseline(root)
    (root / "pkg" / "other.py").unlink()
    for paths in ((), ("pkg",), (".", CONSUMER)):
        result = epochlint(root, "check", *paths, "--baseline", BASELINE, "--output-format", "json")
        assert json.loads(result.stdout)["summary"]["stale_baseline"] == 1, paths
    elsewhere = epochlint(root, "check", CONSUMER, "--baseline", BASELINE, "--output-format", "json")
    assert json.loads(elsewhere.stdout)["summary"]["stale_baseline"] == 0


@pytest.mark.parametrize("selection", [("--select", "EPL004"), ("--ignore", "EPL001")])
def test_entries_of_rules_the_run_left_out_are_not_stale(write_tree: WriteTree, selection: tuple[str, str]) -> None:
    # The run says nothing of the rules it did not run: their entries were once called fixed.
    root = write_tree({CONSUMER: RACY_CONSUMER})
    write_baseline(root)
    result = epochlint(root, "check", *selection, "--baseline", BASELINE, "--output-format", "json")
    assert json.loads(result.stdout)["summary"]["stale_baseline"] == 0


@pytest.mark.parametrize(
    "partial_run", [("pkg/other.py",), ("--select", "EPL004")], ids=["other-file", "other-rule"]
)
def test_rewriting_a_baseline_keeps_the_entries_the_run_did_not_check(
    write_tree: WriteTree, partial_run: tuple[str, ...]
) -> None:
    # A run over one file (or one rule) rewrote the baseline with its own findings alone: the
    # others' findings came back as new.
    root = write_tree({CONSUMER: RACY_CONSUMER, "pkg/other.py": "def unrelated():\n    return 1\n"})
    recorded = write_baseline(root)
    rewritten = epochlint(root, "check", *partial_run, "--write-baseline", BASELINE)
    assert "entries kept of files or rules this run did not check: 1" in rewritten.stdout
    assert json.loads((root / BASELINE).read_text(encoding="utf-8"))["findings"] == recorded
    assert epochlint(root, "check", "--baseline", BASELINE).returncode == 0


@pytest.mark.parametrize(
    ("content", "said"),
    [
        pytest.param(None, "cannot read baseline", id="missing"),
        pytest.param("{not json", "is not valid JSON", id="not-json"),
        pytest.param("[" * 100_000, "nested too deeply to read", id="nested-past-the-parser"),
        pytest.param('{"findings": []}', "is not an epochlint baseline", id="not-a-baseline"),
        pytest.param(
            '{"version": 1, "tool": "epochlint", "findings": {"abc": {"code": "EPL001"}}}',
            "needs a code, a path and a message",
            id="incomplete-entry",
        ),
    ],
)
def test_bad_baseline_is_a_one_line_usage_error(write_tree: WriteTree, content: str | None, said: str) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    if content is not None:
        (root / BASELINE).write_text(content, encoding="utf-8")
    result = epochlint(root, "check", "--baseline", BASELINE)
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.splitlines()) == 1 and said in result.stderr, result.stderr


def test_baseline_and_write_baseline_exclude_each_other(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    result = epochlint(root, "check", "--baseline", BASELINE, "--write-baseline", BASELINE)
    assert result.returncode == 2 and "not allowed with" in result.stderr, result.stderr
