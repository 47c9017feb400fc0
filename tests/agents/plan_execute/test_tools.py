"""The agent's tools against real services: the offline search and an HTTP weather API."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from langchain_core.tools import StructuredTool

from graphs.plan_execute.tools import input_name, make_get_weather, make_web_search, tool_manifest
from graphs.plan_execute.weather import WeatherError, WeatherService

SEOUL = {"name": "Seoul", "country": "South Korea", "latitude": 37.566, "longitude": 126.9784}
GEOCODING = {"results": [SEOUL]}
FORECAST = {
    "current": {
        "time": "2026-11-23T09:00",
        "temperature_2m": 7.4,
        "relative_humidity_2m": 61,
        "weather_code": 3,
        "wind_speed_10m": 9.7,
    }
}


class OpenMeteoStandIn(BaseHTTPRequestHandler):
    """Answers like Open-Meteo's geocoding and forecast endpoints, over real HTTP."""

    requests: list[tuple[str, dict[str, list[str]]]] = []

    def do_GET(self) -> None:
        url = urlparse(self.path)
        query = parse_qs(url.query)
        self.requests.append((url.path, query))
        if url.path == "/geo":
            body = GEOCODING if query["name"] == ["Seoul"] else {"generationtime_ms": 0.1}
        elif url.path == "/forecast":
            body = FORECAST
        else:
            body = {"error": True, "reason": "unknown endpoint"}
        payload = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def open_meteo() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), OpenMeteoStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    OpenMeteoStandIn.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_get_weather_reports_current_conditions(open_meteo: str) -> None:
    tool = make_get_weather(WeatherService(f"{open_meteo}/geo", f"{open_meteo}/forecast"))

    report = tool.invoke({"location": "Seoul"})

    assert report == (
        "Seoul, South Korea at 2026-11-23T09:00 local time: overcast, 7.4 °C, humidity 61 %, "
        "wind 9.7 km/h"
    )
    (_, geo), (_, forecast) = OpenMeteoStandIn.requests
    assert geo["name"] == ["Seoul"]
    assert (forecast["latitude"], forecast["longitude"]) == (["37.566"], ["126.9784"])


def test_get_weather_names_an_unknown_place(open_meteo: str) -> None:
    tool = make_get_weather(WeatherService(f"{open_meteo}/geo", f"{open_meteo}/forecast"))
    with pytest.raises(WeatherError, match="no place called 'Atlantis' was found"):
        tool.invoke({"location": "Atlantis"})


def test_get_weather_reports_a_refusal(open_meteo: str) -> None:
    tool = make_get_weather(WeatherService(f"{open_meteo}/nowhere", f"{open_meteo}/forecast"))
    with pytest.raises(WeatherError, match="refused the request: unknown endpoint"):
        tool.invoke({"location": "Seoul"})


def test_get_weather_fails_fast_when_unreachable(unreachable_weather: WeatherService) -> None:
    started = time.monotonic()
    with pytest.raises(WeatherError, match="the weather service is unreachable"):
        make_get_weather(unreachable_weather).invoke({"location": "Seoul"})
    assert time.monotonic() - started < unreachable_weather.timeout


def test_web_search_uses_the_shared_offline_search(search_docs: Path) -> None:
    output = make_web_search().invoke({"query": "peanut-free bingsu"})

    first = output.split("\n\n")[0]
    assert first.startswith("[1] Peanut-free desserts in Busan (desserts.md")
    assert "red beans" in first


def test_web_search_says_when_nothing_matches(search_docs: Path) -> None:
    assert make_web_search().invoke({"query": "zyxwvut"}) == "No results for 'zyxwvut'."


def test_the_manifest_lists_each_tool_with_its_input() -> None:
    manifest = tool_manifest([make_web_search(), make_get_weather()])
    assert manifest.splitlines() == [
        "- web_search(query): Search the web (offline: the project's documentation). Input: a "
        "query.",
        "- get_weather(location): Current weather at a place (Open-Meteo). Input: a city name, "
        "e.g. Seoul.",
    ]


def test_a_tool_with_two_arguments_is_refused_with_its_name() -> None:
    def convert(amount: float, currency: str) -> str:
        return f"{amount} {currency}"

    tool = StructuredTool.from_function(convert, description="Convert money.")
    with pytest.raises(ValueError, match="'convert' takes \\['amount', 'currency'\\]"):
        input_name(tool)
