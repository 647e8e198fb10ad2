"""Why mitmdump is stopping: asked by its backchannel parent, because that parent died, or by someone else.

The parent asks by writing a stop line on mitmdump's stdin (the launcher's watchdog thread reads it, sets
STOP_ASKED and only then signals this process); its death shows as the end of stdin (PARENT_GONE) or a changed
parent pid. Any other SIGINT or SIGTERM came from outside while backchannel still needed the proxy: the recording
must say so (decided as mitmdump finishes), because the parent may not see it gone before its next run begins.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

PARENT_EOF_WAIT_S = 0.1  # how long a stopping mitmdump looks for its parent's end of stdin before it decides
STOP_ASKED = threading.Event()
PARENT_GONE = threading.Event()
parent_pid: int | None = None  # set by the launcher's entry point; None when mitmdump runs the addon on its own


def parent_gone(parent: int, wait: float = PARENT_EOF_WAIT_S) -> bool:
    """Whether mitmdump is ending because its parent died (not because the parent stopped it).

    The parent-death signal fires when the thread that started us exits, and the kernel may hand us to a sibling
    thread of the same dying process first, so getppid() alone is not enough: the parent's end of stdin closed or
    its /proc entry says it is dead. `wait` bounds the last look for the end of stdin (0: none, when the parent
    asked us to stop and is waiting for us, alive).
    """
    if PARENT_GONE.is_set() or os.getppid() != parent:
        return True
    try:
        stat = Path(f"/proc/{parent}/stat").read_text()
    except OSError:
        return True
    if stat[stat.rindex(")") + 2 :].split(" ", 1)[0] in ("Z", "X", "x"):
        return True
    return bool(PARENT_GONE.wait(wait))  # a last, short look: the watchdog may not have run yet


def stopped_from_outside(asked_when_signalled: bool) -> bool:
    """Decided as mitmdump finishes: a stop signal it got was not asked for (the stop line had not come when the
    signal did) and its parent still lives (so the signal was not the parent's death)."""
    if parent_pid is None or asked_when_signalled:
        return False
    return not parent_gone(parent_pid)
