"""A warm mitmdump (prespawned while the check sets up) is the proxy the capture then starts: it takes its command
line from stdin, records, and stops like any other; one never taken is stopped by its pid, and one whose parent
closes its stdin before handing it a command line exits on its own."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run import launcher
from backchannel.proxy.run.capture import Capture
from backchannel.recordings import load

BOUND_S = 30.0


@pytest.fixture
def no_warm_left() -> Iterator[None]:
    yield
    launcher.discard_warm()


def _cmdline(pid: int, wanted: bytes) -> bytes:
    """The process's command line once it shows `wanted` (or the bound is up): right after the fork, until its exec is
    done, /proc shows none or the parent's, and no event tells when the exec is done, so this polls within a bound."""
    deadline = time.monotonic() + BOUND_S
    while True:
        line = Path(f"/proc/{pid}/cmdline").read_bytes()
        if wanted in line or time.monotonic() > deadline:
            return line
        time.sleep(0.01)


def test_a_capture_started_after_prespawn_runs_the_warm_mitmdump_and_records_through_it(
    tmp_path: Path, no_warm_left: None
) -> None:
    launcher.prespawn()
    warm = launcher._warm
    assert warm is not None and b"serve_warm" in _cmdline(warm.pid, b"serve_warm")
    out = tmp_path / "r.sqlite"
    with Capture(out) as capture:
        assert capture.proxy is not None and capture.proxy.process is warm  # the warm one, not a second mitmdump
        assert launcher._warm is None  # handed over once
        run = capture.new_run("run", {})
        reply = httpx.post(
            run.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"Accept": "application/json, text/event-stream"},
            timeout=BOUND_S,
        )
        assert reply.json()["id"] == 1  # the endpoint's answer, through the proxy
        capture.end_run(run, outcome="ended")
    assert warm.returncode == 0  # stopped by its stop line, like any mitmdump
    rec = load(out)
    assert [(m.direction, m.method) for m in rec.messages] == [("to-server", "tools/list"), ("to-client", "tools/list")]
    assert not rec.anomalies


def test_a_warm_mitmdump_no_capture_takes_is_stopped_and_reaped(no_warm_left: None) -> None:
    launcher.prespawn()
    warm = launcher._warm
    assert warm is not None
    launcher.discard_warm()
    assert warm.poll() is not None and launcher._warm is None
    launcher.discard_warm()  # again: harmless


def test_prespawn_keeps_one_warm_mitmdump_at_a_time(no_warm_left: None) -> None:
    launcher.prespawn()
    first = launcher._warm
    launcher.prespawn()
    assert launcher._warm is first


def test_a_warm_mitmdump_whose_stdin_ends_before_its_command_line_exits_without_serving() -> None:
    warm = subprocess.Popen(
        [sys.executable, "-c", "from backchannel.proxy.run.launcher import serve_warm; serve_warm()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out, _ = warm.communicate(b"", timeout=BOUND_S)  # the parent gone, or never needing it
    assert warm.returncode == 0
    assert b"Traceback" not in out


def test_with_no_warm_mitmdump_the_capture_starts_its_own(tmp_path: Path) -> None:
    launcher.discard_warm()
    endpoint = start_endpoint(EndpointConfig(tools=()))
    try:
        with Capture(tmp_path / "r.sqlite", upstream=endpoint.url) as capture:
            assert capture.proxy is not None
            pid = capture.proxy.process.pid
            assert b"backchannel_recording=" in _cmdline(pid, b"backchannel_recording=")
            if len(os.sched_getaffinity(0)) > 1:  # every thread of the serving proxy on one CPU (one_cpu.py)
                masks = {
                    frozenset(os.sched_getaffinity(int(task.name))) for task in Path(f"/proc/{pid}/task").iterdir()
                }
                assert len(masks) == 1 and len(next(iter(masks))) == 1, masks
    finally:
        endpoint.stop()
