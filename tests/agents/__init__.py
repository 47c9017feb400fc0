"""Tests of the agents under graphs/."""
