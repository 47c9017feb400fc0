"""How `olg serve` serves the page: `/` redirects to `/ui/`, deep links get the page, assets are
cached for good, a missing file is a JSON 404; with auth configured the page itself is open,
asks for a token when the API answers 401, and sends it; under `http.mount_prefix` the page,
its assets and the API it calls are all under the prefix."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.fixtures.server import ServerProcess
from tests.ui.conftest import ui_server
from tests.ui.helpers import DONE, current_thread, send

pytestmark = pytest.mark.e2e

AUTH_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "auth_api_key.py"


@pytest.fixture(scope="module")
def served_with_auth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ui_server(
        tmp_path_factory.mktemp("ui-auth"), auth={"path": f"{AUTH_FILE}:auth"}
    ) as process:
        yield process


def test_root_redirects_to_the_page_and_files_are_served(served: ServerProcess) -> None:
    with httpx.Client(base_url=served.url) as http:
        root = http.get("/")
        assert root.status_code == 307 and root.headers["location"] == "/ui/"
        assert http.get("/ui").headers["location"] == "/ui/"
        page = http.get("/ui/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.headers["cache-control"] == "no-cache"
        # A deep link (a reload on a view) gets the page too.
        assert http.get("/ui/threads/anything").text == page.text
        script = page.text.split('src="')[1].split('"')[0]
        asset = http.get(script)
        assert asset.status_code == 200 and "immutable" in asset.headers["cache-control"]
        missing = http.get("/ui/assets/no-such-file.js")
        assert missing.status_code == 404 and "no such UI file" in missing.json()["detail"]
        outside = http.get("/ui/..%2F..%2Fapp.py")
        assert outside.status_code == 200 and outside.text == page.text  # never a file outside
        # The page is not part of the Platform API's schema.
        paths = http.get("/openapi.json").json()["paths"]
        assert not [p for p in paths if p == "/" or p.startswith("/ui")]


def test_with_auth_the_page_asks_for_a_token_and_sends_it(
    page: Page, served_with_auth: ServerProcess
) -> None:
    url = served_with_auth.url
    assert httpx.get(f"{url}/ui/").status_code == 200  # the page is open
    assert httpx.post(f"{url}/assistants/search", json={}).status_code == 401  # the API is not

    page.goto(f"{url}/ui/#/chat?assistant=echo_agent")
    dialog = page.get_by_role("dialog", name="This server needs a token")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("alert")).to_contain_text("invalid api key")
    dialog.get_by_label("Token").fill("wrong")
    dialog.get_by_role("button", name="Save token").click()
    expect(dialog.get_by_role("alert")).to_contain_text("invalid api key")  # asked again
    page.get_by_role("dialog").get_by_label("Token").fill("key-a")
    page.get_by_role("dialog").get_by_role("button", name="Save token").click()

    expect(page.locator("#assistant-select option:checked")).to_have_text("echo_agent")
    send(page, "with a token")
    expect(page.get_by_role("status")).to_have_text(DONE)
    expect(page.get_by_role("log").locator(".msg.ai")).to_contain_text("You said: with a token")
    # The thread is user-a's: user-b's key cannot read it.
    thread_id = current_thread(page)
    for key, status in (("key-a", 200), ("key-b", 404)):
        got = httpx.get(f"{url}/threads/{thread_id}", headers={"x-api-key": key})
        assert got.status_code == status


def test_under_a_mount_prefix_the_page_and_its_api_move_there(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with ui_server(tmp_path_factory.mktemp("ui-prefix"), http={"mount_prefix": "/lg"}) as process:
        with httpx.Client(base_url=process.url) as http:
            assert http.get("/lg/").headers["location"] == "/lg/ui/"
            html = http.get("/lg/ui/").text
            script = html.split('src="')[1].split('"')[0]
            assert script.startswith("/lg/ui/assets/")
            assert http.get(script).status_code == 200
            assert http.get("/ui/").status_code == 404
        page.goto(f"{process.url}/lg/ui/#/chat?assistant=echo_agent")
        expect(page.locator("#assistant-select option:checked")).to_have_text("echo_agent")
        send(page, "under a prefix")
        expect(page.get_by_role("status")).to_have_text(DONE)
        expect(page.get_by_role("log").locator(".msg.ai")).to_contain_text(
            "You said: under a prefix"
        )
        # The Markdown renderer, a chunk of its own, loaded from under the prefix too.
        expect(page.get_by_role("log").locator(".msg.ai .markdown p")).to_have_count(1)
