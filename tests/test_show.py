"""`check --show-settings` and `check --show-files`: what a run would use and analyse, for a user
asking why a file is (not) checked or which settings are in force."""

from __future__ import annotations

import subprocess
import tomllib
from dataclasses import fields
from pathlib import Path

from epochlint.config import Config, load_config
from epochlint.rules import rule_codes
from tests.test_cli import RACY_CONSUMER, epochlint, loaded_by_a_check

SETTINGS = """\
[tool.epochlint]
select = ["EPL0"]
ignore = ["EPL005"]
per-file-ignores = { "tests/*" = ["EPL001", "EPL002"] }
exclude = ["generated/"]
lock-pattern = "lock|mutex"
epoch-pattern = 'epoch|term\\w*'
guards = { "pkg.Consumer._epoch" = "_lock" }
lock-decorators = { "locked" = "_mutex" }
max-file-size = 2048
respect-gitignore = false
"""


def test_show_settings_prints_the_settings_in_force_as_a_file_that_gives_them_again(tmp_path: Path) -> None:
    project, copy = tmp_path / "project", tmp_path / "copy"
    project.mkdir()
    copy.mkdir()
    (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    shown = epochlint(project, "check", "--show-settings", "--select", "EPL001")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("# root: .\n# configuration file: pyproject.toml\n")
    assert 'select = ["EPL001"]' in shown.stdout  # the command line's, in force
    (copy / "epochlint.toml").write_text(shown.stdout, encoding="utf-8")
    again = load_config([copy], None, rule_codes())
    expected = load_config([project], None, rule_codes(), {"select": ("EPL001",)})
    assert _settings(again) == _settings(expected)
    assert tomllib.loads(shown.stdout)["guards"] == {"pkg.Consumer._epoch": "_lock"}


def _settings(config: Config) -> dict[str, object]:
    return {
        setting.name: getattr(config, setting.name)
        for setting in fields(config)
        if setting.name not in ("root", "config_path")
    }


def test_show_files_lists_what_a_check_analyses_and_nothing_it_leaves_out(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    files = {
        "pyproject.toml": '[tool.epochlint]\nexclude = ["generated/"]\n',
        ".gitignore": "scratch_*.py\n",
        "pkg/__init__.py": "",
        "pkg/consumer.py": RACY_CONSUMER,
        "generated/api.py": "",
        "scratch_1.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "pkg" / "gone.py").symlink_to(tmp_path / "missing.py")
    shown = epochlint(tmp_path, "check", "--show-files")
    assert shown.returncode == 0, shown.stderr  # the racy file is listed, not analysed
    assert shown.stdout.splitlines() == [
        "pkg/__init__.py",
        "pkg/consumer.py",
        "pkg/gone.py  (EPL900: broken symbolic link)",
    ]
    named = epochlint(tmp_path, "check", "--show-files", "--whole-project", "--force-exclude", "generated/api.py")
    assert named.stdout == shown.stdout  # the project, less the excluded file named


def test_clean_deletes_the_cache_a_check_made_and_nothing_epochlint_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "consumer.py").write_text(RACY_CONSUMER, encoding="utf-8")
    assert epochlint(tmp_path, "check", "-q", ".").returncode == 1
    assert (tmp_path / ".epochlint_cache" / "CACHEDIR.TAG").is_file()
    cleaned = epochlint(tmp_path / "pkg", "clean", "consumer.py")  # any path of the project
    assert cleaned.returncode == 0, cleaned.stderr
    assert cleaned.stdout == f"Deleted {tmp_path / '.epochlint_cache'}, the cache of the project in {tmp_path}.\n"
    assert not (tmp_path / ".epochlint_cache").exists()
    assert epochlint(tmp_path, "clean").stdout == "No cache to delete for the project in the current folder.\n"
    # A folder of that name that epochlint did not make (no cache tag of its own) is left alone.
    (tmp_path / ".epochlint_cache").mkdir()
    (tmp_path / ".epochlint_cache" / "notes.txt").write_text("mine", encoding="utf-8")
    assert epochlint(tmp_path, "clean").returncode == 0
    assert (tmp_path / ".epochlint_cache" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_flags_that_only_choose_files_share_the_cache_of_a_plain_check(tmp_path: Path) -> None:
    # The pre-commit hook passes --force-exclude; a plain check and the editor do not: had the
    # flag changed the cache's keys, each would parse the whole project again for the other.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n", encoding="utf-8")
    (tmp_path / "consumer.py").write_text(RACY_CONSUMER, encoding="utf-8")
    assert loaded_by_a_check(tmp_path, ("networkx",)) == ["networkx"], "analysed"
    flags = ("--force-exclude", "--extend-exclude", "generated/", "--no-respect-gitignore")
    assert loaded_by_a_check(tmp_path, ("libcst", "networkx"), *flags) == []


def test_what_the_show_options_print_goes_to_the_output_file_asked_for(tmp_path: Path) -> None:
    # --output-file was ignored: the listing went to stdout and no file was made.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n", encoding="utf-8")
    (tmp_path / "consumer.py").write_text(RACY_CONSUMER, encoding="utf-8")
    listed = epochlint(tmp_path, "check", "--show-files", "--output-file", "files.txt")
    assert (listed.returncode, listed.stdout) == (0, "")
    assert (tmp_path / "files.txt").read_text(encoding="utf-8") == "consumer.py\n"
    shown = epochlint(tmp_path, "check", "--show-settings", "--output-file", "settings.toml")
    assert (shown.returncode, shown.stdout) == (0, "")
    assert tomllib.loads((tmp_path / "settings.toml").read_text(encoding="utf-8"))["select"] == ["ALL"]


def test_a_repeated_selection_or_exclusion_option_adds_to_the_list(tmp_path: Path) -> None:
    # Only the last of the repeated options counted: `--extend-exclude a/ --extend-exclude b/` left
    # out b/ alone.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n", encoding="utf-8")
    for folder in ("kept", "orders", "pulsar", "vendor"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "consumer.py").write_text(RACY_CONSUMER, encoding="utf-8")
    excluding = ("--extend-exclude", "orders/", "--extend-exclude", "pulsar/,vendor/")
    assert epochlint(tmp_path, "check", "--show-files", *excluding).stdout == "kept/consumer.py\n"
    selecting = ("--select", "EPL001", "--select", "EPL002,EPL003", "--extend-ignore", "EPL003")
    settings = tomllib.loads(epochlint(tmp_path, "check", "--show-settings", *selecting).stdout)
    assert (settings["select"], settings["ignore"]) == (["EPL001", "EPL002", "EPL003"], ["EPL003"])


def test_a_report_or_baseline_named_by_a_link_is_written_to_its_target(tmp_path: Path) -> None:
    # The link was replaced by a regular file, and its target kept the old report.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n", encoding="utf-8")
    (tmp_path / "consumer.py").write_text(RACY_CONSUMER, encoding="utf-8")
    (tmp_path / "kept").mkdir()
    for name in ("report.json", "baseline.json"):
        (tmp_path / "kept" / name).write_text("old", encoding="utf-8")
        (tmp_path / name).symlink_to(tmp_path / "kept" / name)
    epochlint(tmp_path, "check", "--output-format", "json", "--output-file", "report.json")
    epochlint(tmp_path, "check", "--write-baseline", "baseline.json")
    for name in ("report.json", "baseline.json"):
        assert (tmp_path / name).is_symlink() and (tmp_path / "kept" / name).read_text(encoding="utf-8") != "old"
