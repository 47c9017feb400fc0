"""Units of measure for the calculator: quantities that carry their dimension.

A small model asked "a bag weighs 2.5 kg, how many grams do 4 bags weigh?" writes `2.5 * 4`
and answers 10 grams; asked for metres in 6 minutes at 400 m per 80 seconds it writes
`400 * 6 / 60` (held-out misses of issue 33: the arithmetic was right, a unit was not
converted). Written with its units (`2.5 kg * 4 in g`, `400 m / 80 s * 6 min`) the calculator
does the conversion, so the model only has to copy the quantities as the question states them.

Only units whose meaning is fixed are known: SI lengths, masses, volumes and times up to a week
(a month or a year is a calendar question: `date_calculator`). A quantity is its value in SI
base units (metre, kilogram, second) and its dimension as exponents of those three; litres
are cubic metres scaled.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

Dimension = tuple[int, int, int]
"""Exponents of length, mass and time."""

DIMENSIONLESS: Dimension = (0, 0, 0)
_BASE_SYMBOLS = ("m", "kg", "s")


@dataclass(frozen=True)
class Unit:
    symbol: str
    scale: float
    """The unit in SI base units: 1 km is 1000 m."""
    dimension: Dimension


_UNITS: tuple[tuple[Unit, tuple[str, ...]], ...] = (
    (Unit("s", 1, (0, 0, 1)), ("s", "sec", "secs", "second", "seconds")),
    (Unit("min", 60, (0, 0, 1)), ("min", "mins", "minute", "minutes")),
    (Unit("h", 3600, (0, 0, 1)), ("h", "hr", "hrs", "hour", "hours")),
    (Unit("days", 86_400, (0, 0, 1)), ("day", "days")),
    (Unit("weeks", 604_800, (0, 0, 1)), ("week", "weeks")),
    (Unit("mm", 0.001, (1, 0, 0)), ("mm", "millimetre", "millimetres", "millimeter")),
    (Unit("cm", 0.01, (1, 0, 0)), ("cm", "centimetre", "centimetres", "centimeter")),
    (Unit("m", 1, (1, 0, 0)), ("m", "metre", "metres", "meter", "meters")),
    (Unit("km", 1000, (1, 0, 0)), ("km", "kilometre", "kilometres", "kilometer")),
    (Unit("miles", 1609.344, (1, 0, 0)), ("mile", "miles", "mi")),
    (Unit("ft", 0.3048, (1, 0, 0)), ("ft", "foot", "feet")),
    (Unit("mg", 1e-6, (0, 1, 0)), ("mg", "milligram", "milligrams")),
    (Unit("g", 0.001, (0, 1, 0)), ("g", "gram", "grams", "gramme", "grammes")),
    (Unit("kg", 1, (0, 1, 0)), ("kg", "kilo", "kilos", "kilogram", "kilograms")),
    (Unit("t", 1000, (0, 1, 0)), ("tonne", "tonnes")),
    (Unit("lb", 0.45359237, (0, 1, 0)), ("lb", "lbs")),
    (Unit("ml", 1e-6, (3, 0, 0)), ("ml", "millilitre", "millilitres", "milliliter")),
    (Unit("l", 0.001, (3, 0, 0)), ("l", "litre", "litres", "liter", "liters")),
)
UNITS: dict[str, Unit] = {alias: unit for unit, aliases in _UNITS for alias in aliases}
UNITS |= {alias + "s": UNITS[alias] for alias in ("millimeter", "centimeter", "kilometer")}
UNITS["milliliters"] = UNITS["milliliter"]
"""Every spelling a model or a person writes, to its unit."""
BY_SYMBOL: dict[str, Unit] = {unit.symbol: unit for unit, _ in _UNITS}


class UnitError(ValueError):
    """Quantities of different dimensions were added, or a result asked in a unit it is not."""


@dataclass(frozen=True)
class Quantity:
    """A value in SI base units with its dimension; `units` are the units the expression
    named, in order, so the result is shown in the person's own units rather than SI."""

    value: float
    dimension: Dimension
    units: tuple[str, ...] = ()
    target: str | None = None

    @classmethod
    def of(cls, symbol: str) -> Quantity:
        unit = BY_SYMBOL[symbol]
        return cls(unit.scale, unit.dimension, (symbol,))

    def _merged(self, value: float, dimension: Dimension, other: object) -> Quantity | float:
        units = self.units + tuple(
            u for u in (other.units if isinstance(other, Quantity) else ()) if u not in self.units
        )
        if dimension == DIMENSIONLESS:
            return value
        return Quantity(value, dimension, units)

    def __add__(self, other: object) -> Quantity | float:
        return self._merged(self.value + _same(self, other, "add"), self.dimension, other)

    def __radd__(self, other: object) -> Quantity | float:
        return self.__add__(other)

    def __sub__(self, other: object) -> Quantity | float:
        return self._merged(self.value - _same(self, other, "subtract"), self.dimension, other)

    def __rsub__(self, other: object) -> Quantity | float:
        return self._merged(_same(self, other, "subtract") - self.value, self.dimension, other)

    def __mul__(self, other: object) -> Quantity | float:
        value, dimension = _parts(other)
        return self._merged(self.value * value, _add(self.dimension, dimension), other)

    def __rmul__(self, other: object) -> Quantity | float:
        return self.__mul__(other)

    def __truediv__(self, other: object) -> Quantity | float:
        value, dimension = _parts(other)
        return self._merged(self.value / value, _add(self.dimension, dimension, -1), other)

    def __rtruediv__(self, other: object) -> Quantity | float:
        value, dimension = _parts(other)
        inverse = _add(dimension, self.dimension, -1)
        return self._merged(value / self.value, inverse, other)

    def __pow__(self, exponent: object) -> Quantity | float:
        if not isinstance(exponent, int) or isinstance(exponent, bool):
            raise UnitError("a quantity with a unit can only be raised to a whole power")
        dimension = (
            self.dimension[0] * exponent,
            self.dimension[1] * exponent,
            self.dimension[2] * exponent,
        )
        return self._merged(self.value**exponent, dimension, None)

    def __neg__(self) -> Quantity:
        return Quantity(-self.value, self.dimension, self.units, self.target)

    def __pos__(self) -> Quantity:
        return self

    def check_everyday(self) -> None:
        """Refuse a product of two kinds (`3 ml * 24 hours`): everyday questions have rates
        (ml per minute) where a model writes such a product, and no answer in ml*h."""
        if sum(1 for exponent in self.dimension if exponent > 0) > 1:
            raise UnitError(
                "this multiplies two kinds of unit (as ml times hours), which has no everyday "
                "meaning: write a rate as an amount per time, e.g. 3 ml / 1 min * 24 h"
            )

    def expressed_in(self, symbol: str) -> Quantity:
        """The same quantity, to be shown in `symbol` (which may be `km/h`)."""
        if unit_dimension(symbol) != self.dimension:
            raise UnitError(f"the result is {describe_dimension(self.dimension)}, not {symbol}")
        return Quantity(self.value, self.dimension, self.units, symbol)

    def display_unit(self) -> str:
        """The unit to show: the one asked for, else one the expression named with this
        dimension, else the named units combined (km/h), else SI."""
        if self.target:
            return self.target
        for symbol in self.units:
            if BY_SYMBOL[symbol].dimension == self.dimension:
                return symbol
        return combined_unit(self.dimension, self.units)

    def in_unit(self, symbol: str) -> float:
        return self.value / unit_scale(symbol)


