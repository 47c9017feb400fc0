"""The calculator's units (tools/units.py): quantities written as a question gives them are
converted, the result is shown in the unit asked for, and the person's question adds the
units it names to the tool's answer (tools/calculator_notes.py)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.react_agent import graph
from open_langgraph.tools import CalculatorError, calculate
from open_langgraph.tools.calculator import format_result
from open_langgraph.tools.calculator_notes import asked_units, savings_note, unit_notes
from open_langgraph.tools.units import units_named_in

from .conftest import ModelScript, tool_call


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2.5 kg * 4 in g", "10000 g"),
        ("2.5 kg * 4", "10 kg"),
        ("400 m / 80 s * 6 min", "1800 m"),
        ("60 km per 2 hours", "30 km/h"),
        ("60 km/h * 90 min", "90 km"),
        ("72 km/h in m/s", "20 m/s"),
        ("3 weeks in hours", "504 h"),
        ("2 hours 30 minutes in minutes", "150 min"),
        ("5 km + 300 m", "5.3 km"),
        ("5 km + 300 m in m", "5300 m"),
        ("500 ml * 6 in litres", "3 l"),
        ("1.5 l / 250 ml", "6"),  # a ratio of two volumes is a plain number
        ("150 kg + 7%", "160.5 kg"),
        ("5 m ^ 2", "25 m^2"),
        ("2.5 kilometers in meters", "2500 m"),
        ("12 apples + 5 apples", "17"),  # a count's noun is not a unit
    ],
)
def test_quantities_are_converted_and_shown_in_the_unit_asked_for(
    expression: str, expected: str
) -> None:
    assert format_result(calculate(expression)) == expected


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("5 kg + 3 m", "cannot add a mass and a length"),
        ("3 h in kg", "the result is a time, not kg"),
        ("10 in g", "no unit to express in g"),
        ("7 kg // 2", "plain numbers"),
        ("2 m ^ 9", "squared or cubed"),
        # A rate written as a product: the model's "3 ml * 24 hours" for 3 ml a minute.
        ("3 ml * 24 hours", "3 ml / 1 min \\* 24 h"),
    ],
)
def test_quantities_that_do_not_fit_are_refused_with_the_reason(
    expression: str, reason: str
) -> None:
    with pytest.raises(CalculatorError, match=reason):
        calculate(expression)


def test_units_a_question_names_in_order_one_letter_ones_only_after_a_number() -> None:
    question = "A bag weighs 2.5 kg. How many grams do 4 bags weigh? I'm asking in m"
    assert units_named_in(question) == ["kg", "g"]
    assert units_named_in("She runs 400 m in 80 seconds") == ["m", "s"]


def test_the_notes_give_the_questions_unit_or_ask_for_units_when_it_mixes_them() -> None:
    question = "A bag of rice weighs 2.5 kg. How many grams do 4 bags weigh?"
    assert unit_notes(calculate("2.5 kg * 4"), question) == " = 10000 g"
    # Only the unit asked for ("how many grams"), not the one the question gave: with kg
    # repeated the model quoted "10 kg".
    assert unit_notes(calculate("2.5 kg * 4 in g"), question) == ""
    assert asked_units(question) == ["g"]
    assert asked_units("At that pace, how far does she run in 6 minutes, in km?") == ["min", "km"]
    note = unit_notes(calculate("2.5 * 4"), question)
    assert "kg and g" in note and "2.5 kg * 4 in g" in note
    assert unit_notes(calculate("2.5 * 4"), "What is 2.5 times 4?") == ""
    assert unit_notes(calculate("10 * 3"), "10 apples at 3 kg each") == ""


async def test_the_agent_gets_the_unit_the_question_asks_for(script: ModelScript) -> None:
    """Through the graph the tool reads the person's question (the model's expression names
    kilograms, the question grams) and answers in both."""
    script(
        tool_call("calculator", "c1", expression="2.5 kg * 4"),
        AIMessage("4 bags weigh 10000 grams."),
    )
    question = "A bag of rice weighs 2.5 kg. How many grams do 4 bags weigh?"
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    tool_message = result["messages"][2]
    assert isinstance(tool_message, ToolMessage)
    assert tool_message.content == "10 kg = 10000 g"


def test_a_discounted_price_for_a_question_about_saving_says_what_is_saved() -> None:
    question = "A jacket costs $120 and is 30% off. How much money do I save?"
    for expression in ("120 * (1 - 0.30)", "30% off 120", "120 - 30%", "(1 - 0.3) * 120"):
        note = savings_note(expression, calculate(expression), question)
        assert note == " (the price after the discount; the amount saved is 36)", expression
    assert savings_note("30% of 120", calculate("30% of 120"), question) == ""
    assert savings_note("120 - 84", calculate("120 - 84"), question) == ""
    other = "A jacket costs $120 and is 30% off. What do I pay?"
    assert savings_note("30% off 120", calculate("30% off 120"), other) == ""
