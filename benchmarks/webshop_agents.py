"""Compare WebShop agents from their results files and say where episodes were lost.

```bash
.venv/bin/python benchmarks/webshop_agents.py RESULTS.jsonl[:RECORD_DIR] ...
```

Each results file comes from ``olg eval webshop --out FILE --record DIR``. Only goals present
in every file are compared, so the agents are measured on the same goals. With a recording
directory, every episode with reward < 1 is put in one class:

* option choice: the target item was bought with wrong options (or over the price);
* retrieval: the target item never appeared on a results page the agent saw;
* not opened: it was listed but the agent never opened it;
* rejected: the agent opened it and went on to buy something else.

Early purchases (bought without the backup in at most 4 steps) and backup purchases are
counted alongside.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from open_langgraph.evals.harness import read_results
from open_langgraph.evals.summary import format_summary, summarize

EARLY_STEPS = 4


def loss_class(record: dict[str, Any], recording: dict[str, Any]) -> str:
    target = record["target_asin"]
    if record.get("purchased") == target:
        return "option choice"
    env_steps = [e for s in recording["steps"] for e in s["env"]]
    listed = any(
        target in e["observation"] and "Total results" in e["observation"] for e in env_steps
    )
    opened = any(e["action"].lower() == f"click[{target.lower()}]" for e in env_steps)
    if opened:
        return "rejected"
    return "not opened" if listed else "retrieval"


def analyse(results: Path, record_dir: Path | None, goals: set[int]) -> dict[str, Any]:
    rows = [r for r in read_results(results) if r["goal_index"] in goals]
    latest = {r["goal_index"]: r for r in rows}
    summary = summarize(latest.values())
    losses: dict[str, int] = {}
    if record_dir is not None:
        for r in latest.values():
            if r["reward"] == 1.0:
                continue
            path = record_dir / f"{r['agent']}-{r['goals']}-{r['goal_index']}.json"
            if path.exists():
                cls = loss_class(r, json.loads(path.read_text()))
                losses[cls] = losses.get(cls, 0) + 1
    summary["losses"] = losses
    summary["early_purchases"] = sum(
        1
        for r in latest.values()
        if r.get("bought") and not r.get("backup_fired") and r["steps"] <= EARLY_STEPS
    )
    summary["backup_purchases"] = sum(1 for r in latest.values() if r.get("backup_fired"))
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="RESULTS.jsonl or RESULTS.jsonl:RECORD_DIR")
    args = parser.parse_args()
    pairs = []
    for spec in args.files:
        path, _, record = spec.partition(":")
        pairs.append((Path(path), Path(record) if record else None))
    common: set[int] | None = None
    for path, _ in pairs:
        done = {r["goal_index"] for r in read_results(path) if not r.get("error")}
        common = done if common is None else common & done
    if not common:
        raise SystemExit("no goal was finished in every file")
    for path, record in pairs:
        summary = analyse(path, record, common)
        print(format_summary(summary))
        print(
            f"  losses {summary['losses']}   early purchases {summary['early_purchases']}   "
            f"backup purchases {summary['backup_purchases']}\n"
        )


if __name__ == "__main__":
    main()
