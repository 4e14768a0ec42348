"""What a user sees in each output format, on hand-made findings over real source files."""

from __future__ import annotations

import io
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pytest
from jsonschema import Draft4Validator
from jsonschema.validators import validator_for

from epochlint.findings import ChainStep, Finding, Location, RelatedLocation
from epochlint.report import RuleInfo, RunResult, console, github, gitlab, sarif
from epochlint.report import json as json_format
from epochlint.report.formats import FORMATS
from epochlint.text import escaped_name

SCHEMA_PATH = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

CONSUMER_SOURCE = """\
import threading


class Consumer:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def receive(self, batch):
        for msg in batch:
            if self.is_stale(msg):
                continue

    def is_stale(self, msg):
        return msg.epoch < self._epoch

    def seek(self):
        with self._lock:
            self._epoch += 1
"""

RULES = (
    RuleInfo("EPL001", "unlocked-epoch-read-in-batch-loop", "Batch loop reads an epoch unlocked.",
             "A batch loop reads `F` without its guard.\n\nFix: hold the lock."),
    RuleInfo("EPL002", "epoch-snapshot-outside-lock", "Snapshot of an epoch outside its lock.",
             "A local snapshot of `F` is used outside the lock."),
    RuleInfo("EPL900", "unparseable-file", "File cannot be parsed.", "A file that cannot be parsed."),
)


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Colour decisions must come from the stream, and paths from the project, not from the CI's
    # environment (a test that is about a CI sets its variable).
    for name in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)


def loc(line: int, column: int, end_column: int, path: str = "pkg/consumer.py") -> Location:
    return Location(path, line, column, line, end_column)


def loop_finding() -> Finding:
    return Finding(
        code="EPL001",
        name="unlocked-epoch-read-in-batch-loop",
        message="batch loop reads `Consumer._epoch` without holding `Consumer._lock`",
        location=loc(10, 9, 26),
        function="Consumer.receive",
        related=(RelatedLocation(loc(19, 13, 29), "guarded write of `Consumer._epoch`"),),
        chain=(
            ChainStep(loc(11, 16, 34), "Consumer.receive", "calls is_stale"),
            ChainStep(loc(15, 28, 39), "Consumer.is_stale", "reads `Consumer._epoch`"),
        ),
        fingerprint_key="Consumer._epoch",
        fingerprint="fp-loop-1",
    )


def parse_finding() -> Finding:
    return Finding(
        code="EPL900",
        name="unparseable-file",
        message="syntax error: invalid syntax",
        location=Location("broken.py", 1, 1, 1, 2),
        fingerprint="fp-broken",
    )


def missing_file_finding() -> Finding:
    return Finding(
        code="EPL002",
        name="epoch-snapshot-outside-lock",
        message="`epoch` snapshot of `Consumer._epoch` taken outside `Consumer._lock`",
        location=Location("gone/vanished.py", 3, 5, 3, 10),
        fingerprint="fp-gone",
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "consumer.py").write_text(CONSUMER_SOURCE, encoding="utf-8")
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n", encoding="utf-8")
    return tmp_path


def make_result(root: Path, findings: tuple[Finding, ...], stale: int = 0) -> RunResult:
    return RunResult(
        root=root,
        findings=findings,
        rules=RULES,
        files_analysed=3,
        tool_version="0.1.0",
        stale_baseline=stale,
    )


@pytest.fixture
def full_result(project: Path) -> RunResult:
    findings = (parse_finding(), missing_file_finding(), loop_finding())
    return make_result(project, findings)


def render(renderer: Any, result: RunResult) -> str:
    stream = io.StringIO()
    renderer(result, stream)
    return stream.getvalue()


# --- console -------------------------------------------------------------------------------


def console_lines(result: RunResult) -> list[str]:
    return render(console.render, result).splitlines()


def test_console_header_line(full_result: RunResult) -> None:
    lines = console_lines(full_result)
    assert (
        "pkg/consumer.py:10:9: EPL001 batch loop reads `Consumer._epoch` without holding "
        "`Consumer._lock`" in lines
    )
    assert "broken.py:1:1: EPL900 syntax error: invalid syntax" in lines


def test_console_caret_frame_underlines_reported_span(full_result: RunResult) -> None:
    lines = console_lines(full_result)
    source_index = lines.index("10 |         for msg in batch:")
    assert lines[source_index - 1] == "   |"
    assert lines[source_index + 1] == "   |         " + "^" * 17


