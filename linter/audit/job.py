"""The audit as a Spark job.

1. list and hash: the units are spread over tasks that discover their files; the file rows are
   partitioned by a hash of their path, and tasks read, size-check and hash each file and run the
   prefilter's text pass on it; grouped by unit, the rows get the prefilter's verdict (which needs
   the whole unit). The driver only ever sees counts. Result: the `listing` table.
2. parse: the distinct (content hash, verdict) pairs not yet in the `facts` table (all of them
   unless resuming) are partitioned by hash; tasks parse them in a child process under the time
   limit and append their facts. Each finished task's facts are kept even if the job is
   interrupted.
3. analyse: the listing is joined with the facts by hash and grouped by unit; each unit's program
   and rules run in one task, exactly as in `check`, and emit the `findings`, `files` and `units`
   rows.
"""

from __future__ import annotations

import math
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import cast

from pyspark import RDD, StorageLevel
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from epochlint.audit.progress import PhaseProgress
from epochlint.audit.tables import (
    FACTS_SCHEMA,
    FILES_SCHEMA,
    FINDINGS_SCHEMA,
    LISTING_SCHEMA,
    STATUS_OK,
    STATUS_PENDING,
    UNITS_SCHEMA,
    FactsRow,
    FileRecord,
    ListingRow,
)
from epochlint.audit.tasks import (
    FILE,
    FINDING,
    UNIT,
    AnalysisRow,
    analyse_unit,
    list_unit,
    mark_relevant,
    parse_files,
    read_and_hash,
)
from epochlint.audit.units import Unit
from epochlint.frontend.facts import FACTS_FORMAT

# Small parse tasks balance the cores to the end and lose little when an executor dies.
FILES_PER_TASK = 100
TABLE_SCHEMAS = {"findings": FINDINGS_SCHEMA, "files": FILES_SCHEMA, "units": UNITS_SCHEMA}
OUTPUT_FORMATS = ("parquet", "json")


@dataclass(frozen=True)
class AuditRequest:
    units: tuple[Unit, ...]
    out: str
    output_format: str = "parquet"
    resume: bool = False
    partitions: int | None = None
    time_limit: float = 60.0


@dataclass(frozen=True)
class AuditOutcome:
    """The run's accounting: every discovered file must have exactly one `files` row."""

    discovered: int
    by_status: dict[str, int]
    findings: int
    seconds: float

    @property
    def file_rows(self) -> int:
        return sum(self.by_status.values())

    @property
    def analysed(self) -> int:
        return self.by_status.get(STATUS_OK, 0)

    @property
    def errored(self) -> int:
        return self.file_rows - self.analysed

    @property
    def complete(self) -> bool:
        return self.file_rows == self.discovered


def table_path(out: str, name: str) -> str:
    return f"{out.rstrip('/')}/{name}"


def read_table(spark: SparkSession, request: AuditRequest, name: str) -> DataFrame:
    reader = spark.read.schema(TABLE_SCHEMAS[name]).format(request.output_format)
    return reader.load(table_path(request.out, name))


def run_audit(spark: SparkSession, request: AuditRequest, progress: PhaseProgress | None = None) -> AuditOutcome:
    start = time.monotonic()
    run = uuid.uuid4().hex
    with _phase(progress, "list and hash files"):
        listing = _write_listing(spark, request)
        discovered = listing.count()
    with _phase(progress, "parse files"):
        _write_facts(spark, request, listing, run)
    with _phase(progress, "analyse units"):
        _write_results(spark, request, listing, run)
    with _phase(progress, "count"):
        counts = read_table(spark, request, "files").groupBy("status").count().collect()
        by_status = {row["status"]: row["count"] for row in counts}
        findings = read_table(spark, request, "findings").count()
    return AuditOutcome(discovered, by_status, findings, time.monotonic() - start)


def _phase(progress: PhaseProgress | None, description: str) -> AbstractContextManager[None]:
    return progress.phase(description) if progress is not None else nullcontext()


def _parallelism(spark: SparkSession) -> int:
    return max(2, spark.sparkContext.defaultParallelism)


def path_partition(path: bytes) -> int:
    # Python's hash() differs between worker processes; crc32 is the same everywhere.
    return zlib.crc32(path)


def _write_listing(spark: SparkSession, request: AuditRequest) -> DataFrame:
    context = spark.sparkContext
    parallelism = _parallelism(spark)
    unit_partitions = request.partitions or max(1, min(len(request.units), parallelism * 4))
    by_id = context.broadcast({unit.id: unit for unit in request.units})
    units = context.parallelize(request.units, unit_partitions)
    files = units.flatMap(list_unit).keyBy(lambda listed: listed.path)
    spread = files.partitionBy(request.partitions or parallelism * 4, path_partition).values()
    read = spread.map(lambda listed: read_and_hash(listed, by_id.value[listed.unit_id].config))
    by_unit = read.keyBy(lambda item: item.row.unit_id).groupByKey(unit_partitions)
    rows = by_unit.flatMap(lambda group: mark_relevant(by_id.value[group[0]], group[1]))
    path = table_path(request.out, "listing")
    spark.createDataFrame(rows, LISTING_SCHEMA).write.mode("overwrite").parquet(path)
    return spark.read.schema(LISTING_SCHEMA).parquet(path)


