"""Nothing a client starts outlives its run: find its processes however they hid, and kill them.

A client may fork, double-fork and `setsid` away from its process group. Three nets catch it, by walking /proc:
its descendants (this process is a child subreaper, so orphans re-parent here rather than to init), its session,
and a per-run marker variable the lab puts in its environment (inherited by every process it starts unless one
clears its environment on purpose). Linux only; elsewhere only the process group is killed.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PROC = Path("/proc")
MARKER_VAR = "BACKCHANNEL_LAB_MARKER"
KILL_ROUNDS = 20  # a forking client may spawn between a scan and the kill: scan again, bounded
_subreaper = False


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Orphaned descendants re-parent to this process (once per process); False where Linux's prctl is missing."""
    global _subreaper
    if not _subreaper:
        _subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    return _subreaper


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """For a child between fork and exec: receive `sig` when the parent (thread) that started it dies."""
    _prctl(PR_SET_PDEATHSIG, int(sig))


@dataclass(frozen=True)
class ProcInfo:
    pid: int
    ppid: int
    sid: int
    state: str
    started: int = 0  # clock ticks after boot (/proc/PID/stat's starttime)


def _stat(pid: int) -> ProcInfo | None:
    try:
        raw = (PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    rest = raw[raw.rfind(b")") + 2 :].split()  # the command name may hold spaces and parentheses
    try:
        return ProcInfo(pid, int(rest[1]), int(rest[3]), rest[0].decode("ascii", "replace"), int(rest[19]))
    except (IndexError, ValueError):
        return None


def started_at(pid: int) -> int:
    """When `pid` started, in clock ticks after boot; 0 (before everything) when it cannot be read."""
    info = _stat(pid)
    return info.started if info is not None else 0


def _has_marker(pid: int, marker: bytes) -> bool:
    try:
        return marker in (PROC / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return False


def processes() -> list[ProcInfo]:
    found = []
    try:
        entries = list(PROC.iterdir())
    except OSError:
        return []
    for entry in entries:
        if entry.name.isdigit():
            info = _stat(int(entry.name))
            if info is not None:
                found.append(info)
    return found


def members(root: int, marker: str, since: int = 0) -> set[int]:
    """Live processes of a run: descendants of `root`, its session, or carrying `MARKER_VAR=marker`.

    `since` is when `root` started (`started_at`): a process that carries the run's marker inherited it from the
    run, so it started no earlier, and the environments of older processes (most of the machine's) are not read."""
    table = processes()
    children: dict[int, list[int]] = {}
    for info in table:
        children.setdefault(info.ppid, []).append(info.pid)
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    tag = f"{MARKER_VAR}={marker}".encode()
    for info in table:
        if info.sid == root or (info.pid not in found and info.started >= since and _has_marker(info.pid, tag)):
            found.add(info.pid)
    found.discard(os.getpid())
    return {pid for pid in found if (alive := _stat(pid)) is not None and alive.state != "Z"}


def _kill(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _reap(pids: Iterable[int]) -> None:
    """Collect the zombies of killed orphans that re-parented to us (never anyone else's child)."""
    me = os.getpid()
    for pid in pids:
        info = _stat(pid)
        if info is not None and info.ppid == me:
            try:
                os.waitpid(pid, 0)  # SIGKILLed: it is gone or going
            except ChildProcessError:
                pass


def kill_marked(var: str, marker: str, timeout: float = 5.0) -> int:
    """SIGKILL every process carrying `var=marker` in its environment until none is left (bounded)."""
    tag = f"{var}={marker}".encode()
    deadline = time.monotonic() + timeout
    killed: set[int] = set()
    me = os.getpid()
    for _ in range(KILL_ROUNDS):
        alive = {p.pid for p in processes() if p.pid != me and p.state != "Z" and _has_marker(p.pid, tag)}
        if not alive or time.monotonic() > deadline:
            break
        _kill(alive)
        killed |= alive
    _reap(killed)
    return len(killed)


def kill_run(root: int, marker: str, timeout: float = 5.0, since: int = 0) -> int:
    """SIGKILL every process of the run until none is left (bounded); returns how many were killed. `since`: when
    `root` started (see `members`)."""
    deadline = time.monotonic() + timeout
    killed: set[int] = set()
    for _ in range(KILL_ROUNDS):
        alive = members(root, marker, since)
        if not alive or time.monotonic() > deadline:
            break
        _kill(alive)
        killed |= alive
    _reap(killed)
    return len(killed)
