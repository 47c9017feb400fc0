"""LangChain v1 agent middleware for the bundled agents, one concern per module.

- `RunSettings` (`run_settings.py`): each run's model and system prompt, from its context.
- `RepeatedCallGuard` (`repeat_guard.py`): a call already made this turn is not run again.
- `StepBudget` (`step_budget.py`): the model answers while the run has room for an answer.
- `UnansweredCalls` (`unanswered_calls.py`): calls that never ran are answered with the reason.
"""

from graphs.toolkit.middleware.repeat_guard import RepeatedCallGuard
from graphs.toolkit.middleware.run_settings import ModelChosenPerRun, RunSettings
from graphs.toolkit.middleware.step_budget import OUT_OF_STEPS_ANSWER, StepBudget
from graphs.toolkit.middleware.unanswered_calls import UnansweredCalls

__all__ = [
    "OUT_OF_STEPS_ANSWER",
    "ModelChosenPerRun",
    "RepeatedCallGuard",
    "RunSettings",
    "StepBudget",
    "UnansweredCalls",
]
