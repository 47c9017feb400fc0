"""Assistants through the SDK: system assistants, CRUD, versions, search and graph views."""

from __future__ import annotations

import uuid

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.server import TEST_GRAPHS

pytestmark = pytest.mark.e2e

NAMESPACE = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")


async def test_each_graph_has_a_system_assistant_with_platform_id(client: LangGraphClient):
    found = await client.assistants.search(metadata={"created_by": "system"}, limit=100)
    by_graph = {a["graph_id"]: a for a in found}
    assert set(by_graph) == set(TEST_GRAPHS)
    assert by_graph["counter"]["assistant_id"] == str(uuid.uuid5(NAMESPACE, "counter"))
    # The graph id is accepted wherever an assistant id is.
    assert (await client.assistants.get("counter"))["assistant_id"] == str(
        uuid.uuid5(NAMESPACE, "counter")
    )


async def test_create_get_patch_versions_latest_delete(client: LangGraphClient):
    created = await client.assistants.create(
        "chat", config={"configurable": {"tone": "dry"}}, metadata={"team": "a"}, name="dry chat"
    )
    assistant_id = created["assistant_id"]
    assert created["version"] == 1
    assert created["name"] == "dry chat"
    assert (await client.assistants.get(assistant_id))["config"] == {
        "configurable": {"tone": "dry"}
    }

    patched = await client.assistants.update(
        assistant_id, metadata={"stage": "prod"}, name="dry chat v2"
    )
    assert patched["version"] == 2
    assert patched["metadata"] == {"team": "a", "stage": "prod"}

    versions = await client.assistants.get_versions(assistant_id)
    assert [v["version"] for v in versions] == [2, 1]
    assert versions[1]["name"] == "dry chat"

    rolled_back = await client.assistants.set_latest(assistant_id, 1)
    assert rolled_back["version"] == 1
    assert rolled_back["name"] == "dry chat"
    assert (await client.assistants.get(assistant_id))["name"] == "dry chat"

    await client.assistants.delete(assistant_id)
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.assistants.get(assistant_id)
    assert err.value.response.status_code == 404


async def test_create_if_exists(client: LangGraphClient):
    assistant_id = str(uuid.uuid4())
    await client.assistants.create("counter", assistant_id=assistant_id, name="one")
    again = await client.assistants.create(
        "counter", assistant_id=assistant_id, name="two", if_exists="do_nothing"
    )
    assert again["name"] == "one"
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.assistants.create("counter", assistant_id=assistant_id)
    assert err.value.response.status_code == 409


async def test_search_filters_sorts_pages_and_counts(client: LangGraphClient):
    marker = str(uuid.uuid4())
    for name in ("alpha", "beta", "gamma"):
        await client.assistants.create("counter", name=name, metadata={"marker": marker})
    found = await client.assistants.search(
        metadata={"marker": marker}, sort_by="name", sort_order="asc"
    )
    assert [a["name"] for a in found] == ["alpha", "beta", "gamma"]
    page = await client.assistants.search(
        metadata={"marker": marker}, sort_by="name", sort_order="asc", limit=2, offset=1
    )
    assert [a["name"] for a in page] == ["beta", "gamma"]
    selected = await client.assistants.search(
        metadata={"marker": marker}, select=["assistant_id", "name"], limit=1
    )
    assert set(selected[0]) == {"assistant_id", "name"}
    assert await client.assistants.count(metadata={"marker": marker}) == 3
    assert await client.assistants.count(metadata={"marker": marker}, graph_id="chat") == 0
    by_name = await client.assistants.search(metadata={"marker": marker}, name="amm")
    assert [a["name"] for a in by_name] == ["gamma"]


async def test_graph_drawing_schemas_and_subgraphs(client: LangGraphClient):
    drawing = await client.assistants.get_graph("counter")
    node_ids = {n["id"] for n in drawing["nodes"]}
    assert {"__start__", "a", "b", "__end__"} <= node_ids
    assert {"source": "a", "target": "b"} in [
        {"source": e["source"], "target": e["target"]} for e in drawing["edges"]
    ]

    flat = await client.assistants.get_graph("nested")
    xray = await client.assistants.get_graph("nested", xray=True)
    assert len(xray["nodes"]) > len(flat["nodes"])
    # A depth draws that many levels (the SDK's `xray=1` sends "1"); true draws them all.
    levels = [
        len((await client.assistants.get_graph("deeply_nested", xray=x))["nodes"])
        for x in (False, 1, 2, True)
    ]
    assert levels[0] < levels[1] < levels[2] == levels[3]

    schemas = await client.assistants.get_schemas("greeter")
    assert schemas["graph_id"] == "greeter"
    assert set(schemas["state_schema"]["properties"]) == {"name", "text"}
    assert set(schemas["context_schema"]["properties"]) == {"greeting", "punctuation"}
    assert "properties" in schemas["input_schema"]

    subgraphs = await client.assistants.get_subgraphs("nested")
    assert list(subgraphs) == ["inner"]
    assert set(subgraphs["inner"]["state_schema"]["properties"]) == {"count", "trail"}


async def test_factory_and_uncompiled_graphs_are_served(client: LangGraphClient):
    thread = await client.threads.create()
    result = await client.runs.wait(
        thread["thread_id"],
        "configured",
        input={"name": "x"},
        config={"configurable": {"suffix": "from-run"}},
    )
    assert result["text"] == "x-from-run"
    stateless = await client.runs.wait(None, "uncompiled", input={"count": 5})
    assert stateless["count"] == 7


async def test_assistant_errors(client: LangGraphClient):
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.assistants.create("no-such-graph")
    assert err.value.response.status_code == 404
    assert "no-such-graph" in err.value.response.json()["detail"]
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.assistants.get("not-a-uuid-nor-graph")
    assert err.value.response.status_code == 422
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.assistants.set_latest("counter", 99)
    assert err.value.response.status_code == 404
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.assistants.search(sort_by="password")
    assert err.value.response.status_code == 422


async def test_delete_with_threads(client: LangGraphClient):
    assistant = await client.assistants.create("counter", name="short-lived")
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, assistant["assistant_id"], input={"count": 0})
    kept = (await client.threads.create())["thread_id"]
    await client.runs.wait(kept, "counter", input={"count": 0})
    await client.assistants.delete(assistant["assistant_id"], delete_threads=True)
    with pytest.raises(httpx.HTTPStatusError) as err:
        await client.threads.get(thread_id)
    assert err.value.response.status_code == 404
    assert (await client.threads.get(kept))["values"]["count"] == 2
