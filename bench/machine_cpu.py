"""How busy the whole machine has been, from /proc/stat: what the benches subtract their own CPU from to say how much
other processes used while they measured (the noise figure every bench prints beside its numbers)."""

from __future__ import annotations

import os
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def machine_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks over all CPUs since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal (guest is inside user)
    return total - idle, total


def busy_seconds() -> float:
    """CPU seconds every process on the machine has used since boot."""
    return machine_ticks()[0] / CLOCK_TICKS
