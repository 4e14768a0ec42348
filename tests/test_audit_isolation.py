"""The audit never runs the code it audits: a unit full of modules that would shadow the standard
library, the analysis's own libraries and Python's start-up hooks, audited from inside its own
folder, on an embedded Spark and on a cluster of executor processes. Each planted module writes a
marker when imported; none may be written, and the audit must still see every file and find what
`check` finds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from epochlint.audit.units import resolve_units  # noqa: E402
from epochlint.discovery import discover  # noqa: E402
from epochlint.engine import check  # noqa: E402
from tests.audit_support import write  # noqa: E402
from tests.conftest import KNOWN_CODES  # noqa: E402
from tests.test_cli import RACY_CONSUMER  # noqa: E402

EPOCHLINT_SCRIPT = Path(sys.executable).parent / "epochlint"
# Modules a Python worker, a parser child or the analysis imports, and start-up hooks.
SHADOWING_MODULES = (
    "threading.py", "socket.py", "json.py", "sitecustomize.py", "usercustomize.py", "conftest.py", "setup.py",
    "pyspark.py", "py4j/__init__.py", "libcst/__init__.py", "networkx/__init__.py", "rich/__init__.py",
    "epochlint/__init__.py", "epochlint/__main__.py",
)
TIMEOUT = 900


def _payload(markers: Path, name: str) -> str:
    return f"import os\nopen(os.path.join({str(markers)!r}, {name!r}), 'w').close()\n"


def planted_unit(top: Path) -> tuple[Path, Path]:
    """A unit whose every planted module, if imported, leaves a marker in the markers folder."""
    markers = top / "markers"
    markers.mkdir()
    unit = top / "unit"
    files: dict[str, str | bytes] = {name: _payload(markers, name.replace("/", ".")) for name in SHADOWING_MODULES}
    files["zz_planted.pth"] = "import os; " + _payload(markers, "pth").replace("\n", "; ")
    files["app/consumer.py"] = RACY_CONSUMER
    files["app/__init__.py"] = ""
    write(unit, files)
    return unit, markers


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=TIMEOUT)


def _json_rows(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for part in sorted(folder.glob("part-*.json")) for line in part.read_text().splitlines()]


def _check_findings(unit: Path) -> Counter[tuple[object, ...]]:
    (resolved,) = resolve_units([unit], None, None, KNOWN_CODES)
    assert resolved.config is not None
    findings = check([unit], resolved.config, use_cache=False).findings
    return Counter((f.location.path, f.location.line, f.code, f.message, f.fingerprint) for f in findings)


@pytest.mark.slow
@pytest.mark.parametrize("master", ["local[2]", "local-cluster[2,1,1024]"])
def test_an_audit_run_inside_the_unit_imports_nothing_of_it(tmp_path: Path, master: str) -> None:
    unit, markers = planted_unit(tmp_path)
    result = _run(
        [str(EPOCHLINT_SCRIPT), "audit", ".", "--master", master, "--out", str(tmp_path / "out"), "--format", "json"],
        unit,
    )
    assert sorted(os.listdir(markers)) == [], result.stderr[-3000:]
    assert result.returncode == 1, result.stderr[-3000:]  # findings, and every unit analysed

    files = _json_rows(tmp_path / "out" / "files")
    (resolved,) = resolve_units([unit], None, None, KNOWN_CODES)
    assert resolved.config is not None
    sources, problems = discover([unit], resolved.config)
    assert sorted(str(row["path"]) for row in files) == sorted([s.rel for s in sources] + [p.rel for p in problems])
    assert {row["status"] for row in files} == {"ok"}
    findings = Counter(
        (row["path"], row["line"], row["code"], row["message"], row["fingerprint"])
        for row in _json_rows(tmp_path / "out" / "findings")
    )
    assert findings == _check_findings(unit) and findings

    # Spark's own log went to a file under --out, not to the console.
    assert "NativeCodeLoader" not in result.stderr and "log4j" not in result.stderr.lower()
    assert (tmp_path / "out" / "logs" / "spark.log").is_file()


def test_check_by_its_console_script_or_python_p_imports_nothing_of_the_tree(tmp_path: Path) -> None:
    unit, markers = planted_unit(tmp_path)
    for command in ([str(EPOCHLINT_SCRIPT), "check", "."], [sys.executable, "-P", "-m", "epochlint", "check", "."]):
        result = _run(command, unit)
        assert result.returncode == 1 and "EPL001" in result.stdout, (command, result.stderr[-3000:])
        assert sorted(os.listdir(markers)) == [], command
