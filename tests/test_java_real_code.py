"""The seeds' bugs in the Java code where they shipped (Apache Pulsar and Apache Kafka sources kept
beside the checkout in `shared/data/java`), found by the Java frontend; and gone once fixed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from epochlint.findings import Finding
from epochlint.frontend.java import available as java_frontend_available
from tests.conftest import run_check

# `shared/` sits beside the checkout (`parents[2]`); a checkout kept one folder deeper finds it too.
JAVA_DATA = next(
    (
        folder / "shared" / "data" / "java"
        for folder in Path(__file__).resolve().parents[2:4]
        if (folder / "shared" / "data" / "java").is_dir()
    ),
    Path(__file__).resolve().parents[2] / "shared" / "data" / "java",
)
PULSAR_IMPL = "org/apache/pulsar/client/impl"
KAFKA_INTERNALS = "org/apache/kafka/clients/consumer/internals"

NO_DATA = "the shared Java sources (shared/data/java) are not beside the checkout"
NO_FRONTEND = "the Java frontend is not installed: pip install 'epochlint[java]'"
pytestmark = [
    pytest.mark.skipif(not JAVA_DATA.is_dir(), reason=NO_DATA),
    pytest.mark.skipif(not java_frontend_available(), reason=NO_FRONTEND),
]


def _copy(tree: str, tmp_path: Path) -> Path:
    target = tmp_path / tree
    shutil.copytree(JAVA_DATA / tree, target)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'java-sample'\n")
    return target


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} is not once in {path.name}"
    path.write_text(text.replace(old, new))


def _line_of(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, start=1) if text in line)


def _where(finding: Finding) -> tuple[str, int, str]:
    return (finding.location.path.rsplit("/", 1)[-1], finding.location.line, finding.code)


# -- Pulsar #25204 ------------------------------------------------------------------------------------


def test_pulsar_epoch_checked_per_message_in_for_each_without_the_lock(tmp_path: Path) -> None:
    pulsar = _copy("pulsar", tmp_path)
    result = run_check(pulsar)
    epl001 = [f for f in result.findings if f.code == "EPL001"]
    # The second: see test_pulsar_sub_consumers_share_their_parents_fields.
    assert [_where(f) for f in epl001] == [
        ("MultiTopicsConsumerImpl.java", 260, "EPL001"),
        ("MultiTopicsConsumerImpl.java", 716, "EPL001"),
    ]
    finding = epl001[0]
    assert "ConsumerBase.consumerEpoch" in finding.message and "incomingQueueLock" in finding.message
    related = {(r.location.path.rsplit("/", 1)[-1], r.location.line) for r in finding.related}
    # The read of the epoch in isValidConsumerEpoch (`CONSUMER_EPOCH.get(this)`), and the guarded
    # bumps in both redeliverUnacknowledgedMessages (`CONSUMER_EPOCH.incrementAndGet(this)`).
    assert ("ConsumerBase.java", 1271) in related
    assert ("MultiTopicsConsumerImpl.java", 682) in related
    assert ("ConsumerImpl.java", 2039) in related
    # The chain: the loop, the call of isValidConsumerEpoch in it, the read there.
    assert [(step.location.path.rsplit("/", 1)[-1], step.location.line) for step in finding.chain] == [
        ("MultiTopicsConsumerImpl.java", 260),
        ("MultiTopicsConsumerImpl.java", 262),
        ("ConsumerBase.java", 1271),
    ]
    assert finding.chain[-1].function.endswith("ConsumerBase.isValidConsumerEpoch")


def test_pulsar_reports_nothing_but_the_batch_loop_and_public_seeks_without_a_bump(tmp_path: Path) -> None:
    """Every other finding but the lock-order one (see the test after this) is EPL005 on a public
    `seek`/`seekAsync` that never bumps the consumer epoch: what the seek-epoch proposal asks for,
    and what these files do not do (they pause delivery with `duringSeek` instead). Private helpers
    and the redeliver overloads that delegate to the bumping one are not reported."""
    result = run_check(_copy("pulsar", tmp_path))
    others = [f for f in result.findings if f.code not in ("EPL001", "EPL009")]
    assert {f.code for f in others} == {"EPL005"}
    # An overloaded method is named with its parameters: `ConsumerImpl.seek(timestamp)`.
    assert all(f.function.split("(")[0].rsplit(".", 1)[-1] in ("seek", "seekAsync") for f in others)
    assert not any("redeliver" in f.function or "Internal" in f.function for f in others)


def test_pulsar_sub_consumers_share_their_parents_fields(tmp_path: Path) -> None:
    """`consumers` is declared a `ConcurrentHashMap<String, ConsumerImpl<T>>`: its elements are
    `ConsumerImpl`s, and a field's identity is its defining class (RULES.md, Shared location), so a
    sub-consumer's `incomingQueueLock`, monitor and epoch are the multi-topics consumer's own, both
    being `ConsumerBase`'s. Redelivering the messages of each topic group reads the epoch after the
    sub-consumer's redeliver releases that lock (EPL001), and the parent's redeliver takes a
    sub-consumer's monitor holding the lock that the sub-consumer takes inside its monitor (EPL009)."""
    pulsar = _copy("pulsar", tmp_path)
    multi = pulsar / PULSAR_IMPL / "MultiTopicsConsumerImpl.java"
    consumer = pulsar / PULSAR_IMPL / "ConsumerImpl.java"
    result = run_check(pulsar)
    grouped = next(f for f in result.findings if _where(f) == ("MultiTopicsConsumerImpl.java", 716, "EPL001"))
    assert [(step.location.path.rsplit("/", 1)[-1], step.location.line) for step in grouped.chain] == [
        ("MultiTopicsConsumerImpl.java", 716),
        ("MultiTopicsConsumerImpl.java", _line_of(multi, "consumers.get(topicName).redeliverUnacknowledgedMessages")),
        ("ConsumerImpl.java", _line_of(consumer, "// We cannot redeliver single messages") + 1),
        ("ConsumerImpl.java", _line_of(consumer, "consumerId, CONSUMER_EPOCH.get(this)")),
    ]
    (cycle,) = [f for f in result.findings if f.code == "EPL009"]
    assert _where(cycle) == ("ConsumerImpl.java", _line_of(consumer, "// prevent use old cnx to send") + 1, "EPL009")
    assert "`ConsumerBase.incomingQueueLock` -> `ConsumerBase.this`" in cycle.message


