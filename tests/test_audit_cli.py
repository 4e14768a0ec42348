"""`epochlint audit` as a user runs it: a run killed in the middle, resumed; the console, the HTML
report and the tables; and the same job under `spark-submit`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark")

from tests.audit_support import slow_module, write  # noqa: E402
from tests.test_cli import RACY_CONSUMER  # noqa: E402

EPOCHLINT = [sys.executable, "-m", "epochlint"]
SPARK_SUBMIT = Path(pyspark.__file__).parent / "bin" / "spark-submit"
FILES = 40
TIMEOUT = 900


def _environment() -> dict[str, str]:
    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=_environment(), capture_output=True, text=True, timeout=TIMEOUT)


def _json_rows(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for part in sorted(folder.glob("part-*.json")) for line in part.read_text().splitlines()]


def _kill_once_facts_are_committed(process: subprocess.Popen[bytes], facts: Path) -> int:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        committed = len(list(facts.glob("part-*.parquet")))
        if committed:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return committed
        time.sleep(0.05)
    raise AssertionError(f"the audit ended (status {process.poll()}) before any facts were committed")


def test_usage_errors_exit_2_before_any_spark(tmp_path: Path) -> None:
    result = _run([*EPOCHLINT, "audit", str(tmp_path / "missing")], tmp_path)
    assert (result.returncode, result.stderr) == (2, f"epochlint: error: folder not found: {tmp_path / 'missing'}\n")
    result = _run([*EPOCHLINT, "audit"], tmp_path)
    assert result.returncode == 2 and "needs a ROOT" in result.stderr


def test_an_out_folder_holding_what_no_audit_wrote_is_refused_before_any_spark(tmp_path: Path) -> None:
    # Writing a table replaces its folder whole: a `files/` folder of the user's own under --out
    # was deleted.
    (tmp_path / "repo").mkdir()
    (tmp_path / "danger" / "files").mkdir(parents=True)
    (tmp_path / "danger" / "files" / "important.txt").write_text("precious")
    result = _run([*EPOCHLINT, "audit", "repo", "--out", "danger"], tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "epochlint: error: --out danger: files/ holds important.txt, which no audit wrote, and an audit "
        "replaces that folder whole: choose another --out\n",
    )
    assert (tmp_path / "danger" / "files" / "important.txt").read_text() == "precious"
    (tmp_path / "afile").write_text("")
    result = _run([*EPOCHLINT, "audit", "repo", "--out", "afile"], tmp_path)
    assert (result.returncode, result.stderr) == (2, "epochlint: error: --out afile: not a folder\n")


def test_other_bad_arguments_are_one_line_before_any_spark(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for arguments, said in (
        (["--units-under", "empty"], "--units-under empty: no repository"),
        (["--file-timeout", "inf", "empty"], "--file-timeout: expected a positive, finite number of seconds"),
        (["--partitions", "many", "empty"], "--partitions: expected a positive whole number, got many"),
        (["--html", "missing/report.html", "empty"], "--html missing/report.html: cannot write in missing"),
    ):
        result = _run([*EPOCHLINT, "audit", *arguments], tmp_path)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith("epochlint: error: ") and said in result.stderr, result.stderr


@pytest.mark.slow
def test_an_interrupted_audit_resumes_with_the_facts_it_had_committed(tmp_path: Path) -> None:
    write(tmp_path / "unit", {f"pkg/consumer_{i:03}.py": slow_module(i) for i in range(FILES)})
    write(tmp_path / "unit", {"pkg/__init__.py": ""})
    command = [*EPOCHLINT, "audit", "unit", "--out", "out", "--partitions", str(FILES // 2)]
    interrupted = subprocess.Popen(
        command, cwd=tmp_path, env=_environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    _kill_once_facts_are_committed(interrupted, tmp_path / "out" / "facts")
    assert not (tmp_path / "out" / "files").exists(), "the run was not interrupted"

    resumed = _run([*command, "--resume", "--format", "json", "--html", "report.html"], tmp_path)
    assert resumed.returncode == 1, resumed.stderr[-3000:]  # findings
    files = _json_rows(tmp_path / "out" / "files")
    assert len(files) == FILES + 1 and {row["status"] for row in files} == {"ok"}
    cached = sum(1 for row in files if row["cached"])
    assert 1 <= cached < FILES + 1
    findings = _json_rows(tmp_path / "out" / "findings")
    assert len(findings) == FILES and all(row["chain"] for row in findings)

    assert f"discovered {FILES + 1} files = analysed {FILES + 1} + errored 0; {FILES} findings in" in resumed.stdout
    assert "epochlint audit: 1 unit " in resumed.stdout and "EPL001" in resumed.stdout
    for phase in ("list and hash files", "parse files", "analyse units"):
        assert phase in resumed.stderr
    report = (tmp_path / "report.html").read_text()
    assert report.count('<div class="finding"') == FILES and "<svg" in report and "batch loop" in report


@pytest.mark.slow
def test_the_audit_runs_under_spark_submit(tmp_path: Path) -> None:
    write(tmp_path / "unit", {"consumer.py": RACY_CONSUMER, "broken.py": "def f(:\n"})
    application = _run([sys.executable, "-m", "epochlint.audit.submit"], tmp_path).stdout.strip()
    result = _run(
        [str(SPARK_SUBMIT), "--master", "local[1]", application, "unit", "--out", "out", "--format", "json"], tmp_path
    )
    assert result.returncode == 1, result.stderr[-3000:]  # findings
    assert "discovered 2 files = analysed 1 + errored 1 (parse_error 1); 2 findings in" in result.stdout
    codes = sorted(row["code"] for row in _json_rows(tmp_path / "out" / "findings"))
    assert codes == ["EPL001", "EPL900"]