def _parts(value: object) -> tuple[float, Dimension]:
    if isinstance(value, Quantity):
        return value.value, value.dimension
    return float(value), DIMENSIONLESS  # type: ignore[arg-type]


def _same(quantity: Quantity, other: object, verb: str) -> float:
    value, dimension = _parts(other)
    if dimension != quantity.dimension:
        raise UnitError(
            f"cannot {verb} {describe_dimension(quantity.dimension)} and "
            f"{describe_dimension(dimension)}: give both with units of the same kind"
        )
    return value


def _add(a: Dimension, b: Dimension, sign: int = 1) -> Dimension:
    return (a[0] + sign * b[0], a[1] + sign * b[1], a[2] + sign * b[2])


def _compound(symbol: str) -> list[tuple[str, int]]:
    """`km/h` as [(km, 1), (h, -1)]; `m^2` as [(m, 2)]."""
    parts: list[tuple[str, int]] = []
    for index, piece in enumerate(symbol.split("/")):
        name, _, power = piece.partition("^")
        if name not in BY_SYMBOL:
            raise UnitError(f"unknown unit {name!r}")
        exponent = int(power) if power else 1
        parts.append((name, exponent if index == 0 else -exponent))
    return parts


def unit_dimension(symbol: str) -> Dimension:
    dimension = DIMENSIONLESS
    for name, exponent in _compound(symbol):
        dimension = _add(dimension, BY_SYMBOL[name].dimension, exponent)
    return dimension


def unit_scale(symbol: str) -> float:
    return math.prod(BY_SYMBOL[name].scale ** exponent for name, exponent in _compound(symbol))


def combined_unit(dimension: Dimension, named: tuple[str, ...]) -> str:
    """Length over time as the named length unit over the named time unit (`km/h`), SI where
    the expression named none of a kind."""
    numerator: list[str] = []
    denominator: list[str] = []
    for axis, exponent in enumerate(dimension):
        if exponent == 0:
            continue
        symbol = next(
            (s for s in named if BY_SYMBOL[s].dimension == _axis(axis)), _BASE_SYMBOLS[axis]
        )
        power = abs(exponent)
        text = symbol if power == 1 else f"{symbol}^{power}"
        (numerator if exponent > 0 else denominator).append(text)
    top = "*".join(numerator) or "1"
    return top + "".join(f"/{part}" for part in denominator)


def _axis(axis: int) -> Dimension:
    return tuple(1 if index == axis else 0 for index in range(3))  # type: ignore[return-value]


def describe_dimension(dimension: Dimension) -> str:
    names = {(1, 0, 0): "a length", (0, 1, 0): "a mass", (0, 0, 1): "a time"}
    names |= {(3, 0, 0): "a volume", (2, 0, 0): "an area", (1, 0, -1): "a speed"}
    names[DIMENSIONLESS] = "a plain number"
    return names.get(dimension, "a compound quantity")


_WORD = re.compile(r"(\d\s*)?\b([a-z]+)\b")


def units_named_in(text: str) -> list[str]:
    """The units `text` names, as symbols, in order of first mention (a question's words:
    "how many grams do 4 bags of 2.5 kg weigh" gives g, kg). A one-letter unit counts only
    right after a number (`400 m`), not as a word of prose."""
    found: list[str] = []
    for match in _WORD.finditer(text.lower()):
        after_number, word = match.group(1), match.group(2)
        unit = UNITS.get(word)
        if unit is None or (len(word) == 1 and not after_number):
            continue
        if unit.symbol not in found:
            found.append(unit.symbol)
    return found
