"""`backchannel bridge URL` as a stdio server process: concurrent requests, bad lines, closed stdin, both eras, and
through the recording proxy, whose recording marks every bridged request as bridge-made."""

from __future__ import annotations

import io
import json
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import pytest

from backchannel.oracle.bridge import bridge_made_headers, bridged_by
from backchannel.proxy.bridge.command import (
    TooLong,
    bounded_lines,
    refuse_too_long,
    run_bridge,
    standalone_argv,
    stderr_log,
    stdio_argv,
)
from backchannel.proxy.bridge.forwarder import LineWriter
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.scenarios.default.endpoint import TOOLS as DEFAULT_TOOLS
from backchannel.recordings import load
from tests.proxy.bridge.conftest import SLOW_MS, call, lines_of, modern

WAIT_S = 20.0


def test_the_bridge_command_line_for_a_run_is_backchannel_bridge_on_this_interpreter():
    assert stdio_argv("http://127.0.0.1:1/r/abc/mcp") == [
        sys.executable,
        "-m",
        "backchannel.proxy.cli",
        "bridge",
        "http://127.0.0.1:1/r/abc/mcp",
    ]


@pytest.mark.live
def test_a_second_request_is_answered_while_the_first_is_still_held(testbed):
    out = io.BytesIO()
    stdin = io.BytesIO(call(1, "slow") + call(2, "fast"))
    began = time.monotonic()
    assert run_bridge(testbed.url, stdin, out, drain=WAIT_S, log=lambda _: None) == 0
    answers = lines_of(out.getvalue())
    assert [a["id"] for a in answers] == [2, 1]  # written as they come, each whole
    assert time.monotonic() - began < 2 * SLOW_MS / 1000  # at once, not one after the other


@pytest.mark.live
def test_many_concurrent_answers_are_never_interleaved(testbed):
    out = io.BytesIO()
    stdin = io.BytesIO(b"".join(call(i, "stream", progress_token=f"p{i}") for i in range(8)))
    assert run_bridge(testbed.url, stdin, out, drain=WAIT_S, log=lambda _: None) == 0
    answers = lines_of(out.getvalue())  # every line parses: no two writes ran into each other
    assert sorted(a["id"] for a in answers if "result" in a) == list(range(8))


@contextmanager
def bridge_process(url: str, *flags: str) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [*standalone_argv(url), *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(WAIT_S)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def read_message(stdout: IO[bytes]) -> dict[str, Any]:
    ready, _, _ = select.select([stdout], [], [], WAIT_S)
    assert ready, f"no line on the bridge's stdout within {WAIT_S} s"
    line = stdout.readline()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    message = json.loads(line)
    assert isinstance(message, dict)
    return message


def send(proc: subprocess.Popen[bytes], raw: bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(raw)
    proc.stdin.flush()


@pytest.mark.live
def test_a_modern_client_gets_each_answer_as_one_line_and_stdout_holds_nothing_else(endpoint):
    with bridge_process(endpoint.url) as proc:
        data, err = proc.communicate(modern(1, "server/discover") + call(2, "get_repo_status"), timeout=WAIT_S)
    assert proc.returncode == 0, err
    assert sorted(m["id"] for m in lines_of(data)) == [1, 2]
    assert err == b""


@pytest.mark.live
def test_a_legacy_client_runs_the_initialize_handshake_through_the_bridge(legacy_endpoint):
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    with bridge_process(legacy_endpoint.url) as proc:
        assert proc.stdout is not None
        send(proc, json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}).encode() + b"\n")
        assert read_message(proc.stdout)["result"]["protocolVersion"] == "2025-11-25"
        send(proc, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        send(proc, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_repo_status"}}\n')
        answer = read_message(proc.stdout)
        data, err = proc.communicate(timeout=WAIT_S)
    assert answer["id"] == 1 and "result" in answer, answer  # the session reached the server: no 400
    assert (proc.returncode, data) == (0, b"")


@pytest.mark.live
def test_bad_lines_never_crash_the_bridge_and_a_good_line_after_them_is_answered(endpoint):
    bad = b"not json\n" + b'{\n  "jsonrpc": "2.0",\n  "id": 1\n}\n' + b"\xff\xfe\n" + b'{"id": 3}\n' + b"[1]\n"
    with bridge_process(endpoint.url) as proc:
        data, err = proc.communicate(bad + modern(4, "tools/list"), timeout=WAIT_S)
    assert proc.returncode == 0
    answers = lines_of(data)
    assert [a["id"] for a in answers if "result" in a] == [4]
    assert {a["id"] for a in answers if "error" in a} <= {3}  # only errors that carry an id come back
    assert b"Parse error" in err


@pytest.mark.live
def test_a_request_line_with_invalid_utf8_gets_exactly_one_answer_for_its_id(endpoint):
    line = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "caf\xe9", "arguments": {}}}\n'
    out = io.BytesIO()
    assert run_bridge(endpoint.url, io.BytesIO(line), out, drain=WAIT_S, log=lambda _: None) == 0
    answers = lines_of(out.getvalue())
    assert [a["id"] for a in answers] == [7] and "error" in answers[0]


