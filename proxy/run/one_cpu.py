"""The proxy's process kept on one CPU: the one it starts on (Linux only).

Why (issue 26): mitmdump serving a recording runs two threads that take turns holding the GIL, the event loop and
the recording's writer, and the writer makes rows from objects the event loop just built. Left to the kernel, the
two run on different cores and every turn moves those objects' cache lines (reference counts included) across: the
writer's Python work cost about three times its in-process CPU inside the proxy. Measured through mitmdump on this
project's 2-core machine, the whole process on one core used 0.12-0.26 ms less CPU per request (about 8 %) and added
no latency; keeping only the writer beside a moving event loop gave nothing.

The CPU is the one the process runs on when it starts serving, so several proxies spread as the kernel spread
them. The other processes of a session (the client, the servers) stay free, and the kernel moves them off a busy
core. `BACKCHANNEL_PROXY_CPUS=any` turns this off, for a machine where a process should never be pinned.
"""

from __future__ import annotations

import os

SETTING = "BACKCHANNEL_PROXY_CPUS"
_PROCESSOR_FIELD = 39  # /proc/self/stat: the CPU the process last ran on (proc(5))


def current_cpu() -> int | None:
    """The CPU this process last ran on; None where the kernel does not say (no /proc, another OS)."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            return processor_of(stat.read())
    except OSError:
        return None


def processor_of(stat: bytes) -> int | None:
    """The `processor` field of a /proc stat line; None when the line has no such field."""
    # the command's name (field 2) may hold spaces and parentheses: the fields after it start past the last ')'
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[_PROCESSOR_FIELD - 3])
    except (IndexError, ValueError):
        return None


def keep_to_one_cpu(environ: dict[str, str] | None = None) -> int | None:
    """Pin this process (the calling thread and every thread it starts later) to the CPU it runs on; returns that
    CPU, or None when left as it was: turned off, a single CPU allowed already, or no way to read or set it."""
    env = os.environ if environ is None else environ
    if env.get(SETTING, "").strip().lower() == "any" or not hasattr(os, "sched_setaffinity"):
        return None
    try:
        allowed = os.sched_getaffinity(0)
        cpu = current_cpu()
        if len(allowed) < 2 or cpu is None or cpu not in allowed:
            return None
        os.sched_setaffinity(0, {cpu})
    except OSError:  # a container that forbids it: the kernel's placement stands
        return None
    return cpu
