"""What a re-plan may still try after a step failed, so that it never repeats the failure.

A failed call is a tool with the exact input it got: running it again fails again, so no revised
plan runs it. A tool that could not reach its service (`unreachable`: a refused connection, a
DNS failure, a timeout, a 5xx answer) fails whatever its input, so it is not used again in the
turn. A revised plan that proposes either has that step replaced by `web_search` for the turn's
request, when `web_search` is there and is not what failed; otherwise no different plan is left
and the turn stops, saying what failed. Small models re-propose the call they were just shown
failing; without this rule every re-plan cost a model call and a tool timeout for nothing.
"""

from __future__ import annotations

import socket
import urllib.error
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import httpx

from graphs.plan_execute.plan_schema import MAX_STEP_INPUT_CHARS
from graphs.plan_execute.state import PlanStep, StepRecord

FALLBACK_TOOL = "web_search"
"""Answers most requests a failed tool was for, from whatever the web (or the docs) say."""

Call = tuple[str, str]
"""A tool name and the input it gets."""

_NETWORK_ERRORS = (
    ConnectionError,
    TimeoutError,
    socket.gaierror,
    urllib.error.URLError,
    httpx.TransportError,
)


class NoDifferentPlan(Exception):
    """Every way left to answer repeats a failure; the message says what failed."""


def is_unreachable(exc: BaseException) -> bool:
    """Whether `exc`, or an exception it was raised from, says a service could not be reached.

    An HTTP answer below 500 is the service refusing this request, which another input may fix.
    """
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, urllib.error.HTTPError):
            return seen.code >= 500
        if isinstance(seen, httpx.HTTPStatusError):
            return seen.response.status_code >= 500
        if isinstance(seen, _NETWORK_ERRORS):
            return True
        seen = seen.__cause__
    return False


SHOWN_INPUT_CHARS = 60
"""Of a failed call's input in the sentences about it (an `input_from` input can be long)."""


def describe(record: StepRecord) -> str:
    """`get_weather('Seoul') failed (WeatherError: ...)`, for the person and the model."""
    step = record["step"]
    shown = step.get("input", "")
    if len(shown) > SHOWN_INPUT_CHARS:
        shown = shown[:SHOWN_INPUT_CHARS] + "..."
    return f"{step['tool']}({shown!r}) failed ({record['output']})"


def fallback_note(past_steps: Sequence[StepRecord]) -> str | None:
    """The sentence a reply ends with when a tool failed and the answer came from others, so
    the person knows what it is not based on; None when nothing failed for good."""
    answered_by = [r["step"]["tool"] for r in past_steps if r["status"] == "ok"]
    lost = [
        r
        for r in past_steps
        if r["status"] == "error" and r["step"]["tool"] not in answered_by and "input" in r["step"]
    ]
    if not answered_by or not lost:
        return None
    tools = ", ".join(dict.fromkeys(answered_by))
    return f"Note: {describe(lost[0])}, so this answer is based on {tools} instead."


@dataclass(frozen=True)
class Failures:
    """This turn's failed calls and unreachable tools, read from the audit trail."""

    calls: Mapping[Call, StepRecord]
    unreachable: Mapping[str, StepRecord]

    @classmethod
    def of(cls, past_steps: Sequence[StepRecord]) -> Failures:
        calls: dict[Call, StepRecord] = {}
        unreachable: dict[str, StepRecord] = {}
        for record in past_steps:
            if record["status"] != "error" or "input" not in record["step"]:
                continue
            step = record["step"]
            calls.setdefault((step["tool"], step["input"]), record)
            if record.get("unreachable"):
                unreachable.setdefault(step["tool"], record)
        return cls(calls, unreachable)

    def blocking(self, tool: str, tool_input: str | None) -> StepRecord | None:
        """The failure that running `tool` on `tool_input` would repeat (None: no input yet)."""
        if tool in self.unreachable:
            return self.unreachable[tool]
        if tool_input is None:
            return None
        return self.calls.get((tool, tool_input))

    def usable(self, tools: Sequence[str]) -> list[str]:
        return [t for t in tools if t not in self.unreachable]


def avoid(
    plan: Sequence[PlanStep],
    failures: Failures,
    query: str,
    tools: Sequence[str],
    outputs: Mapping[str, str],
) -> list[PlanStep]:
    """`plan` with every step that would repeat a failure replaced by the fallback search.

    Args:
        plan: a validated revised plan.
        failures: this turn's failures.
        query: the turn's self-contained request, which the fallback searches for.
        tools: the tools of the run.
        outputs: the outputs of the steps that succeeded, which `input_from` may name.

    Raises:
        NoDifferentPlan: a step repeats a failure and there is nothing to fall back to.
    """
    fallback: PlanStep = {
        "step_id": "",
        "tool": FALLBACK_TOOL,
        "input": query.strip()[:MAX_STEP_INPUT_CHARS],
    }
    revised: list[PlanStep] = []
    for step in plan:
        tool_input = step.get("input", outputs.get(step.get("input_from", "")))
        repeated = failures.blocking(step["tool"], tool_input)
        if repeated is None:
            revised.append(step)
            continue
        if (
            step["tool"] == FALLBACK_TOOL
            or FALLBACK_TOOL not in tools
            or failures.blocking(FALLBACK_TOOL, fallback["input"])
        ):
            raise NoDifferentPlan(
                f"{describe(repeated)}, and the re-planner found no different plan "
                f"(it proposed {step['tool']} again)"
            )
        replacement: PlanStep = {**fallback, "step_id": step["step_id"]}
        if _same_call_earlier(replacement, revised) and not _feeds_later(step, plan):
            continue
        revised.append(replacement)
    return revised


def _same_call_earlier(step: PlanStep, earlier: Sequence[PlanStep]) -> bool:
    return any(s["tool"] == step["tool"] and s.get("input") == step.get("input") for s in earlier)


def _feeds_later(step: PlanStep, plan: Sequence[PlanStep]) -> bool:
    return any(s.get("input_from") == step["step_id"] for s in plan)
