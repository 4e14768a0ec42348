"""End-to-end tests of the `epochlint` command line, run as a user runs it: a subprocess per command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema.validators import validator_for

from tests.conftest import FIXTURES, REPO, Mark, expected_marks

SARIF_SCHEMA = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"
RULE_NAMES = {"EPL001": "unlocked-epoch-read-in-batch-loop", "EPL900": "unparseable-file"}
DOC_SECTIONS = ("What it finds", "Why it is a bug", "Where it comes from", "Example", "Fix")

WriteTree = Callable[..., Path]

# --- the consumer under test -------------------------------------------------------------------

CONSUMER = "pkg/consumer.py"
LOOP = "for message in batch:"
READ = "return message.epoch >= self._epoch"
RACY_CONSUMER = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._epoch = 0

    def seek(self, offset):
        with self._lock:
            self._epoch += 1

    def _is_current(self, message):
        return message.epoch >= self._epoch

    def on_batch(self, batch):
        for message in batch:
            if self._is_current(message):
                self.deliver(message)

    def deliver(self, message):
        pass
"""


def replaced(text: str, old: str, new: str) -> str:
    """`text` with `old` replaced, which must occur exactly once (no silently unchanged variants)."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


RACY_LOOP_BODY = """\
        for message in batch:
            if self._is_current(message):
                self.deliver(message)
"""
FIXED_CONSUMER = replaced(
    RACY_CONSUMER,
    RACY_LOOP_BODY,
    "        with self._lock:\n" + "".join(f"    {line}\n" for line in RACY_LOOP_BODY.splitlines()),
)
# An unrelated function above the loop: every later line moves down, the mistake stays the same.
SHIFTED_CONSUMER = replaced(
    RACY_CONSUMER, "\n\nclass Consumer:", "\n\ndef unrelated():\n    return 42\n\n\nclass Consumer:"
)
# The same mistake in a second method: a second, different finding.
TWO_LOOP_CONSUMER = RACY_CONSUMER + f"\n    def on_redelivered(self, batch):\n{RACY_LOOP_BODY}"


def with_loop_comment(comment: str) -> str:
    return replaced(RACY_CONSUMER, LOOP, f"{LOOP}  {comment}")


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line number of the `occurrence`-th line containing `needle`."""
    numbers = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(numbers) >= occurrence, f"{needle!r} not found {occurrence} time(s)"
    return numbers[occurrence - 1]


def column_of(text: str, needle: str, on: str | None = None) -> int:
    """1-based column of `needle` on the first line containing `on` (default: `needle` itself)."""
    line = text.splitlines()[line_of(text, on or needle) - 1]
    return line.index(needle) + 1


def pyproject(tool_table: str = "") -> str:
    return "[project]\nname = 'sample'\n" + (f"\n[tool.epochlint]\n{tool_table}\n" if tool_table else "")


# --- running the command line ------------------------------------------------------------------

# Output must depend on the stream, not on the terminal or CI settings of whoever runs the tests.
_ENV_DROPPED = ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
ENV = {key: value for key, value in os.environ.items() if key not in _ENV_DROPPED}
ENV["PYTHONIOENCODING"] = "utf-8"
ENV["PYTHONPATH"] = os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))