def test_console_chain_and_related_lines(full_result: RunResult) -> None:
    lines = console_lines(full_result)
    start = lines.index("10 |         for msg in batch:") + 2
    assert lines[start : start + 3] == [
        "  ↳ pkg/consumer.py:11:16  Consumer.receive: calls is_stale",
        "  ↳ pkg/consumer.py:15:28  Consumer.is_stale: reads `Consumer._epoch`",
        "  note: pkg/consumer.py:19:13 guarded write of `Consumer._epoch`",
    ]


def test_console_unreadable_file_has_no_frame(full_result: RunResult) -> None:
    lines = console_lines(full_result)
    header = lines.index(
        "gone/vanished.py:3:5: EPL002 `epoch` snapshot of `Consumer._epoch` taken outside "
        "`Consumer._lock`"
    )
    assert lines[header + 1].startswith("pkg/consumer.py:10:9: EPL001")


def test_console_undecodable_or_short_file_has_no_frame(tmp_path: Path) -> None:
    (tmp_path / "latin.py").write_bytes(b"x = '\xff\xfe'\n")
    (tmp_path / "short.py").write_text("x = 1\n", encoding="utf-8")
    findings = (
        Finding("EPL900", "unparseable-file", "undecodable", Location("latin.py", 1, 1, 1, 2)),
        Finding("EPL006", "n", "past the end", Location("short.py", 40, 1, 40, 2)),
    )
    lines = console_lines(make_result(tmp_path, findings))
    assert lines == [
        "latin.py:1:1: EPL900 undecodable",
        "short.py:40:1: EPL006 past the end",
        "Found 2 findings (EPL006: 1, EPL900: 1) in 3 files.",
    ]


def test_console_summary_counts_by_code(full_result: RunResult) -> None:
    lines = console_lines(full_result)
    assert lines[-1] == "Found 3 findings (EPL001: 1, EPL002: 1, EPL900: 1) in 3 files."


def test_console_clean_run_and_stale_baseline(project: Path) -> None:
    lines = console_lines(make_result(project, (), stale=2))
    assert lines[0] == "All checks passed: 3 files, no findings."
    assert lines[1].startswith("2 baseline entries no longer match any finding")
    assert "re-write the baseline" in lines[1]


def test_console_no_colour_or_absolute_path_on_plain_stream(full_result: RunResult) -> None:
    output = render(console.render, full_result)
    assert "\x1b[" not in output
    assert str(full_result.root) not in output


def test_console_markup_in_messages_printed_verbatim(project: Path) -> None:
    finding = Finding("EPL001", "n", "reads [bold]x[/bold] :warning: 100%", loc(10, 9, 26))
    lines = console_lines(make_result(project, (finding,)))
    assert lines[0] == "pkg/consumer.py:10:9: EPL001 reads [bold]x[/bold] :warning: 100%"


def test_console_caret_follows_tabs(tmp_path: Path) -> None:
    (tmp_path / "tabs.py").write_text("if x:\n\tfoo(y)\n", encoding="utf-8")
    finding = Finding("EPL006", "n", "m", Location("tabs.py", 2, 2, 2, 5))
    lines = console_lines(make_result(tmp_path, (finding,)))
    assert lines[2] == "2 |     foo(y)"
    assert lines[3] == "  |     ^^^"


def test_console_multiline_span_underlines_each_line(project: Path) -> None:
    finding = Finding("EPL004", "n", "m", Location("pkg/consumer.py", 18, 9, 19, 29))
    lines = console_lines(make_result(project, (finding,)))
    assert lines[1:6] == [
        "   |",
        "18 |         with self._lock:",
        "   |         " + "^" * 16,
        "19 |             self._epoch += 1",
        "   |             " + "^" * 16,
    ]


# --- JSON ----------------------------------------------------------------------------------


