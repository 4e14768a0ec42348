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


def section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_try_it_gives_exactly_two_fresh_machine_commands_and_ci_runs_the_second() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", section("Try it"), re.DOTALL)
    assert len(blocks) == 2 and all(block.count("\n") == 1 for block in blocks), blocks
    check, tests = (block.strip() for block in blocks)
    assert check.startswith("python3 -m venv .venv && ") and check.endswith("epochlint check fixtures")
    assert tests.startswith("python3 -m venv .venv && ") and "pytest" in tests
    ci_run = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci_run.splitlines()


def test_the_fast_test_subset_is_documented_beside_the_full_command() -> None:
    text = " ".join(section("Try it").split())
    assert '-m "not slow"' in text
    assert "installs PySpark" in text and re.search(r"takes about \w+ minutes", text)


def test_install_shows_only_installs_that_work_today() -> None:
    assert "OWNER" not in README
    published = [line for line in README.splitlines() if re.search(r"pip install '?epochlint\b", line)]
    install = " ".join(section("Install").split())
    assert "is not published on PyPI yet" in install
    assert all(line in section("Install") for line in published), published
    assert "Once published on PyPI, the same will be `pip install epochlint`" in install
    assert "pip install 'git+<repository URL>@<commit or tag>'" in install
    workflow = yaml_block("CI")
    [job] = workflow["jobs"].values()
    installs = [step["run"] for step in job["steps"] if step.get("run", "").startswith("pip install")]
    assert installs == ['pip install "git+${{ env.EPOCHLINT_URL }}@${{ env.EPOCHLINT_REV }}"']
    assert set(job["env"]) == {"EPOCHLINT_URL", "EPOCHLINT_REV"}


def test_readme_is_what_a_user_reads_first() -> None:
    headings = re.findall(r"^## (.+)$", README, re.MULTILINE)
    first_read = ["Try it", "Install", "Usage", "pre-commit", "CI", "Configuration", "Rules"]
    assert [h for h in headings if h in first_read] == first_read
    assert len(README.splitlines()) < 400
    for page in ("docs/speed.md", "docs/audit.md", "docs/design.md", "docs/json-output.md"):
        assert f"]({page})" in README and (REPO / page).is_file(), page
