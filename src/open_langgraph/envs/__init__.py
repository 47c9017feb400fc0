"""Environments that agents built on Open LangGraph are evaluated in."""
