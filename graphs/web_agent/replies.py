"""The structured replies of Clarify, Planning and Report.

String fields have a `max_length`, so a grammar-constrained local model has a finite token
budget for the call (docs/models.md, Budgets).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

Step = Annotated[str, Field(min_length=1, max_length=200)]


class Clarification(BaseModel):
    """Whether the task can be done as stated, or what to ask the person first."""

    need_clarification: bool = Field(
        description="true only if the task cannot be done without an answer"
    )
    question: str = Field(default="", max_length=200, description="the one question to ask")
    message_to_user: str = Field(
        default="", max_length=200, description="what to tell the person now"
    )


class Plan(BaseModel):
    """The steps to carry the task out in a browser, in order."""

    steps: list[Step] = Field(min_length=1, max_length=10)


class Answer(BaseModel):
    """The answer to the task, written from the extracted data only."""

    final_answer: str = Field(max_length=400, description="the answer, naming values found")
