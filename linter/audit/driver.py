"""The driver side of `epochlint audit`: session, progress, summary, HTML report, exit status."""

from __future__ import annotations

import logging
import sys
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from rich.console import Console

from epochlint.audit.command import is_url
from epochlint.audit.html_report import write_report
from epochlint.audit.job import AuditOutcome, AuditRequest, read_table, run_audit
from epochlint.audit.output import replaced_atomically
from epochlint.audit.progress import PhaseProgress
from epochlint.audit.session import spark_session
from epochlint.audit.summary import (
    TOP_UNITS,
    Totals,
    accounting_line,
    all_units,
    failed_units,
    print_summary,
    top_units,
    totals,
    units_left_out,
)
from epochlint.audit.tables import STATUS_OK
from epochlint.notices import warn_once

# The audit's exit statuses, as `check`'s where they mean the same (docs/audit.md lists them).
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_NOT_ANALYSED = 3


def drive(request: AuditRequest, master: str | None, html: Path | None) -> int:
    """Run the audit and report it: 0 when every unit was analysed and nothing found, 1 when there
    are findings, 3 when a unit could not be analysed, a file has no row, or the job failed."""
    logs = log_folder(request.out)
    _log_to(logs / "driver.log")
    spark = spark_session(master, logs)
    out = Console()
    try:
        with PhaseProgress(spark.sparkContext, Console(stderr=True)) as progress:
            outcome = run_audit(spark, request, progress)
        total = totals(spark, request)
        print_summary(out, top_units(spark, request, TOP_UNITS), failed_units(spark, request, TOP_UNITS), total)
        for line in units_left_out(spark, request):
            warn_once(line)
        print(accounting_line(outcome), flush=True)
        if html is not None:
            _write_html(spark, request, outcome, html)
        return exit_status(outcome, total)
    except Exception as error:  # a failed Spark job: one line, the whole story in the log folder
        print(f"epochlint: the audit failed: {_first_line(error)}{_kept_details(logs)}", file=sys.stderr)
        return EXIT_NOT_ANALYSED
    finally:
        spark.stop()


def exit_status(outcome: AuditOutcome, total: Totals) -> int:
    if total.failed_units or not outcome.complete:
        return EXIT_NOT_ANALYSED
    return EXIT_FINDINGS if outcome.findings else EXIT_CLEAN


def log_folder(out: str) -> Path:
    """Where Spark's own log goes: `logs` under a local --out, a temporary folder beside a URL one."""
    if is_url(out):
        return Path(tempfile.mkdtemp(prefix="epochlint-audit-logs-"))
    return Path(out) / "logs"


def _log_to(path: Path) -> None:
    """Send what the driver's libraries log to `path`, not to the console: py4j logs through the
    root logger, which then prints every record on stderr (at a Ctrl-C, fifty lines of tracebacks
    of the calls it interrupted, before the one line that says so)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    logging.getLogger().addHandler(logging.FileHandler(path, encoding="utf-8", delay=True))


def _kept_details(logs: Path) -> str:
    """The traceback of the exception being handled, written to the log folder: where it went, to
    end the one-line error with."""
    details = logs / "audit-failure.txt"
    try:
        logs.mkdir(parents=True, exist_ok=True)
        details.write_text(traceback.format_exc(), encoding="utf-8")
    except OSError:
        return ""
    return f" (details in {details})"


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _write_html(spark: SparkSession, request: AuditRequest, outcome: AuditOutcome, path: Path) -> None:
    findings = read_table(spark, request, "findings").orderBy("unit", "path", "line", "column", "code")
    files = read_table(spark, request, "files")
    errored = files.filter(F.col("status") != STATUS_OK).orderBy("unit", "path")
    with replaced_atomically(path) as stream:
        write_report(
            stream,
            totals(spark, request),
            accounting_line(outcome),
            all_units(spark, request),
            _streamed(findings),
            _streamed(errored),
        )


def _streamed(frame: DataFrame) -> Iterator[dict[str, object]]:
    # One partition at a time on the driver, never the whole table.
    for row in frame.toLocalIterator():
        yield row.asDict(recursive=True)
