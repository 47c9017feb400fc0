"""Arithmetic for agents, parsed with `ast` and evaluated node by node: never `eval`.

A model's "calculator" input is untrusted text. Only numbers, `+ - * / // % **`, unary signs
and parentheses are accepted; anything else (names, calls, attributes, comparisons, strings)
is refused with a message the model can act on. Powers are bounded first, because
`9 ** 9 ** 9` is valid arithmetic that would hang the process.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

MAX_EXPRESSION_LENGTH = 500
MAX_RESULT_BITS = 13_000
"""About 3,900 digits: under Python's 4,300-digit limit for turning an int into text. Powers are
checked before they are computed, every other result after."""

Number = int | float

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


class CalculatorError(ValueError):
    """The expression is not plain arithmetic, or its value cannot be computed."""


def calculate(expression: str) -> Number:
    """The value of an arithmetic expression such as `25 * 4 + 17` or `(2 ** 10) / 3`.

    Raises:
        CalculatorError: anything but arithmetic, division by zero, or a result too large.
    """
    if not isinstance(expression, str) or not expression.strip():
        raise CalculatorError("expected an arithmetic expression such as '25 * 4 + 17'")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CalculatorError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise CalculatorError(f"not an arithmetic expression: {expression!r}") from exc
    try:
        return _evaluate(tree.body)
    except ZeroDivisionError as exc:
        raise CalculatorError("division by zero") from exc
    except OverflowError as exc:
        raise CalculatorError("the result is too large") from exc


def format_number(value: Number) -> str:
    """`117`, `0.5`, `33.333333333333336`: integral floats lose their `.0`."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def _evaluate(node: ast.expr) -> Number:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalculatorError(f"only numbers are allowed, not {node.value!r}")
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, complex):
            raise CalculatorError("the result is not a real number")
        too_large = (isinstance(result, float) and not math.isfinite(result)) or (
            isinstance(result, int) and result.bit_length() > MAX_RESULT_BITS
        )
        if too_large:
            raise CalculatorError("the result is too large")
        return result
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitXor):
        raise CalculatorError("'^' is not a power here; write powers as 2 ** 10")
    raise CalculatorError(
        f"only numbers, + - * / // % ** and parentheses are allowed, not {ast.unparse(node)!r}"
    )


def _check_power(base: Number, exponent: Number) -> None:
    both_int = isinstance(base, int) and isinstance(exponent, int)
    if both_int and abs(base) > 1 and abs(base).bit_length() * exponent > MAX_RESULT_BITS:
        raise CalculatorError("the result is too large")
