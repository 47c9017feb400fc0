"""`olg run`'s question for an interrupt that is no tool review, in plain words.

Whatever a graph passes to `interrupt()` is shown as something a person can read, never as raw
JSON, and the prompt after it says what to type. The typed line becomes the resume value:

- text (`interrupt("What is your name?")`): the text; any answer.
- a plan to approve (`{"plan": [...], "question": ...}`, a `type` naming an approval, as
  web_agent's `plan_approval`): the numbered plan; `yes` runs it, `no` and what to change.
- a yes/no question (a `type` starting with `confirm`, as web_agent's `confirm_quit`, or a
  question saying "yes or no"): yes or no.
- choices (`options` or `choices`, a list): numbered; a number sends that choice.
- any other object: its text fields (`message_to_user`, `question`, `description`...) as
  sentences and its other fields as `name: value` lines; any answer, or a JSON object.

The answer is sent as typed (a choice's number as the choice), because the graphs that ask read
text (web_agent reads `yes`, `no, search first`...); a line that is a JSON object is sent as the
object, for graphs that want one. Where the graph needs a word (approval, yes/no, a choice) an
empty line is asked again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from open_langgraph.run_review import InputEnded, Prompter, ReadLine

Kind = Literal["text", "object", "approval", "yes_no", "choice"]
#: Fields read as sentences, in this order: an introduction first, then the question.
INTRO_FIELDS = ("title", "message_to_user", "message", "description", "text", "content")
QUESTION_FIELDS = ("question", "prompt", "query")
LIST_FIELDS = ("plan", "options", "choices")
WAITING = "The agent waits for your answer."
PROMPTS: dict[Kind, str] = {
    "text": "Your answer (free text)? ",
    "object": "Your answer (free text, or a JSON object)? ",
    "approval": "Your answer (yes to run it, or no and what to change)? ",
    "yes_no": "Your answer (yes or no)? ",
    "choice": "Your answer (a number from 1 to {n}, or your own words)? ",
}
RETRIES: dict[Kind, str] = {
    "approval": "Please type yes, or no and what to change.",
    "yes_no": "Please type yes or no.",
    "choice": "Please type a number from 1 to {n}, or your own words.",
}


@dataclass(frozen=True, slots=True)
class Question:
    """What `olg run` shows for one interrupt, and how it reads the answer."""

    lines: tuple[str, ...]
    kind: Kind
    choices: tuple[Any, ...] = ()

    @property
    def prompt(self) -> str:
        return PROMPTS[self.kind].format(n=len(self.choices))

    def answer(self, typed: str) -> Any | None:
        """The resume value for a typed line; None when it must be asked again."""
        text = typed.strip()
        if not text and self.kind in RETRIES:
            return None
        if self.kind == "choice" and text.isdigit() and 1 <= int(text) <= len(self.choices):
            choice = self.choices[int(text) - 1]
            return choice["value"] if isinstance(choice, dict) and "value" in choice else choice
        return parse_answer(text)


def question_for(value: Any) -> Question:
    """The question an interrupt's value asks."""
    if value is None:
        return Question((WAITING,), "text")
    if not isinstance(value, dict):
        text = value if isinstance(value, str) else _value_text(value)
        return Question(tuple(text.splitlines() or [WAITING]), _kind_of_text(text))
    said = [str(value[k]).strip() for k in (*INTRO_FIELDS, *QUESTION_FIELDS) if _text(value, k)]
    kind: Kind = _kind_of_text(" ".join(said))
    kind_name = str(value.get("type") or "").lower()
    if "approv" in kind_name or (_listed(value, "plan") and said):
        kind = "approval"
    elif kind_name.startswith("confirm"):
        kind = "yes_no"
    lines = [str(value[k]).strip() for k in INTRO_FIELDS if _text(value, k)]
    if _listed(value, "plan"):
        lines += ["Plan:", *_numbered(value["plan"])]
    lines += [str(value[k]).strip() for k in QUESTION_FIELDS if _text(value, k)]
    choices = next((tuple(value[k]) for k in ("options", "choices") if _listed(value, k)), ())
    if choices:
        lines += ["Choices:", *_numbered(choices)]
        kind = "choice"
    shown = {*INTRO_FIELDS, *QUESTION_FIELDS, *LIST_FIELDS}
    if lines:
        shown.add("type")  # what kind of question it is, already worded by the prompt
    rest = [f"  {k}: {_value_text(v)}" for k, v in value.items() if k not in shown]
    if rest:
        lines += ["" if lines else WAITING.removesuffix(".") + ":", *rest]
        kind = "object" if kind == "text" else kind
    return Question(tuple(_split_lines(lines) or [WAITING]), kind, choices)


async def ask_question(value: Any, prompter: Prompter, read_line: ReadLine) -> Any:
    """Shows the interrupt's question and returns the resume value typed for it.

    Raises:
        InputEnded: the input ended before an answer.
    """
    question = question_for(value)
    prompter.say()
    for line in question.lines:
        prompter.say(line)
    while True:
        prompter.ask(question.prompt)
        typed = await read_line()
        if not typed:
            raise InputEnded
        answer = question.answer(typed)
        if answer is not None:
            return answer
        prompter.say(RETRIES[question.kind].format(n=len(question.choices)))


def parse_answer(line: str) -> Any:
    """A typed answer: a JSON object when it is one, else the text."""
    text = line.strip()
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text


def _kind_of_text(text: str) -> Kind:
    lowered = text.lower()
    return "yes_no" if "yes or no" in lowered or "yes/no" in lowered else "text"


def _text(value: dict[str, Any], key: str) -> bool:
    item = value.get(key)
    return (
        isinstance(item, str | int | float)
        and not isinstance(item, bool)
        and bool(str(item).strip())
    )


def _listed(value: dict[str, Any], key: str) -> bool:
    return isinstance(value.get(key), list) and bool(value[key])


def _numbered(items: Sequence[Any]) -> list[str]:
    return [f"  {i}. {_value_text(item)}" for i, item in enumerate(items, 1)]


def _value_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and isinstance(item.get("label"), str):
        return item["label"]  # a choice given as {"label": ..., "value": ...}
    return json.dumps(item, ensure_ascii=False, default=str)


def _split_lines(lines: Sequence[str]) -> list[str]:
    """Multi-line texts as lines, their later lines indented as their first is."""
    out = []
    for line in lines:
        first, *more = line.split("\n")
        indent = " " * (len(first) - len(first.lstrip()))
        out += [first, *(f"{indent}  {m}" if indent else m for m in more)]
    return out
