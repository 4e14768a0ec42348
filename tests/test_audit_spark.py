"""The audit job on an embedded Spark (`local[2]`): the same findings as `check`, unit by unit, a
row for every file whatever happens to it, and `--resume`."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark")

from pyspark.sql import SparkSession  # noqa: E402

from epochlint.audit.job import TABLE_SCHEMAS, AuditRequest, read_table, run_audit, table_path  # noqa: E402
from epochlint.audit.session import spark_session  # noqa: E402
from epochlint.audit.summary import units_left_out  # noqa: E402
from epochlint.audit.tables import (  # noqa: E402
    STATUS_CONFIG_ERROR,
    STATUS_OK,
    STATUS_PARSE_ERROR,
    STATUS_TIMED_OUT,
    STATUS_TOO_LARGE,
)
from epochlint.audit.units import resolve_units  # noqa: E402
from tests.audit_support import (  # noqa: E402
    files_by_unit_from_audit,
    files_by_unit_from_discovery,
    findings_by_unit_from_audit,
    findings_by_unit_from_check,
    multi_unit_tree,
    slow_module,
    units_under,
    write,
)
from epochlint.frontend.java import available as java_frontend_available  # noqa: E402
from tests.conftest import FIXTURES, KNOWN_CODES  # noqa: E402
from tests.test_audit_tasks import SLOW_SOURCE  # noqa: E402
from tests.test_cli import RACY_CONSUMER  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = spark_session("local[2]")
    yield session
    session.stop()


def statuses(spark: SparkSession, request: AuditRequest) -> dict[tuple[str, str], str]:
    return {(row["unit"], row["path"]): row["status"] for row in read_table(spark, request, "files").collect()}


def assert_same_as_check(spark: SparkSession, request: AuditRequest) -> None:
    units = list(request.units)
    assert findings_by_unit_from_audit(spark, request) == findings_by_unit_from_check(units)
    assert files_by_unit_from_audit(spark, request) == files_by_unit_from_discovery(units)


def test_fixture_folders_audited_as_units_report_what_check_reports(spark: SparkSession, tmp_path: Path) -> None:
    folders = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    request = AuditRequest(tuple(resolve_units(folders, None, None, KNOWN_CODES)), str(tmp_path / "out"))
    outcome = run_audit(spark, request)
    discovered = files_by_unit_from_discovery(list(request.units))
    assert outcome.complete and outcome.discovered == sum(len(files) for files in discovered.values())
    assert outcome.findings > 0
    assert_same_as_check(spark, request)


def test_a_multi_unit_tree_reports_what_check_reports_unit_by_unit(spark: SparkSession, tmp_path: Path) -> None:
    units = units_under(multi_unit_tree(tmp_path))
    request = AuditRequest(tuple(units), str(tmp_path / "out"), partitions=3)
    outcome = run_audit(spark, request)
    assert outcome.complete
    assert_same_as_check(spark, request)
    found = statuses(spark, request)
    by_name = {row["unit"].rsplit("/", 1)[-1]: row for row in read_table(spark, request, "units").collect()}
    assert set(by_name) == {"kafka_app", "fork", "limits", "empty", "bad_settings"}
    assert by_name["bad_settings"]["error"] and by_name["bad_settings"]["files"] == 1
    assert by_name["bad_settings"]["errored"] == 1
    assert by_name["empty"]["files"] == 1 and by_name["empty"]["findings"] == 0
    assert by_name["kafka_app"]["findings_by_rule"] == {"EPL001": 2, "EPL900": 1}
    assert by_name["fork"]["findings_by_rule"] == {"EPL001": 1}
    assert by_name["limits"]["errored"] == 1
    limits = {path: status for (unit, path), status in found.items() if unit.endswith("limits")}
    assert limits == {"big.py": STATUS_TOO_LARGE, "consumer.py": STATUS_OK, "latin.py": STATUS_OK}
    assert found[(by_name["bad_settings"]["unit"], "a.py")] == STATUS_CONFIG_ERROR
    kafka = {path: status for (unit, path), status in found.items() if unit.endswith("kafka_app")}
    assert kafka["app/broken.py"] == STATUS_PARSE_ERROR


@pytest.mark.skipif(
    not java_frontend_available(), reason="the Java frontend is not installed: pip install 'epochlint[java]'"
)
def test_a_unit_mixing_java_and_python_reports_what_check_reports(spark: SparkSession, tmp_path: Path) -> None:
    java = FIXTURES / "java" / "EPL001"
    files: dict[str, str] = {f"src/main/java/{p.name}": p.read_text() for p in sorted(java.glob("*.java"))}
    files["tools/consumer.py"] = RACY_CONSUMER
    write(tmp_path / "unit", files)
    request = AuditRequest(tuple(resolve_units([tmp_path / "unit"], None, None, KNOWN_CODES)), str(tmp_path / "out"))
    outcome = run_audit(spark, request)
    assert outcome.complete and outcome.by_status == {STATUS_OK: len(files)}
    assert_same_as_check(spark, request)
    codes = sorted(
        (row["path"].rsplit(".", 1)[-1], row["code"]) for row in read_table(spark, request, "findings").collect()
    )
    marked = sorted(("java", code) for text in files.values() for code in re.findall(r"// expect: (EPL\d+)", text))
    assert codes == marked + [("py", "EPL001")]  # the Java fixtures' marks, and the Python consumer's race


def test_a_file_that_hangs_the_parser_is_a_row_not_a_failed_job(spark: SparkSession, tmp_path: Path) -> None:
    write(tmp_path / "unit", {"consumer.py": RACY_CONSUMER, "broken.py": "def f(:\n", "slow.py": SLOW_SOURCE})
    units = tuple(resolve_units([tmp_path / "unit"], None, None, KNOWN_CODES))
    request = AuditRequest(units, str(tmp_path / "out"), time_limit=3.0)
    outcome = run_audit(spark, request)
    assert outcome.complete
    assert outcome.by_status == {STATUS_OK: 1, STATUS_PARSE_ERROR: 1, STATUS_TIMED_OUT: 1}
    errors = {row["path"]: row["error"] for row in read_table(spark, request, "files").collect()}
    assert errors["consumer.py"] is None and errors["slow.py"] == "parsing took longer than 3 s"
    codes = sorted((row["path"], row["code"]) for row in read_table(spark, request, "findings").collect())
    assert codes == [("broken.py", "EPL900"), ("consumer.py", "EPL001"), ("slow.py", "EPL900")]


def test_resume_reuses_the_facts_of_unchanged_contents(spark: SparkSession, tmp_path: Path) -> None:
    repos = multi_unit_tree(tmp_path)
    units = tuple(units_under(repos))
    request = AuditRequest(units, str(tmp_path / "out"), partitions=4, resume=True)
    run_audit(spark, request)
    # An interruption loses the facts of unfinished tasks: lose one task's worth.
    facts_parts = sorted(Path(table_path(request.out, "facts")).glob("part-*.parquet"))
    lost = spark.read.parquet(str(facts_parts[0])).select("sha256").collect()
    facts_parts[0].unlink()
    (repos / "kafka_app" / "app" / "consumer.py").write_text(RACY_CONSUMER + "\n# changed\n")
    (repos / "kafka_app" / "app" / "extra.py").write_text("y = 2\n")

    outcome = run_audit(spark, request)
    assert outcome.complete
    rows = read_table(spark, request, "files").collect()
    parsed_again = {
        (row["unit"].rsplit("/", 1)[-1], row["path"]) for row in rows if row["sha256"] and not row["cached"]
    }
    lost_hashes = {row["sha256"] for row in lost}
    assert parsed_again == {
        (row["unit"].rsplit("/", 1)[-1], row["path"]) for row in rows if row["sha256"] in lost_hashes
    } | {("kafka_app", "app/consumer.py"), ("kafka_app", "app/extra.py")}
    assert_same_as_check(spark, request)


def test_units_whose_exclude_patterns_leave_out_every_file_are_named(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A unit analysed with no file looked like a clean one; the only word of it was a worker's
    # warning that named the unit ".".
    write(tmp_path, {
        "left/pyproject.toml": '[tool.epochlint]\nexclude = ["pkg"]\n',
        "left/pkg/consumer.py": RACY_CONSUMER,
        "kept/consumer.py": RACY_CONSUMER,
        "docs/README.md": "no Python here\n",
    })
    monkeypatch.chdir(tmp_path)
    units = resolve_units([Path("left"), Path("kept"), Path("docs")], None, None, KNOWN_CODES)
    request = AuditRequest(tuple(units), str(tmp_path / "out"), partitions=2)
    assert run_audit(spark, request).complete
    assert units_left_out(spark, request) == [
        "left: every file under it is left out by the `exclude` patterns of left/pyproject.toml",
        # A unit without a source file looked like a clean one too.
        "docs: no Python or Java file in it: nothing was checked there",
    ]


def test_tables_can_be_written_as_json(spark: SparkSession, tmp_path: Path) -> None:
    units = tuple(units_under(multi_unit_tree(tmp_path)))
    request = AuditRequest(units, str(tmp_path / "out"), output_format="json", partitions=2)
    assert run_audit(spark, request).complete
    assert list(Path(table_path(request.out, "findings")).glob("part-*.json"))
    assert_same_as_check(spark, request)
    # Each line names every column, those without a value too (`"error": null` on a clean file).
    for name, schema in TABLE_SCHEMAS.items():
        columns = spark.createDataFrame([], schema).columns
        lines = [line for part in Path(table_path(request.out, name)).glob("part-*.json") for line in part.open()]
        assert lines
        assert all(list(json.loads(line)) == columns for line in lines), name


def test_byte_named_copies_of_one_content_each_get_their_row_and_findings(spark: SparkSession, tmp_path: Path) -> None:
    unit = tmp_path / "unit"
    unit.mkdir()
    # Names that are not UTF-8, and identical contents: one read must not stand for both.
    for name in (b"consumer_\xe8.py", b"consumer_\xe9.py"):
        Path(os.fsdecode(os.path.join(os.fsencode(unit), name))).write_text(RACY_CONSUMER)
    units = tuple(resolve_units([unit], None, None, KNOWN_CODES))
    request = AuditRequest(units, str(tmp_path / "out"), partitions=2)
    outcome = run_audit(spark, request)
    assert outcome.complete and outcome.by_status == {STATUS_OK: 2}
    files = sorted((row["path"], row["findings"]) for row in read_table(spark, request, "files").collect())
    assert files == [("consumer_\\xe8.py", 1), ("consumer_\\xe9.py", 1)]
    findings = sorted((row["path"], row["code"]) for row in read_table(spark, request, "findings").collect())
    assert findings == [("consumer_\\xe8.py", "EPL001"), ("consumer_\\xe9.py", "EPL001")]


def _python_workers() -> list[int]:
    """Spark's Python workers on this machine: the processes `pyspark.daemon` forked."""
    def command(pid: str) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return b""

    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and b"pyspark.daemon" in command(entry):
            parent = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]
            if b"pyspark.daemon" in command(parent):
                found.append(int(entry))
    return found


def test_a_python_worker_killed_in_the_middle_of_a_task_costs_a_retry_not_the_job(
    spark: SparkSession, tmp_path: Path
) -> None:
    write(tmp_path / "unit", {f"pkg/consumer_{i:03}.py": slow_module(i) for i in range(40)})
    units = tuple(resolve_units([tmp_path / "unit"], None, None, KNOWN_CODES))
    request = AuditRequest(units, str(tmp_path / "out"), partitions=20)
    killed: list[int] = []

    def kill_one_worker_while_parsing() -> None:
        facts = Path(table_path(request.out, "facts"))
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not killed:
            workers = _python_workers() if list(facts.glob("part-*.parquet")) else []
            if workers:
                os.kill(workers[0], signal.SIGKILL)
                killed.append(workers[0])
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one_worker_while_parsing, daemon=True)
    killer.start()
    outcome = run_audit(spark, request)
    killer.join(timeout=600)
    assert killed, "no Python worker was killed"
    assert spark.sparkContext.master == "local[2,4]"
    assert outcome.complete and outcome.by_status == {STATUS_OK: 40} and outcome.findings == 40
