"""`ui` of the config: generative UI components built with esbuild at start-up and served as
the JS SDK's `LoadExternalComponent` asks (`POST /ui/{assistant_id}`, then the files), with
`push_ui_message` streamed to the client.

The project is tests/fixtures/projects/generative_ui: a graph pushing a `weather` component,
and the React file defining it. Building needs Node.js and npm (esbuild is installed once into
the bundler cache); the browser side is tests/ui/test_generative_ui.py.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("npm") is None, reason="building needs Node.js and npm"),
]

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "generative_ui"
AUTH_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "auth_api_key.py"


def project_server(directory: Path, env: dict[str, str] | None = None) -> ServerProcess:
    """The project served, its bundles built into `directory`."""
    return ServerProcess(
        PROJECT / "langgraph.json",
        directory / "olg.db",
        directory / "server.log",
        env={"OLG_UI_BUILD_DIR": str(directory / "ui-build"), **(env or {})},
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with project_server(tmp_path_factory.mktemp("generative-ui")) as process:
        yield process


@pytest.fixture
async def http(served: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=served.url) as client:
        yield client


@pytest.fixture
async def client(served: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.url) as lg_client:
        yield lg_client


async def test_post_ui_answers_markup_loading_the_built_component(
    served: ServerProcess, http: httpx.AsyncClient
) -> None:
    response = await http.post("/ui/weather", json={"name": "weather"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    markup = response.text
    # What LoadExternalComponent expects: one `{{shadowRootId}}` to fill in, a script whose
    # load renders the named component there, the stylesheet beside it.
    assert markup.count("{{shadowRootId}}") == 1
    script = re.search(r"<script src=\"([^\"]+)\" onload='([^']+)'></script>", markup)
    assert script is not None, markup
    assert script[2] == '__LGUI_weather.render(&quot;weather&quot;, "{{shadowRootId}}")'
    stylesheet = re.search(r'<link rel="stylesheet" href="([^"]+)" />', markup)
    assert stylesheet is not None, markup
    assert markup.index("<link") < markup.index("<script")

    js = await http.get(script[1])
    assert script[1] == f"{served.url}/ui/weather/entrypoint.js"
    assert js.status_code == 200
    assert "javascript" in js.headers["content-type"]
    assert "var __LGUI_weather=" in js.text
    assert 'Symbol.for("LGUI_REQUIRE")' in js.text  # React comes from the page
    assert "Weather in " in js.text
    css = await http.get(stylesheet[1])
    assert css.status_code == 200
    assert ".weather-card" in css.text


async def test_an_assistant_id_finds_its_graphs_ui(
    http: httpx.AsyncClient, client: LangGraphClient
) -> None:
    assistant = await client.assistants.create("weather", name="forecaster")
    by_id = await http.post(f"/ui/{assistant['assistant_id']}", json={"name": "weather"})
    by_graph = await http.post("/ui/weather", json={"name": "weather"})
    assert by_id.status_code == 200
    assert by_id.text == by_graph.text


async def test_what_is_not_there_is_a_json_4xx(http: httpx.AsyncClient) -> None:
    missing = await http.post("/ui/no-such-graph", json={"name": "weather"})
    assert missing.status_code == 404
    assert "no-such-graph" in missing.json()["detail"]
    unnamed = await http.post("/ui/weather", json={})
    assert unnamed.status_code == 422
    assert "name" in str(unnamed.json()["detail"])
    absent = await http.get("/ui/weather/other.js")
    assert absent.status_code in (200, 404)  # the web UI's page, or its "not built"


async def test_a_streamed_run_carries_the_ui_message(client: LangGraphClient) -> None:
    thread = await client.threads.create()
    parts = [
        part
        async for part in client.runs.stream(
            thread["thread_id"],
            "weather",
            input={"city": "Paris"},
            stream_mode=["values", "custom"],
        )
    ]
    (custom,) = [p.data for p in parts if p.event == "custom"]
    assert custom["type"] == "ui"
    assert custom["name"] == "weather"
    assert custom["props"] == {"city": "Paris", "degrees": 21}
    final = [p.data for p in parts if p.event == "values"][-1]
    assert final["ui"] == [custom]
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["ui"] == [custom]


async def test_info_says_generative_ui_is_served(http: httpx.AsyncClient) -> None:
    flags = (await http.get("/info")).json()["flags"]
    assert flags["generative_ui"] is True


async def test_without_node_it_is_off_with_one_warning(tmp_path: Path) -> None:
    with project_server(tmp_path, env={"PATH": str(tmp_path / "no-tools")}) as process:
        async with httpx.AsyncClient(base_url=process.url) as http:
            response = await http.post("/ui/weather", json={"name": "weather"})
            flags = (await http.get("/info")).json()["flags"]
            ok = await http.get("/ok")
    assert ok.status_code == 200
    assert response.status_code == 501
    assert "Node.js" in response.json()["detail"]
    assert flags["generative_ui"] is False
    warnings = [line for line in process.log.read_text().splitlines() if "generative UI" in line]
    assert len(warnings) == 1, warnings
    assert "WARNING" in warnings[0] and "is off" in warnings[0]


async def test_with_auth_the_markup_needs_a_user_and_the_files_do_not(tmp_path: Path) -> None:
    """`POST /ui/...` is API; the bundles' files are loaded by `<script>` tags, which carry no
    token, and hold no data."""
    config = json.loads((PROJECT / "langgraph.json").read_text())
    config["graphs"] = {"weather": f"{PROJECT}/src/graph.py:graph"}
    config["ui"] = {"weather": f"{PROJECT}/src/ui.tsx"}
    config["auth"] = {"path": f"{AUTH_FILE}:auth"}
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    with serving(
        tmp_path, tmp_path / "langgraph.json", env={"OLG_UI_BUILD_DIR": str(tmp_path / "ui-build")}
    ) as process:
        async with httpx.AsyncClient(base_url=process.url) as http:
            anonymous = await http.post("/ui/weather", json={"name": "weather"})
            signed = await http.post(
                "/ui/weather", json={"name": "weather"}, headers={"x-api-key": "key-a"}
            )
            script = await http.get("/ui/weather/entrypoint.js")
    assert anonymous.status_code == 401
    assert signed.status_code == 200 and "entrypoint.js" in signed.text
    assert script.status_code == 200
