"""The CPU time a process and its descendants have used so far, read from /proc: what a check's own work costs.

A check's child may run under bubblewrap, whose outer process never waits for the processes inside, so the
resource usage ``wait4`` reports for it holds none of their time. Read from /proc while the check runs, each live
process of the tree counts its own time and the time of the children it has reaped; sampled twice a second, the
largest reading is the check's CPU up to the last fraction of a second.
"""

from __future__ import annotations

import os

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and of the children it reaped), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), sum(int(field) for field in fields[11:15]) / TICKS


def tree_cpu(root: int) -> float:
    """CPU seconds used so far by process ``root`` and its descendants; 0 where there is no /proc."""
    if not os.path.isdir("/proc/self"):
        return 0.0
    children: dict[int, list[int]] = {}
    used: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (stat := _stat(entry.name)) is not None:
            children.setdefault(stat[0], []).append(int(entry.name))
            used[int(entry.name)] = stat[1]
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += used.get(pid, 0.0)
        todo += children.get(pid, [])
    return total
