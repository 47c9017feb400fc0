"""GBNF grammars that make a local model's tool calls valid by construction.

Small models rarely emit a parseable tool call on their own. llama.cpp can restrict sampling to
the strings of a GBNF grammar, so we translate each tool's JSON schema into grammar rules: every
string the model can produce is then JSON that validates against the schema (`enum` included, so
an agent can confine an argument to e.g. the item ids on the current page).

The output is compact JSON with fixed `", "` / `": "` separators. Free whitespace would let a
small model spend its token budget on newlines, and a fixed key order means one way to spell each
call. Keywords the grammar cannot enforce (`pattern`, open numeric bounds, ...) raise
`UnsupportedSchemaError` when the tools are bound, instead of producing calls that might fail
validation later.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

ToolChoiceMode = Literal["auto", "any"]

FINAL_ANSWER = "final_answer"
"""The function an "auto" reply calls to answer in text instead of calling a tool."""
ANSWER_PREFIX = '{"name": "final_answer", "arguments": {"answer": "'
"""How an answer starts under the "auto" grammar; the text follows as a JSON string."""

# Bounded ranges up to this size are spelled out as alternatives; larger ones are refused.
_MAX_ENUMERATED_RANGE = 512

# A JSON string character: anything but quote, backslash and control characters (strict
# `json.loads` rejects raw control characters, which some grammar converters let through).
_PRIMITIVES: dict[str, str] = {
    "char": r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "string": r'"\"" char* "\""',
    "integer": r'"-"? ("0" | [1-9] [0-9]{0,15})',
    "number": r'"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,3})?',
    "boolean": r'"true" | "false"',
    "null": r'"null"',
    "value": r"object | array | string | number | boolean | null",
    "object": r'"{" (string ": " value (", " string ": " value)*)? "}"',
    "array": r'"[" (value (", " value)*)? "]"',
}
# Which primitives each primitive needs, so a grammar only carries the rules it uses.
_PRIMITIVE_DEPS: dict[str, tuple[str, ...]] = {
    "string": ("char",),
    "value": ("object", "array", "string", "number", "boolean", "null"),
    "object": ("string", "value"),
    "array": ("value",),
}
_IGNORED_KEYWORDS = frozenset(
    {"title", "description", "default", "examples", "format", "$schema", "$id", "deprecated"}
    | {"readOnly", "writeOnly", "$comment", "discriminator"}
)


class UnsupportedSchemaError(ValueError):
    """A JSON schema uses a keyword the grammar cannot enforce; the message names it."""


def gbnf_literal(text: str) -> str:
    """Quote `text` as a GBNF string literal matching exactly those characters."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def json_literal(value: Any) -> str:
    """The GBNF literal for one JSON value written compactly, as the grammar writes values."""
    return gbnf_literal(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


class GrammarBuilder:
    """Accumulates named rules; equal rule bodies share one name so grammars stay small."""

    def __init__(self) -> None:
        self._rules: dict[str, str] = {}
        self._by_body: dict[str, str] = {}
        self._used_primitives: set[str] = set()
        self._refs: dict[str, str] = {}
        self._root_schema: Mapping[str, Any] = {}

    def add_rule(self, name_hint: str, body: str) -> str:
        """Register `body` under a name derived from `name_hint`; returns the rule name."""
        if body in self._by_body:
            return self._by_body[body]
        base = re.sub(r"[^a-zA-Z0-9-]+", "-", name_hint).strip("-").lower() or "r"
        name, n = base, 1
        while name in self._rules or name in _PRIMITIVES:
            n += 1
            name = f"{base}-{n}"
        self._rules[name] = body
        self._by_body[body] = name
        return name

    def primitive(self, name: str) -> str:
        """Mark a shared primitive rule (and what it needs) as used; returns its name."""
        stack = [name]
        while stack:
            current = stack.pop()
            if current not in self._used_primitives:
                self._used_primitives.add(current)
                stack.extend(_PRIMITIVE_DEPS.get(current, ()))
        return name

    def schema_rule(self, schema: Mapping[str, Any], name: str) -> str:
        """Translate a top-level JSON schema into rules; returns the name of its rule.

        Local `$ref`s (Pydantic's `$defs`) resolve against `schema` itself.
        """
        self._root_schema, self._refs = schema, {}
        return self._visit(schema, name)

    def render(self, root_body: str) -> str:
        """The complete grammar text with `root ::= root_body`."""
        lines = [f"root ::= {root_body}"]
        lines += [f"{name} ::= {body}" for name, body in self._rules.items()]
        lines += [f"{p} ::= {_PRIMITIVES[p]}" for p in _PRIMITIVES if p in self._used_primitives]
        return "\n".join(lines) + "\n"

    # -- schema translation -------------------------------------------------------------------

    def _visit(self, schema: Mapping[str, Any] | bool, name: str) -> str:
        if schema is True or schema == {}:
            return self.primitive("value")
        if schema is False:
            raise UnsupportedSchemaError(f"{name}: schema `false` matches nothing")
        assert isinstance(schema, Mapping)
        if "$ref" in schema:
            return self._visit_ref(schema["$ref"], name)
        if "const" in schema:
            return self.add_rule(name, json_literal(schema["const"]))
        if "enum" in schema:
            values = schema["enum"]
            if not values:
                raise UnsupportedSchemaError(f"{name}: empty `enum`")
            return self.add_rule(name, " | ".join(json_literal(v) for v in values))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                # oneOf is treated as anyOf: exclusivity cannot be expressed in a grammar, and
                # the branches generated from typed tools (Optional[...]) never overlap.
                options = [self._visit(s, f"{name}-{i}") for i, s in enumerate(schema[key])]
                return self.add_rule(name, " | ".join(options))
        if "allOf" in schema:
            parts = schema["allOf"]
            if len(parts) != 1:
                raise UnsupportedSchemaError(f"{name}: `allOf` with several schemas")
            return self._visit(parts[0], name)
        for keyword in ("pattern", "not", "if", "patternProperties", "uniqueItems"):
            if keyword in schema:
                raise UnsupportedSchemaError(f"{name}: `{keyword}` cannot be enforced by grammar")
        kind = schema.get("type")
        if isinstance(kind, list):
            options = [self._visit({**schema, "type": t}, f"{name}-{t}") for t in kind]
            return self.add_rule(name, " | ".join(options))
        if kind is None:
            kind = "object" if "properties" in schema else None
        if kind == "string":
            return self._visit_string(schema, name)
        if kind in ("integer", "number"):
            return self._visit_number(schema, name, kind)
        if kind in ("boolean", "null"):
            return self.primitive(kind)
        if kind == "array":
            return self._visit_array(schema, name)
        if kind == "object":
            return self._visit_object(schema, name)
        if kind is None:
            return self.primitive("value")
        raise UnsupportedSchemaError(f"{name}: unknown type {kind!r}")

    def _visit_ref(self, ref: str, name: str) -> str:
        if not ref.startswith("#/"):
            raise UnsupportedSchemaError(f"{name}: only local `$ref`s are supported, got {ref}")
        if ref in self._refs:
            return self._refs[ref]
        target: Any = self._root_schema
        for part in ref[2:].split("/"):
            target = target[part]
        # Reserve the name first so recursive models terminate.
        rule = self.add_rule(ref.rsplit("/", 1)[-1], f"__pending__{ref}")
        self._refs[ref] = rule
        body_rule = self._visit(target, rule + "-body")
        del self._by_body[f"__pending__{ref}"]
        self._rules[rule] = body_rule
        return rule

    def _visit_string(self, schema: Mapping[str, Any], name: str) -> str:
        min_len = int(schema.get("minLength", 0))
        max_len = schema.get("maxLength")
        if min_len == 0 and max_len is None:
            return self.primitive("string")
        self.primitive("char")
        # maxLength counts characters, not tokens: callers size max_tokens for the worst case.
        count = f"{{{min_len},{int(max_len)}}}" if max_len is not None else f"{{{min_len},}}"
        return self.add_rule(name, f'"\\"" char{count} "\\""')

    def _visit_number(self, schema: Mapping[str, Any], name: str, kind: str) -> str:
        low = schema.get("minimum")
        high = schema.get("maximum")
        if "exclusiveMinimum" in schema:
            low = schema["exclusiveMinimum"] + 1 if kind == "integer" else None
            if low is None:
                raise UnsupportedSchemaError(f"{name}: `exclusiveMinimum` on a number")
        if "exclusiveMaximum" in schema:
            high = schema["exclusiveMaximum"] - 1 if kind == "integer" else None
            if high is None:
                raise UnsupportedSchemaError(f"{name}: `exclusiveMaximum` on a number")
        if "multipleOf" in schema:
            raise UnsupportedSchemaError(f"{name}: `multipleOf` cannot be enforced by grammar")
        if low is None and high is None:
            return self.primitive(kind)
        if kind == "integer" and high is None and low in (0, 1):
            positive = "[1-9] [0-9]{0,15}"
            return self.add_rule(name, f'"0" | {positive}' if low == 0 else positive)
        if (
            kind == "integer"
            and low is not None
            and high is not None
            and 0 <= high - low <= _MAX_ENUMERATED_RANGE
        ):
            return self.add_rule(
                name, " | ".join(gbnf_literal(str(v)) for v in range(int(low), int(high) + 1))
            )
        raise UnsupportedSchemaError(
            f"{name}: bounds minimum={low} maximum={high} on {kind} cannot be enforced by grammar"
        )

    def _visit_array(self, schema: Mapping[str, Any], name: str) -> str:
        items = schema.get("items", True)
        if "prefixItems" in schema:
            raise UnsupportedSchemaError(f"{name}: `prefixItems` (tuples) are not supported")
        item = self._visit(items, f"{name}-item")
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        if high is not None and int(high) == 0:
            return self.add_rule(name, '"[]"')
        rest_high = "" if high is None else str(int(high) - 1)
        rest = f'(", " {item}){{{max(low - 1, 0)},{rest_high}}}' if rest_high != "0" else ""
        body = f'"[" {item} {rest} "]"'
        if low == 0:
            body = f'"[" ({item} {rest})? "]"'
        return self.add_rule(name, body)

    def _visit_object(self, schema: Mapping[str, Any], name: str) -> str:
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k in properties]
        missing = [k for k in schema.get("required", []) if k not in properties]
        if missing:
            raise UnsupportedSchemaError(f"{name}: required {missing} have no schema")
        if not properties:
            # `properties: {}` (a tool without arguments) gets exactly `{}`: valid, and it stops
            # a small model from inventing keys. Without `properties` it is a free-form map.
            extra = schema.get("additionalProperties", "properties" not in schema)
            if extra is False:
                return self.add_rule(name, '"{}"')
            value = self._visit(extra, f"{name}-value")
            string = self.primitive("string")
            pair = f'{string} ": " {value}'
            return self.add_rule(name, f'"{{" ({pair} (", " {pair})*)? "}}"')

        def pair(key: str) -> str:
            value = self._visit(properties[key], f"{name}-{key}")
            return f"{gbnf_literal(json.dumps(key, ensure_ascii=False) + ': ')} {value}"

        optional = [k for k in properties if k not in required]
        if required:
            body = ' ", " '.join(pair(k) for k in required)
            body += "".join(f' (", " {pair(k)})?' for k in optional)
            return self.add_rule(name, f'"{{" {body} "}}"')
        # No required keys: any in-order subset of the optional ones, possibly empty.
        chains = []
        for i, key in enumerate(optional):
            tail = "".join(f' (", " {pair(k)})?' for k in optional[i + 1 :])
            chains.append(pair(key) + tail)
        return self.add_rule(name, f'"{{" ({" | ".join(f"({c})" for c in chains)})? "}}"')


