"""The Spark session of an audit: `local[*]` by default, any master with `--master`, or the one
`spark-submit` was given."""

from __future__ import annotations

import os
import sys

from pyspark import SparkConf
from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
LOOPBACK = "127.0.0.1"


def under_spark_submit() -> bool:
    # spark-submit starts the JVM first and hands its gateway to the Python driver.
    return "PYSPARK_GATEWAY_PORT" in os.environ


def is_local(master: str) -> bool:
    return master.startswith("local")


def spark_session(master: str | None) -> SparkSession:
    builder = SparkSession.builder.appName("epochlint audit")
    if master is not None or not under_spark_submit():
        builder = builder.master(master or DEFAULT_MASTER)
    if is_local(master or _submitted_master()):
        builder = _local(builder)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    # Task outputs are committed as each task ends, so an interrupted run keeps the facts it parsed.
    builder = builder.config("spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version", "2")
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _submitted_master() -> str:
    if not under_spark_submit():
        return DEFAULT_MASTER
    # spark-submit's settings are in its JVM, which SparkConf reads.
    return SparkConf().get("spark.master", DEFAULT_MASTER) or DEFAULT_MASTER


def _local(builder: SparkSession.Builder) -> SparkSession.Builder:
    # Everything stays on this machine: bind to loopback, and run tasks with this interpreter,
    # which has epochlint installed.
    os.environ.setdefault("SPARK_LOCAL_IP", LOOPBACK)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return builder.config("spark.driver.host", LOOPBACK).config("spark.driver.bindAddress", LOOPBACK)
