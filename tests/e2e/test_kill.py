"""Killing the harness mid-`check` (kill -9 or SIGTERM, of mitmdump or of backchannel itself) leaves a recording that
opens, keeps what was committed, and judges to ERROR with exit code 1; no process and no lab folder outlive it."""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from backchannel.recordings import load
from tests.in_process import backchannel

BACKCHANNEL = [sys.executable, "-m", "backchannel.proxy.cli"]
# where a kill may land: after one of the progress lines `check` prints once its proxy is up (drawn at random per
# test, plus a random delay), so over many suite runs every phase is hit: discovery, self-tests, each run, the end
LINES = ["discovering", "trying", "witness self-tests", "CONTROL run", "PROBE run", "ABSENT run", "ABSENT-LEGACY run"]
RUNS = ["CONTROL", "PROBE", "ABSENT", "ABSENT-LEGACY"]
MAX_DELAY_S = 0.4
# BACKCHANNEL_KILL_SEED=N replays the points a failing run drew (its assertion messages name the seed)
SEED = int(os.environ.get("BACKCHANNEL_KILL_SEED") or secrets.randbelow(1 << 32))
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


def _mitmdump_of(parent: int) -> int | None:
    """The mitmdump a backchannel process started: its child running the launcher's entry point (started with
    its command line, or warm, before it knew it: then the recording is not on its command line)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            if ppid == parent and b"backchannel.proxy.run.launcher import serve" in cmdline:
                return int(entry.name)
    return None


def _wait_until(predicate, what: str, bound: float = BOUND) -> None:
    deadline = time.monotonic() + bound
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {bound:g} s for {what}")
        time.sleep(0.05)  # a poll of /proc: there is no event for "a process in another tree exited"


def _kill_point(victim: str, sig: int) -> tuple[str, float]:
    rng = random.Random(f"{SEED}-{victim}-{sig}")
    return rng.choice(LINES), rng.uniform(0.0, MAX_DELAY_S)


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


@dataclass(frozen=True)
class _Killed:
    """A check killed mid-way: its recording, what it printed, how it ended."""

    out: Path
    temp: Path
    progress: bytes  # what check had printed on stderr when the kill landed
    stdout: bytes
    returncode: int
    where: str


def _attempts(line: str, delay: float) -> list[tuple[str, float]]:
    """The drawn kill point, then points the victim is sure to be alive at, should it be gone by then: the same
    line at once, then the first run's line at once (a fast machine ends mitmdump within the delay of the last
    run's line)."""
    return list(dict.fromkeys([(line, delay), (line, 0.0), ("CONTROL run", 0.0)]))


