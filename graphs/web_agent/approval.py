"""Reading a person's answers to the approval and quit questions.

Answers arrive as `Command(resume=...)` values from any client: plain text typed in a terminal
(`olg run`), or a JSON object from a UI or the SDK. Both shapes are accepted:

    "yes"                                   run the plan
    "no, search for the 32 oz size first"   re-plan with that feedback
    {"decision": "no", "feedback": "..."}   the same as an object
    anything else                           asks whether to quit
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

YES = {"yes", "y", "ok", "okay", "approve", "approved", "go", "run"}
NO = {"no", "n", "reject", "rejected", "change"}


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: Literal["yes", "no", "other"]
    feedback: str = ""


def _split(text: str) -> tuple[str, str]:
    match = re.match(r"\s*([A-Za-z]+)\b[\s,.:;!-]*(.*)", text, re.S)
    if not match:
        return "", text.strip()
    return match.group(1).lower(), match.group(2).strip()


def read_approval(answer: Any) -> Verdict:
    """The person's verdict on a plan."""
    if isinstance(answer, dict):
        decision = str(answer.get("decision", answer.get("type", ""))).strip().lower()
        feedback = str(answer.get("feedback") or answer.get("message") or "").strip()
        word = decision
    elif isinstance(answer, bool):
        return Verdict("yes" if answer else "other")
    elif isinstance(answer, str):
        word, feedback = _split(answer)
    else:
        return Verdict("other")
    if word in YES and not feedback:
        return Verdict("yes")
    if word in YES:
        # "yes but ..." is not a clean approval: treat the rest as feedback for a new plan.
        return Verdict("no", feedback)
    if word in NO:
        return Verdict("no", feedback)
    return Verdict("other")


def read_yes_no(answer: Any) -> bool | None:
    """True for yes, False for no, None when the answer is neither."""
    if isinstance(answer, bool):
        return answer
    if isinstance(answer, dict):
        answer = answer.get("decision", answer.get("answer", ""))
    word, _ = _split(str(answer))
    if word in YES:
        return True
    if word in NO:
        return False
    return None