def test_json_has_documented_fields(full_result: RunResult) -> None:
    data = json.loads(render(json_format.render, full_result))
    assert data["version"] == 1
    assert data["tool"] == {"name": "epochlint", "version": "0.1.0"}
    assert data["summary"] == {
        "files": 3,
        "files_not_relevant": 0,
        "findings": 3,
        "by_code": {"EPL001": 1, "EPL002": 1, "EPL900": 1},
        "stale_baseline": 0,
        "baseline_hidden": 0,
    }
    loop = data["findings"][2]
    assert loop == {
        "code": "EPL001",
        "name": "unlocked-epoch-read-in-batch-loop",
        "message": "batch loop reads `Consumer._epoch` without holding `Consumer._lock`",
        "path": "pkg/consumer.py",
        "line": 10,
        "column": 9,
        "end_line": 10,
        "end_column": 26,
        "function": "Consumer.receive",
        "fingerprint": "fp-loop-1",
        "related": [
            {"path": "pkg/consumer.py", "line": 19, "column": 13, "end_line": 19,
             "end_column": 29, "message": "guarded write of `Consumer._epoch`"},
        ],
        "chain": [
            {"path": "pkg/consumer.py", "line": 11, "column": 16, "end_line": 11,
             "end_column": 34, "function": "Consumer.receive", "message": "calls is_stale"},
            {"path": "pkg/consumer.py", "line": 15, "column": 28, "end_line": 15,
             "end_column": 39, "function": "Consumer.is_stale",
             "message": "reads `Consumer._epoch`"},
        ],
    }


def test_json_is_byte_identical_and_newline_terminated(full_result: RunResult) -> None:
    first = render(json_format.render, full_result)
    second = render(json_format.render, full_result)
    assert first == second
    assert first.endswith("}\n")
    assert first == json.dumps(json.loads(first), indent=2, sort_keys=True) + "\n"


# --- SARIF ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator() -> Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    # The official SARIF 2.1.0 schema declares draft-04; validate with what it declares.
    validator_class = validator_for(schema)
    assert validator_class is Draft4Validator
    validator_class.check_schema(schema)
    return validator_class(schema)


def sarif_document(result: RunResult) -> tuple[str, dict[str, Any]]:
    text = render(sarif.render, result)
    return text, json.loads(text)


def test_sarif_validates_against_official_schema(
    full_result: RunResult, sarif_validator: Draft4Validator
) -> None:
    _, document = sarif_document(full_result)
    errors = [error.message for error in sarif_validator.iter_errors(document)]
    assert errors == []
    assert document["version"] == "2.1.0"
    assert document["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"


def test_sarif_empty_run_validates(project: Path, sarif_validator: Draft4Validator) -> None:
    _, document = sarif_document(make_result(project, ()))
    assert list(sarif_validator.iter_errors(document)) == []
    assert document["runs"][0]["results"] == []


def iter_artifact_locations(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if "artifactLocation" in node:
            yield node["artifactLocation"]
        for value in node.values():
            yield from iter_artifact_locations(value)
    elif isinstance(node, list):
        for value in node:
            yield from iter_artifact_locations(value)


def test_sarif_has_no_absolute_paths(full_result: RunResult) -> None:
    text, document = sarif_document(full_result)
    assert str(full_result.root) not in text
    assert "file:" not in text
    run = document["runs"][0]
    assert run["originalUriBaseIds"] == {
        "%SRCROOT%": {"description": {"text": sarif.SRCROOT_DESCRIPTION}}
    }
    locations = list(iter_artifact_locations(run))
    assert len(locations) == 6
    assert all(location["uriBaseId"] == "%SRCROOT%" for location in locations)
    assert all(not location["uri"].startswith("/") for location in locations)


def test_sarif_names_files_from_the_repository_top_in_a_github_workflow(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Code scanning places a file from the repository's top: with the project's configuration in a
    # subfolder (a monorepo), names from the project root pointed at no file.
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project.parent))
    outside = replace(loop_finding(), location=Location("(parent)/other/x.py", 1, 1, 1, 2))
    _, document = sarif_document(make_result(project, (loop_finding(), outside)))
    run = document["runs"][0]
    assert [artifact["location"]["uri"] for artifact in run["artifacts"]] == [
        "%28parent%29/other/x.py",
        f"{project.name}/pkg/consumer.py",
    ]
    assert {location["uri"] for location in iter_artifact_locations(run)} == {
        "%28parent%29/other/x.py",
        f"{project.name}/pkg/consumer.py",
    }


def test_sarif_rules_and_levels(full_result: RunResult) -> None:
    _, document = sarif_document(full_result)
    run = document["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "epochlint"
    assert driver["informationUri"] == "https://pypi.org/project/epochlint/"
    assert [rule["id"] for rule in driver["rules"]] == ["EPL001", "EPL002", "EPL900"]
    first = driver["rules"][0]
    assert first["help"]["markdown"] == RULES[0].documentation
    assert first["shortDescription"]["text"] == RULES[0].summary
    levels = [rule["defaultConfiguration"]["level"] for rule in driver["rules"]]
    assert levels == ["error", "error", "warning"]
    results = run["results"]
    assert [(r["ruleId"], r["ruleIndex"], r["level"]) for r in results] == [
        ("EPL900", 2, "warning"), ("EPL002", 1, "error"), ("EPL001", 0, "error"),
    ]
    assert run["columnKind"] == "unicodeCodePoints"
    assert [a["location"]["uri"] for a in run["artifacts"]] == [
        "broken.py", "gone/vanished.py", "pkg/consumer.py",
    ]


def test_sarif_result_location_related_and_code_flow(full_result: RunResult) -> None:
    _, document = sarif_document(full_result)
    result = document["runs"][0]["results"][2]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "pkg/consumer.py", "uriBaseId": "%SRCROOT%",
                                            "index": 2}
    assert physical["region"] == {"startLine": 10, "startColumn": 9, "endLine": 10,
                                  "endColumn": 26}
    assert result["partialFingerprints"] == {"epochlint/v1": "fp-loop-1"}
    related = result["relatedLocations"]
    assert [(r["id"], r["message"]["text"]) for r in related] == [
        (1, "guarded write of `Consumer._epoch`"),
    ]
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["message"]["text"] for step in steps] == [
        "calls is_stale", "reads `Consumer._epoch`",
    ]
    assert steps[1]["location"]["physicalLocation"]["region"]["startLine"] == 15