def _write_facts(spark: SparkSession, request: AuditRequest, listing: DataFrame, run: str) -> None:
    pending = listing.filter(F.col("status") == STATUS_PENDING).select("sha256", "relevant", "path")
    facts_path = table_path(request.out, "facts")
    if request.resume and _exists(spark, facts_path):
        stored = _stored_facts(spark, facts_path).filter(F.col("cacheable")).select("sha256", "relevant")
        pending = pending.join(stored, ["sha256", "relevant"], "left_anti")
    count = pending.count()
    partitions = request.partitions or max(_parallelism(spark) * 2, math.ceil(count / FILES_PER_TASK))
    time_limit = request.time_limit
    facts = pending.repartition(partitions, "sha256").rdd.mapPartitions(
        lambda rows: parse_files(_distinct_files(rows), time_limit, run)
    )
    mode = "append" if request.resume else "overwrite"
    spark.createDataFrame(facts, FACTS_SCHEMA).write.mode(mode).parquet(facts_path)


def _distinct_files(rows: Iterable[Row]) -> Iterator[tuple[str, bool, list[bytes]]]:
    """One (sha256, relevant, paths) per content and verdict: copies of a file share their facts,
    parsed from whichever copy can still be read; a partition holds every row of a hash."""
    paths: dict[tuple[str, bool], list[bytes]] = {}
    for row in rows:
        paths.setdefault((row["sha256"], row["relevant"]), []).append(bytes(row["path"]))
    for (digest, relevant), copies in paths.items():
        yield digest, relevant, copies


def _stored_facts(spark: SparkSession, path: str) -> DataFrame:
    return spark.read.schema(FACTS_SCHEMA).parquet(path).filter(F.col("facts_format") == FACTS_FORMAT)


def _exists(spark: SparkSession, path: str) -> bool:
    context = spark.sparkContext
    hadoop_path = context._jvm.org.apache.hadoop.fs.Path(path)  # type: ignore[union-attr]
    return bool(hadoop_path.getFileSystem(context._jsc.hadoopConfiguration()).exists(hadoop_path))  # type: ignore[union-attr]


def _write_results(spark: SparkSession, request: AuditRequest, listing: DataFrame, run: str) -> None:
    analysis = _analysis(spark, request, listing, run).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        for tag, name in ((FINDING, "findings"), (FILE, "files"), (UNIT, "units")):
            rows = analysis.filter(_tagged(tag)).map(lambda item: item[1])
            writer = spark.createDataFrame(rows, TABLE_SCHEMAS[name]).write.mode("overwrite")
            # Every JSON line has every column, null or not (Spark leaves nulls out by default).
            writer = writer.option("ignoreNullFields", "false")
            writer.format(request.output_format).save(table_path(request.out, name))
    finally:
        analysis.unpersist()


def _tagged(tag: str) -> Callable[[AnalysisRow], bool]:
    """Whether an analysis row is of kind `tag` (a finding, a file or a unit)."""
    return lambda item: item[0] == tag


def _analysis(spark: SparkSession, request: AuditRequest, listing: DataFrame, run: str) -> RDD[AnalysisRow]:
    stored = _stored_facts(spark, table_path(request.out, "facts"))
    current = stored.filter(F.col("cacheable") | (F.col("run") == run))
    facts = current.select(*(F.col(name).alias(f"facts_{name}") for name in FactsRow._fields))
    same = (listing["sha256"] == facts["facts_sha256"]) & (listing["relevant"] == facts["facts_relevant"])
    joined = listing.join(facts, same, "left")
    records = joined.rdd.map(_keyed_record)
    units = spark.sparkContext.parallelize([(unit.id, unit) for unit in request.units])
    partitions = request.partitions or max(1, min(len(request.units), _parallelism(spark) * 4))
    groups = records.union(units).groupByKey(partitions)
    # A unit's group holds its Unit and its FileRecords (keyed so above); Spark's types say object.
    return groups.flatMap(lambda group: _analyse_group(cast("Iterable[Unit | FileRecord]", group[1]), run))


def _keyed_record(row: Row) -> tuple[int, FileRecord]:
    listing = ListingRow(*(row[name] for name in ListingRow._fields))
    listing = listing._replace(path=bytes(listing.path))  # Spark's binary values come as bytearray
    facts = None if row["facts_sha256"] is None else FactsRow(*(row[f"facts_{name}"] for name in FactsRow._fields))
    return listing.unit_id, FileRecord(listing, facts)


def _analyse_group(items: Iterable[Unit | FileRecord], run: str) -> Iterator[AnalysisRow]:
    records: list[FileRecord] = []
    unit: Unit | None = None
    for item in items:
        if isinstance(item, Unit):
            unit = item
        else:
            records.append(item)
    assert unit is not None, "every group holds its unit"
    yield from analyse_unit(unit, records, run)
