"""The README's GitHub Actions workflow and pre-commit lines are complete and use real options."""

from __future__ import annotations

import re
import shlex
from typing import Any

import yaml

from epochlint.cli import build_parser
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def yaml_block(section: str) -> Any:
    """The first YAML code block of the README section titled `section`."""
    body = README.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```yaml\n(.*?)```", body, re.DOTALL)
    assert match, f"no YAML block under '## {section}'"
    return yaml.safe_load(match.group(1))


def epochlint_commands(steps: list[dict[str, Any]]) -> list[list[str]]:
    return [shlex.split(step["run"])[1:] for step in steps if step.get("run", "").startswith("epochlint ")]


def test_ci_workflow_annotates_and_uploads_sarif() -> None:
    workflow = yaml_block("CI")
    [job] = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    steps = job["steps"]
    commands = epochlint_commands(steps)
    parsed = [build_parser().parse_args(command) for command in commands]
    assert {args.output_format for args in parsed} == {"github", "sarif"}
    [sarif] = [args for args in parsed if args.output_format == "sarif"]
    [upload] = [step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert upload["with"]["sarif_file"] == str(sarif.output_file)
    assert steps.index(upload) > next(i for i, step in enumerate(steps) if "sarif" in step.get("run", ""))
    assert any(step.get("uses", "").startswith("actions/checkout@") for step in steps)


def test_pre_commit_lines_name_the_hook_this_repository_defines() -> None:
    [repo] = yaml_block("pre-commit")["repos"]
    assert set(repo) == {"repo", "rev", "hooks"} and repo["hooks"] == [{"id": "epochlint"}]
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [hook] = [h for h in hooks if h["id"] == "epochlint"]
    entry = shlex.split(hook["entry"])
    assert entry[0] == "epochlint" and build_parser().parse_args(entry[1:]).whole_project
    assert hook["language"] == "python" and hook["require_serial"] is True
