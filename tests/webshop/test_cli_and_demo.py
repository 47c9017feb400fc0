"""The ``olg webshop serve`` command line and the bundled demo data."""

from __future__ import annotations

import gzip
import json

from open_langgraph import cli
from open_langgraph.envs.webshop import site
from open_langgraph.envs.webshop.catalog import DEMO_DIR
from open_langgraph.envs.webshop.demo import generate


def test_olg_webshop_serve_arguments_reach_the_site_parser() -> None:
    args = cli._parser().parse_args(["webshop", "serve", "--data", "d", "--port", "8765"])
    assert args.command == "webshop"
    served = site._parser().parse_args(args.webshop_args)
    assert (served.data, served.port, served.goals, served.seed) == ("d", 8765, "synthetic", 233)


def test_shipped_demo_files_match_the_generator() -> None:
    products, instructions, human = generate.build()
    with gzip.open(DEMO_DIR / "documents.jsonl.gz", "rt", encoding="utf-8") as f:
        shipped = [json.loads(line)["product"] for line in f]
    assert shipped == products
    assert json.loads((DEMO_DIR / "items_ins_v2_demo.json").read_text()) == instructions
    assert json.loads((DEMO_DIR / "items_human_ins_demo.json").read_text()) == human
    assert len({p["asin"] for p in products}) == 100
