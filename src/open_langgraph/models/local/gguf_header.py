"""What a GGUF file says about the window its model was trained for and what a token costs.

The context window is chosen from the model itself (llama.cpp's `<arch>.context_length` and
the attention shape that sizes the KV cache), so a model that supports 32k tokens gets them
when memory allows instead of a number fixed in the catalogue. Only the header's key-value
section is read (a few MB at most, the tokenizer's vocabulary included); the tensors are not.

The format is the one llama.cpp documents in `docs/gguf.md` (ggml repository): magic `GGUF`,
version 2 or 3, tensor and key counts, then typed key-value pairs, little-endian throughout.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# Value type codes of GGUF's metadata (ggml's gguf_type).
_SCALARS: dict[int, str] = {
    0: "<B",  # uint8
    1: "<b",  # int8
    2: "<H",  # uint16
    3: "<h",  # int16
    4: "<I",  # uint32
    5: "<i",  # int32
    6: "<f",  # float32
    7: "<?",  # bool
    10: "<Q",  # uint64
    11: "<q",  # int64
    12: "<d",  # float64
}
_STRING = 8
_ARRAY = 9

#: Bytes of one cached key or value element: llama.cpp keeps the KV cache in f16 by default.
KV_ELEMENT_BYTES = 2


class GGUFHeaderError(ValueError):
    """The file is not a GGUF file this reader understands, or lacks the keys it needs."""


@dataclass(frozen=True, slots=True)
class ModelShape:
    """The facts of a model's header that size its context window."""

    architecture: str
    trained_context: int
    """Tokens the model was trained to attend over (`<arch>.context_length`)."""
    layers: int
    kv_heads: int
    head_dim: int

    @property
    def kv_bytes_per_token(self) -> int:
        """KV-cache bytes one token of context costs: a key and a value per layer and head."""
        return 2 * self.layers * self.kv_heads * self.head_dim * KV_ELEMENT_BYTES


def read_model_shape(path: Path) -> ModelShape:
    """The window and attention shape stored in a GGUF file's header.

    Raises:
        GGUFHeaderError: not GGUF, an unknown version or value type, or a needed key missing.
    """
    with path.open("rb") as file:
        metadata = _read_metadata(file)
    arch = metadata.get("general.architecture")
    if not isinstance(arch, str):
        raise GGUFHeaderError(f"{path.name}: no general.architecture in the GGUF header")

    def number(key: str, default: int | None = None) -> int:
        value = metadata.get(f"{arch}.{key}", default)
        if isinstance(value, list):  # per-layer counts (some architectures): the largest
            value = max(value, default=default)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise GGUFHeaderError(f"{path.name}: no usable {arch}.{key} in the GGUF header")
        return value

    heads = number("attention.head_count")
    embedding = number("embedding_length")
    return ModelShape(
        architecture=arch,
        trained_context=number("context_length"),
        layers=number("block_count"),
        kv_heads=number("attention.head_count_kv", heads),
        head_dim=number("attention.key_length", embedding // heads),
    )


def _read_metadata(file: IO[bytes]) -> dict[str, Any]:
    if file.read(4) != b"GGUF":
        raise GGUFHeaderError("not a GGUF file (no GGUF magic)")
    (version,) = _unpack(file, "<I")
    if version not in (2, 3):
        raise GGUFHeaderError(f"GGUF version {version} is not supported (2 and 3 are)")
    _tensors, keys = _unpack(file, "<QQ")
    metadata: dict[str, Any] = {}
    for _ in range(keys):
        key = _read_string(file)
        (kind,) = _unpack(file, "<I")
        metadata[key] = _read_value(file, kind, keep=not key.startswith("tokenizer."))
    return metadata


def _read_value(file: IO[bytes], kind: int, *, keep: bool) -> Any:
    """One value; arrays that are not kept (the vocabulary) are skipped, not built."""
    if kind in _SCALARS:
        return _unpack(file, _SCALARS[kind])[0]
    if kind == _STRING:
        return _read_string(file)
    if kind == _ARRAY:
        item_kind, count = _unpack(file, "<IQ")
        if item_kind in _SCALARS and not keep:
            file.seek(struct.calcsize(_SCALARS[item_kind]) * count, 1)
            return None
        if item_kind == _STRING and not keep:
            for _ in range(count):
                file.seek(_unpack(file, "<Q")[0], 1)
            return None
        items = [_read_value(file, item_kind, keep=keep) for _ in range(count)]
        return items if keep else None
    raise GGUFHeaderError(f"unknown GGUF value type {kind}")


def _read_string(file: IO[bytes]) -> str:
    (length,) = _unpack(file, "<Q")
    return file.read(length).decode("utf-8", errors="replace")


def _unpack(file: IO[bytes], layout: str) -> tuple[Any, ...]:
    size = struct.calcsize(layout)
    chunk = file.read(size)
    if len(chunk) != size:
        raise GGUFHeaderError("the GGUF header ends early")
    return struct.unpack(layout, chunk)