def test_pulsar_fix_holding_incoming_queue_lock_around_the_batch(tmp_path: Path) -> None:
    pulsar = _copy("pulsar", tmp_path)
    source = pulsar / PULSAR_IMPL / "MultiTopicsConsumerImpl.java"
    text = source.read_text()
    start = text.index("            messages.forEach(msg -> {")
    end = text.index("            });\n", start) + len("            });\n")
    source.write_text(
        text[:start]
        + "            incomingQueueLock.lock();\n            try {\n"
        + text[start:end]
        + "            } finally {\n                incomingQueueLock.unlock();\n            }\n"
        + text[end:]
    )
    findings = run_check(pulsar).findings
    # The batch holds the lock; enqueueMessageAndCheckBatchReceive takes it again, but it is a
    # ReentrantLock: no self-deadlock.
    assert not [f for f in findings if f.code == "EPL001" and f.function.endswith(".receiveMessageFromConsumer")]
    assert "EPL008" not in {f.code for f in findings}


# -- KAFKA-19902 ----------------------------------------------------------------------------------------


def test_kafka_commit_of_the_consumed_offset_epoch_and_the_carried_leader(tmp_path: Path) -> None:
    kafka = _copy("kafka", tmp_path)
    internals = kafka / KAFKA_INTERNALS
    coordinator = internals / "ConsumerCoordinator.java"
    found = sorted(_where(f) for f in run_check(kafka).findings)
    assert found == sorted(
        [
            # allConsumed() commits `position.offsetEpoch`, auto-committed by both paths.
            ("ConsumerCoordinator.java", _line_of(coordinator, "(!commitOffsetsSync(allConsumedOffsets"), "EPL003"),
            (
                "ConsumerCoordinator.java",
                _line_of(coordinator, "return commitOffsetsAsync(allConsumedOffsets"),
                "EPL003",
            ),
            # FetchCollector advances the position with `position.currentLeader`.
            ("FetchCollector.java", 183, "EPL007"),
            # The truncation path builds the position at the truncation offset with the old leader.
            ("SubscriptionState.java", 519, "EPL007"),
        ]
    )


def _apply_kafka_19902_fix(internals: Path) -> None:
    """The analysis's fix: commit the current leader's epoch; take the leader from metadata."""
    subscription_state = internals / "SubscriptionState.java"
    _replace(
        subscription_state,
        "partitionState.position.offsetEpoch, \"\"));",
        "partitionState.position.currentLeader.epoch, \"\"));",
    )
    _replace(subscription_state, "currentPosition.currentLeader);", "metadata.currentLeader(tp));")
    _replace(internals / "FetchCollector.java", "position.currentLeader);", "metadata.currentLeader(tp));")


def test_kafka_fixed_files_report_nothing(tmp_path: Path) -> None:
    kafka = _copy("kafka", tmp_path)
    _apply_kafka_19902_fix(kafka / KAFKA_INTERNALS)
    assert run_check(kafka).findings == ()


def test_kafka_bug_reintroduced_in_a_fixed_copy_is_reported_again(tmp_path: Path) -> None:
    kafka = _copy("kafka", tmp_path)
    internals = kafka / KAFKA_INTERNALS
    _apply_kafka_19902_fix(internals)
    _replace(internals / "FetchCollector.java", "metadata.currentLeader(tp));", "position.currentLeader);")
    assert [_where(f) for f in run_check(kafka).findings] == [("FetchCollector.java", 183, "EPL007")]
    _replace(
        internals / "SubscriptionState.java",
        "partitionState.position.currentLeader.epoch, \"\"));",
        "partitionState.position.offsetEpoch, \"\"));",
    )
    assert sorted({_where(f)[2] for f in run_check(kafka).findings}) == ["EPL003", "EPL007"]
