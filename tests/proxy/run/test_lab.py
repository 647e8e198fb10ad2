import sys
from pathlib import Path

import pytest

from backchannel.proxy.run.lab import Lab, parse_env, resolve_command


def _run(lab: Lab, code: str, timeout: float = 20.0):
    chunks: list[tuple[str, bytes]] = []
    result = lab.run(
        [sys.executable, "-c", code],
        lab.env("http://127.0.0.1:1/r/x/mcp"),
        lambda stream, data: chunks.append((stream, data)),
        timeout,
    )
    return result, chunks


def test_the_client_runs_with_a_temp_home_and_the_run_url(tmp_path):
    lab = Lab("t")
    try:
        result, chunks = _run(lab, "import os; print(os.environ['HOME']); print(os.environ['BACKCHANNEL_URL'])")
        out = b"".join(d for s, d in chunks if s == "stdout").decode()
        assert result.exit_code == 0 and result.outcome == "exited"
        assert out.splitlines() == [str(lab.home), "http://127.0.0.1:1/r/x/mcp"]
    finally:
        lab.close()
    assert not lab.root.exists()


def test_stdout_and_stderr_are_kept_apart_and_the_exit_code_recorded():
    lab = Lab("t")
    try:
        result, chunks = _run(lab, "import sys; sys.stderr.write('e'); sys.stdout.write('o'); sys.exit(3)")
        assert result.exit_code == 3
        assert b"".join(d for s, d in chunks if s == "stderr") == b"e"
        assert b"".join(d for s, d in chunks if s == "stdout") == b"o"
    finally:
        lab.close()


def test_a_client_past_its_timeout_is_killed_with_its_whole_process_group():
    lab = Lab("t")
    code = (
        "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
        "print('started', flush=True); time.sleep(60)"
    )
    try:
        result, chunks = _run(lab, code, timeout=1.5)
        assert result.outcome == "timeout"
        assert result.seconds < 10
        assert b"started" in b"".join(d for _, d in chunks)
    finally:
        lab.close()


def test_text_files_left_under_home_are_collected_and_binary_ones_skipped():
    lab = Lab("t")
    try:
        (lab.home / ".config").mkdir()
        (lab.home / ".config" / "notes.txt").write_text("hello")
        (lab.home / "blob.bin").write_bytes(b"\0\1\2")
        found = {f.path: f for f in lab.files()}
        assert set(found) == {".config/notes.txt"}
        assert found[".config/notes.txt"].data == b"hello"
    finally:
        lab.close()


def test_a_command_that_cannot_start_is_reported_not_raised():
    lab = Lab("t")
    try:
        result = lab.run(["/nonexistent/client"], lab.env("u"), lambda s, d: None, 5)
        assert result.outcome == "failed-to-start" and result.exit_code is None
    finally:
        lab.close()


def test_typed_answers_reach_the_client_on_stdin_then_end_of_input():
    lab = Lab("t")
    try:
        chunks: list[tuple[str, bytes]] = []
        code = "import sys; print(repr(sys.stdin.readline())); print(repr(sys.stdin.readline()))"
        result = lab.run(
            [sys.executable, "-c", code], lab.env("u"), lambda s, d: chunks.append((s, d)), 20, stdin=b"true\n"
        )
        assert result.exit_code == 0
        assert b"".join(d for s, d in chunks if s == "stdout").decode().splitlines() == ["'true\\n'", "''"]
    finally:
        lab.close()


_SETSID_GRANDCHILD = (
    "import os, subprocess, sys;"
    "p = subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); print(os.getpid(), flush=True);"
    " time.sleep(300)'], stdout=sys.stdout);"
    "import time; time.sleep({linger})"
)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


def test_a_setsid_grandchild_holding_the_output_pipe_is_killed_when_the_client_exits():
    lab = Lab("t")
    try:
        result, chunks = _run(lab, _SETSID_GRANDCHILD.format(linger=0.5), timeout=20)
    finally:
        lab.close()
    grandchild = int(b"".join(d for s, d in chunks if s == "stdout").split()[0])
    assert result.outcome == "exited"
    assert result.seconds < 5, f"took {result.seconds:.1f} s"
    assert not _alive(grandchild)


def test_the_timeout_kills_a_setsid_grandchild_too_and_returns_at_once():
    lab = Lab("t")
    try:
        result, chunks = _run(lab, _SETSID_GRANDCHILD.format(linger=300), timeout=2)
    finally:
        lab.close()
    grandchild = int(b"".join(d for s, d in chunks if s == "stdout").split()[0])
    assert result.outcome == "timeout"
    assert result.seconds < 5, f"took {result.seconds:.1f} s"
    assert not _alive(grandchild)


def test_relative_command_paths_mean_the_callers_folder_not_the_labs(tmp_path):
    (tmp_path / "drivers").mkdir()
    (tmp_path / "drivers" / "d.mjs").write_text("")
    argv = ["bin/tool", "drivers/d.mjs", "missing/x.js", "--flag=a/b", "{url}", "plain"]
    assert resolve_command(argv, tmp_path) == [
        str(tmp_path / "bin" / "tool"),
        str(tmp_path / "drivers" / "d.mjs"),
        "missing/x.js",
        "--flag=a/b",
        "{url}",
        "plain",
    ]
    assert resolve_command(["python", "/abs/x"], tmp_path) == ["python", "/abs/x"]


def test_env_takes_names_from_here_or_explicit_values_and_refuses_bad_names():
    assert parse_env(["A", "B=x=y", "C="], {"A": "1"}) == {"A": "1", "B": "x=y", "C": ""}
    with pytest.raises(ValueError, match="not set here"):
        parse_env(["MISSING"], {})
    with pytest.raises(ValueError, match="not a variable name"):
        parse_env(["1BAD=x"], {})


def test_the_lab_is_owner_only_and_removed_at_exit_if_never_closed():
    from backchannel.proxy.run import lab as lab_module

    lab = Lab("t")
    assert lab.root.stat().st_mode & 0o777 == 0o700
    lab_module._remove_live_labs()
    assert not lab.root.exists()
