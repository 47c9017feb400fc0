"""Settings of the subgraph agent: the ReAct agent's, plus the researcher's own prompt.

`system_prompt` is the writer's prompt here; `research_prompt` is given to the research
subgraph as its `system_prompt`. Resolution (run context, then `configurable`, then the upper
case env var, then the default) is the ReAct agent's, see graphs/react_agent/context.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphs.react_agent.context import Context as ReactContext
from graphs.subgraph_agent.prompts import RESEARCH_PROMPT, WRITER_PROMPT


@dataclass(kw_only=True)
class Context(ReactContext):
    """Per-run settings of the subgraph agent."""

    system_prompt: str = field(
        default=WRITER_PROMPT,
        metadata={"description": "The writer's system prompt; `{system_time}` is filled in."},
    )
    research_prompt: str = field(
        default=RESEARCH_PROMPT,
        metadata={"description": "The research subgraph's system prompt."},
    )

    def for_research(self) -> ReactContext:
        """The context the research subgraph runs with."""
        return ReactContext(
            system_prompt=self.research_prompt,
            model=self.model,
            max_search_results=self.max_search_results,
        )