def test_sarif_no_code_flow_without_chain(full_result: RunResult) -> None:
    _, document = sarif_document(full_result)
    assert "codeFlows" not in document["runs"][0]["results"][0]


def test_sarif_uri_is_percent_encoded(project: Path, sarif_validator: Draft4Validator) -> None:
    finding = Finding("EPL001", "n", "m", Location("my dir/a:b.py", 1, 1, 1, 2))
    _, document = sarif_document(make_result(project, (finding,)))
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "my%20dir/a%3Ab.py"
    assert list(sarif_validator.iter_errors(document)) == []


@pytest.mark.skipif(sys.platform == "win32", reason="names a file by an undecodable byte")
def test_sarif_uri_of_a_name_no_encoding_decodes_holds_its_own_byte(project: Path) -> None:
    # The report names the byte 0xE8 as `\\xe8`; code scanning opens the URI's bytes.
    finding = Finding("EPL001", "n", "m", Location(escaped_name(os.fsdecode(b"pkg/bad_\xe8.py")), 1, 1, 1, 2))
    _, document = sarif_document(make_result(project, (finding,)))
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pkg/bad_%E8.py"


def test_sarif_is_deterministic(full_result: RunResult) -> None:
    assert render(sarif.render, full_result) == render(sarif.render, full_result)


# --- GitHub --------------------------------------------------------------------------------


def test_github_error_line_with_chain(full_result: RunResult) -> None:
    lines = render(github.render, full_result).splitlines()
    assert lines[2] == (
        "::error file=pkg/consumer.py,line=10,col=9,endLine=10,endColumn=26,"
        "title=EPL001 unlocked-epoch-read-in-batch-loop::batch loop reads `Consumer._epoch` "
        "without holding `Consumer._lock` (via Consumer.receive -> Consumer.is_stale)"
    )


def test_one_line_formats_name_a_chain_once(project: Path) -> None:
    # The rules that follow calls write ` (via a -> b)` in the message already: not said twice.
    named = replace(loop_finding(), message="batch loop reads `Consumer._epoch` (via Consumer.is_stale) unlocked")
    result = make_result(project, (named,))
    annotation = render(github.render, result).rstrip("\n")
    assert annotation.endswith("::batch loop reads `Consumer._epoch` (via Consumer.is_stale) unlocked")
    description = json.loads(render(gitlab.render, result))[0]["description"]
    assert description == "EPL001 batch loop reads `Consumer._epoch` (via Consumer.is_stale) unlocked"


def test_github_warning_for_unparseable_file(full_result: RunResult) -> None:
    lines = render(github.render, full_result).splitlines()
    assert lines[0] == (
        "::warning file=broken.py,line=1,col=1,endLine=1,endColumn=2,"
        "title=EPL900 unparseable-file::syntax error: invalid syntax"
    )
    assert len(lines) == 3


def test_github_escapes_message_and_properties(project: Path) -> None:
    finding = Finding(
        code="EPL002",
        name="epoch-snapshot-outside-lock",
        message="50% stale,\r\nsee: below",
        location=Location("odd,dir/a:b%.py", 4, 2, 4, 7),
    )
    output = render(github.render, make_result(project, (finding,)))
    assert output == (
        "::error file=odd%2Cdir/a%3Ab%25.py,line=4,col=2,endLine=4,endColumn=7,"
        "title=EPL002 epoch-snapshot-outside-lock::50%25 stale,%0D%0Asee: below\n"
    )


