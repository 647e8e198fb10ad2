"""start_server starts a server command, waits (bounded) for its READY line, and stop() leaves nothing running."""

from __future__ import annotations

import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from backchannel.proxy.servers.launch import ServerProcess, ServerStartError, py_server, start_server

pytestmark = pytest.mark.live

URL = "http://127.0.0.1:1/mcp"
# a well-behaved stand-in server: READY, then serve until stdin reaches EOF and exit 0; it ignores SIGTERM so that
# stop()'s SIGTERM, sent right after it closes stdin, cannot race the clean exit
SERVES_UNTIL_EOF = (
    "import signal, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    f"print('READY {URL}', flush=True); sys.stdin.read()"
)
QUICK_S = 5.0  # a start failure must be reported well inside this


def _script(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _gone(pid: int) -> bool:
    """The process no longer exists, or is a zombie waiting for whoever reaps it (it runs no more code)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in {"Z", "X"}


def test_start_server_returns_the_url_of_the_ready_line_and_stop_ends_the_server_with_status_0() -> None:
    server = start_server(_script(SERVES_UNTIL_EOF))
    try:
        assert server.url == URL
        assert server.returncode is None
    finally:
        server.stop()
    assert server.returncode == 0
    assert _gone(server.pid)


def test_lines_before_the_ready_line_are_skipped() -> None:
    code = f"import sys; print('starting up'); print('READY {URL}', flush=True); sys.stdin.read()"
    with start_server(_script(code)) as server:
        assert server.url == URL


def test_the_context_manager_stops_the_server_and_stop_is_idempotent() -> None:
    with start_server(_script(SERVES_UNTIL_EOF)) as server:
        assert isinstance(server, ServerProcess)
    assert server.returncode == 0
    server.stop()
    server.stop(timeout=0)
    assert server.returncode == 0


def test_a_command_that_exits_before_ready_raises_naming_the_command_and_its_last_stderr_lines() -> None:
    code = "import sys; print('line one', file=sys.stderr); print('no config file', file=sys.stderr); sys.exit(3)"
    started = time.monotonic()
    with pytest.raises(ServerStartError) as raised:
        start_server(_script(code), timeout=30)
    assert time.monotonic() - started < QUICK_S
    message = str(raised.value)
    assert "exited with status 3" in message
    assert "-c" in message and "sys.exit(3)" in message
    assert "line one\nno config file" in message


def test_a_command_that_never_prints_ready_raises_after_the_timeout_and_is_stopped() -> None:
    code = "import os, sys; print('still booting', flush=True); print(os.getpid(), file=sys.stderr, flush=True); " \
        "sys.stdin.read()"  # fmt: skip
    started = time.monotonic()
    with pytest.raises(ServerStartError) as raised:
        start_server(_script(code), timeout=0.5)
    assert time.monotonic() - started < QUICK_S
    message = str(raised.value)
    assert "printed no READY line within 0.5 s" in message
    assert "still booting" in message
    pid = int(message.rsplit("last stderr lines:\n", 1)[1].split()[0])
    assert _gone(pid)


def test_a_command_that_cannot_be_executed_raises_server_start_error(tmp_path: Path) -> None:
    with pytest.raises(ServerStartError, match="could not start"):
        start_server([str(tmp_path / "no-such-server")])


def test_a_server_that_ignores_sigterm_and_stdin_is_killed_after_the_stop_timeout() -> None:
    code = (
        "import signal, sys, threading; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"print('READY {URL}', flush=True); threading.Event().wait()"
    )
    server = start_server(_script(code))
    started = time.monotonic()
    server.stop(timeout=0.5)
    assert time.monotonic() - started < QUICK_S
    assert server.returncode == -signal.SIGKILL
    assert _gone(server.pid)


def test_stop_also_ends_the_children_a_server_started_in_its_process_group(tmp_path: Path) -> None:
    child_pid = tmp_path / "child.pid"
    code = (
        "import subprocess, sys; "
        "child = subprocess.Popen([sys.executable, '-c', 'import threading; threading.Event().wait()']); "
        f"open({str(child_pid)!r}, 'w').write(str(child.pid)); "
        f"print('READY {URL}', flush=True); sys.stdin.read()"
    )
    with start_server(_script(code)):
        pid = int(child_pid.read_text())
        exited = os.pidfd_open(pid)  # readable once that process has exited
    try:
        # SIGKILL is delivered asynchronously: wait, bounded, for the orphan to die
        assert select.select([exited], [], [], QUICK_S)[0] == [exited]
    finally:
        os.close(exited)
    assert _gone(pid)


def test_py_server_is_the_python_sdk_server_module_on_this_interpreter() -> None:
    assert py_server() == [sys.executable, "-m", "backchannel.proxy.servers.py_sdk"]


def test_the_python_sdk_server_prints_ready_and_exits_0_on_sigterm_with_stdin_still_open() -> None:
    with start_server(py_server()) as server:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")
        os.kill(server.pid, signal.SIGTERM)
        assert server.wait(10) == 0


def test_stopping_the_python_sdk_server_ends_it_with_status_0() -> None:
    server = start_server(py_server())
    server.stop()
    assert server.returncode == 0
    assert _gone(server.pid)


def test_the_python_sdk_server_exits_0_when_its_stdin_reaches_eof() -> None:
    popen = subprocess.Popen(py_server(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert popen.stdout is not None and popen.stdin is not None
        assert popen.stdout.readline().decode().startswith("READY http://127.0.0.1:")
        popen.stdin.close()
        assert popen.wait(10) == 0
    finally:
        if popen.poll() is None:
            os.killpg(popen.pid, signal.SIGKILL)
            popen.wait(10)
        if popen.stdout is not None:
            popen.stdout.close()


@pytest.mark.live
@pytest.mark.parametrize("which", ["py-sdk", "ts-sdk"])
def test_a_server_started_in_the_background_with_stdin_from_dev_null_keeps_serving_until_sigterm(which: str) -> None:
    """`cmd &` in a script gives stdin /dev/null (in a terminal, the tty): only a pipe's EOF may stop the server."""
    from backchannel.proxy.servers.paths import node_server

    argv = py_server() if which == "py-sdk" else node_server()
    assert argv is not None, "the TypeScript SDK server is not installed: run scripts/install-clients"
    popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert popen.stdout is not None
        lines: queue.Queue[bytes] = queue.Queue()
        stdout = popen.stdout
        threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
        ready = b""
        while not ready.startswith(b"READY "):
            ready = lines.get(timeout=20)
        url = ready.split()[1].decode()
        answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=5)
        assert popen.poll() is None and answer.status_code < 500
        popen.send_signal(signal.SIGTERM)
        assert popen.wait(timeout=10) == 0
    finally:
        if popen.poll() is None:
            os.killpg(popen.pid, signal.SIGKILL)
            popen.wait(timeout=10)
        if popen.stdout is not None:
            popen.stdout.close()
