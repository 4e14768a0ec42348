"""The lock-order graph and its export: `epochlint graph locks PATH --format json|dot`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from epochlint.cli import EXIT_CLEAN, EXIT_USAGE, main
from epochlint.frontend.java import available as java_frontend_available
from tests.conftest import FIXTURES

PULSAR = FIXTURES / "EPL001" / "pulsar"
BASE = "pulsar.consumer_base.ConsumerBase"

INVERSION = """\
import threading


class Consumer:
    def __init__(self):
        self._consumer_lock = threading.Lock()
        self._queue_lock = threading.RLock()
        self._epoch = 0

    def _enqueue(self, message):
        with self._consumer_lock:
            pass

    def redeliver(self):
        with self._consumer_lock:
            with self._queue_lock:
                self._epoch += 1

    def on_message(self, message):
        with self._queue_lock:
            self._enqueue(message)

    def later(self, executor):
        with self._queue_lock:
            executor.submit(self._enqueue, None)
"""


def lock_graph(capsys: pytest.CaptureFixture[str], path: Path, fmt: str = "json") -> str:
    assert main(["graph", "locks", str(path), "--format", fmt]) == EXIT_CLEAN
    return capsys.readouterr().out


def by_id(items: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {item[key]: item for item in items}


def test_pulsar_port_shows_the_incoming_queue_lock_guarding_the_consumer_epoch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    graph = json.loads(lock_graph(capsys, PULSAR))
    guards = by_id(graph["guards"], "field")
    assert guards[f"{BASE}.consumer_epoch"]["guards"] == [f"{BASE}.incoming_queue_lock"]
    assert guards[f"{BASE}.consumer_epoch"]["name"] == "ConsumerBase.consumer_epoch"
    locks = by_id(graph["locks"], "id")
    assert locks[f"{BASE}.incoming_queue_lock"]["kind"] == "reentrant"


def test_pulsar_port_redeliver_takes_the_sub_consumer_locks_through_a_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    graph = json.loads(lock_graph(capsys, PULSAR))
    edges = {(edge["from"], edge["to"]): edge for edge in graph["edges"]}
    through_call = edges[(f"{BASE}.incoming_queue_lock", "pulsar.consumer_impl.ConsumerImpl._lock")]
    [site] = through_call["sites"]
    assert site["path"] == "fixtures/EPL001/pulsar/consumer_impl.py"
    assert site["held_at"]["path"] == "fixtures/EPL001/pulsar/multi_topics_consumer.py"
    assert [step["calls"] for step in site["chain"]] == [
        "pulsar.consumer_impl.ConsumerImpl.redeliver_unacknowledged_messages"
    ]


def test_inversion_cycle_has_both_edges_with_their_sites_and_chains(
    capsys: pytest.CaptureFixture[str], write_tree: Any
) -> None:
    root = write_tree({"consumer.py": INVERSION})
    graph = json.loads(lock_graph(capsys, root))
    consumer_lock, queue_lock = "consumer.Consumer._consumer_lock", "consumer.Consumer._queue_lock"
    edges = {(edge["from"], edge["to"]): edge["sites"] for edge in graph["edges"]}
    assert set(edges) == {(consumer_lock, queue_lock), (queue_lock, consumer_lock)}
    [direct] = edges[(consumer_lock, queue_lock)]
    assert (direct["line"], direct["held_at"]["line"], direct["chain"]) == (16, 15, [])
    [through] = edges[(queue_lock, consumer_lock)]
    assert (through["line"], through["held_at"]["line"]) == (11, 20)
    assert [(step["line"], step["calls"]) for step in through["chain"]] == [
        (21, "consumer.Consumer._enqueue")
    ]
    locks = by_id(graph["locks"], "id")
    assert (locks[consumer_lock]["kind"], locks[queue_lock]["kind"]) == ("non-reentrant", "reentrant")
    assert by_id(graph["guards"], "field")["consumer.Consumer._epoch"]["guards"] == [
        consumer_lock,
        queue_lock,
    ]


def test_dot_export_draws_lock_edges_and_guards(
    capsys: pytest.CaptureFixture[str], write_tree: Any
) -> None:
    dot = lock_graph(capsys, write_tree({"consumer.py": INVERSION}), "dot")
    assert dot.startswith("digraph locks {") and dot.rstrip().endswith("}")
    assert '"consumer.Consumer._consumer_lock" -> "consumer.Consumer._queue_lock"' in dot
    assert '"consumer.Consumer._queue_lock" -> "consumer.Consumer._consumer_lock"' in dot
    assert '"consumer.Consumer._epoch" -> "consumer.Consumer._queue_lock" [style=dotted' in dot


def test_lock_graph_has_no_pycg_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["graph", "locks", str(PULSAR), "--format", "pycg"])
    assert exited.value.code == EXIT_USAGE
    assert "invalid choice: 'pycg' (choose from 'json', 'dot')" in capsys.readouterr().err


@pytest.mark.skipif(not java_frontend_available(), reason="the Java frontend is not installed")
def test_java_files_are_graphed_by_their_own_frontend(capsys: pytest.CaptureFixture[str]) -> None:
    # They were parsed as Python: nothing in the graph, and not a word of it.
    graph = json.loads(lock_graph(capsys, FIXTURES / "java" / "EPL009"))
    edges = {(edge["from"], edge["to"]) for edge in graph["edges"]}
    registry = "fixtures.epl009.Registry.Registry"
    assert {
        (f"{registry}.class.<monitor>", f"{registry}.<monitor>"),
        (f"{registry}.<monitor>", f"{registry}.class.<monitor>"),
    } <= edges
    names = {lock["name"] for lock in graph["locks"]}
    assert {"Registry.class", "Registry.this", "Metadata.this"} <= names and "ProducerMetadata.this" not in names


def test_a_file_left_out_of_the_graph_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", "calls", str(FIXTURES / "EPL900")]) == EXIT_CLEAN
    err = capsys.readouterr().err
    assert "fixtures/EPL900/truncated.py: not in the graph: syntax error at line 7" in err
