"""A progress bar is drawn on stderr only when stderr is a terminal; stdout stays the report either way."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.proxy.judging.conftest import BOUND_S, PASSING, copy_in


def test_a_terminal_on_stderr_gets_a_progress_bar_and_stdout_stays_one_json_document(tmp_path: Path) -> None:
    copy_in(tmp_path, *PASSING)
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "backchannel.proxy.cli", "judge", str(tmp_path), "--format", "json", "--jobs", "2"],
            stdout=subprocess.PIPE,
            stderr=terminal,
            timeout=BOUND_S,
            env={**os.environ, "TERM": "xterm", "COLUMNS": "100"},
        )
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the terminal's other side is closed and everything was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    assert done.returncode == 0
    assert json.loads(done.stdout)["summary"]["recordings"] == len(PASSING)
    assert b"judging" in shown and b"3/3" in shown
