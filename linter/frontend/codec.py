"""FileFacts to bytes and back, for the cache and for shipping facts between processes.

Pickle is the fast path (C on both sides), restricted on load to the facts' own dataclasses: a
tampered cache file cannot make the loader build anything else, so it cannot run code. A format
number in front rejects facts written by another version of the frontend.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
import struct
from collections.abc import Mapping
from types import ModuleType

from epochlint.frontend import facts as facts_module
from epochlint.frontend.facts import FACTS_FORMAT, FileFacts

_HEADER = struct.Struct("<4sI")
_MAGIC = b"EPLF"
class FactsDecodeError(ValueError):
    """The bytes are not facts of this format: stale, truncated or corrupted."""


class _RestrictedUnpickler(pickle.Unpickler):
    """Builds only the classes named in `allowed` (module -> class names), nothing else."""

    def __init__(self, data: bytes, allowed: Mapping[str, frozenset[str]]) -> None:
        super().__init__(io.BytesIO(data))
        self._allowed = allowed

    def find_class(self, module: str, name: str) -> type:
        if name in self._allowed.get(module, ()):
            return super().find_class(module, name)  # type: ignore[no-any-return]
        raise FactsDecodeError(f"forbidden object: {module}.{name}")


def restricted_loads(data: bytes, allowed: Mapping[str, frozenset[str]]) -> object:
    """Unpickle `data`, allowing only the classes in `allowed`; any failure is FactsDecodeError."""
    try:
        return _RestrictedUnpickler(data, allowed).load()
    except FactsDecodeError:
        raise
    except Exception as error:  # any corruption pickle can report: the entry is not trusted
        raise FactsDecodeError(f"malformed data: {type(error).__name__}") from None


def record_classes_of(module: ModuleType) -> frozenset[str]:
    """The names of the dataclasses and named tuples defined in `module`."""
    return frozenset(
        name
        for name, value in vars(module).items()
        if isinstance(value, type)
        and (dataclasses.is_dataclass(value) or (issubclass(value, tuple) and hasattr(value, "_fields")))
    )


_ALLOWED = {facts_module.__name__: record_classes_of(facts_module)}


def encode(facts: FileFacts) -> bytes:
    return _HEADER.pack(_MAGIC, FACTS_FORMAT) + pickle.dumps(facts, protocol=5)


def decode(data: bytes) -> FileFacts:
    result = _decoded(data)
    if not isinstance(result, FileFacts):
        raise FactsDecodeError("malformed facts: not FileFacts")
    return result


def encode_by_key(facts: Mapping[str, FileFacts]) -> bytes:
    """Facts of several files, each under a key, as one entry."""
    return _HEADER.pack(_MAGIC, FACTS_FORMAT) + pickle.dumps(dict(facts), protocol=5)


def decode_by_key(data: bytes) -> dict[str, FileFacts]:
    result = _decoded(data)
    if not isinstance(result, dict) or not all(
        isinstance(key, str) and isinstance(facts, FileFacts) for key, facts in result.items()
    ):
        raise FactsDecodeError("malformed facts: not FileFacts by key")
    return result


def _decoded(data: bytes) -> object:
    if len(data) < _HEADER.size:
        raise FactsDecodeError("truncated facts")
    magic, version = _HEADER.unpack_from(data)
    if magic != _MAGIC or version != FACTS_FORMAT:
        raise FactsDecodeError(f"facts format {version!r}, expected {FACTS_FORMAT}")
    return restricted_loads(data[_HEADER.size :], _ALLOWED)
