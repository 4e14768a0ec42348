"""The console's end of an audit: a table of the units with the most findings, totals, and the
accounting line. Only aggregates reach the driver, never the tables themselves."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import Row, SparkSession
from pyspark.sql import functions as F
from rich.console import Console
from rich.table import Table
from rich.text import Text

from epochlint.audit.job import AuditOutcome, AuditRequest, read_table
from epochlint.audit.tables import FILE_STATUSES, STATUS_OK
from epochlint.report.console import plural
from epochlint.discovery import why_every_file_left_out

TOP_UNITS = 20


@dataclass(frozen=True)
class UnitLine:
    unit: str
    files: int
    errored: int
    lines: int
    findings: int
    by_rule: dict[str, int]
    error: str | None


@dataclass(frozen=True)
class Totals:
    units: int
    files: int
    errored: int
    lines: int
    findings: int
    by_rule: dict[str, int]
    failed_units: int


def top_units(spark: SparkSession, request: AuditRequest, limit: int) -> list[UnitLine]:
    units = read_table(spark, request, "units")
    ordered = units.orderBy(F.desc("findings"), F.desc("errored"), F.asc("unit")).limit(limit)
    return [_unit_line(row) for row in ordered.collect()]


def all_units(spark: SparkSession, request: AuditRequest) -> list[UnitLine]:
    """Every unit, most findings first; one row per unit, streamed to the driver."""
    ordered = read_table(spark, request, "units").orderBy(F.desc("findings"), F.desc("errored"), F.asc("unit"))
    return [_unit_line(row) for row in ordered.toLocalIterator()]


def failed_units(spark: SparkSession, request: AuditRequest, limit: int) -> list[UnitLine]:
    """The first units, by name, that could not be analysed."""
    units = read_table(spark, request, "units").filter(F.col("error").isNotNull())
    return [_unit_line(row) for row in units.orderBy("unit").limit(limit).collect()]


# Why a unit analysed no file, where nothing left any out.
NO_SOURCE_FILES = "no Python or Java file in it: nothing was checked there"


def units_left_out(spark: SparkSession, request: AuditRequest) -> list[str]:
    """A line for each unit analysed with no file: its `exclude` patterns (or git's ignore files)
    leave out every one, or it holds none. An audit that checks nothing there must not look like
    one that found nothing there."""
    empty = read_table(spark, request, "units").filter((F.col("files") == 0) & F.col("error").isNull())
    names = {row["unit"] for row in empty.select("unit").collect()}
    reasons = (
        (unit.name, why_every_file_left_out(Path(unit.root), unit.config) or NO_SOURCE_FILES)
        for unit in request.units
        if unit.name in names and unit.config is not None
    )
    return [f"{name}: {why}" for name, why in reasons]


def _unit_line(row: Row) -> UnitLine:
    return UnitLine(row["unit"], row["files"], row["errored"], row["lines"], row["findings"],
                    dict(row["findings_by_rule"] or {}), row["error"])


def totals(spark: SparkSession, request: AuditRequest) -> Totals:
    units = read_table(spark, request, "units")
    row = units.agg(
        F.count("*").alias("units"),
        F.sum("files").alias("files"),
        F.sum("errored").alias("errored"),
        F.sum("lines").alias("lines"),
        F.sum("findings").alias("findings"),
        F.count("error").alias("failed_units"),
    ).collect()[0]
    per_rule = read_table(spark, request, "findings").groupBy("code").count().collect()
    return Totals(
        row["units"], row["files"] or 0, row["errored"] or 0, row["lines"] or 0, row["findings"] or 0,
        {line["code"]: line["count"] for line in per_rule},
        row["failed_units"],
    )


def print_summary(console: Console, lines: list[UnitLine], failed: list[UnitLine], total: Totals) -> None:
    """The units with the most findings, then the findings per rule, then the units that could not
    be analysed with their errors: laid out to read at 80 columns, however many rules there are.

    Unit names and errors are the audited trees' text, never Rich markup: they are printed as Text.
    """
    shown = f", top {len(lines)} by findings" if len(lines) < total.units else ""
    units = Table(title=f"epochlint audit: {_count(total.units, 'unit')}{shown}")
    units.add_column("Unit", overflow="fold", ratio=1)
    for column in ("Files", "Errored", "Lines", "Findings"):
        units.add_column(column, justify="right", no_wrap=True)
    # One rule a line: a cell as wide as its longest entry never breaks an entry.
    units.add_column("By rule", no_wrap=True)
    for line in lines:
        name = Text(line.unit, style="red" if line.error is not None else "")
        counts = (str(line.files), str(line.errored), str(line.lines), str(line.findings))
        units.add_row(name, *counts, _by_rule(line.by_rule))
    units.add_section()
    totals = (str(total.files), str(total.errored), str(total.lines), str(total.findings))
    units.add_row("total", *totals, "", style="bold")
    console.print(units)
    if total.by_rule:
        rules = Table(title="findings per rule")
        rules.add_column("Rule")
        rules.add_column("Findings", justify="right")
        for code in sorted(total.by_rule):
            rules.add_row(code, str(total.by_rule[code]))
        console.print(rules)
    if total.failed_units:
        console.print(f"{_count(total.failed_units, 'unit')} could not be analysed:")
        for line in failed:
            # Wrapped at spaces, so that no word of the error is cut at the edge.
            console.print(Text.assemble("  ", (line.unit, "bold"), ": ", line.error or ""))
        if len(failed) < total.failed_units:
            console.print(f"  and {total.failed_units - len(failed)} more: see the error column of the units table")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _by_rule(counts: dict[str, int]) -> str:
    return "\n".join(f"{code} {counts[code]}" for code in sorted(counts))


def accounting_line(outcome: AuditOutcome) -> str:
    """`discovered = analysed + errored`, with the errors by status, and whether rows are missing."""
    errors = ", ".join(
        f"{status} {outcome.by_status[status]}"
        for status in FILE_STATUSES
        if status != STATUS_OK and outcome.by_status.get(status)
    )
    line = (
        f"discovered {plural(outcome.discovered, 'file')} = analysed {outcome.analysed} + errored {outcome.errored}"
        + (f" ({errors})" if errors else "")
        + f"; {plural(outcome.findings, 'finding')} in {outcome.seconds:.1f} s"
    )
    if not outcome.complete:
        line += f"; ERROR: {outcome.file_rows} file rows for {outcome.discovered} discovered files"
    return line
