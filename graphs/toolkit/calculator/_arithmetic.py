"""Arithmetic for agents, parsed with `ast` and evaluated node by node: never `eval`.

A model's "calculator" input is untrusted text. It is first rewritten from what small models
write (`15% of 80`, `2^10`, `3 squared`, `1,200`; see `calculator_words.py`), then only
numbers, `+ - * / // % **`, unary signs, parentheses, the constants `pi` and `e` and a few
one-argument functions (`sqrt`, `cbrt`, `abs`, `round`, `floor`, `ceil`, `ln`, `log`, `log10`,
`log2`, `exp`), and `max`, `min`, `gcd` and `lcm` of two or more numbers are accepted;
anything else (other names, attributes, comparisons, strings) is refused with a message the
model can act on. Powers are bounded first, because `9 ** 9 ** 9`
is valid arithmetic that would hang the process.

Quantities may carry units (`2.5 kg * 4 in g`, `400 m / 80 s * 6 min`): see `units.py`. The
result of such an expression is a `Quantity`, shown by `format_result` in the unit asked for
after `in`, else in a unit the expression named.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable

from graphs.toolkit.calculator._temperature import scale_of
from graphs.toolkit.calculator._units import BY_SYMBOL, UNITS, Quantity, UnitError
from graphs.toolkit.calculator._words import PERCENT_FUNCTION, UNIT_PREFIX, normalize

MAX_EXPRESSION_LENGTH = 500
MAX_RESULT_BITS = 13_000
"""About 3,900 digits: under Python's 4,300-digit limit for turning an int into text. Powers are
checked before they are computed, every other result after."""

Number = int | float
Result = Number | Quantity
_TARGET = re.compile(
    r"\s+(?:in|into|to|as)\s+([a-z]+)(?:\s*(?:/|per)\s*([a-z]+))?\s*[?.!]*\s*$", re.IGNORECASE
)

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
#: The largest or smallest of two or more numbers.
_EXTREMES: dict[str, Callable[[list[Number]], Number]] = {"max": max, "min": min}
#: The greatest common divisor and least common multiple of two or more whole numbers.
_DIVISORS: dict[str, Callable[..., int]] = {
    "gcd": math.gcd,
    "hcf": math.gcd,
    "lcm": math.lcm,
}
_FUNCTIONS: dict[str, Callable[[float], Number]] = {
    "sqrt": math.sqrt,
    "cbrt": math.cbrt,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
    "ln": math.log,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
}
_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}
_ALLOWED = (
    "numbers, + - * / // % ** ^, percentages (15% of 80, 150 + 7%), parentheses, "
    "sqrt() and the like, max() and min(), gcd() and lcm(), units (2.5 kg * 4 in g)"
)
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


class CalculatorError(ValueError):
    """The expression is not plain arithmetic, or its value cannot be computed."""


class NotArithmetic(CalculatorError):
    """The expression is not arithmetic at all (words, code): another tool's work, unlike a
    division by zero, which no tool can compute."""


def calculate(expression: str) -> Result:
    """The value of an arithmetic expression such as `25 * 4 + 17` or `(2 ** 10) / 3`; a
    `Quantity` when it carries units (`2.5 kg * 4 in g`).

    Raises:
        CalculatorError: anything but arithmetic, division by zero, or a result too large.
    """
    if not isinstance(expression, str) or not expression.strip():
        raise CalculatorError("expected an arithmetic expression such as '25 * 4 + 17'")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CalculatorError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    arithmetic, target = _split_target(expression)
    try:
        tree = ast.parse(normalize(arithmetic), mode="eval")
    except SyntaxError as exc:
        raise NotArithmetic(f"not an arithmetic expression: {expression!r}") from exc
    try:
        value = _evaluate(tree.body)
        if isinstance(value, Quantity):
            value.check_everyday()
        if target is None:
            return value
        if not isinstance(value, Quantity):
            raise CalculatorError(
                f"the result has no unit to express in {target}: give the quantities their "
                "units, e.g. 2.5 kg * 4 in g"
            )
        return value.expressed_in(target)
    except CalculatorError:
        raise
    except UnitError as exc:
        raise CalculatorError(str(exc)) from exc
    except TypeError as exc:  # floor division, remainder or a function of a quantity
        raise CalculatorError("that operation needs plain numbers, not quantities") from exc
    except ZeroDivisionError as exc:
        raise CalculatorError("division by zero") from exc
    except OverflowError as exc:
        raise CalculatorError("the result is too large") from exc
    except ValueError as exc:  # math domain errors: sqrt(-1), log(0)
        raise CalculatorError(f"not defined: {exc}") from exc


def _split_target(expression: str) -> tuple[str, str | None]:
    """`2.5 kg * 4 in g` as (`2.5 kg * 4`, `g`); `60 km / 2 h in km per h` gives `km/h`."""
    match = _TARGET.search(expression)
    if match is None:
        return expression, None
    names = [name.lower() for name in match.groups() if name]
    if any(scale_of(name) for name in names):  # `100 F in C` read as `100` was 100
        raise CalculatorError(
            "a temperature converts on its own, as one value and two scales: 100 F in C"
        )
    if not all(name in UNITS for name in names):
        return expression, None
    symbols = [UNITS[name].symbol for name in names]
    return expression[: match.start()], "/".join(symbols)


def format_result(value: Result) -> str:
    """A number as `format_number` writes it; a quantity with its unit (`10000 g`)."""
    if isinstance(value, Quantity):
        unit = value.display_unit()
        return f"{format_number(value.in_unit(unit))} {unit}"
    return format_number(value)


def format_number(value: Number) -> str:
    """`117`, `0.5`, `33.3333333333333`: integral floats lose their `.0`, and binary noise
    (`0.1 + 0.2`, `1/3 * 90`) is cut at 15 significant digits, so a model copying the result
    writes `0.3` and `30`, not `0.30000000000000004`."""
    if isinstance(value, float):
        value = float(f"{value:.15g}")
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
    return repr(value)


def _evaluate(node: ast.expr) -> Result:
    if isinstance(node, ast.Name) and node.id.startswith(UNIT_PREFIX):
        symbol = node.id[len(UNIT_PREFIX) :]
        if symbol in BY_SYMBOL:
            return Quantity.of(symbol)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise NotArithmetic(f"only numbers are allowed, not {node.value!r}")
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if is_call(node, *_FUNCTIONS, PERCENT_FUNCTION):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        argument = _evaluate(node.args[0])
        if node.func.id == PERCENT_FUNCTION:
            return argument / 100
        return _FUNCTIONS[node.func.id](argument)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and (node.func.id in _EXTREMES or node.func.id in _DIVISORS)
        and len(node.args) >= 2
        and not node.keywords
    ):
        # "Which is bigger, 9.11 or 9.9?": a small model subtracted and misread the sign.
        name = node.func.id
        values = [_evaluate(argument) for argument in node.args]
        numbers = [value for value in values if not isinstance(value, Quantity)]
        if len(numbers) < len(values):
            raise CalculatorError(f"{name}() takes plain numbers")
        if name in _EXTREMES:
            return _EXTREMES[name](numbers)
        if not all(float(number).is_integer() for number in numbers):
            raise CalculatorError(f"{name}() takes whole numbers")
        return _checked(_DIVISORS[name](*(int(number) for number in numbers)))
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add | ast.Sub)
        and is_call(node.right, PERCENT_FUNCTION)
    ):
        # A pocket calculator's `150 + 7%`: seven percent of 150 added, not 0.07.
        base, rate = _evaluate(node.left), _evaluate(node.right)
        return _checked(base * (1 + rate if isinstance(node.op, ast.Add) else 1 - rate))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return _checked(_BINARY[type(node.op)](left, right))
    raise NotArithmetic(f"only {_ALLOWED} are allowed, not {ast.unparse(node)!r}")


def is_call(node: ast.expr, *names: str) -> bool:
    """A call of one of `names` with exactly one positional argument (`_percent(30)`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in names
        and len(node.args) == 1
        and not node.keywords
    )


def _checked(result: Result | complex) -> Result:
    if isinstance(result, Quantity):
        if not math.isfinite(result.value):
            raise CalculatorError("the result is too large")
        return result
    if isinstance(result, complex):
        raise CalculatorError("the result is not a real number")
    too_large = (isinstance(result, float) and not math.isfinite(result)) or (
        isinstance(result, int) and result.bit_length() > MAX_RESULT_BITS
    )
    if too_large:
        raise CalculatorError("the result is too large")
    return result


def _check_power(base: Result, exponent: Result) -> None:
    if isinstance(base, Quantity) or isinstance(exponent, Quantity):
        if isinstance(exponent, Quantity) or abs(exponent) > 4:
            raise CalculatorError("a quantity with a unit can be squared or cubed, no more")
        return
    both_int = isinstance(base, int) and isinstance(exponent, int)
    if both_int and abs(base) > 1 and abs(base).bit_length() * exponent > MAX_RESULT_BITS:
        raise CalculatorError("the result is too large")
