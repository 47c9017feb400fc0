"""Fixtures: a small document folder for the real offline search, and an unreachable weather API."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphs.plan_execute.weather import WeatherError, WeatherService
from tests.fixtures.server import free_port

DOCUMENTS = {
    "busan.md": "# Busan\n\nBusan is a port city in South Korea. Haeundae beach is in Busan. "
    "Milmyeon is a cold wheat noodle dish from Busan.\n",
    "seoul.md": "# Seoul\n\nSeoul is the capital of South Korea. Gyeongbokgung palace is in "
    "Seoul. Seoul weather in November: cool, around 8 degrees Celsius.\n",
    "desserts.md": "# Peanut-free desserts in Busan\n\nBingsu (shaved ice) shops in Busan serve "
    "peanut-free bingsu with red beans and fruit.\n",
}


@pytest.fixture
def search_docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The real BM25 search (`open_langgraph.tools.search`) over a fixed folder, offline."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text)
    monkeypatch.setenv("OLG_SEARCH_DOCS", str(folder))
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    return folder


@pytest.fixture
def unreachable_weather() -> WeatherService:
    """The real Open-Meteo client aimed at a closed local port: it fails at once, offline or not."""
    base = f"http://127.0.0.1:{free_port()}"
    return WeatherService(geocoding_url=f"{base}/geo", forecast_url=f"{base}/forecast", timeout=2)


class NowherePlace(WeatherService):
    """A weather service that knows no place: it fails for the input, not for the network."""

    def current(self, location: str) -> str:
        raise WeatherError(f"no place called {location!r} was found")


@pytest.fixture
def placeless_weather() -> WeatherService:
    return NowherePlace()
