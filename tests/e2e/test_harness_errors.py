"""A harness that could not see says ERROR with exit code 1 and why; the lab gets what `--env` names and no more;
relative command paths mean the caller's folder; a recording being written cannot be `--force`d away.

The command runs in this process (tests/in_process.py) where its logic is the subject; the README's line, the
grandchild that outlives the client and the second process writing the file keep a process of their own. The
client, mitmdump and the endpoint are real processes either way."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from backchannel.oracle.terminal import raw_bytes
from backchannel.recordings import load
from tests.in_process import backchannel

ROOT = Path(__file__).resolve().parents[2]
BACKCHANNEL = [sys.executable, "-m", "backchannel.proxy.cli"]
BOUND = 90


def _cli(*args: object, cwd: Path | None = None, timeout: float = BOUND) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*BACKCHANNEL, *map(str, args)], capture_output=True, timeout=timeout, cwd=cwd)


def test_a_client_that_exits_non_zero_before_any_request_is_error_with_its_code_and_stderr(tmp_path):
    out = tmp_path / "early.sqlite"
    client = f"{sys.executable} -c \"import sys; sys.stderr.write('boom: no module named x\\n'); sys.exit(3)\" {{url}}"
    done = backchannel("check", "--out", str(out), "--client", client, "--format", "json")
    assert done.exit_code == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"]["ERROR"] == len(report["results"]) and report["summary"]["SKIP"] == 0
    first = report["results"][0]
    assert first["id"] == "harness-saw-every-run" and first["reason"] == "client-exited-before-any-request"
    assert "exited with code 3" in first["message"] and "boom: no module named x" in first["message"]


def test_the_readmes_record_example_runs_exactly_as_written(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"`\.venv/bin/backchannel (record [^`]*\{url\})`", readme.replace("\n", " "))
    assert match, "the README's record example moved"
    args = match.group(1).split()
    assert args[:4] == ["record", "--force", "--out", "demo.sqlite"] and args[5] == ".venv/bin/python"
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")  # the repository's layout, in a folder of our own
    done = _cli(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    rec = load(tmp_path / "demo.sqlite")
    assert any(m.method == "tools/call" for m in rec.messages)
    assert rec.runs[0].client_argv and rec.runs[0].client_argv[0] == str(tmp_path / ".venv/bin/python")


def test_env_reaches_the_lab_by_name_and_value_and_the_recording_keeps_only_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    out = tmp_path / "env.sqlite"
    code = "import os, zlib; print(*(zlib.crc32(os.environ[n].encode()) for n in ('BCKCH_A', 'BCKCH_B')))"
    monkeypatch.setenv("BCKCH_A", "from-caller")  # the caller's environment
    argv = ["record", "--out", str(out), "--env", "BCKCH_A", "--env", "BCKCH_B=set-on-line", "--"]
    done = backchannel(*argv, sys.executable, "-c", code, "{url}")
    assert done.exit_code == 0, done.output
    rec = load(out)
    expected = f"{zlib.crc32(b'from-caller')} {zlib.crc32(b'set-on-line')}\n".encode()
    assert raw_bytes(rec, rec.runs[0].id, "stdout") == expected
    assert rec.runs[0].detail.facts["lab_env"] == "BCKCH_A,BCKCH_B"
    assert b"from-caller" not in out.read_bytes() and b"set-on-line" not in out.read_bytes()


def test_env_naming_a_variable_that_is_not_set_is_a_usage_error():
    done = backchannel("record", "--env", "BCKCH_SURELY_UNSET_42", "--", sys.executable, "-c", "pass")
    assert done.exit_code == 2
    assert done.stderr.count("\n") == 1 and "BCKCH_SURELY_UNSET_42" in done.stderr


def test_terminal_output_past_max_output_keeps_the_bytes_up_to_it_and_an_anomaly(tmp_path):
    out = tmp_path / "loud.sqlite"
    code = "import sys; [sys.stdout.write('x' * 65536) for _ in range(64)]; sys.stdout.flush()"  # 4 MiB
    started = time.monotonic()
    done = backchannel("record", "--out", str(out), "--max-output", "100000", "--", sys.executable, "-c", code)
    assert done.exit_code == 0, done.output
    rec = load(out)
    assert raw_bytes(rec, rec.runs[0].id, "stdout") == b"x" * 100000
    assert [a.kind for a in rec.anomalies] == ["output-limit"]
    assert out.stat().st_size < 1_000_000
    assert time.monotonic() - started < 30


def test_a_setsid_grandchild_does_not_keep_record_waiting(tmp_path):
    out = tmp_path / "setsid.sqlite"
    code = (
        "import os, subprocess, sys; subprocess.Popen([sys.executable, '-c', "
        "'import os, time; os.setsid(); time.sleep(300)'], stdout=sys.stdout, stderr=sys.stderr); print('bye')"
    )
    done = _cli("record", "--out", out, "--timeout", "20", "--", sys.executable, "-c", code, timeout=60)
    assert done.returncode == 0, done.stderr
    # waiting on the grandchild (it holds the client's stdout and stderr open) would end the run at its 20 s
    # timeout; the run's own clock, not the CLI's start-up beside other tests, says it ended when the client did
    [run] = load(out).runs
    assert (run.outcome, run.exit_code) == ("exited", 0), run
    assert run.started_at is not None and run.ended_at is not None
    assert run.ended_at - run.started_at < 15, f"the run took {run.ended_at - run.started_at:.1f} s"


def test_force_refuses_a_recording_another_process_is_writing(tmp_path):
    out = tmp_path / "busy.sqlite"
    live = subprocess.Popen([*BACKCHANNEL, "record", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert live.stdout is not None
        line = live.stdout.readline()  # "Point your client at: ..." once the recording is open
        assert b"Point your client at" in line, line
        done = backchannel("record", "--force", "--out", str(out), "--", sys.executable, "-c", "pass")
        assert done.exit_code == 2
        message = done.stderr
        assert message.count("\n") == 1 and "being written by another backchannel process" in message
        assert out.exists()
    finally:
        live.send_signal(2)  # Ctrl-C: the live recording closes cleanly
        live.communicate(timeout=30)
    assert load(out).runs[0].name == "live"
