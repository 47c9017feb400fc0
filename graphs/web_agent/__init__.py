"""Browser automation agent: clarifies the request, plans, waits for a person's approval,
carries the plan out in Chromium through Playwright's MCP server, and reports."""

from graphs.web_agent.graph import graph

__all__ = ["graph"]