@pytest.mark.live
def test_a_line_over_the_limit_is_not_forwarded_and_its_request_gets_an_error_for_its_id(endpoint):
    huge = json.dumps({"jsonrpc": "2.0", "id": "big-1", "method": "tools/call", "params": {"x": "y" * 5000}})
    logged: list[str] = []
    out = io.BytesIO()
    stdin = io.BytesIO(huge.encode() + b"\n" + modern(2, "tools/list"))
    assert run_bridge(endpoint.url, stdin, out, drain=WAIT_S, log=logged.append, max_line=1000) == 0
    answers = {a["id"]: a for a in lines_of(out.getvalue())}
    assert set(answers) == {"big-1", 2}  # the line after the long one is read whole and answered
    assert answers["big-1"]["error"]["code"] == -32600 and "--max-line" in answers["big-1"]["error"]["message"]
    assert "result" in answers[2]
    assert any("over the bridge's limit of 1000" in line for line in logged)


def test_reading_a_line_over_the_limit_keeps_only_its_head_and_reads_on_after_it():
    data = b"a" * 10 + b"\n" + b"{" + b"b" * 300_000 + b"\n" + b"c" * 5
    got = list(bounded_lines(io.BytesIO(data), 100))
    assert got[0] == b"a" * 10 + b"\n" and got[2] == b"c" * 5  # an unterminated last line is a line
    assert isinstance(got[1], TooLong) and got[1].size == 300_002 and len(got[1].head) <= 101


def test_a_line_of_exactly_the_limit_is_forwarded_whole():
    line = b"x" * 100 + b"\n"
    assert list(bounded_lines(io.BytesIO(line), 100)) == [line]


def test_a_response_or_an_idless_line_over_the_limit_is_only_logged():
    for head in (b'{"jsonrpc":"2.0","id":3,"result":{"a":"', b'{"jsonrpc":"2.0","method":"x","params":"'):
        out, logged = io.BytesIO(), []
        refuse_too_long(TooLong(head, 10**8), 1000, LineWriter(out), logged.append)
        assert out.getvalue() == b"" and "no request id" in logged[0]


def test_the_bridges_memory_stays_bounded_by_its_limit_not_by_the_line():
    """A 200 MB line through bounded_lines: the peak allocation is the limit, a few MB, not the line."""
    import tracemalloc

    class Endless(io.RawIOBase):  # 200 MB of one line, made as it is read: the test holds none of it
        def __init__(self) -> None:
            self.left = 200 * 1024 * 1024

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
            n = min(len(buffer), self.left)
            buffer[:n] = b"x" * n if n else b""
            self.left -= n
            if n and self.left == 0:
                buffer[n - 1 : n] = b"\n"
            return n

    tracemalloc.start()
    try:
        [line] = list(bounded_lines(io.BufferedReader(Endless(), 1 << 16), 4 * 1024 * 1024))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(line, TooLong) and line.size == 200 * 1024 * 1024
    assert peak < 16 * 1024 * 1024, peak


