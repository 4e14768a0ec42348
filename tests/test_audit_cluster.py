"""The audit job on a real multi-process cluster on this machine: `local-cluster[2,1,1024]` runs a
standalone master and workers, with each executor a JVM process of its own. One executor is killed
in the middle of the job, and every row must still be there."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark")

from pyspark.sql import SparkSession  # noqa: E402

from epochlint.audit.job import AuditRequest, read_table, run_audit, table_path  # noqa: E402
from epochlint.audit.session import spark_session  # noqa: E402
from epochlint.audit.tables import STATUS_OK  # noqa: E402
from epochlint.audit.units import resolve_units  # noqa: E402
from tests.audit_support import (  # noqa: E402
    executor_pids,
    files_by_unit_from_audit,
    files_by_unit_from_discovery,
    findings_by_unit_from_audit,
    findings_by_unit_from_check,
    kill,
    multi_unit_tree,
    slow_module,
    units_under,
    write,
)
from tests.conftest import KNOWN_CODES  # noqa: E402

pytestmark = pytest.mark.slow

MASTER = "local-cluster[2,1,1024]"
FAULT_FILES = 80
FAULT_PARTITIONS = 40


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = spark_session(MASTER)
    yield session
    session.stop()


def assert_same_as_check(spark: SparkSession, request: AuditRequest) -> None:
    units = list(request.units)
    assert findings_by_unit_from_audit(spark, request) == findings_by_unit_from_check(units)
    assert files_by_unit_from_audit(spark, request) == files_by_unit_from_discovery(units)


def test_the_cluster_runs_executors_as_processes_of_their_own(spark: SparkSession, tmp_path: Path) -> None:
    units = tuple(units_under(multi_unit_tree(tmp_path)))
    request = AuditRequest(units, str(tmp_path / "out"), partitions=4)
    assert run_audit(spark, request).complete
    assert_same_as_check(spark, request)
    assert len(executor_pids(spark.sparkContext.applicationId)) == 2


class _ExecutorKiller:
    """Kills one executor once the first parse tasks have committed their facts."""

    def __init__(self, application_id: str, facts: Path) -> None:
        self.application_id = application_id
        self.facts = facts
        self.killed: int | None = None
        self.committed_at_kill = 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self._thread.join(timeout=600)

    def _run(self) -> None:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            committed = len(list(self.facts.glob("part-*.parquet")))
            if committed:
                pids = executor_pids(self.application_id)
                if pids:
                    kill(pids[0])
                    self.killed, self.committed_at_kill = pids[0], committed
                    return
            time.sleep(0.02)


def test_a_killed_executor_loses_no_row(spark: SparkSession, tmp_path: Path) -> None:
    write(tmp_path / "unit", {f"pkg/consumer_{i:03}.py": slow_module(i) for i in range(FAULT_FILES)})
    write(tmp_path / "unit", {"pkg/__init__.py": ""})
    units = tuple(resolve_units([tmp_path / "unit"], None, None, KNOWN_CODES))
    request = AuditRequest(units, str(tmp_path / "out"), partitions=FAULT_PARTITIONS)
    killer = _ExecutorKiller(spark.sparkContext.applicationId, Path(table_path(request.out, "facts")))
    killer.start()
    outcome = run_audit(spark, request)
    killer.join()

    assert killer.killed is not None, "no executor was killed"
    assert killer.committed_at_kill < FAULT_PARTITIONS, "the executor was killed after the parse phase"
    assert outcome.complete and outcome.discovered == FAULT_FILES + 1
    assert outcome.by_status == {STATUS_OK: FAULT_FILES + 1}
    assert outcome.findings == FAULT_FILES
    assert read_table(spark, request, "units").collect()[0]["files"] == FAULT_FILES + 1
    assert_same_as_check(spark, request)
