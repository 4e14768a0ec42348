"""Configuration loading: what a user writes in [tool.epochlint] and what they get back."""

from __future__ import annotations

import pickle
import re
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from epochlint.config import Config, ConfigError, load_config

CODES = frozenset({f"EPL00{i}" for i in range(1, 10)} | {"EPL900"})


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_in(tmp_path: Path, pyproject: str, **kwargs: object) -> Config:
    write(tmp_path / "pyproject.toml", pyproject)
    return load_config([tmp_path], None, CODES, **kwargs)  # type: ignore[arg-type]


def error_of(tmp_path: Path, pyproject: str, **kwargs: object) -> str:
    with pytest.raises(ConfigError) as caught:
        load_in(tmp_path, pyproject, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


# --- defaults and discovery of the configuration file ----------------------------------------------


def test_without_any_pyproject_the_spec_defaults_apply_and_the_root_is_the_current_directory(tmp_path: Path) -> None:
    config = load_config([], None, CODES)
    assert config.root == tmp_path
    assert config.config_path is None
    assert config.select == ("ALL",) and config.ignore == () and config.exclude == ()
    assert config.epoch_pattern == "epoch"
    assert config.lock_pattern == "lock|locks|rlock|mutex|cond|condition|cv"
    assert config.lock_decorators == (("synchronized", "_lock"),)
    assert config.rewind_methods == ("seek", "redeliver", "rewind", "reset_cursor")
    assert config.commit_sinks == ("send_offsets_to_transaction", "store_offsets")
    assert config.historical_epoch_sources == ("offset_epoch", "last_epoch", "last_fetched_epoch")
    assert config.current_epoch_sources == ("current_leader", "current_leader_epoch", "leader_epoch_for")
    assert config.guards == () and config.iteration_helpers == ()
    assert config.max_file_size == 1_000_000


def test_pyproject_is_found_by_walking_up_from_the_first_path(tmp_path: Path) -> None:
    pyproject = write(tmp_path / "pyproject.toml", '[tool.epochlint]\nselect = ["EPL001"]\n')
    source = write(tmp_path / "src" / "pkg" / "consumer.py", "")
    config = load_config([source, tmp_path / "elsewhere"], None, CODES)
    assert config.root == tmp_path
    assert config.config_path == pyproject
    assert config.select == ("EPL001",)


def test_nearest_pyproject_marks_the_root_even_without_an_epochlint_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.epochlint]\nselect = ["EPL001"]\n')
    write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "sub"\n')
    config = load_config([tmp_path / "sub" / "src"], None, CODES)
    assert config.root == tmp_path / "sub"
    assert config.config_path is None
    assert config.select == ("ALL",)


@pytest.mark.parametrize("name", [".epochlint.toml", "epochlint.toml"])
def test_epochlints_own_file_is_found_and_wins_over_a_pyproject_beside_it(tmp_path: Path, name: str) -> None:
    # A project without a pyproject.toml (a setup.py one) is configured without --config, which
    # the editor server cannot pass.
    write(tmp_path / "pyproject.toml", '[tool.epochlint]\nselect = ["EPL002"]\n')
    write(tmp_path / "sub" / "pyproject.toml", '[tool.epochlint]\nselect = ["EPL002"]\n')
    own = write(tmp_path / "sub" / name, 'select = ["EPL001"]\n')
    config = load_config([tmp_path / "sub" / "src"], None, CODES)
    assert (config.root, config.config_path, config.select) == (tmp_path / "sub", own, ("EPL001",))
    with pytest.raises(ConfigError, match=rf"^sub/{re.escape(name)}: unknown key 'selec'"):
        write(own, 'selec = ["EPL001"]\n')
        load_config([tmp_path / "sub"], None, CODES)


