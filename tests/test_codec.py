"""Facts survive the trip through bytes, and bad bytes are rejected instead of trusted."""

from __future__ import annotations

import pickle

import pytest

from epochlint.frontend import facts_from_source
from epochlint.frontend.codec import FactsDecodeError, decode, encode
from tests.conftest import FIXTURES


def test_facts_of_every_fixture_round_trip() -> None:
    for path in sorted(FIXTURES.rglob("*.py")):
        facts = facts_from_source(path.read_bytes())
        assert decode(encode(facts)) == facts, path


@pytest.mark.parametrize(
    "data",
    [b"", b"EPLF", b"EPLF\x01\x00\x00\x00garbage", b"XXXX\x01\x00\x00\x00" + pickle.dumps(1)],
)
def test_corrupted_bytes_are_rejected(data: bytes) -> None:
    with pytest.raises(FactsDecodeError):
        decode(data)


def test_truncated_entry_is_rejected() -> None:
    data = encode(facts_from_source(b"class C:\n    def f(self):\n        return self._epoch\n"))
    with pytest.raises(FactsDecodeError):
        decode(data[: len(data) // 2])


def test_entry_that_would_build_another_object_is_refused() -> None:
    header = encode(facts_from_source(b"x = 1\n"))[:8]
    hostile = header + pickle.dumps(print)
    with pytest.raises(FactsDecodeError, match="forbidden"):
        decode(hostile)