@pytest.mark.parametrize("through_a_link", [False, True])
def test_github_paths_are_from_the_repository_top_in_a_workflow(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, through_a_link: bool
) -> None:
    # The project's configuration in a subfolder of the repository (a monorepo): GitHub places an
    # annotation by the path from the repository's top, which a workflow names (through a symbolic
    # link, maybe: the project's root is the real folder).
    workspace = project.parent
    if through_a_link:
        workspace = tmp_path_factory.mktemp("link") / "workspace"
        workspace.symlink_to(project.parent, target_is_directory=True)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    outside = replace(loop_finding(), location=Location("(parent)/other/x.py", 1, 1, 1, 2))
    lines = render(github.render, make_result(project, (loop_finding(), outside))).splitlines()
    assert [line.split(",", 1)[0] for line in lines] == [
        f"::error file={project.name}/pkg/consumer.py",
        "::error file=(parent)/other/x.py",
    ]


# --- GitLab Code Quality ---------------------------------------------------------------------

# What GitLab's Code Quality widget reads of each issue (its documented report format), as a schema.
GITLAB_ISSUE = {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
        "description": {"type": "string", "minLength": 1},
        "check_name": {"type": "string", "minLength": 1},
        "fingerprint": {"type": "string", "minLength": 1},
        "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
        "location": {
            "type": "object",
            "required": ["path", "positions"],
            "properties": {
                "path": {"type": "string", "pattern": "^[^/]"},
                "positions": {
                    "type": "object",
                    "required": ["begin"],
                    "properties": {
                        "begin": {
                            "type": "object",
                            "required": ["line"],
                            "properties": {"line": {"type": "integer", "minimum": 1}},
                        }
                    },
                },
            },
        },
    },
}


def gitlab_issues(result: RunResult) -> list[dict[str, Any]]:
    issues = json.loads(render(gitlab.render, result))
    Draft4Validator({"type": "array", "items": GITLAB_ISSUE}).validate(issues)
    return issues  # type: ignore[no-any-return]


def test_gitlab_issue_per_finding_with_its_place_and_severity(
    full_result: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    issues = gitlab_issues(full_result)
    assert [(i["check_name"], i["severity"], i["location"]["path"]) for i in issues] == [
        ("EPL900", "minor", "broken.py"),
        ("EPL002", "major", "gone/vanished.py"),
        ("EPL001", "major", "pkg/consumer.py"),
    ]
    assert issues[2]["location"]["positions"] == {"begin": {"line": 10, "column": 9}, "end": {"line": 10, "column": 26}}
    assert issues[2]["description"].endswith("(via Consumer.receive -> Consumer.is_stale)")
    assert issues[2]["fingerprint"] == "fp-loop-1"


def test_gitlab_fingerprints_are_unique_in_a_report(project: Path) -> None:
    # GitLab shows only the first issue of a fingerprint: one mistake found twice must show twice.
    twice = (loop_finding(), replace(loop_finding(), location=loc(12, 9, 26)))
    fingerprints = [issue["fingerprint"] for issue in gitlab_issues(make_result(project, twice))]
    assert fingerprints[0] == "fp-loop-1" and len(set(fingerprints)) == 2


def test_gitlab_paths_are_from_the_repository_top_in_gitlab_ci(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The project's configuration in a subfolder of the repository (a monorepo): GitLab maps the
    # paths from the repository's top, which its CI names.
    monkeypatch.setenv("CI_PROJECT_DIR", str(project.parent))
    outside = replace(loop_finding(), location=Location("(parent)/other/x.py", 1, 1, 1, 2))
    paths = [issue["location"]["path"] for issue in gitlab_issues(make_result(project, (loop_finding(), outside)))]
    assert paths == [f"{project.name}/pkg/consumer.py", "(parent)/other/x.py"]


# --- registry ------------------------------------------------------------------------------


def test_formats_registry_renders_every_format(full_result: RunResult) -> None:
    assert sorted(FORMATS) == ["concise", "console", "github", "gitlab", "json", "sarif"]
    assert FORMATS["sarif"] is sarif.render
    for renderer in FORMATS.values():
        assert "pkg/consumer.py" in render(renderer, full_result)
