"""Exact arithmetic for agents, with units: parsed with `ast` and evaluated node by node.

```python
from graphs.toolkit.calculator import evaluate

evaluate("25 * 4 + 17")        # "117"
evaluate("2.5 kg * 4 in g")    # "10000 g"
evaluate("100 F in C")         # "37.7778 °C"
```

Only arithmetic runs here; anything that needs a program (letters, dates, sequences, sorting)
is the `python` tool's (`graphs.toolkit.python_sandbox`).
"""

from __future__ import annotations

from graphs.toolkit.calculator._arithmetic import (
    CalculatorError,
    NotArithmetic,
    calculate,
    format_number,
    format_result,
)
from graphs.toolkit.calculator._temperature import convert_temperature

__all__ = [
    "CalculatorError",
    "NotArithmetic",
    "calculate",
    "evaluate",
    "format_number",
    "format_result",
]


def evaluate(expression: str) -> str:
    """The value of `expression` as text: a temperature conversion (`100 F in C`), or the
    arithmetic, in the unit asked for after `in` when it has units.

    Raises:
        CalculatorError: anything but arithmetic, division by zero, or a result too large.
    """
    try:
        converted = convert_temperature(expression)
    except ValueError as exc:
        raise CalculatorError(str(exc)) from exc
    return converted if converted is not None else format_result(calculate(expression))
