"""Helpers of the Spark tests: a tree of several units, and the comparison with `check`."""

from __future__ import annotations

import os
import signal
from collections import Counter
from pathlib import Path

from epochlint.audit.job import AuditRequest, read_table
from epochlint.audit.units import Unit, resolve_units
from epochlint.config import Config
from epochlint.discovery import discover
from epochlint.engine import check
from tests.conftest import KNOWN_CODES
from tests.test_cli import RACY_CONSUMER

# A consumer whose batch loop reaches the epoch through another module: a chain across files.
HANDLER = """\
from app.state import State


class Handler:
    def __init__(self, state: State):
        self.state = state

    def handle(self, batch):
        for message in batch:
            if self.state.is_current(message):
                print(message)
"""
STATE = """\
import threading


class State:
    def __init__(self):
        self._lock = threading.Lock()
        self._epoch = 0

    def bump(self):
        with self._lock:
            self._epoch += 1

    def is_current(self, message):
        return message.epoch == self._epoch
"""


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def multi_unit_tree(top: Path) -> Path:
    """Repositories of every kind an audit meets, under `top/repos`."""
    repos = top / "repos"
    write(repos / "kafka_app", {
        "pyproject.toml": "[project]\nname = 'kafka-app'\n",
        "app/__init__.py": "",
        "app/handler.py": HANDLER,
        "app/state.py": STATE,
        "app/consumer.py": RACY_CONSUMER,
        "app/broken.py": "def f(:\n",
    })
    # The same contents again: their facts are shared by hash, their findings are this unit's.
    write(repos / "fork", {".git/HEAD": "ref: refs/heads/main\n", "app/__init__.py": "", "app/handler.py": HANDLER,
                           "app/state.py": STATE})
    write(repos / "group/limits", {
        "pyproject.toml": "[tool.epochlint]\nmax-file-size = 2000\n",
        "big.py": "x = 1\n" * 500,
        "consumer.py": RACY_CONSUMER.replace("self._epoch", "self._term").replace("epoch", "term"),
        "latin.py": b"# -*- coding: latin-1 -*-\ns = '\xe9'\n",
    })
    write(repos / "group/empty", {"setup.py": ""})
    write(repos / "bad_settings", {"pyproject.toml": "[tool.epochlint]\nselect = 'EPL001'\n", "a.py": "x = 1\n"})
    return repos


def slow_module(index: int) -> str:
    """A consumer with a finding, and enough other code that parsing it takes a noticeable moment."""
    filler = "".join(
        f"\n\ndef helper_{index}_{n}(items, scale={n}):\n"
        f"    total = 0\n    for item in items:\n        if item % {n + 2} == 0:\n"
        f"            total += item * scale\n        else:\n            total -= len(str(item))\n    return total\n"
        for n in range(30)
    )
    return RACY_CONSUMER.replace("class Consumer", f"class Consumer{index}") + filler


def units_under(repos: Path) -> list[Unit]:
    return resolve_units([], None, repos, KNOWN_CODES)


def findings_by_unit_from_check(units: list[Unit]) -> dict[str, Counter[tuple[object, ...]]]:
    result: dict[str, Counter[tuple[object, ...]]] = {}
    for unit in units:
        if unit.config is None:
            continue
        findings = check([Path(unit.root)], unit.config, use_cache=False).findings
        result[unit.name] = Counter(
            (f.location.path, f.location.line, f.location.column, f.location.end_line, f.location.end_column,
             f.code, f.message, f.function, f.fingerprint,
             tuple((s.location.path, s.location.line, s.location.column, s.function, s.message) for s in f.chain))
            for f in findings
        )
    return result


def findings_by_unit_from_audit(spark: object, request: AuditRequest) -> dict[str, Counter[tuple[object, ...]]]:
    result: dict[str, Counter[tuple[object, ...]]] = {
        unit.name: Counter() for unit in request.units if unit.config is not None
    }
    for row in read_table(spark, request, "findings").collect():  # type: ignore[arg-type]
        result[row["unit"]][(
            row["path"], row["line"], row["column"], row["end_line"], row["end_column"], row["code"],
            row["message"], row["function"], row["fingerprint"],
            tuple((s["path"], s["line"], s["column"], s["function"], s["message"]) for s in row["chain"]),
        )] += 1
    return result


def files_by_unit_from_discovery(units: list[Unit]) -> dict[str, list[str]]:
    """Each unit's files; a unit whose settings are invalid has the files the defaults find."""
    result: dict[str, list[str]] = {}
    for unit in units:
        if not os.path.isdir(unit.root):
            continue
        sources, problems = discover([Path(unit.root)], unit.config or Config(root=Path(unit.root)))
        result[unit.name] = sorted([s.rel for s in sources] + [p.rel for p in problems])
    return result


def files_by_unit_from_audit(spark: object, request: AuditRequest) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {unit.name: [] for unit in request.units if os.path.isdir(unit.root)}
    for row in read_table(spark, request, "files").collect():  # type: ignore[arg-type]
        result[row["unit"]].append(row["path"])
    return {unit: sorted(paths) for unit, paths in result.items()}


def executor_pids(application_id: str) -> list[int]:
    """The executor JVMs of a Spark application on this machine."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"org.apache.spark.executor.CoarseGrainedExecutorBackend" in command and application_id.encode() in command:
            found.append(int(entry))
    return sorted(found)


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
