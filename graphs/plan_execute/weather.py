"""Current weather from Open-Meteo (no API key): place name -> coordinates -> current conditions.

Timeouts are short on purpose: an unreachable service must fail within seconds so the agent can
re-plan (for example, fall back to web search) instead of hanging the run.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
TIMEOUT_SECONDS = 3.0

# WMO weather interpretation codes, as Open-Meteo documents them (https://open-meteo.com/en/docs).
WMO_CODES = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "depositing rime fog",
    51: "light drizzle",
    53: "moderate drizzle",
    55: "dense drizzle",
    56: "light freezing drizzle",
    57: "dense freezing drizzle",
    61: "slight rain",
    63: "moderate rain",
    65: "heavy rain",
    66: "light freezing rain",
    67: "heavy freezing rain",
    71: "slight snowfall",
    73: "moderate snowfall",
    75: "heavy snowfall",
    77: "snow grains",
    80: "slight rain showers",
    81: "moderate rain showers",
    82: "violent rain showers",
    85: "slight snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with slight hail",
    99: "thunderstorm with heavy hail",
}


class WeatherError(RuntimeError):
    """The weather could not be fetched; the message says why (network, unknown place...)."""


@dataclass(frozen=True)
class WeatherService:
    geocoding_url: str = GEOCODING_URL
    forecast_url: str = FORECAST_URL
    timeout: float = TIMEOUT_SECONDS

    def current(self, location: str) -> str:
        """A one-line report of the current weather at `location`."""
        place = location.strip()
        if not place:
            raise WeatherError("no location given")
        found = self._get(self.geocoding_url, {"name": place, "count": 1, "format": "json"})
        matches = found.get("results") or []
        if not matches:
            raise WeatherError(f"no place called {place!r} was found")
        match = matches[0]
        forecast = self._get(
            self.forecast_url,
            {
                "latitude": match["latitude"],
                "longitude": match["longitude"],
                "current": "temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m",
                "timezone": "auto",
            },
        )
        now = forecast.get("current")
        if not isinstance(now, dict):
            raise WeatherError("the weather service answered without current conditions")
        name = ", ".join(str(p) for p in (match.get("name"), match.get("country")) if p)
        sky = WMO_CODES.get(now.get("weather_code"), f"weather code {now.get('weather_code')}")
        return (
            f"{name} at {now.get('time')} local time: {sky}, {now.get('temperature_2m')} °C, "
            f"humidity {now.get('relative_humidity_2m')} %, wind {now.get('wind_speed_10m')} km/h"
        )

    def _get(self, url: str, params: dict[str, Any]) -> dict[str, Any]:
        full_url = f"{url}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(full_url, timeout=self.timeout) as response:
                body = json.load(response)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            # Chained, so the agent can tell an unreachable service from a refused request.
            raise WeatherError(f"the weather service is unreachable ({reason})") from exc
        except json.JSONDecodeError:
            raise WeatherError("the weather service answered with invalid JSON") from None
        if not isinstance(body, dict):
            raise WeatherError("the weather service answered with an unexpected shape")
        if body.get("error"):
            raise WeatherError(f"the weather service refused the request: {body.get('reason')}")
        return body
