"""The audit's console and start-up, without a JVM: the summary at 80 columns, unit names that look
like Rich markup, the master's task retries, and the one line for a machine without Java."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from rich.console import Console  # noqa: E402

from epochlint.audit.session import LOCAL_TASK_ATTEMPTS, with_task_retries  # noqa: E402
from epochlint.audit.job import AuditOutcome  # noqa: E402
from epochlint.audit.summary import Totals, UnitLine, accounting_line, print_summary  # noqa: E402
from epochlint.audit.tables import STATUS_OK  # noqa: E402

EPOCHLINT_SCRIPT = Path(sys.executable).parent / "epochlint"
RULES = {f"EPL00{n}": 10 ** (n % 4) for n in range(1, 10)}
ERROR = "pyproject.toml: [tool.epochlint] unknown key 'selct' (did you mean 'select'?)"


def rendered(lines: list[UnitLine], failed: list[UnitLine], total: Totals, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    print_summary(console, lines, failed, total)
    return console.export_text()


def _unit(name: str, by_rule: dict[str, int], error: str | None = None) -> UnitLine:
    return UnitLine(name, 120, 3 if error else 0, 45_000, sum(by_rule.values()), by_rule, error)


def test_unit_names_are_printed_as_they_are_not_as_markup() -> None:
    names = ["units/evil[/x]", "[link=https://example.com]x[/link]", "[bold]loud[/bold]"]
    lines = [_unit(name, {"EPL001": 1}) for name in names]
    text = rendered(lines, [], Totals(3, 360, 0, 135_000, 3, {"EPL001": 3}, 0), width=160)
    for name in names:
        assert name in text


def test_the_summary_fits_80_columns_without_cutting_a_word() -> None:
    long_name = "platform/streaming/consumers/very-long-repository-name-for-payments-ledger"
    lines = [_unit(long_name, RULES), _unit("bad", {}, ERROR)]
    total = Totals(2, 240, 3, 90_000, sum(RULES.values()), RULES, 1)
    text = rendered(lines, [lines[1]], total)
    assert max(len(line) for line in text.splitlines()) <= 80
    words = text.split()
    for code, count in RULES.items():
        assert any(f"{code} {count}" in line for line in text.splitlines()), code
    for word in ERROR.split():
        assert word in words, word
    assert "1 unit could not be analysed:" in text


def test_several_failed_units_are_counted_in_the_plural() -> None:
    failed = [_unit(f"bad{n}", {}, ERROR) for n in range(2)]
    text = rendered(failed, failed, Totals(2, 240, 6, 90_000, 0, {}, 2))
    assert "2 units could not be analysed:" in text and "units" in text


@pytest.mark.parametrize(
    ("master", "expected"),
    [
        ("local", f"local[1,{LOCAL_TASK_ATTEMPTS}]"),
        ("local[*]", f"local[*,{LOCAL_TASK_ATTEMPTS}]"),
        ("local[2]", f"local[2,{LOCAL_TASK_ATTEMPTS}]"),
        ("local[2,7]", "local[2,7]"),
        ("local-cluster[2,1,1024]", "local-cluster[2,1,1024]"),
        ("spark://host:7077", "spark://host:7077"),
    ],
)
def test_local_masters_retry_failed_tasks(master: str, expected: str) -> None:
    assert with_task_retries(master) == expected


def test_without_java_the_audit_says_so_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "unit").mkdir()
    (tmp_path / "unit" / "a.py").write_text("x = 1\n")
    (tmp_path / "jdk").mkdir()
    (tmp_path / "bin").mkdir()
    environment = {**os.environ, "JAVA_HOME": str(tmp_path / "jdk"), "PATH": str(tmp_path / "bin")}
    result = subprocess.run(
        [str(EPOCHLINT_SCRIPT), "audit", "unit", "--out", "out"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("epochlint: error: the audit needs a Java 17+ runtime")
    assert f"JAVA_HOME={tmp_path / 'jdk'} has no bin/java" in line and "set JAVA_HOME to" in line
    assert result.stdout == "" and not (tmp_path / "out").exists()


def test_the_accounting_line_counts_one_file_and_one_finding_in_the_singular() -> None:
    # It said "1 findings" (and would have said "discovered 1 files").
    line = accounting_line(AuditOutcome(discovered=1, by_status={STATUS_OK: 1}, findings=1, seconds=2.0))
    assert line.startswith("discovered 1 file = analysed 1 + errored 0; 1 finding in 2.0 s")
    many = accounting_line(AuditOutcome(discovered=2, by_status={STATUS_OK: 2}, findings=0, seconds=2.0))
    assert many.startswith("discovered 2 files = analysed 2 + errored 0; 0 findings in 2.0 s")


def test_what_the_drivers_libraries_log_goes_to_the_log_folder(tmp_path: Path) -> None:
    # py4j logs through the root logger, which printed fifty lines of tracebacks at a Ctrl-C.
    code = (
        "import logging, sys\n"
        "from pathlib import Path\n"
        "from epochlint.audit.driver import _log_to\n"
        f"_log_to(Path({str(tmp_path / 'logs' / 'driver.log')!r}))\n"
        "try:\n    raise RuntimeError('reentrant call')\n"
        "except RuntimeError:\n    logging.exception('Exception while sending command.')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stderr) == (0, "")
    assert "RuntimeError: reentrant call" in (tmp_path / "logs" / "driver.log").read_text(encoding="utf-8")
