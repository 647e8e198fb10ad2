import sys

from backchannel.proxy.run.lab import Lab


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