def schema_grammar(schema: Mapping[str, Any]) -> str:
    """A grammar whose sentences are exactly compact JSON documents valid for `schema`."""
    builder = GrammarBuilder()
    return builder.render(builder.schema_rule(schema, "doc"))


def tool_call_grammar(tools: Sequence[Mapping[str, Any]], mode: ToolChoiceMode) -> str:
    """A grammar for one reply: a tool call, or (with `mode="auto"`) an answer.

    Args:
        tools: OpenAI-style function specs (`name`, `parameters`) the model may call; for a
            forced tool pass only that tool with `mode="any"`.
        mode: `"any"` forces a call; `"auto"` also admits an answer, written as a call of
            `final_answer` (`ANSWER_PREFIX` + JSON string text + `"}}`). The choice between
            answering and calling is then one explicit decision, the function name; free text
            beside a call let a 1.5B model write call JSON into its answer, or answer "use the
            calculator" instead of calling it.

    Returns:
        GBNF text. A call is written `{"name": "<tool>", "arguments": {...}}`, without the
        `<tool_call>` tags of Hermes-style templates: there they are special tokens, and spelling
        them through the grammar splits them into ordinary tokens the model never saw, which
        measurably worsened Qwen2.5's choices.

    Raises:
        UnsupportedSchemaError: a tool's schema uses a keyword the grammar cannot enforce.
        ValueError: no tools, or (in "auto" mode) a tool named `final_answer`.
    """
    if not tools:
        raise ValueError("tool_call_grammar needs at least one tool")
    builder = GrammarBuilder()
    calls = []
    for tool in tools:
        tool_name = tool["name"]
        params = tool.get("parameters") or {"type": "object", "properties": {}}
        args = builder.schema_rule(params, f"{tool_name}-args")
        head = gbnf_literal('{"name": ' + json.dumps(tool_name) + ', "arguments": ')
        calls.append(builder.add_rule(f"call-{tool_name}", f'{head} {args} "}}"'))
    call = builder.add_rule("call", " | ".join(calls))
    if mode == "any":
        return builder.render(call)
    if any(t["name"] == FINAL_ANSWER for t in tools):
        raise ValueError(f"{FINAL_ANSWER!r} is reserved for the answer; rename that tool")
    return builder.render(f"{call} | {_answer_rule(builder)}")


def answer_grammar() -> str:
    """A grammar admitting only an answer, spelled as the "auto" grammar spells it.

    For a reply that must answer (the repeat guard's): the request keeps the "auto" prompt,
    so the model's prompt cache still holds, and only the grammar changes.
    """
    builder = GrammarBuilder()
    return builder.render(_answer_rule(builder))


def _answer_rule(builder: GrammarBuilder) -> str:
    # The answer is spelled like a call, so the model's first decision is which function to
    # write: a tool, or the answer. Its text admits no "{" (so no call JSON inside an answer)
    # and only the short escapes (so "\u007b" cannot smuggle one in either).
    answer_char = r'[^"\\{\x7F\x00-\x1F] | "\\" ["\\/bfnrt]'
    char = builder.add_rule("answer-char", answer_char)
    head = gbnf_literal(ANSWER_PREFIX)
    # Unbounded: `max_tokens` ends a long answer, which is then kept as far as it got.
    return builder.add_rule("answer", f'{head} {char}+ "\\"}}}}"')
