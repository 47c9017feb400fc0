"""CPU time and memory of process trees, read from Linux's /proc.

Throughput on a small machine is capped by the load generator sharing its cores, so the
benchmark measures what a server costs instead: the CPU seconds its own processes spent, the
client's excluded. A process's counters in /proc/<pid>/stat (fields 14-17: utime, stime and,
for children it has reaped, cutime and cstime) are in clock ticks; a tree's total is its root's
four counters plus the live descendants' own, so a child that exited during the measurement
(a PostgreSQL backend whose connection closed) still counts through its parent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
PROC = Path("/proc")


def _stat_fields(pid: int) -> list[str] | None:
    """The fields after the command name (which may contain spaces), or None if gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def children_of() -> dict[int, list[int]]:
    """Every live process's children, from one pass over /proc."""
    tree: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is not None:
            tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def descendants(root: int, tree: dict[int, list[int]]) -> list[int]:
    found: list[int] = []
    pending = list(tree.get(root, ()))
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(tree.get(pid, ()))
    return found


@dataclass(frozen=True, slots=True)
class TreeUsage:
    """One moment of a process tree: CPU seconds so far and resident memory now."""

    cpu_seconds: float
    rss_bytes: int


def tree_usage(root: int) -> TreeUsage:
    """The tree under `root` (included), reaped children counted through their parents."""
    tree = children_of()
    ticks = 0
    rss = 0
    for pid in [root, *descendants(root, tree)]:
        fields = _stat_fields(pid)
        if fields is None:
            continue
        # After "pid (comm) ": utime=11 stime=12 cutime=13 cstime=14 rss=21 (0-based). Each
        # exited process is reaped by exactly one parent, so nothing is counted twice.
        ticks += sum(int(fields[i]) for i in (11, 12, 13, 14))
        rss += int(fields[21]) * PAGE
    return TreeUsage(ticks / TICKS, rss)


def own_usage(pid: int) -> TreeUsage:
    """One process's own CPU (its reaped children excluded) and memory."""
    fields = _stat_fields(pid)
    if fields is None:
        return TreeUsage(0.0, 0)
    return TreeUsage((int(fields[11]) + int(fields[12])) / TICKS, int(fields[21]) * PAGE)
