"""A live `olg serve` to fuzz, seeded with resources, and the two OpenAPI schemas to fuzz it by.

The Platform's schema is `openapi.json` at the root of the pinned `langgraph-api` wheel. It is
another project's file, so it is not committed: the wheel is fetched from the package index
the first time (with pip, which honours the index this machine is configured for) and the
schema cached under `$XDG_CACHE_HOME/open-langgraph/` (`~/.cache` by default).

Fuzzed requests that name a thread, an assistant or a run name ones that exist, so the
generated bodies reach the code behind the 404 checks. Unknown and malformed ids still come,
from the negative examples (which negate the list of known ones). A list is used on its own,
not beside the original constraint in an `anyOf`: the generator folds a list of strings into
a plain `string` branch and would almost never pick a known id.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from open_langgraph.services.assistants import system_assistant_id
from tests.fixtures.server import TEST_GRAPHS, ServerProcess, serving, write_config

PLATFORM_API = "langgraph-api==0.16.7"

#: Graphs whose every run ends quickly whatever its input; `slow` and `looping` take their
#: duration from the input, so a fuzzer would only measure how long it is willing to wait.
FUZZ_GRAPHS = sorted(set(TEST_GRAPHS) - {"slow", "looping"})

#: Fixed ids the fuzzer mostly picks, re-created before each operation's examples.
THREAD_DONE = "00000000-0000-4000-8000-00000000000a"
THREAD_INTERRUPTED = "00000000-0000-4000-8000-00000000000b"
ASSISTANT = "00000000-0000-4000-8000-0000000000a1"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(base) / "open-langgraph"
    path.mkdir(parents=True, exist_ok=True)
    return path


def platform_openapi() -> dict[str, Any]:
    """The Platform's published schema, from the pinned wheel; downloaded once, then cached."""
    cached = cache_dir() / f"{PLATFORM_API.replace('==', '-')}-openapi.json"
    if not cached.exists():
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [
                    *(sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"),
                    *("--disable-pip-version-check", "-d", tmp, PLATFORM_API),
                ],
                check=True,
                timeout=300,
            )
            wheel = next(Path(tmp).glob("*.whl"))
            with zipfile.ZipFile(wheel) as archive:
                content = archive.read("openapi.json")
        partial = cached.with_suffix(".part")
        partial.write_bytes(content)
        partial.replace(cached)
    return json.loads(cached.read_text())


@dataclass
class Seeded:
    """Ids of resources that exist when an operation's examples start."""

    run_id: str
    checkpoint_id: str


def seed(server: ServerProcess) -> Seeded:
    """Make sure the fixed threads and assistant exist, with a finished and an interrupted run."""
    assistants = {system_assistant_id(g): g for g in FUZZ_GRAPHS} | {ASSISTANT: "runtime_last"}
    with httpx.Client(base_url=server.url, timeout=30) as http:
        # The fuzzer deletes system assistants too (the Platform allows it by uuid).
        for assistant_id, graph_id in assistants.items():
            body = {"assistant_id": assistant_id, "graph_id": graph_id, "if_exists": "do_nothing"}
            http.post("/assistants", json=body).raise_for_status()
        for thread_id, graph_id in ((THREAD_DONE, "counter"), (THREAD_INTERRUPTED, "hitl")):
            http.post(
                "/threads", json={"thread_id": thread_id, "if_exists": "do_nothing"}
            ).raise_for_status()
            runs = http.get(f"/threads/{thread_id}/runs").json()
            if not runs or http.get(f"/threads/{thread_id}").json()["status"] == "idle":
                http.post(
                    f"/threads/{thread_id}/runs/wait",
                    json={"assistant_id": graph_id, "input": {"count": 1, "request": "x"}},
                ).raise_for_status()
        run_id = http.get(f"/threads/{THREAD_DONE}/runs").json()[0]["run_id"]
        history = http.get(f"/threads/{THREAD_DONE}/history").json()
        return Seeded(run_id, history[-1]["checkpoint"]["checkpoint_id"])


def _one_of(values: list[Any]) -> dict[str, Any]:
    return {"type": "string", "enum": values}


def aim_at_seeded(raw: dict[str, Any], seeded: Seeded) -> dict[str, Any]:
    """A copy of an OpenAPI schema whose ids and graph names point at existing resources.

    Also caps `after_seconds` at 2: a delayed run waits its turn by design, so a fuzzed
    `after_seconds: 1e300` ahead of a `wait` on the same thread is a wait, not a hang to find.
    """
    schema = copy.deepcopy(raw)
    ids = {
        "thread_id": [THREAD_DONE, THREAD_INTERRUPTED],
        "assistant_id": [ASSISTANT, *FUZZ_GRAPHS],
        "run_id": [seeded.run_id],
        "checkpoint_id": [seeded.checkpoint_id],
    }
    for item in schema.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter.get("name") in ids:
                    parameter["schema"] = _one_of(ids[parameter["name"]])
    for component in schema.get("components", {}).get("schemas", {}).values():
        properties = component.get("properties") if isinstance(component, dict) else None
        for part in [properties, *(p.get("properties") for p in component.get("allOf", []))]:
            if not isinstance(part, dict):
                continue
            if "assistant_id" in part:
                part["assistant_id"] = _one_of(ids["assistant_id"])
            if "graph_id" in part:
                part["graph_id"] = _one_of(FUZZ_GRAPHS)
            if "after_seconds" in part:
                part["after_seconds"] = {"type": "number", "minimum": 0, "maximum": 2}
    return schema


@pytest.fixture(scope="session")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-fuzz")
    # Webhooks off: a generated webhook URL must never make the server call out.
    config = write_config(directory, http={"disable_webhooks": True})
    raw = json.loads(config.read_text())
    raw["graphs"] = {graph_id: TEST_GRAPHS[graph_id] for graph_id in FUZZ_GRAPHS}
    config.write_text(json.dumps(raw))
    with serving(directory, config) as process:
        yield process


@pytest.fixture(scope="session")
def seeded(fuzz_server: ServerProcess) -> Seeded:
    return seed(fuzz_server)