def _kill_during_check(tmp_path: Path, victim: str, sig: int, line: str, delay: float, where: str) -> _Killed | None:
    """Run `check`, kill the victim at the point; None if the victim had ended before the kill could land (the
    check is then let finish, so nothing of it outlives this call)."""
    token = secrets.token_hex(6)
    attempt = len(list(tmp_path.glob("tmp*")))
    temp = tmp_path / f"tmp{attempt}"
    temp.mkdir()
    out = tmp_path / f"killed{attempt}.sqlite"
    env = {**os.environ, "TMPDIR": str(temp), "BCKCH_KILL_TEST": token}
    proc = subprocess.Popen(
        [*BACKCHANNEL, "check", "--out", str(out), "--env", "BCKCH_KILL_TEST", "--timeout", "20"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        progress = _read_until(proc, f"\u00b7 {line}".encode())
        time.sleep(delay)  # the random part of the point: not a wait for an event, a place between two of them
        progress += _drain_ready(proc)
        target = proc.pid if victim == "backchannel" else _mitmdump_of(proc.pid)
        if proc.poll() is not None or target is None:
            proc.communicate(timeout=BOUND)
            _wait_until(lambda: not _tagged(token), f"every process of the check to exit ({where})")
            return None
        os.kill(target, sig)
        stdout, _ = proc.communicate(timeout=BOUND)
        _wait_until(lambda: not _tagged(token), f"every process of the killed check to exit ({where})")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        for pipe in (proc.stdout, proc.stderr):  # closed here, not by a later test's garbage collection
            if pipe is not None:
                pipe.close()
    return _Killed(out, temp, progress, stdout, proc.returncode, where)


@pytest.mark.parametrize("victim", ["backchannel", "mitmdump"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_a_killed_harness_leaves_a_recording_that_judges_error_and_nothing_running(tmp_path, victim, sig):
    began = time.monotonic()
    tried = []
    for line, delay in _attempts(*_kill_point(victim, sig)):
        where = f"{victim} {signal.Signals(sig).name} {delay:.2f} s after '{line}' (BACKCHANNEL_KILL_SEED={SEED})"
        killed = _kill_during_check(tmp_path, victim, sig, line, delay, where)
        if killed is not None:
            break
        tried.append(where)
    else:
        pytest.fail(f"the {victim} ended before the kill could land at every point tried: {tried}")
    where = killed.where + (f" (the {victim} had ended at {tried})" if tried else "")
    out, temp, progress, stdout = killed.out, killed.temp, killed.progress, killed.stdout
    rec = load(out)  # opens: finalised by whoever was left to finalise it
    text = progress.decode(errors="replace")  # what check had printed when the kill landed
    started = [run for run in RUNS if f"\u00b7 {run} run" in text]
    finished = started[:-1]  # a run was over before the kill if the next one started before it: rows committed
    for name in finished:
        run = next(run for run in rec.runs if run.name == name.lower())
        assert any(True for _ in rec.messages_in(run.id)), f"the {name} run's committed messages are gone ({where})"
    judged = backchannel("judge", str(out), "--format", "json")  # in this process: the killed check is the subject
    assert judged.exit_code == 1, where
    harness = [r for r in json.loads(judged.stdout)["results"] if r["id"] == "harness-saw-every-run"]
    if not harness:
        # unnoticed only if the kill came once the last run was over (check was closing, judging or reporting):
        # then the recording must hold every run, ended, with nothing left open
        where += " (after the last run)"
        assert started == RUNS, f"a kill during the runs went unnoticed ({where})"
        assert not rec.left_open and not rec.anomalies, (where, rec.anomalies)
        assert {run.lower() for run in RUNS} <= {run.name for run in rec.runs if run.outcome == "exited"}, where
        assert killed.returncode != 0, where
    else:
        assert {r["status"] for r in harness} == {"ERROR"}, where
        expected = "orchestrator-interrupted" if victim == "backchannel" else "proxy-died"
        assert expected in {r["reason"] for r in harness}, (where, [(r["reason"], r["message"]) for r in harness])
        if not (victim == "backchannel" and sig == signal.SIGKILL):  # a process killed -9 prints nothing
            assert killed.returncode == 1, f"{where}: {stdout.decode(errors='replace')}"
            assert re.search(rb"^ERROR \(", stdout, re.MULTILINE), f"{where}: {stdout.decode(errors='replace')}"
    left = sorted(
        str(p.relative_to(temp)) for folder in temp.glob("backchannel-lab*") for p in [folder, *folder.rglob("*")]
    )
    assert not left, f"a lab folder was left behind ({where}), holding: {left[:20]}"
    assert not Path(f"{out}-wal").exists(), where
    print(f"{where}: {time.monotonic() - began:.1f} s")


def _drain_ready(proc: subprocess.Popen[bytes]) -> bytes:
    """Whatever progress backchannel printed during the delay, without blocking (its stderr is a pipe)."""
    assert proc.stderr is not None
    os.set_blocking(proc.stderr.fileno(), False)
    try:
        return proc.stderr.read() or b""
    finally:
        os.set_blocking(proc.stderr.fileno(), True)
