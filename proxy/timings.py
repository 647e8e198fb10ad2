"""Phase timestamps of a `check` (or `record`, `replay`), for bench/check_bench.py: where its time goes around the
client runs. Written only when BACKCHANNEL_TIMINGS names a file; otherwise a mark is one dictionary lookup.

Each mark is one JSON line, `{"phase": ..., "t": wall-clock seconds, "pid": ...}`, appended with O_APPEND: the CLI
and its mitmdump (which inherits the variable) write to the same file without interleaving lines. The clients under
test never see the variable: a lab's environment is built from scratch (proxy/run/lab.py).
"""

from __future__ import annotations

import json
import os
import time

ENV = "BACKCHANNEL_TIMINGS"


def mark(phase: str) -> None:
    """Note that `phase` was reached now; a no-op unless BACKCHANNEL_TIMINGS is set. Never raises: timing a
    check must not be able to break it."""
    path = os.environ.get(ENV)
    if not path:
        return
    line = json.dumps({"phase": phase, "t": time.time(), "pid": os.getpid()}) + "\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        return