@pytest.mark.live
def test_closed_stdin_ends_the_bridge_with_0_after_the_request_in_flight_is_answered(testbed):
    with bridge_process(testbed.url) as proc:
        data, _ = proc.communicate(call(1, "slow"), timeout=WAIT_S)  # stdin closes right after the line
    assert proc.returncode == 0
    assert [m["id"] for m in lines_of(data)] == [1]


@pytest.mark.live
def test_closed_stdin_waits_for_in_flight_requests_only_as_long_as_drain(testbed):
    began = time.monotonic()
    with bridge_process(testbed.url, "--drain", "0.2") as proc:
        data, err = proc.communicate(call(1, "slow"), timeout=WAIT_S)
    assert proc.returncode == 0 and data == b""
    assert b"still in flight" in err
    assert time.monotonic() - began < SLOW_MS / 1000 + 1.5  # the process start plus the drain, not the hold


@pytest.mark.live
def test_a_url_that_is_not_http_is_a_usage_error_with_nothing_on_stdout():
    done = subprocess.run(standalone_argv("ftp://example.org/mcp"), capture_output=True, timeout=WAIT_S, input=b"")
    assert (done.returncode, done.stdout) == (2, b"")
    assert b"not an http:// or https:// URL" in done.stderr


@pytest.mark.live
def test_through_the_proxy_every_bridged_exchange_is_recorded_with_the_bridge_marks(tmp_path):
    out = tmp_path / "bridged.sqlite"
    with Capture(out, endpoint=EndpointConfig(tools=DEFAULT_TOOLS)) as capture:
        run = capture.new_run("stdio", {})
        with bridge_process(run.url) as proc:
            data, err = proc.communicate(modern(1, "server/discover") + call(2, "get_repo_status"), timeout=WAIT_S)
        assert proc.returncode == 0, err
        assert sorted(m["id"] for m in lines_of(data)) == [1, 2]
        assert capture.wait_for(lambda: len([e for e in load(out).exchanges if e.run_id == run.id]) >= 2)
    exchanges = [e for e in load(out).exchanges if e.run_id == run.id]
    assert len(exchanges) == 2
    for exchange in exchanges:
        assert bridged_by(exchange) == "stdio"
        made = bridge_made_headers(exchange)
        assert {"accept", "content-type", "mcp-protocol-version", "mcp-method"} <= made
        assert {key.lower() for key, _ in exchange.request_headers} <= made
    call_exchange = next(e for e in exchanges if e.header("mcp-method") == "tools/call")
    assert call_exchange.header("mcp-name") == "get_repo_status"
    assert call_exchange.request_body == call(2, "get_repo_status").rstrip(b"\n")  # the client's bytes, unchanged


def test_the_cli_form_runs_the_same_bridge(endpoint):
    from backchannel.proxy.cli import app

    if "bridge" not in {c.name for c in app.registered_commands}:
        pytest.skip("`bridge` is not registered in proxy/cli.py yet")
    done = subprocess.run(stdio_argv(endpoint.url), input=modern(1, "tools/list"), capture_output=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    assert [m["id"] for m in lines_of(done.stdout)] == [1]


def test_a_log_line_quoting_the_server_shows_its_control_characters_instead_of_acting_on_them(capsys):
    stderr_log("dropped an error without an id: \x1b]8;;https://evil.test\x07click\x1b]8;;\x07 \u202eexe.txt")
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err
    assert "\\x1b]8;;https://evil.test\\x07click" in err and "\\u202e" in err
