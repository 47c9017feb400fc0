"""WebShop environment benchmark: step latency, index build time and memory.

Measures, on the 1k catalog of data/webshop (or --data):

* p50/p95 latency of ``search[...]`` steps (BM25 over the catalog + the results page) and of
  ``click[...]`` steps (product, option, sub-page, back), targets < 5 ms and < 1 ms;
* index build time and resident memory;

then the same search and index figures on a synthetic catalog made by perturbing the 1k one
(default 100,000 products), with a linear extrapolation to the full 1.18M catalog.

    .venv/bin/python benchmarks/webshop_env.py [--size 100000] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from open_langgraph.envs.webshop import WebShopEnv, load_catalog
from open_langgraph.envs.webshop.catalog import Catalog
from open_langgraph.envs.webshop.search import SearchIndex
from open_langgraph.envs.webshop.session import Shop, ShopSession

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / "data" / "webshop"
FULL_CATALOG = 1_181_436


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _percentiles(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    if not ms:
        return {"n": 0}
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 4),
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 4),
    }


def bench_steps(env: WebShopEnv, episodes: int) -> dict[str, Any]:
    """Search and click step latencies over ``episodes`` scripted episodes."""
    search_t: list[float] = []
    click_t: list[float] = []
    for session in range(episodes):
        env.reset(session=session)
        goal = env.goal
        start = time.perf_counter()
        env.step(f"search[{goal['instruction_text'].split(', and price')[0]}]")
        search_t.append(time.perf_counter() - start)
        clicks = ["next >", "< prev", goal["asin"].lower(), "description", "< prev"]
        clicks += [str(v) for v in goal["goal_options"].values()] + ["features", "< prev"]
        for target in clicks:
            if target not in env.get_available_actions()["clickables"]:
                continue
            start = time.perf_counter()
            env.step(f"click[{target}]")
            click_t.append(time.perf_counter() - start)
    return {"search_step": _percentiles(search_t), "click_step": _percentiles(click_t)}


def perturbed_catalog(base: Catalog, size: int, seed: int = 0) -> Catalog:
    """``size`` products made from the base ones: new ASINs, and each copy's search text with
    a tenth of its words dropped and a few words from elsewhere in the catalog added."""
    rng = random.Random(seed)
    vocabulary = sorted({w for text in base.contents[:200] for w in text.split()})
    products, contents = [], []
    for i in range(size):
        source = i % len(base)
        product = dict(base.products[source], asin=f"S{i:09d}")
        words = [w for w in base.contents[source].split() if rng.random() > 0.1]
        words += rng.sample(vocabulary, 3)
        products.append(product)
        contents.append(" ".join(words))
    return Catalog(products, contents, source=f"perturbed x{size}")


def bench_index(catalog: Catalog, queries: list[str]) -> dict[str, Any]:
    """Index build time/memory and raw search latency over ``catalog``."""
    gc.collect()
    before = _rss_mb()
    start = time.perf_counter()
    index = SearchIndex(catalog.contents, [p["asin"] for p in catalog.products])
    build_s = time.perf_counter() - start
    gc.collect()
    memory = _rss_mb() - before
    shop = Shop(catalog, index, {p["asin"]: 10.0 for p in catalog.products})
    session = ShopSession(shop, "0", {"instruction_text": "benchmark"})
    times = []
    for query in queries:
        start = time.perf_counter()
        session.search(query)
        times.append(time.perf_counter() - start)
    return {
        "products": len(catalog),
        "index_build_s": round(build_s, 2),
        "index_rss_mb": round(memory, 1),
        "search_step": _percentiles(times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="1k catalog directory")
    parser.add_argument("--size", type=int, default=100_000, help="perturbed catalog size")
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args()

    catalog = load_catalog(args.data)
    results: dict[str, Any] = {"catalog_1k": bench_index(catalog, [])}
    del results["catalog_1k"]["search_step"]  # measured below as env steps
    start = time.perf_counter()
    env = WebShopEnv(catalog, goals="synthetic")
    results["catalog_1k"]["env_init_s"] = round(time.perf_counter() - start, 2)
    results["catalog_1k"].update(bench_steps(env, args.episodes))

    queries = [g["instruction_text"].split(", and price")[0].lower() for g in env.goals[:200]]
    big = perturbed_catalog(catalog, args.size)
    results[f"perturbed_{args.size}"] = big_result = bench_index(big, queries)
    scale = FULL_CATALOG / args.size
    # Search time = fixed per-step cost + a part growing with the posting lists: fit the line
    # through the 1k and the perturbed catalog and read it at 1.18M.
    small_ms = results["catalog_1k"]["search_step"]["p50_ms"]
    big_ms = big_result["search_step"]["p50_ms"]
    per_product = (big_ms - small_ms) / (args.size - len(catalog))
    results["extrapolated_1.18M"] = {
        "index_build_s": round(big_result["index_build_s"] * scale, 1),
        "index_rss_mb": round(big_result["index_rss_mb"] * scale, 1),
        "search_step_p50_ms": round(small_ms + per_product * (FULL_CATALOG - len(catalog)), 2),
        "note": "build time and memory scaled linearly; search from a line through both sizes",
    }
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
