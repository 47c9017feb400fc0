"""Does the local embedding model help the agents' docs search? BM25, dense, and both fused.

    python benchmarks/docs_search_ranking.py [--chars 200] [--misses]

Ranks this project's README and docs/ passages (the `search` tool's default corpus) for the
questions of `benchmarks/data/docs_search_dev.json`, a tuning set kept apart from the held-out
everyday_tuning.json, three ways:

- `bm25`: the tool's ranking (tools/search.py: BM25 over text and heading path);
- `dense`: cosine similarity of all-MiniLM-L6-v2 vectors (the `embeddings-local` extra) of the
  question and of each passage's heading path plus its first `--chars` characters;
- `rrf`: reciprocal rank fusion of the two, score = sum of 1 / (60 + rank) (Cormack, Clarke and
  Buettcher, SIGIR 2009, k = 60), dense weighted by `--dense-weight`.

Prints hit@1 and hit@3 per set and the seconds spent embedding the passages (with a progress
bar: on 2 cores that is minutes). The findings are in docs/agents/react_agent.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # graphs/ beside benchmarks/
from graphs.toolkit.search import PROJECT_ROOT, local_search
from graphs.toolkit.search._documents import Passage, passages
from open_langgraph.store_embeddings import load_local_embeddings

DATA = Path(__file__).parent / "data" / "docs_search_dev.json"
RRF_K = 60
DEPTH = 50


def corpus() -> list[Passage]:
    """The passages `local_search` indexes by default: README.md, then docs/ recursively."""
    files = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").rglob("*.md"))]
    found: list[Passage] = []
    for file in files:
        found.extend(passages(file, file.relative_to(PROJECT_ROOT).as_posix()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=200, help="passage text embedded")
    parser.add_argument("--dense-weight", type=float, default=1.0)
    parser.add_argument("--misses", action="store_true", help="print each question missed")
    args = parser.parse_args()
    questions = json.loads(DATA.read_text())
    every = corpus()
    key = {(p.url, p.content): i for i, p in enumerate(every)}
    model = load_local_embeddings("all-minilm-l6-v2")
    texts = [f"{' > '.join(p.headings) or p.title}\n{p.content[: args.chars]}" for p in every]
    began = time.monotonic()
    vectors = np.concatenate(
        [
            np.array(model.embed_documents(texts[start : start + 32]))
            for start in tqdm(range(0, len(texts), 32), desc="embedding passages", unit="batch")
        ]
    )
    embedding_seconds = time.monotonic() - began

    def bm25(question: str) -> list[int]:
        found = local_search(question, DEPTH)
        return [key[(r["url"], r["content"])] for r in found if (r["url"], r["content"]) in key]

    def dense(question: str) -> list[int]:
        scores = vectors @ np.array(model.embed_query(question))
        return [int(i) for i in np.argsort(-scores)[:DEPTH]]

    def fused(question: str) -> list[int]:
        scores: dict[int, float] = {}
        for ranking, weight in ((bm25(question), 1.0), (dense(question), args.dense_weight)):
            for rank, i in enumerate(ranking):
                scores[i] = scores.get(i, 0.0) + weight / (RRF_K + rank + 1)
        return sorted(scores, key=lambda i: -scores[i])

    rankers: dict[str, Callable[[str], list[int]]] = {"bm25": bm25, "dense": dense, "rrf": fused}
    print(f"{len(every)} passages embedded in {embedding_seconds:.1f} s ({args.chars} chars)")
    for name, rank in rankers.items():
        line = [name]
        for set_name, test in (
            ("paraphrased", lambda q, ids: any(q["section"] in every[i].url for i in ids)),
            ("keyword", lambda q, ids: any(q["phrase"] in every[i].content for i in ids)),
        ):
            at1 = at3 = 0
            for question in questions[set_name]:
                ids = rank(question["question"])
                at1 += test(question, ids[:1])
                at3 += test(question, ids[:3])
                if args.misses and not test(question, ids[:3]):
                    print(f"  {name} missed: {question['question']}")
            total = len(questions[set_name])
            line.append(f"{set_name} hit@1 {at1}/{total} hit@3 {at3}/{total}")
        print("  ".join(line))


if __name__ == "__main__":
    main()
