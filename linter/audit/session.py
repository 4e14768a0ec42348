"""The Spark session of an audit: `local[*]` by default, any master with `--master`, or the one
`spark-submit` was given.

Spark starts its Python workers with `python -m pyspark.daemon`, which would put the working
directory (often the tree being audited) first on their import path: a `socket.py` or a
`sitecustomize.py` there would run. The workers start with PYTHONSAFEPATH instead, and no
relative entry in PYTHONPATH, so that they import nothing of the audited trees.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pyspark import SparkConf
from pyspark.sql import SparkSession

from epochlint.audit.output import replaced_atomically
from epochlint.discovery import UsageError

DEFAULT_MASTER = "local[*]"
LOOPBACK = "127.0.0.1"
# Attempts per task in local mode, which Spark otherwise runs once: a killed Python worker costs a
# retry of its task, not the job.
LOCAL_TASK_ATTEMPTS = 4
JAVA_VERSION = 17
JAVA_HINT = (
    f"epochlint: error: the audit needs a Java {JAVA_VERSION}+ runtime for Spark{{found}}: install one "
    "(e.g. apt-get install openjdk-17-jre-headless) and put its java on PATH or set JAVA_HOME to its folder "
    "(e.g. JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64)"
)
LOG_FILE = "spark.log"
LOG_SETTINGS = "log4j2.properties"

_LOCAL_MASTER = re.compile(r"^local(?:\[(\*|[0-9]+)\])?$")
_JAVA_VERSION = re.compile(r'version "(?:1\.)?([0-9]+)')

# Spark's own logging goes to a file: its warnings (NativeCodeLoader, log4j) are not the audit's.
_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n
"""


def under_spark_submit() -> bool:
    # spark-submit starts the JVM first and hands its gateway to the Python driver.
    return "PYSPARK_GATEWAY_PORT" in os.environ


def is_local(master: str) -> bool:
    return master.startswith("local")


def with_task_retries(master: str) -> str:
    """`local`, `local[N]` and `local[*]` with task retries (`local[N,F]`); other masters as given."""
    match = _LOCAL_MASTER.match(master)
    if match is None:
        return master
    return f"local[{match.group(1) or 1},{LOCAL_TASK_ATTEMPTS}]"


def require_java() -> None:
    """Raise UsageError, in one line, unless the Java that Spark would start is version 17 or later."""
    if under_spark_submit():
        return
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if java is None or not os.access(java, os.X_OK):
        where = f" (JAVA_HOME={home} has no bin/java)" if home else " (no java on PATH)"
        raise UsageError(JAVA_HINT.format(found=where))
    version = _java_version(java)
    if version is None or version < JAVA_VERSION:
        raise UsageError(JAVA_HINT.format(found=f" ({java} is {'unusable' if version is None else f'Java {version}'})"))


def _java_version(java: str) -> int | None:
    try:
        shown = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    match = _JAVA_VERSION.search(shown.stderr + shown.stdout)
    return int(match.group(1)) if match else None


def spark_session(master: str | None, log_folder: Path | None = None) -> SparkSession:
    """The session; Spark's own log goes to `log_folder` when given (the JVM must not be running yet)."""
    _keep_workers_off_the_working_directory()
    builder = SparkSession.builder.appName("epochlint audit")
    if master is not None or not under_spark_submit():
        builder = builder.master(with_task_retries(master or DEFAULT_MASTER))
    if is_local(master or _submitted_master()):
        builder = _local(builder)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    builder = builder.config("spark.executorEnv.PYTHONSAFEPATH", "1")
    # Task outputs are committed as each task ends, so an interrupted run keeps the facts it parsed.
    builder = builder.config("spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version", "2")
    quiet = log_folder is not None and not under_spark_submit()
    if quiet:
        assert log_folder is not None
        log_option = f"-Dlog4j2.configurationFile={_log_settings(log_folder)}"
        builder = builder.config("spark.driver.extraJavaOptions", log_option)
    session = builder.getOrCreate()
    if not quiet:
        session.sparkContext.setLogLevel("ERROR")
    return session


def _log_settings(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / LOG_SETTINGS
    with replaced_atomically(settings) as stream:
        stream.write(_LOG4J2.format(log=(folder / LOG_FILE).resolve()))
    return settings.resolve()


def _keep_workers_off_the_working_directory() -> None:
    # Inherited by the JVM, and through it by every Python worker and parser child it starts.
    os.environ["PYTHONSAFEPATH"] = "1"
    entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    kept = [entry for entry in entries if entry and os.path.isabs(entry)]
    if kept:
        os.environ["PYTHONPATH"] = os.pathsep.join(kept)
    else:
        os.environ.pop("PYTHONPATH", None)


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
