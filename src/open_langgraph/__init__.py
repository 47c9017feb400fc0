"""Open LangGraph: a self-hosted server for LangGraph agents speaking the LangGraph Platform API."""

__version__ = "0.1.0"
