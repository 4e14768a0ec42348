"""The driver side of `epochlint audit`: session, progress, summary, HTML report, exit status."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from rich.console import Console

from epochlint.audit.html_report import write_report
from epochlint.audit.job import AuditOutcome, AuditRequest, read_table, run_audit
from epochlint.audit.progress import PhaseProgress
from epochlint.audit.session import spark_session
from epochlint.audit.summary import (
    TOP_UNITS,
    accounting_line,
    print_summary,
    top_units,
    totals,
)
from epochlint.audit.tables import STATUS_OK

EXIT_DONE = 0
EXIT_FAILED = 1

# Bars in the HTML chart: past this many units a chart is no longer read.
CHART_UNITS = 60


def drive(request: AuditRequest, master: str | None, html: Path | None) -> int:
    """Run the audit and report it; 0 when every discovered file has its row, 1 when not or when
    the job failed."""
    spark = spark_session(master)
    out = Console()
    try:
        with PhaseProgress(spark.sparkContext, Console(stderr=True)) as progress:
            outcome = run_audit(spark, request, progress)
        print_summary(out, top_units(spark, request, TOP_UNITS), totals(spark, request))
        if html is not None:
            _write_html(spark, request, outcome, html)
        print(accounting_line(outcome), flush=True)
        return EXIT_DONE if outcome.complete else EXIT_FAILED
    except Exception as error:  # a failed Spark job: show why, end with one line
        traceback.print_exc()
        print(f"epochlint: the audit failed: {_first_line(error)}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        spark.stop()


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _write_html(spark: SparkSession, request: AuditRequest, outcome: AuditOutcome, path: Path) -> None:
    findings = read_table(spark, request, "findings").orderBy("unit", "path", "line", "column", "code")
    files = read_table(spark, request, "files")
    errored = files.filter(F.col("status") != STATUS_OK).orderBy("unit", "path")
    with path.open("w", encoding="utf-8") as stream:
        write_report(
            stream,
            totals(spark, request),
            accounting_line(outcome),
            top_units(spark, request, CHART_UNITS),
            _streamed(findings),
            _streamed(errored),
        )


def _streamed(frame: DataFrame) -> Iterator[dict[str, object]]:
    # One partition at a time on the driver, never the whole table.
    for row in frame.toLocalIterator():
        yield row.asDict(recursive=True)
