"""`epochlint audit`: its arguments, and the check that PySpark is there before anything imports it."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

from epochlint.discovery import UsageError
from epochlint.text import escaped_name

EXIT_USAGE = 2
INSTALL_HINT = (
    "epochlint: error: audit needs PySpark: install epochlint with its spark extra (pip install 'epochlint[spark]')"
)
DEFAULT_OUT = "epochlint-audit"
DEFAULT_FILE_TIMEOUT = 60.0
# A URL (hdfs://..., s3a://..., file:/...) names a Hadoop file system; anything else is a local path,
# a colon in it included (`audits:today`).
_SCHEME = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]+://|file:)")
# The folders an audit writes under a local --out: its tables, which Spark replaces whole, and
# the log folder.
OUT_TABLES = ("listing", "facts", "files", "units", "findings")
_LOG_FOLDER = "logs"
# What Spark writes into a table's folder; anything else there is not an audit's output.
_SPARK_OUTPUT = re.compile(r"^(?:_SUCCESS|_temporary|part-.*|\..*\.crc)$")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a positive, finite number of seconds, got {text}")
    return value


def add_audit_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    audit = commands.add_parser(
        "audit",
        help="audit many projects at once on Spark (needs epochlint[spark])",
        epilog=(
            "exit status: 0 when everything was analysed and there are no findings, 1 when there are "
            "findings, 2 on a usage error (no PySpark, no Java 17+), 3 when something was not analysed "
            "(a unit's invalid settings, a failed analysis or Spark job, a file without its row), "
            "130 when interrupted (Ctrl-C)"
        ),
    )
    audit.add_argument("roots", nargs="*", type=Path, metavar="ROOT", help="a folder to audit as one unit")
    audit.add_argument("--repos-file", type=Path, metavar="FILE", help="a file with one unit folder per line")
    audit.add_argument(
        "--units-under", type=Path, metavar="DIR",
        help="audit each repository (a folder with .git, pyproject.toml or setup.py) under DIR as a unit",
    )
    audit.add_argument("--master", metavar="URL", help="Spark master (default: local[*], or spark-submit's)")
    audit.add_argument(
        "--out", default=DEFAULT_OUT, metavar="DIR", help=f"where the tables go (default: {DEFAULT_OUT})"
    )
    audit.add_argument("--format", choices=("parquet", "json"), default="parquet", help="format of the tables")
    audit.add_argument("--html", type=Path, metavar="FILE", help="also write a self-contained HTML report")
    audit.add_argument("--resume", action="store_true", help="reuse the facts already in --out (by content hash)")
    audit.add_argument("--partitions", type=_positive_int, metavar="N", help="number of Spark partitions per stage")
    audit.add_argument(
        "--file-timeout", type=_positive_seconds, default=DEFAULT_FILE_TIMEOUT, metavar="SECONDS",
        help=f"time limit to parse one file (default: {DEFAULT_FILE_TIMEOUT:g})",
    )


def is_url(text: str) -> bool:
    return _SCHEME.match(text) is not None


def out_location(text: str) -> str:
    """Local paths made absolute (tasks run elsewhere than the driver); URLs as given."""
    return text if is_url(text) else os.path.abspath(text)


def check_out_folder(out: str) -> None:
    """A local --out must be a folder (or not exist yet) whose table folders, where they exist,
    hold what an earlier audit wrote and nothing else: writing a table replaces its folder whole,
    so a `files/` folder of the user's own would be deleted."""
    if is_url(out) or not os.path.lexists(out):
        return
    if not os.path.isdir(out):
        raise UsageError(f"epochlint: --out {escaped_name(out)}: not a folder")
    for name in (*OUT_TABLES, _LOG_FOLDER):
        folder = os.path.join(out, name)
        if not os.path.lexists(folder):
            continue
        if not os.path.isdir(folder) or os.path.islink(folder):
            raise UsageError(f"epochlint: --out {escaped_name(out)}: {name} is not a folder an audit wrote")
        if name == _LOG_FOLDER:
            continue
        try:
            foreign = sorted(entry for entry in os.listdir(folder) if not _SPARK_OUTPUT.match(entry))
        except OSError as error:
            raise UsageError(f"epochlint: --out {escaped_name(out)}: cannot read {name}/: {error.strerror}") from None
        if foreign:
            raise UsageError(
                f"epochlint: --out {escaped_name(out)}: {name}/ holds {escaped_name(foreign[0])}, which no audit "
                f"wrote, and an audit replaces that folder whole: choose another --out"
            )


def audit(args: argparse.Namespace) -> int:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print(INSTALL_HINT, file=sys.stderr)
        return EXIT_USAGE
    from epochlint.audit.driver import drive
    from epochlint.audit.job import AuditRequest
    from epochlint.audit.session import require_java
    from epochlint.audit.units import resolve_units
    from epochlint.rules import rule_codes

    known = rule_codes()
    units = resolve_units(args.roots, args.repos_file, args.units_under, known)
    if args.html is not None and args.html.is_dir():
        raise UsageError(f"epochlint: --html: is a folder: {args.html}")
    if args.html is not None and not os.access(args.html.parent, os.W_OK):
        # Found before the job runs, not after it: the report is written last.
        raise UsageError(f"epochlint: --html {args.html}: cannot write in {args.html.parent}")
    check_out_folder(args.out)
    require_java()
    request = AuditRequest(
        units=tuple(units),
        out=out_location(args.out),
        output_format=args.format,
        resume=args.resume,
        partitions=args.partitions,
        time_limit=args.file_timeout,
    )
    return drive(request, args.master, args.html)
