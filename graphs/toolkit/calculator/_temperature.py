"""Temperature conversions for the calculator: `100 F in C`, `37 degrees Celsius to Fahrenheit`.

Temperature scales do not share a zero, so a temperature is not a quantity of the calculator's
units (a multiple of one base unit): 100 °F is 37.78 °C, not 100 times anything. Before this
module `100 F in C` answered 100 (the letters were read as a count's noun and dropped) and a
small model asked for Fahrenheit in Celsius wrote `100 / 1.8`. The scales' definitions: °F =
°C * 9/5 + 32, K = °C + 273.15 (BIPM, the SI Brochure, 9th edition, section 2.3.1).
"""

from __future__ import annotations

import re

#: Each scale's spellings, to its symbol.
SCALES: dict[str, str] = {
    **dict.fromkeys(("c", "°c", "degc", "celsius", "centigrade"), "°C"),
    **dict.fromkeys(("f", "°f", "degf", "fahrenheit"), "°F"),
    **dict.fromkeys(("k", "kelvin", "kelvins"), "K"),
}
_DEGREES = r"(?:degrees?\s+|deg\s+|°\s*)?"
_CONVERSION = re.compile(
    r"^\s*(?P<amount>[-+\u2212]?\d+(?:[.,]\d+)?)\s*"
    rf"{_DEGREES}(?P<unit>°?[a-z]+)\s+(?:in|to|into)\s+{_DEGREES}(?P<target>°?[a-z]+)\s*$",
    re.IGNORECASE,
)


def scale_of(word: str) -> str | None:
    """The symbol of the temperature scale `word` names (`fahrenheit`, `F`, `°C`), else None."""
    return SCALES.get(word.strip().lower())


def _to_celsius(value: float, scale: str) -> float:
    if scale == "°F":
        return (value - 32) * 5 / 9
    if scale == "K":
        return value - 273.15
    return value


def _from_celsius(value: float, scale: str) -> float:
    if scale == "°F":
        return value * 9 / 5 + 32
    if scale == "K":
        return value + 273.15
    return value


def convert_temperature(expression: str) -> str | None:
    """`37.78 °C` for `100 F in C`; None when `expression` is not one temperature converted
    to another scale (then it is ordinary arithmetic)."""
    found = _CONVERSION.match(expression)
    if found is None:
        return None
    unit, target = scale_of(found["unit"]), scale_of(found["target"])
    if unit is None or target is None:
        return None
    value = float(found["amount"].replace(",", ".").replace("\u2212", "-"))
    if unit == "K" and value < 0:
        raise ValueError("a temperature in kelvin cannot be below 0 (absolute zero)")
    converted = _from_celsius(_to_celsius(value, unit), target)
    shown = f"{converted:.2f}".rstrip("0").rstrip(".")
    return f"{'0' if shown == '-0' else shown} {target}"
