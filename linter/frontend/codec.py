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

from linter.frontend import facts as facts_module
from linter.frontend.facts import FACTS_FORMAT, FileFacts

_HEADER = struct.Struct("<4sI")
_MAGIC = b"EPLF"
_ALLOWED = frozenset(
    name
    for name, value in vars(facts_module).items()
    if isinstance(value, type) and dataclasses.is_dataclass(value)
)


class FactsDecodeError(ValueError):
    """The bytes are not facts of this format: stale, truncated or corrupted."""


class _FactsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        if module == facts_module.__name__ and name in _ALLOWED:
            return getattr(facts_module, name)  # type: ignore[no-any-return]
        raise FactsDecodeError(f"forbidden object in facts: {module}.{name}")


def encode(facts: FileFacts) -> bytes:
    return _HEADER.pack(_MAGIC, FACTS_FORMAT) + pickle.dumps(facts, protocol=5)


def decode(data: bytes) -> FileFacts:
    if len(data) < _HEADER.size:
        raise FactsDecodeError("truncated facts")
    magic, version = _HEADER.unpack_from(data)
    if magic != _MAGIC or version != FACTS_FORMAT:
        raise FactsDecodeError(f"facts format {version!r}, expected {FACTS_FORMAT}")
    try:
        result = _FactsUnpickler(io.BytesIO(data[_HEADER.size :])).load()
    except FactsDecodeError:
        raise
    except Exception as error:  # any corruption pickle can report: the entry is not trusted
        raise FactsDecodeError(f"malformed facts: {type(error).__name__}") from None
    if not isinstance(result, FileFacts):
        raise FactsDecodeError("malformed facts: not FileFacts")
    return result
