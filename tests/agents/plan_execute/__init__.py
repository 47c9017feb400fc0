"""Tests of the Plan-then-Execute agent (graphs/plan_execute)."""