def test_a_nearer_pyproject_wins_over_epochlints_own_file_further_up(tmp_path: Path) -> None:
    write(tmp_path / "epochlint.toml", 'select = ["EPL001"]\n')
    write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "sub"\n')
    config = load_config([tmp_path / "sub"], None, CODES)
    assert (config.root, config.config_path, config.select) == (tmp_path / "sub", None, ("ALL",))


def test_explicit_standalone_config_file_holds_settings_at_top_level(tmp_path: Path) -> None:
    config_file = write(tmp_path / "conf" / "epochlint.toml", 'ignore = ["EPL005"]\nepoch-pattern = "epoch|term"\n')
    config = load_config([tmp_path], config_file, CODES)
    assert config.ignore == ("EPL005",)
    assert config.epoch_pattern == "epoch|term"
    assert config.config_path == config_file
    assert config.root == tmp_path / "conf"


def test_explicit_pyproject_without_the_table_is_an_error_pointing_at_a_misspelling(tmp_path: Path) -> None:
    config_file = write(tmp_path / "pyproject.toml", '[tool.epoch-lint]\nselect = ["EPL001"]\n')
    with pytest.raises(
        ConfigError, match=r"^pyproject.toml: no \[tool.epochlint\] table \(found \[tool.epoch-lint\]\)$"
    ):
        load_config([], config_file, CODES)


def test_missing_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^nope.toml: config file not found$"):
        load_config([], tmp_path / "nope.toml", CODES)


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("[tool.epochlint]\nselect = [EPL001]\n", "line 2, column 11"),
        ('[tool.epochlint]\nselect = ["EPL001"\n', "line 3, column 1"),
    ],
)
def test_invalid_toml_is_one_line_with_its_position(tmp_path: Path, text: str, position: str) -> None:
    message = error_of(tmp_path, text)
    assert message.startswith("pyproject.toml: invalid TOML: ")
    assert position in message, message


def test_config_that_is_not_utf8_is_invalid_toml_with_its_position(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b'[tool.epochlint]\nepoch-pattern = "\xe9poque"\n')
    with pytest.raises(ConfigError, match=r"^pyproject.toml: invalid TOML: not UTF-8 \(at line 2, column 18\)$"):
        load_config([], None, CODES)


def test_unreadable_config_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(ConfigError, match=r"^dir.toml: cannot read config file: "):
        load_config([], tmp_path / "dir.toml", CODES)


# --- every key -------------------------------------------------------------------------------------

FULL = """
[tool.epochlint]
select = ["EPL0", "EPL900"]
ignore = ["EPL009"]
exclude = ["generated/", "*_pb2.py"]
epoch-pattern = "epoch|term|generation|fencing_token"
lock-pattern = "lock|mutex|guard"
iteration-helpers = ["toolz.map", "for_each"]
rewind-methods = ["seek", "replay"]
commit-sinks = ["store_offsets", "ack_offsets"]
historical-epoch-sources = ["offset_epoch", "record_epoch"]
current-epoch-sources = ["current_leader", "fresh_epoch"]
max-file-size = 2048

[tool.epochlint.per-file-ignores]
"tests/*" = ["EPL001", "EPL002"]
"legacy/**/*.py" = ["ALL"]

[tool.epochlint.lock-decorators]
synchronized = "_lock"
"utils.with_state_lock" = "_state_lock"

[tool.epochlint.guards]
"consumer.Consumer._epoch" = "_lock"
"Fetcher._leader_epochs" = "_fetch_lock"
"""


