"""`backchannel record` with no command: a live client, one line per message, a clean close on Ctrl-C."""

import json
import os
import selectors
import signal
import subprocess
import sys
import time

import httpx

from backchannel.recordings import load

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
HEADERS = {
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/list",
    "Accept": "application/json, text/event-stream",
}


def _read_until(proc: subprocess.Popen, needle: str, timeout: float = 20.0) -> str:
    """Read the child's stdout line by line until a line holds `needle` (bounded; no sleeps)."""
    seen = ""
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    try:
        while needle not in seen:
            left = deadline - time.monotonic()
            assert left > 0 and selector.select(left), f"no {needle!r} within {timeout} s; saw: {seen!r}"
            line = proc.stdout.readline()
            assert line, f"stdout closed before {needle!r}; saw: {seen!r}"
            seen += line
    finally:
        selector.close()
    return seen


def test_a_live_client_is_shown_message_by_message_and_ctrl_c_closes_the_recording(tmp_path):
    out = tmp_path / "live.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "backchannel.proxy.cli", "record", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},  # one message per line, however rich would wrap
    )
    try:
        banner = _read_until(proc, "/mcp")
        url = next(word for word in banner.split() if word.startswith("http://127.0.0.1:") and "/r/" in word)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
        assert httpx.post(url, json=body, headers=HEADERS, timeout=10).status_code == 200
        shown = _read_until(proc, "tools/list")
        assert "client → server" in shown
        # text from the client's traffic is shown as text, never read as console markup (a stray "[/]" crashed it)
        hostile = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "[/][bold]x", "_meta": META}}
        headers = {**HEADERS, "Mcp-Method": "tools/call", "Mcp-Name": "[/][bold]x"}
        httpx.post(url, json=hostile, headers=headers, timeout=10)
        assert "name=[/][bold]x" in _read_until(proc, "name=[/][bold]x")
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0
    rec = load(out)
    assert [m.method for m in rec.messages] == ["tools/list", "tools/list", "tools/call", "tools/call"]
    assert rec.runs[0].outcome == "live-stopped"
    assert json.loads(rec.messages[0].text)["id"] == 1
    assert not (tmp_path / "live.sqlite-wal").exists()
