"""Killing the harness mid-`check` (kill -9 or SIGTERM, of mitmdump or of backchannel itself) leaves a recording that
opens, keeps what was committed, and judges to ERROR with exit code 1; no process and no lab folder outlive it."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from backchannel.recordings import load

BACKCHANNEL = [sys.executable, "-m", "backchannel.proxy.cli"]
# where each kill lands: the progress line `check` prints as that run's client starts
POINTS = {
    ("backchannel", signal.SIGKILL): "PROBE run",
    ("mitmdump", signal.SIGKILL): "ABSENT run",
    ("backchannel", signal.SIGTERM): "ABSENT-LEGACY run",
    ("mitmdump", signal.SIGTERM): "PROBE run",
}
BOUND = 45.0  # every wait in these tests ends by then


def _tagged(token: str) -> list[int]:
    """Live processes carrying the test's token in their environment (backchannel, mitmdump, the lab's clients)."""
    found = []
    tag = f"BCKCH_KILL_TEST={token}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if tag in (entry / "environ").read_bytes().split(b"\0"):
                state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
                if state != b"Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def _mitmdump_of(recording: Path) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if f"backchannel_recording={recording}".encode() in cmdline:
                return int(entry.name)
    raise AssertionError(f"no mitmdump is writing {recording}")


def _wait_until(predicate, what: str, bound: float = BOUND) -> None:
    deadline = time.monotonic() + bound
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {bound:g} s for {what}")
        time.sleep(0.05)  # a poll of /proc: there is no event for "a process in another tree exited"


def _read_until(proc: subprocess.Popen[bytes], needle: bytes) -> bytes:
    """Read backchannel's stderr until the progress line appears (bounded by the process's own end)."""
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + BOUND
    while needle not in seen:
        line = proc.stderr.readline()
        if not line or time.monotonic() > deadline:
            raise AssertionError(f"backchannel ended or stalled before {needle!r}: {seen.decode(errors='replace')}")
        seen += line
    return seen


@pytest.mark.parametrize("victim", ["backchannel", "mitmdump"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_a_killed_harness_leaves_a_recording_that_judges_error_and_nothing_running(tmp_path, victim, sig):
    token = secrets.token_hex(6)
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "killed.sqlite"
    env = {**os.environ, "TMPDIR": str(temp), "BCKCH_KILL_TEST": token}
    began = time.monotonic()
    proc = subprocess.Popen(
        [*BACKCHANNEL, "check", "--out", str(out), "--env", "BCKCH_KILL_TEST", "--timeout", "20"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _read_until(proc, f"\u00b7 {POINTS[victim, sig]}".encode())
        target = proc.pid if victim == "backchannel" else _mitmdump_of(out)
        os.kill(target, sig)
        stdout, _ = proc.communicate(timeout=BOUND)
        _wait_until(lambda: not _tagged(token), "every process of the killed check to exit")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
    if not (victim == "backchannel" and sig == signal.SIGKILL):
        assert proc.returncode == 1, stdout.decode(errors="replace")
        assert b"ERROR" in stdout
    rec = load(out)  # opens: finalised by whoever was left to finalise it
    control = next(run for run in rec.runs if run.name == "control")
    assert any(True for _ in rec.messages_in(control.id)), "the CONTROL run's committed messages are gone"
    judged = subprocess.run([*BACKCHANNEL, "judge", str(out), "--format", "json"], capture_output=True, timeout=BOUND)
    assert judged.returncode == 1
    harness = [r for r in json.loads(judged.stdout)["results"] if r["id"] == "harness-saw-every-run"]
    assert harness and {r["status"] for r in harness} == {"ERROR"}
    expected = "orchestrator-interrupted" if victim == "backchannel" else "proxy-died"
    assert expected in {r["reason"] for r in harness}, harness
    assert not list(temp.glob("backchannel-lab*")), "a lab folder was left behind"
    assert not Path(f"{out}-wal").exists()
    print(f"{victim} {signal.Signals(sig).name}: {time.monotonic() - began:.1f} s")
