"""What the calculator adds to its result from the person's question.

The calculator sees the model's expression; the question it answers may ask for another unit
or another amount. Three notes, each for a miss measured on the tuning questions of issue 33:
- a result with a unit, repeated in each other unit of its kind the question asks for
  (`10 kg = 10000 g` for "how many grams"), so the model quotes the one asked for (every unit
  the question named, the one it gave included, made the model quote that one instead);
- a plain number for a question that mixes units of one kind (kg and grams, seconds and
  minutes), a reminder to convert: the model's `2.5 * 4` for "2.5 kg a bag, how many grams in
  4 bags" computed faithfully is still 10;
- a price after a discount (`120 * (1 - 0.30)`, `30% off 120`, `120 - 30%`) for a question
  about what is saved, with the amount saved beside it: asked "how much do I save?", the model
  computed the price it pays and quoted it.
"""

from __future__ import annotations

import ast
import re

from open_langgraph.tools.calculator import Result, calculate, format_number, is_call
from open_langgraph.tools.calculator_words import PERCENT_FUNCTION, normalize
from open_langgraph.tools.units import BY_SYMBOL, Quantity, units_named_in

_ASKING = re.compile(r"\bhow\s+(?:many|much|far|long|heavy|fast)\b|\bin\s+what\b", re.I)


def asked_units(question: str) -> list[str]:
    """The units the question asks its answer in: those named from its last "how many" (or
    much, far, long, heavy, fast; "in what") on. "A bag weighs 2.5 kg. How many grams do 4
    bags weigh?" asks for g, not kg."""
    asking = list(_ASKING.finditer(question))
    return units_named_in(question[asking[-1].start() :]) if asking else []


_SAVING = re.compile(r"\bsav(?:e|es|ed|ing|ings)\b|\bhow\s+much\s+(?:less|off)\b", re.I)


def calculator_notes(expression: str, value: Result, question: str) -> str:
    """Text to append to the calculator's answer ("" when the question adds nothing)."""
    return unit_notes(value, question) + savings_note(expression, value, question)


def savings_note(expression: str, value: Result, question: str) -> str:
    """The amount saved, when the question asks it and the expression is a discounted price."""
    if not question or not _SAVING.search(question) or isinstance(value, Quantity):
        return ""
    original = _discounted_from(expression)
    if original is None:
        return ""
    saved = format_number(original - value)
    return f" (the price after the discount; the amount saved is {saved})"


def _discounted_from(expression: str) -> float | None:
    """The price before the discount in `A * (1 - r)`, `(1 - r) * A` or `A - P%`, else None."""
    try:
        node = ast.parse(normalize(expression), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.BinOp):
        return None
    if isinstance(node.op, ast.Sub) and is_call(node.right, PERCENT_FUNCTION):
        return _number(node.left)
    if isinstance(node.op, ast.Mult):
        for price, factor in ((node.left, node.right), (node.right, node.left)):
            if _is_one_minus(factor):
                return _number(price)
    return None


def _is_one_minus(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Sub)
        and isinstance(node.left, ast.Constant)
        and node.left.value == 1
    )


def _number(node: ast.expr) -> float | None:
    try:
        value = calculate(ast.unparse(node))
    except ValueError:
        return None
    return None if isinstance(value, Quantity) else float(value)


def unit_notes(value: Result, question: str) -> str:
    """Text to append to the calculator's answer ("" when the question adds nothing)."""
    if not question:
        return ""
    if isinstance(value, Quantity):
        if value.target is not None:  # the model named the unit itself
            return ""
        shown = value.display_unit()
        others = [
            symbol
            for symbol in asked_units(question)
            if symbol != shown and BY_SYMBOL[symbol].dimension == value.dimension
        ]
        return "".join(f" = {format_number(value.in_unit(s))} {s}" for s in others)
    named = units_named_in(question)
    kinds: dict[tuple[int, int, int], list[str]] = {}
    for symbol in named:
        kinds.setdefault(BY_SYMBOL[symbol].dimension, []).append(symbol)
    mixed = next((symbols for symbols in kinds.values() if len(symbols) > 1), None)
    if mixed is None:
        return ""
    return (
        f" (the question gives {' and '.join(mixed)}: if its quantities are in different "
        "units, write each with its unit, e.g. 2.5 kg * 4 in g, and the calculator converts)"
    )
