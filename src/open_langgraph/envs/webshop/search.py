"""BM25 product search with the original's Lucene setup.

The original searched a pyserini (Lucene) index with BM25 k1=0.9, b=0.4 and Lucene's English
analysis (see :mod:`.lucene`). Scoring uses ``bm25s`` in its Lucene variant,

    score(q, d) = sum_t idf(t) * tf(t, d) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)),

with one change: |d| is Lucene's one-byte quantised length (avgdl stays exact, as in Lucene),
so scores match the original index to float precision. Equal scores rank by ascending id, as
pyserini's tie-breaking does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import bm25s
import numpy as np
from bm25s import scoring

from open_langgraph.envs.webshop.lucene import EnglishAnalyzer, quantized_length

K1 = 0.9
B = 0.4


class _LuceneLengthBM25(bm25s.BM25):  # type: ignore[misc]  # bm25s ships no type hints
    """bm25s's Lucene BM25, fed Lucene's quantised document lengths.

    ``build_index_from_ids`` is bm25s's documented extension point for building the index
    differently; this one differs from the stock build only in the length each document's
    term scores are normalised by.
    """

    def build_index_from_ids(
        self,
        unique_token_ids: list[int],
        corpus_token_ids: list[list[int]],
        show_progress: bool = False,
        leave_progress: bool = False,
    ) -> dict[str, object]:
        n_docs, n_vocab = len(corpus_token_ids), len(unique_token_ids)
        avg_len = float(np.mean([len(doc) for doc in corpus_token_ids])) if n_docs else 1.0
        doc_freqs = scoring._calculate_doc_freqs(
            corpus_token_ids, unique_token_ids, show_progress=False
        )
        idf = scoring._build_idf_array(
            doc_freqs, n_docs, compute_idf_fn=scoring._score_idf_lucene, dtype=self.dtype
        )
        self.nonoccurrence_array = None
        data, rows, cols = [], [], []
        for doc, token_ids in enumerate(corpus_token_ids):
            counts = Counter(token_ids)
            term_ids = np.fromiter(counts.keys(), dtype=self.int_dtype, count=len(counts))
            tf = np.fromiter(counts.values(), dtype=self.dtype, count=len(counts))
            tfc = scoring._score_tfc_lucene(
                tf, l_d=quantized_length(len(token_ids)), l_avg=avg_len, k1=self.k1, b=self.b
            )
            data.append((idf[term_ids] * tfc).astype(self.dtype))
            rows.append(np.full(len(counts), doc, dtype=self.int_dtype))
            cols.append(term_ids)
        if not data:
            data, rows, cols = [np.empty(0, self.dtype)], [np.empty(0, int)], [np.empty(0, int)]
        values, indices, indptr = self._np_csc(
            data=np.concatenate(data),
            rows=np.concatenate(rows),
            cols=np.concatenate(cols),
            shape=(n_docs, n_vocab),
        )
        return {
            "data": values.astype(self.dtype),
            "indices": indices,
            "indptr": indptr,
            "num_docs": n_docs,
        }


class SearchIndex:
    """A BM25 index over a catalog's search texts.

    Args:
        contents: the search text of each document, in index order.
        ids: the id (ASIN) of each document, aligned with ``contents``.
    """

    def __init__(self, contents: Sequence[str], ids: Sequence[str]) -> None:
        self.ids = list(ids)
        self.analyzer = EnglishAnalyzer()
        # Rank of each id in string order, the tie-breaker for equal scores.
        self._id_rank = np.argsort(np.argsort(np.array(self.ids, dtype=object)))
        self._bm25 = _LuceneLengthBM25(k1=K1, b=B, method="lucene", csc_backend="numpy")
        self._bm25.index([self.analyzer(text) for text in contents], show_progress=False)

    def search(self, query: str, k: int = 50) -> list[tuple[str, float]]:
        """The ``k`` best documents for ``query`` as (id, score), best first.

        Only documents sharing a term with the query are returned, as with Lucene. Repeated
        query terms count once per repeat, like pyserini's bag-of-words query.
        """
        term_ids = self._bm25.get_tokens_ids(self.analyzer(query))
        if not term_ids:
            return []
        scores = self._bm25.get_scores_from_ids(term_ids)
        matching = np.flatnonzero(scores > 0)
        if matching.size > k:
            cut = np.partition(scores[matching], matching.size - k)[matching.size - k]
            matching = matching[scores[matching] >= cut]
        order = np.lexsort((self._id_rank[matching], -scores[matching]))[:k]
        return [(self.ids[i], float(scores[i])) for i in matching[order]]
