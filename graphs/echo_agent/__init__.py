"""A dependency-free agent that answers by echoing; it proves the server end to end offline."""

from graphs.echo_agent.graph import graph

__all__ = ["graph"]