def loaded_by_a_check(root: Path, modules: tuple[str, ...], *arguments: str) -> list[str]:
    """Which of `modules` a `check` of `root` (with `arguments`), in a process of its own, imports."""
    probe = (
        f"import json, sys\nfrom epochlint.cli import main\nmain(['check', '--exit-zero', '-q', *{arguments!r}, '.'])\n"
        f"print(json.dumps(sorted(m for m in {modules!r} if m in sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, env=ENV, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def epochlint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m epochlint ARGS` in `cwd`; no run may ever end in a traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "epochlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=ENV,
        timeout=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def check_report(cwd: Path, fmt: str, *args: str) -> tuple[int, dict[str, Any]]:
    """Exit status and parsed report of `epochlint check --output-format FMT ARGS`."""
    result = epochlint(cwd, "check", "--output-format", fmt, *args)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def check_sarif(cwd: Path) -> dict[str, Any]:
    return check_report(cwd, "sarif")[1]


def sarif_results(log: dict[str, Any]) -> list[dict[str, Any]]:
    return log["runs"][0]["results"]  # type: ignore[no-any-return]


def finding_lines(stdout: str, code: str) -> list[str]:
    """Console header lines (`path:line:col: CODE message`) of one code."""
    return [line for line in stdout.splitlines() if re.match(rf"^\S+:\d+:\d+: {code} ", line)]


@pytest.fixture(scope="module")
def listed_codes() -> list[str]:
    """The rule codes `epochlint rules` lists, in order."""
    result = epochlint(REPO, "rules")
    assert result.returncode == 0, result.stderr
    return re.findall(r"^\W*(EPL\d{3})\b", result.stdout, re.MULTILINE)


@pytest.fixture
def racy(write_tree: WriteTree) -> Path:
    return write_tree({CONSUMER: RACY_CONSUMER})


# --- 1. exit statuses --------------------------------------------------------------------------


def test_clean_tree_exits_0(write_tree: WriteTree) -> None:
    result = epochlint(write_tree({CONSUMER: FIXED_CONSUMER}), "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed" in result.stdout
    assert finding_lines(result.stdout, "EPL001") == []


def test_findings_exit_1(racy: Path) -> None:
    result = epochlint(racy, "check")
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(finding_lines(result.stdout, "EPL001")) == 1


def test_exit_zero_still_reports_but_exits_0(racy: Path) -> None:
    result = epochlint(racy, "check", "--exit-zero")
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(finding_lines(result.stdout, "EPL001")) == 1


@pytest.mark.parametrize(
    ("args", "tool_table", "named"),
    [
        pytest.param(("check", "no/such/dir"), "", "no/such/dir", id="missing-path"),
        pytest.param(("check",), 'epoch-patern = "epoch"', "epoch-patern", id="unknown-config-key"),
        pytest.param(("check",), 'epoch-pattern = "(unclosed"', "epoch-pattern", id="bad-epoch-pattern"),
        pytest.param(("check", "--select", "EPL999"), "", "--select", id="unknown-select-code"),
        pytest.param(("frobnicate",), "", "frobnicate", id="unknown-subcommand"),
        pytest.param(("check", "--frobnicate"), "", "--frobnicate", id="unknown-flag"),
        pytest.param(("rule", "EPL999"), "", "EPL999", id="unknown-rule"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    write_tree: WriteTree, args: tuple[str, ...], tool_table: str, named: str
) -> None:
    # The tree has a finding, so a 2 cannot be a findings status in disguise.
    root = write_tree({CONSUMER: RACY_CONSUMER}, pyproject(tool_table))
    result = epochlint(root, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert named in result.stderr
    assert result.stdout == ""


# --- 2. the console report ---------------------------------------------------------------------


def test_console_report_shows_location_frame_chain_and_summary(racy: Path) -> None:
    loop_line, loop_column = line_of(RACY_CONSUMER, LOOP), column_of(RACY_CONSUMER, LOOP)
    read_line = line_of(RACY_CONSUMER, READ)
    result = epochlint(racy, "check")
    lines = result.stdout.splitlines()

    [header] = finding_lines(result.stdout, "EPL001")
    assert header.startswith(f"{CONSUMER}:{loop_line}:{loop_column}: EPL001 "), result.stdout
    assert any(re.match(rf"^\s*{loop_line} \| .*{re.escape(LOOP)}", line) for line in lines), result.stdout

    chain = [m for m in (re.match(r"^\s+(?:↳|->) (\S+:\d+:\d+)\s+(.*)$", line) for line in lines) if m]
    assert [m.group(1) for m in chain] == [
        f"{CONSUMER}:{loop_line}:{loop_column}",
        f"{CONSUMER}:{loop_line + 1}:{column_of(RACY_CONSUMER, 'self._is_current(message)')}",
        f"{CONSUMER}:{read_line}:{column_of(RACY_CONSUMER, 'self._epoch', on=READ)}",
    ], result.stdout
    assert "calls" in chain[1].group(2) and "_is_current" in chain[1].group(2)
    assert "reads" in chain[2].group(2) and "_epoch" in chain[2].group(2)

    assert lines[-1] == "Found 1 finding (EPL001: 1) in 1 file.", result.stdout


def test_fixed_consumer_is_clean(write_tree: WriteTree) -> None:
    result = epochlint(write_tree({CONSUMER: FIXED_CONSUMER}), "check")
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines()[-1].startswith("All checks passed"), result.stdout


# --- 3. JSON -----------------------------------------------------------------------------------

LOCATION_FIELDS = {"path": str, "line": int, "column": int, "end_line": int, "end_column": int}
FINDING_FIELDS = {**LOCATION_FIELDS, "code": str, "name": str, "message": str, "function": str,
                  "fingerprint": str, "related": list, "chain": list}


def assert_fields(value: dict[str, Any], fields: dict[str, type]) -> None:
    """Every documented field is there with its documented type (fields may be added, never removed)."""
    for name, kind in fields.items():
        assert isinstance(value.get(name), kind), f"{name}: {value.get(name)!r} is not a {kind.__name__}"
    path = value["path"]
    assert not path.startswith("/") and "\\" not in path and not re.match(r"^[A-Za-z]:", path), path


def test_json_report_follows_the_documented_schema(racy: Path) -> None:
    result = epochlint(racy, "check", "--output-format", "json")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    # Documented as deterministic: sorted keys, two-space indentation, ASCII escapes, final newline.
    assert result.stdout == json.dumps(document, indent=2, sort_keys=True) + "\n"
    assert str(racy) not in result.stdout and str(racy.resolve()) not in result.stdout

    assert document["version"] == 1
    assert document["tool"]["name"] == "epochlint" and isinstance(document["tool"]["version"], str)
    assert document["summary"] == {
        "files": 1, "files_not_relevant": 0, "findings": 1, "by_code": {"EPL001": 1}, "stale_baseline": 0,
        "baseline_hidden": 0,
    }

    [finding] = document["findings"]
    assert_fields(finding, FINDING_FIELDS)
    assert (finding["code"], finding["name"]) == ("EPL001", RULE_NAMES["EPL001"])
    assert (finding["path"], finding["line"]) == (CONSUMER, line_of(RACY_CONSUMER, LOOP))
    assert finding["function"].endswith("Consumer.on_batch")
    assert finding["fingerprint"]
    for related in finding["related"]:
        assert_fields(related, {**LOCATION_FIELDS, "message": str})
    assert len(finding["chain"]) == 3
    for step in finding["chain"]:
        assert_fields(step, {**LOCATION_FIELDS, "function": str, "message": str})
    assert "_is_current" in finding["chain"][1]["message"]
    assert finding["chain"][2]["line"] == line_of(RACY_CONSUMER, READ)


def test_json_report_is_byte_identical_across_runs(racy: Path) -> None:
    first = epochlint(racy, "check", "--output-format", "json")
    second = epochlint(racy, "check", "--output-format", "json")
    assert first.stdout and first.stdout == second.stdout


# --- 4. SARIF ----------------------------------------------------------------------------------


def test_sarif_report_is_valid_and_complete(racy: Path, listed_codes: list[str]) -> None:
    log = check_sarif(racy)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = validator_for(schema)(schema)
    errors = [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(log)]
    assert errors == []

    assert [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]] == listed_codes
    [result] = sarif_results(log)
    assert result["ruleId"] == "EPL001"
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == CONSUMER
    assert physical["region"] == {
        "startLine": line_of(RACY_CONSUMER, LOOP),
        "startColumn": column_of(RACY_CONSUMER, LOOP),
        "endLine": line_of(RACY_CONSUMER, LOOP),
        "endColumn": column_of(RACY_CONSUMER, LOOP) + len(LOOP) - 1,
    }
    assert result["relatedLocations"]
    assert len(result["codeFlows"][0]["threadFlows"][0]["locations"]) == 3
    assert all(result["partialFingerprints"].values()) and result["partialFingerprints"]
    assert str(racy) not in json.dumps(log)


def _fingerprints(log: dict[str, Any]) -> list[dict[str, str]]:
    return [result["partialFingerprints"] for result in sarif_results(log)]


def test_sarif_fingerprint_survives_unrelated_edits(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: RACY_CONSUMER})
    before = check_sarif(root)
    write_tree({CONSUMER: SHIFTED_CONSUMER})
    after = check_sarif(root)
    start_lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in sarif_results(after)]
    assert start_lines == [line_of(SHIFTED_CONSUMER, LOOP)] != [line_of(RACY_CONSUMER, LOOP)]
    assert _fingerprints(after) == _fingerprints(before)


def test_sarif_fingerprints_differ_between_findings(write_tree: WriteTree) -> None:
    fingerprints = _fingerprints(check_sarif(write_tree({CONSUMER: TWO_LOOP_CONSUMER})))
    assert len(fingerprints) == 2
    assert fingerprints[0] != fingerprints[1]


# --- 5. GitHub annotations ---------------------------------------------------------------------


def test_github_output_is_one_annotation_per_finding(write_tree: WriteTree) -> None:
    root = write_tree({CONSUMER: TWO_LOOP_CONSUMER})
    result = epochlint(root, "check", "--output-format", "github")
    assert result.returncode == 1
    expected = [line_of(TWO_LOOP_CONSUMER, LOOP, 1), line_of(TWO_LOOP_CONSUMER, LOOP, 2)]
    lines = result.stdout.splitlines()
    assert len(lines) == len(expected), result.stdout
    for line, number in zip(lines, expected):
        assert line.startswith(f"::error file={CONSUMER},line={number},"), line


# --- 6. broken files beside real code ----------------------------------------------------------

UNDECODABLE = b"x = '\xff\xfe'\n"


def test_broken_files_are_reported_once_and_do_not_hide_real_findings(write_tree: WriteTree) -> None:
    with pytest.raises(UnicodeDecodeError):
        UNDECODABLE.decode("utf-8")
    root = write_tree(
        {
            CONSUMER: RACY_CONSUMER,
            "pkg/syntax_error.py": "def broken(:\n    pass\n",
            "pkg/undecodable.py": UNDECODABLE,
            "pkg/empty.py": "",
        }
    )
    result = epochlint(root, "check")
    assert result.returncode == 1, result.stderr
    broken = finding_lines(result.stdout, "EPL900")
    assert sorted(line.split(": EPL900")[0] for line in broken) == [
        "pkg/syntax_error.py:1:12",
        "pkg/undecodable.py:1:1",
    ], result.stdout
    assert [line.split(":")[0] for line in finding_lines(result.stdout, "EPL001")] == [CONSUMER]


# --- 7. suppression ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "tool_table", "args"),
    [
        pytest.param(with_loop_comment("# epochlint: ignore[EPL001]"), "", (), id="ignore-code-on-line"),
        pytest.param(with_loop_comment("# epochlint: ignore"), "", (), id="ignore-all-on-line"),
        pytest.param("# epochlint: ignore-file\n" + RACY_CONSUMER, "", (), id="ignore-file"),
        pytest.param(RACY_CONSUMER, "", ("--ignore", "EPL001"), id="ignore-flag"),
        pytest.param(RACY_CONSUMER, 'ignore = ["EPL001"]', (), id="ignore-config"),
        pytest.param(RACY_CONSUMER, f'per-file-ignores = {{ "{CONSUMER}" = ["EPL001"] }}', (),
                     id="per-file-ignores"),
    ],
)
def test_suppressions_silence_the_finding(
    write_tree: WriteTree, source: str, tool_table: str, args: tuple[str, ...]
) -> None:
    result = epochlint(write_tree({CONSUMER: source}, pyproject(tool_table)), "check", *args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed" in result.stdout


@pytest.mark.parametrize(
    ("source", "tool_table"),
    [
        pytest.param(with_loop_comment("# epochlint: ignore[EPL900]"), "", id="other-code-on-line"),
        pytest.param(RACY_CONSUMER, 'per-file-ignores = { "other/*.py" = ["EPL001"] }', id="other-files"),
    ],
)
def test_suppressions_aimed_elsewhere_keep_the_finding(
    write_tree: WriteTree, source: str, tool_table: str
) -> None:
    result = epochlint(write_tree({CONSUMER: source}, pyproject(tool_table)), "check")
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(finding_lines(result.stdout, "EPL001")) == 1


# --- 8. rules and rule -------------------------------------------------------------------------


def test_rules_lists_every_rule_with_its_name(tmp_path: Path) -> None:
    result = epochlint(tmp_path, "rules")
    assert result.returncode == 0
    for code, name in RULE_NAMES.items():
        assert any(code in line and name in line for line in result.stdout.splitlines()), result.stdout
    rows = {line.split()[1]: line for line in result.stdout.splitlines() if re.match(r"^\W*EPL\d{3}\b", line)}
    assert [code for code, row in rows.items() if "--fix" in row] == ["EPL001", "EPL003", "EPL004"]


def test_rule_prints_its_documentation(tmp_path: Path) -> None:
    result = epochlint(tmp_path, "rule", "EPL001")
    assert result.returncode == 0
    headings = [m.group(1).strip() for m in re.finditer(r"^#+\s*(.+)$", result.stdout, re.MULTILINE)]
    assert [h for h in headings if h in DOC_SECTIONS] == list(DOC_SECTIONS), headings
    assert "#25204" in result.stdout


# --- 9. graph calls ----------------------------------------------------------------------------

GRAPH_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/coord.py": """\
class Coordinator:
    def __init__(self):
        self.ready = True


def rebalance(consumer):
    return consumer
""",
    "pkg/consumer.py": """\
from concurrent.futures import ThreadPoolExecutor

from .coord import Coordinator, rebalance


class Consumer:
    def __init__(self):
        self._coordinator = Coordinator()
        self._executor = ThreadPoolExecutor()

    def poll(self):
        rebalance(self)
        self._executor.submit(self._work)

    def _work(self):
        pass
""",
}
EXPECTED_EDGES = {
    ("pkg.consumer.Consumer.__init__", "pkg.coord.Coordinator.__init__"),
    ("pkg.consumer.Consumer.poll", "pkg.coord.rebalance"),
    ("pkg.consumer.Consumer.poll", "pkg.consumer.Consumer._work"),
}


def call_graph(root: Path, fmt: str) -> str:
    result = epochlint(root, "graph", "calls", "pkg", "--format", fmt)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_graph_pycg_maps_functions_to_sorted_callees(write_tree: WriteTree) -> None:
    mapping = json.loads(call_graph(write_tree(GRAPH_PACKAGE), "pycg"))
    assert isinstance(mapping, dict)
    for caller, callees in mapping.items():
        assert isinstance(callees, list) and callees == sorted(callees), caller
        assert set(callees) <= set(mapping), f"{caller} calls functions that are not nodes: {callees}"
    edges = {(caller, callee) for caller, callees in mapping.items() for callee in callees}
    assert EXPECTED_EDGES <= edges, sorted(edges)


def test_graph_dot_is_a_digraph(write_tree: WriteTree) -> None:
    dot = call_graph(write_tree(GRAPH_PACKAGE), "dot")
    assert dot.startswith("digraph")
    for caller, callee in EXPECTED_EDGES:
        assert f'"{caller}" -> "{callee}"' in dot, dot


def test_graph_json_marks_executor_submit_as_handoff(write_tree: WriteTree) -> None:
    graph = json.loads(call_graph(write_tree(GRAPH_PACKAGE), "json"))
    node_ids = {node["id"] for node in graph["nodes"]}
    assert {name for edge in EXPECTED_EDGES for name in edge} <= node_ids
    kinds = {(edge["caller"], edge["callee"]): edge["kind"] for edge in graph["edges"]}
    assert kinds.get(("pkg.consumer.Consumer.poll", "pkg.consumer.Consumer._work")) == "handoff", kinds
    assert kinds.get(("pkg.consumer.Consumer.poll", "pkg.coord.rebalance")) == "call", kinds


# --- 10. the fixture folders, through the command line -----------------------------------------


@pytest.mark.parametrize("folder", ["EPL001", "EPL900"])
def test_fixture_folder_reports_exactly_its_marks(folder: str, listed_codes: list[str]) -> None:
    path = FIXTURES / folder
    if not path.is_dir():
        pytest.skip(f"{path.relative_to(REPO)} does not exist yet: no fixtures to check")
    status, document = check_report(REPO, "json", path.relative_to(REPO).as_posix())
    marks = expected_marks(REPO, path)
    expected = Counter({mark: n for mark, n in marks.items() if mark[2] in listed_codes})
    actual: Counter[Mark] = Counter((f["path"], f["line"], f["code"]) for f in document["findings"])
    assert expected, f"no `# expect:` marks in {folder}"
    missing, unexpected = sorted(expected - actual), sorted(actual - expected)
    assert actual == expected, f"missing: {missing}\nunexpected: {unexpected}"
    assert status == 1


def test_an_internal_error_is_one_line_and_exit_2(
    racy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from epochlint import cli, engine

    def broken(*_: object, **__: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(engine, "unsuppressed_findings", broken)
    monkeypatch.chdir(racy)
    assert cli.main(["check", ".", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("epochlint: error: internal error: KeyError: 'a bug' (at test_cli.py:")


def test_a_copied_position_is_named_as_the_code_writes_it(write_tree: WriteTree) -> None:
    # The message named what the alias stood for, with its subscript cut: `self._assignment[].position`.
    source = (
        "from dataclasses import dataclass, replace\n\n\n@dataclass(frozen=True)\nclass FetchPosition:\n"
        "    offset: int\n    offset_epoch: int\n    current_leader: object\n\n\nclass Fetcher:\n"
        "    def __init__(self):\n        self._assignment = {}\n\n"
        "    def advance(self, tp, next_offset):\n        state = self._assignment[tp]\n"
        "        state.position = replace(state.position, offset=next_offset)\n"
    )
    result = epochlint(write_tree({"fetcher.py": source}), "check", "--output-format", "concise")
    assert "fetcher.py:17:26: EPL007 `state.position` is copied with a new offset" in result.stdout