def test_every_key_is_accepted_with_a_right_value(tmp_path: Path) -> None:
    config = load_in(tmp_path, FULL)
    assert config.select == ("EPL0", "EPL900")
    assert config.ignore == ("EPL009",)
    assert config.per_file_ignores == (("tests/*", ("EPL001", "EPL002")), ("legacy/**/*.py", ("ALL",)))
    assert config.exclude == ("generated/", "*_pb2.py")
    assert config.epoch_pattern == "epoch|term|generation|fencing_token"
    assert config.lock_pattern == "lock|mutex|guard"
    assert config.lock_decorators == (("synchronized", "_lock"), ("utils.with_state_lock", "_state_lock"))
    assert config.iteration_helpers == ("toolz.map", "for_each")
    assert config.rewind_methods == ("seek", "replay")
    assert config.commit_sinks == ("store_offsets", "ack_offsets")
    assert config.historical_epoch_sources == ("offset_epoch", "record_epoch")
    assert config.current_epoch_sources == ("current_leader", "fresh_epoch")
    assert config.guards == (("consumer.Consumer._epoch", "_lock"), ("Fetcher._leader_epochs", "_fetch_lock"))
    assert config.max_file_size == 2048


# --- mistakes: one line naming the key -------------------------------------------------------------


def test_unknown_key_suggests_the_right_one(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[tool.epochlint]\nselectt = ["EPL001"]\n')
    assert message == "pyproject.toml: [tool.epochlint] unknown key 'selectt' (did you mean 'select'?)"


def test_underscore_spelling_suggests_the_dashed_key(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[tool.epochlint]\nepoch_pattern = "term"\n')
    assert message == "pyproject.toml: [tool.epochlint] unknown key 'epoch_pattern' (did you mean 'epoch-pattern'?)"


def test_bad_regular_expression_names_the_key_and_the_regex_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[tool.epochlint]\nepoch-pattern = "("\n')
    assert message == (
        "pyproject.toml: [tool.epochlint] epoch-pattern: invalid regular expression '(' "
        "(missing ), unterminated subpattern at position 0)"
    )


def test_wrong_type_names_the_key_and_the_value(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[tool.epochlint]\nselect = 3\n")
    assert message == "pyproject.toml: [tool.epochlint] select: expected a list of rule codes, got 3"


def test_unknown_rule_code_names_the_key(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[tool.epochlint]\nselect = ["EPL001", "EPL999"]\n')
    assert message == "pyproject.toml: [tool.epochlint] select: unknown rule code 'EPL999'"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('select = "EPL001"', 'select: expected a list of rule codes, got a string \'EPL001\' (write ["EPL001"])'),
        ("ignore = [1]", "ignore: expected a list of rule codes, but item 1 is 1"),
        ('ignore = ["epl001"]', "ignore: unknown rule code 'epl001' (did you mean 'EPL001'?)"),
        ('lock-pattern = "[a-"', "lock-pattern: invalid regular expression '[a-'"),
        ('epoch-pattern = "epoch|"', "epoch-pattern: regular expression 'epoch|' matches the empty string"),
        ("epoch-pattern = true", "epoch-pattern: expected a regular expression string, got true"),
        ('exclude = "build"', "exclude: expected a list of file patterns"),
        ('exclude = ["a\\\\"]', "exclude: invalid file pattern"),
        ('exclude = ["#generated"]', "exclude: pattern '#generated' is a comment in gitignore syntax"),
        ('iteration-helpers = ["each item"]', "iteration-helpers: expected a list of function names, but 'each item'"),
        ('rewind-methods = "seek"', "rewind-methods: expected a list of method name prefixes"),
        ("commit-sinks = [true]", "commit-sinks: expected a list of callee names, but item 1 is true"),
        ("historical-epoch-sources = {}", "historical-epoch-sources: expected a list of attribute names, got a table"),
        ("current-epoch-sources = 1.5", "current-epoch-sources: expected a list of attribute or function names"),
        ("max-file-size = true", "max-file-size: expected a whole number of bytes, got true"),
        ("max-file-size = 0", "max-file-size: expected a positive number of bytes, got 0"),
        ('per-file-ignores = ["tests/*"]', "per-file-ignores: expected a table of file patterns"),
        ('per-file-ignores = {"tests/*" = ["EPL999"]}', "per-file-ignores.\"tests/*\": unknown rule code 'EPL999'"),
        ('per-file-ignores = {"tests/*" = "EPL001"}', 'per-file-ignores."tests/*": expected a list of rule codes'),
        ("lock-decorators = [\"synchronized\"]", "lock-decorators: expected a table of decorator names"),
        ("lock-decorators = {synchronized = 1}", "lock-decorators.synchronized: expected an attribute name"),
        (
            'lock-decorators = {synchronized = "self._lock"}',
            "lock-decorators.synchronized: expected an attribute name without 'self.', such as '_lock'",
        ),
        ('guards = {"_epoch" = "_lock"}', "guards._epoch: expected a field as 'Class.field' or 'module.Class.field'"),
        ('guards = {"Consumer._epoch" = ["_lock"]}', 'guards."Consumer._epoch": expected an attribute name'),
        ("guards = 3", "guards: expected a table of epoch fields"),
    ],
)
def test_each_mistake_is_one_line_naming_the_key(tmp_path: Path, body: str, expected: str) -> None:
    message = error_of(tmp_path, f"[tool.epochlint]\n{body}\n")
    assert message.startswith("pyproject.toml: [tool.epochlint] " + expected), message


def test_settings_table_that_is_not_a_table_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[tool]\nepochlint = "on"\n')
    assert message == "pyproject.toml: [tool.epochlint] expected a table, got 'on'"


def test_standalone_file_with_a_tool_table_explains_the_layout(tmp_path: Path) -> None:
    config_file = write(tmp_path / "epochlint.toml", '[tool.epochlint]\nselect = ["EPL001"]\n')
    with pytest.raises(ConfigError, match=r"^epochlint.toml: unknown key 'tool' \(in a standalone config file"):
        load_config([], config_file, CODES)


def test_standalone_file_mistakes_name_the_key(tmp_path: Path) -> None:
    config_file = write(tmp_path / "epochlint.toml", "select = [3]\n")
    with pytest.raises(ConfigError, match=r"^epochlint.toml: select: expected a list of rule codes, but item 1 is 3$"):
        load_config([], config_file, CODES)


# --- command-line overrides ------------------------------------------------------------------------


def test_command_line_select_and_ignore_replace_the_file_values(tmp_path: Path) -> None:
    config = load_in(
        tmp_path,
        '[tool.epochlint]\nselect = ["EPL001"]\nignore = ["EPL002"]\nepoch-pattern = "term"\n',
        overrides={"select": ["EPL0", "EPL900"], "ignore": ["EPL009"]},
    )
    assert config.select == ("EPL0", "EPL900")
    assert config.ignore == ("EPL009",)
    assert config.epoch_pattern == "term"  # untouched by the command line


def test_command_line_extend_flags_add_to_the_file_values_and_exclude_replaces_them(tmp_path: Path) -> None:
    config = load_in(
        tmp_path,
        '[tool.epochlint]\nselect = ["EPL001"]\nexclude = ["generated/"]\n',
        overrides={"extend_select": ["EPL009"], "extend_ignore": ["EPL001"], "extend_exclude": ["vendor/"]},
    )
    assert (config.select, config.ignore, config.exclude) == (
        ("EPL001", "EPL009"),
        ("EPL001",),
        ("generated/", "vendor/"),
    )
    assert config.is_code_enabled("EPL009", "x.py") and not config.is_code_enabled("EPL001", "x.py")
    replaced = load_in(tmp_path, '[tool.epochlint]\nexclude = ["generated/"]\n', overrides={"exclude": ["build2/"]})
    assert replaced.exclude == ("build2/",)
    # On the defaults where the file sets nothing; adding nothing changes nothing (an empty
    # `--select` is refused: it would check nothing); validated naming the flag.
    assert load_config([], None, CODES, overrides={"extend_ignore": ["EPL005"]}).ignore == ("EPL005",)
    assert load_config([], None, CODES, overrides={"extend_select": []}).select == ("ALL",)
    with pytest.raises(ConfigError, match=r"^--extend-exclude: pattern '\*a\*a\*a\*a' has 4 '\*' wildcards"):
        load_config([], None, CODES, overrides={"extend_exclude": ["*a*a*a*a"]})


def test_absent_command_line_values_keep_the_file_values(tmp_path: Path) -> None:
    config = load_in(tmp_path, '[tool.epochlint]\nselect = ["EPL001"]\n', overrides={"select": None})
    assert config.select == ("EPL001",)


def test_command_line_codes_are_validated_naming_the_flag(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--select: unknown rule code 'EPL99'$"):
        load_config([], None, CODES, overrides={"select": ["EPL001", "EPL99"]})
    with pytest.raises(ConfigError, match=r"^--ignore: expected a list of rule codes, but item 1 is 7$"):
        load_config([], None, CODES, overrides={"ignore": [7]})


def test_select_accepts_all_and_prefixes_of_known_codes(tmp_path: Path) -> None:
    config = load_config([], None, CODES, overrides={"select": ["ALL", "EPL", "EPL00", "EPL9"]})
    assert config.select == ("ALL", "EPL", "EPL00", "EPL9")


# --- rule selection --------------------------------------------------------------------------------


def test_select_and_ignore_more_specific_selector_wins() -> None:
    config = Config(select=("EPL0",), ignore=("EPL002",))
    assert config.is_code_enabled("EPL001", "a.py")
    assert not config.is_code_enabled("EPL002", "a.py")
    assert not config.is_code_enabled("EPL901", "a.py")  # not selected
    assert config.is_code_enabled("EPL900", "a.py")  # a file not analysed is reported whatever is selected
    assert not Config(select=("EPL0",), ignore=("EPL9",)).is_code_enabled("EPL900", "a.py")
    narrow = Config(select=("EPL002",), ignore=("EPL0",))
    assert narrow.is_code_enabled("EPL002", "a.py")
    assert not narrow.is_code_enabled("EPL001", "a.py")
    assert not Config(select=("ALL",), ignore=("ALL",)).is_code_enabled("EPL001", "a.py")


def test_per_file_ignores_apply_to_matching_root_relative_paths(tmp_path: Path) -> None:
    config = load_in(
        tmp_path,
        """
        [tool.epochlint.per-file-ignores]
        "tests/" = ["EPL001"]
        "legacy/**/*.py" = ["ALL"]
        "*_test.py" = ["EPL00"]
        """,
    )
    assert not config.is_code_enabled("EPL001", "tests/unit/test_consumer.py")
    assert config.is_code_enabled("EPL002", "tests/unit/test_consumer.py")
    assert config.is_code_enabled("EPL001", "src/tests.py")
    assert not config.is_code_enabled("EPL900", "legacy/old/consumer.py")
    assert not config.is_code_enabled("EPL004", "src/fetch_test.py")
    assert config.is_code_enabled("EPL900", "src/fetch_test.py")
    assert config.is_code_enabled("EPL001", "src/consumer.py")


def test_excludes_match_root_relative_paths() -> None:
    config = Config(exclude=("generated/", "*_pb2.py", "/top.py"))
    assert config.is_excluded("src/generated", is_dir=True)
    assert not config.is_excluded("src/generated", is_dir=False)
    assert config.is_excluded("src/api_pb2.py", is_dir=False)
    assert config.is_excluded("top.py", is_dir=False)
    assert not config.is_excluded("src/top.py", is_dir=False)


# --- names -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["_lock", "incoming_queue_lock", "incomingQueueLock", "_cv", "self._rlock",
                                  "_state_mutex", "cond", "_condition", "RLock", "__lock"])
def test_lock_names_from_the_spec_match(name: str) -> None:
    assert Config().lock_name(name)


@pytest.mark.parametrize("name", ["block", "clock", "seconds", "locksmith", "cv2", "unlocked", "_", ""])
def test_words_merely_containing_lock_do_not_match(name: str) -> None:
    assert not Config().lock_name(name)


def test_configured_lock_pattern_matches_whole_words() -> None:
    config = Config(lock_pattern="guard")
    assert config.lock_name("_state_guard") and config.lock_name("stateGuard")
    assert not config.lock_name("_lock") and not config.lock_name("safeguard")


def test_a_pattern_of_many_groups_of_alternatives_is_refused(tmp_path: Path) -> None:
    # Each group doubles the ways through the pattern; past 64 they are joined into one row.
    groups = "(?:[ab]*|[cd]*)" * 13
    assert "high power" in error_of(tmp_path, f'[tool.epochlint]\nepoch-pattern = "{groups}epoch"\n')


@pytest.mark.parametrize("name", ["_epoch", "epoch", "self._state.epoch", "_leader_epochs", "producer_id_and_epoch",
                                  "consumerEpoch", "EPOCH"])
def test_epoch_names_from_the_spec_match(name: str) -> None:
    assert Config().epoch_name(name)


def test_epoch_pattern_is_searched_in_the_last_component_only() -> None:
    assert not Config().epoch_name("self._epochs_state.value")
    assert not Config().epoch_name("_term")
    assert Config(epoch_pattern="epoch|term|generation").epoch_name("_term")


@pytest.mark.parametrize("name", ["seek", "seek_to_beginning", "redeliver_unacknowledged_messages", "rewind",
                                  "reset_cursor", "seekToBeginning"])
def test_rewind_operations_from_the_spec(name: str) -> None:
    assert Config().rewind_name(name)


@pytest.mark.parametrize("name", ["redelivered_message_received", "seek_completed", "_seek_internal", "seekable",
                                  "reset", "seek_done"])
def test_not_rewind_operations_from_the_spec(name: str) -> None:
    assert not Config().rewind_name(name)


@pytest.mark.parametrize("name", ["commit", "commit_sync", "commitAsync", "commit_offsets_async",
                                  "_commit_offsets_sync_async", "_send_offset_commit_request",
                                  "send_offsets_to_transaction", "consumer.store_offsets"])
def test_commit_callees_from_the_spec(name: str) -> None:
    assert Config().commit_callee(name)


def test_committed_is_not_a_commit() -> None:
    assert not Config().commit_callee("committed")


def test_historical_and_current_epoch_sources_from_the_spec() -> None:
    config = Config()
    assert config.historical_epoch_read("offset_epoch")
    assert config.historical_epoch_read("last_fetched_epoch", "position")
    assert config.historical_epoch_read("leader_epoch", "record")
    assert config.historical_epoch_read("epoch", "completed_fetch")
    assert not config.historical_epoch_read("epoch", "current_leader")
    assert not config.historical_epoch_read("leader_epoch", "metadata")
    assert config.current_epoch_source("metadata.leader_epoch_for")
    assert config.current_epoch_source("current_leader")


# --- identity for caches ---------------------------------------------------------------------------


def test_fingerprint_depends_on_settings_not_on_where_the_project_lives(tmp_path: Path) -> None:
    config = Config(root=tmp_path)
    assert config.fingerprint() == Config(root=tmp_path / "elsewhere", config_path=tmp_path / "x").fingerprint()
    assert config.fingerprint() == Config(root=tmp_path).fingerprint()
    assert config.fingerprint() != replace(config, ignore=("EPL001",)).fingerprint()
    assert config.fingerprint() != replace(config, guards=(("C._epoch", "_lock"),)).fingerprint()


def test_config_survives_pickling_after_use() -> None:
    config = Config(exclude=("build/",), per_file_ignores=(("tests/", ("EPL001",)),))
    assert config.lock_name("_lock") and config.is_excluded("build", is_dir=True)
    copy = pickle.loads(pickle.dumps(config))
    assert copy == config and copy.fingerprint() == config.fingerprint()
    assert not copy.is_code_enabled("EPL001", "tests/a.py")
