"""The JSON-schema to GBNF translation, checked on the grammar text itself.

The real-model tests prove llama.cpp accepts these grammars and that decoded calls validate;
these tests pin the translation rules (enum spelling, escaping, lengths, refs) and make sure
every rule a grammar mentions is defined, which is what llama.cpp would reject at load time.
"""

from __future__ import annotations

import re

import pytest

from open_langgraph.models.local.grammar import (
    UnsupportedSchemaError,
    gbnf_literal,
    schema_grammar,
    tool_call_grammar,
)


def _rules(grammar: str) -> dict[str, str]:
    rules = {}
    for line in grammar.strip().splitlines():
        name, _, body = line.partition(" ::= ")
        assert name not in rules, f"rule {name} defined twice"
        rules[name] = body
    return rules


def _referenced(body: str) -> set[str]:
    without_literals = re.sub(r'"(?:\\.|[^"\\])*"', " ", body)
    without_classes = re.sub(r"\[(?:\\.|[^\]\\])*\]", " ", without_literals)
    without_counts = re.sub(r"\{[0-9,]*\}", " ", without_classes)
    return set(re.findall(r"[a-zA-Z][a-zA-Z0-9-]*", without_counts))


def _assert_closed(grammar: str) -> dict[str, str]:
    rules = _rules(grammar)
    assert "root" in rules
    for name, body in rules.items():
        missing = _referenced(body) - rules.keys()
        assert not missing, f"{name} references undefined {missing}"
    return rules


def test_literal_escaping() -> None:
    assert gbnf_literal('say "hi"\\') == r'"say \"hi\"\\"'
    assert gbnf_literal("a\nb\tc\x01") == r'"a\nb\tc\x01"'
    assert gbnf_literal("café") == '"café"'


def test_enum_becomes_alternatives_of_json_literals() -> None:
    rules = _assert_closed(schema_grammar({"enum": ["B01", 'say "x"', 3, None]}))
    assert rules["doc"] == r'"\"B01\"" | "\"say \\\"x\\\"\"" | "3" | "null"'


def test_string_lengths_and_no_control_characters() -> None:
    rules = _assert_closed(schema_grammar({"type": "string", "minLength": 2, "maxLength": 9}))
    assert rules["doc"] == r'"\"" char{2,9} "\""'
    # Raw control characters (0x00-0x1F) must be excluded; strict json.loads rejects them.
    assert r"\x00-\x1F" in rules["char"]


def test_object_required_then_optional_in_order() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}, "c": {"type": "null"}},
        "required": ["b"],
    }
    rules = _assert_closed(schema_grammar(schema))
    assert rules["doc"] == (
        r'"{" "\"b\": " boolean (", " "\"a\": " integer)? (", " "\"c\": " null)? "}"'
    )


def test_object_without_required_allows_empty_and_any_ordered_subset() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "null"}}}
    rules = _assert_closed(schema_grammar(schema))
    assert rules["doc"].startswith('"{" (') and rules["doc"].endswith(')? "}"')
    assert rules["doc"].count("|") == 1


def test_bounded_integers_are_enumerated_and_minimum_one_is_positive() -> None:
    rules = _assert_closed(schema_grammar({"type": "integer", "minimum": 1, "maximum": 3}))
    assert rules["doc"] == '"1" | "2" | "3"'
    rules = _assert_closed(schema_grammar({"type": "integer", "minimum": 1}))
    assert rules["doc"] == "[1-9] [0-9]{0,15}"


def test_array_bounds() -> None:
    rules = _assert_closed(
        schema_grammar({"type": "array", "items": {"enum": ["x"]}, "minItems": 1, "maxItems": 3})
    )
    assert rules["doc"] == r'"[" doc-item (", " doc-item){0,2} "]"'


def test_refs_and_nullable_from_pydantic() -> None:
    schema = {
        "$defs": {"Pt": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/Pt"}, "q": {"anyOf": [{"type": "string"}, {}]}},
        "required": ["p", "q"],
    }
    rules = _assert_closed(schema_grammar(schema))
    assert "pt" in rules


def test_recursive_ref_terminates() -> None:
    schema = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                "required": ["kids"],
            }
        },
        "$ref": "#/$defs/Node",
    }
    _assert_closed(schema_grammar(schema))


@pytest.mark.parametrize(
    ("schema", "keyword"),
    [
        ({"type": "string", "pattern": "^a+$"}, "pattern"),
        ({"type": "number", "minimum": 0.5}, "bounds"),
        ({"type": "integer", "minimum": -5, "maximum": 10_000}, "bounds"),
        ({"type": "integer", "multipleOf": 3}, "multipleOf"),
        ({"$ref": "https://example.com/schema"}, "local"),
        ({"allOf": [{"type": "string"}, {"maxLength": 3}]}, "allOf"),
    ],
)
def test_unenforceable_keywords_are_refused(schema: dict, keyword: str) -> None:
    with pytest.raises(UnsupportedSchemaError, match=keyword):
        schema_grammar(schema)


def test_tool_call_grammar_modes() -> None:
    tools = [
        {"name": "click", "parameters": {"type": "object", "properties": {"id": {"enum": ["a"]}}}},
        {"name": "done", "parameters": {"type": "object", "properties": {}}},
    ]
    forced = _assert_closed(tool_call_grammar(tools, "any"))
    assert forced["root"] == "call"
    assert forced["call"] == "call-click | call-done"
    assert forced["call-click"].startswith(r'"{\"name\": \"click\", \"arguments\": "')
    # A tool without arguments takes exactly `{}`; free keys would only invite invented ones.
    assert forced["call-done"].endswith(' done-args "}"') and forced["done-args"] == '"{}"'
    auto = _assert_closed(tool_call_grammar(tools, "auto"))
    assert auto["root"] == "call | answer"
    # The answer is spelled as a call of final_answer: answering is a choice of function name,
    # and its text admits no "{" (nor the \\u escape that could spell one).
    assert auto["answer"].startswith(r'"{\"name\": \"final_answer\", \"arguments\": ')
    assert auto["answer-char"].startswith('[^"\\\\{') and '"u"' not in auto["answer-char"]
    with pytest.raises(ValueError, match="reserved"):
        tool_call_grammar([{"name": "final_answer", "parameters": {}}], "auto")


def test_tool_call_grammar_needs_tools() -> None:
    with pytest.raises(ValueError, match="at least one tool"):
        tool_call_grammar([], "any")
