"""Secrets planted in headers, the query, the body, the terminal and lab files never reach the recording file.

A real `backchannel record` run: a small client (tests/clients/secrets_client.py) calls a loopback upstream that
answers with secrets of its own (a session cookie, a token member, a key in the tool's text, over SSE), and the
whole recording file's bytes are searched for every secret (mitmproxy's own flow state, opt-in, included).
"""

from __future__ import annotations

import json
import socketserver
import sqlite3
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from backchannel.recordings.redactions import Redactions
from tests.clients.secrets_client import SECRETS
from tests.in_process import backchannel

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "tests" / "clients" / "secrets_client.py"
UPSTREAM_SECRETS = {
    "upstream-set-cookie": "upSetCookieR4n8Tb",
    "upstream-json-token": "upJsonTokenC2x7Mf",
    "upstream-text-key": "sk-upstreamTextKeyZ9a3Lw0",
}


class _Upstream(BaseHTTPRequestHandler):
    """Answers every POST with one SSE event holding secrets, and a session cookie."""

    def do_POST(self) -> None:  # noqa: N802 - the http.server hook name
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        result = {
            "content": [{"type": "text", "text": f"repo ok; deploy with {UPSTREAM_SECRETS['upstream-text-key']}"}],
            "structuredContent": {"sessionToken": UPSTREAM_SECRETS["upstream-json-token"]},
            "resultType": "complete",
        }
        event = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": result})
        data = f"event: message\ndata: {event}\n\n".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Set-Cookie", f"session={UPSTREAM_SECRETS['upstream-set-cookie']}; HttpOnly")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Upstream)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _record(out: Path, upstream: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-m", "backchannel.proxy.cli", "record", "--out", str(out), "--upstream", upstream,
        "--redact", "tenant", "--flow-state", "--timeout", "30", "--", sys.executable, str(CLIENT), "{url}",
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL, cwd=ROOT)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, upstream: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One real `record` of the secrets client, made once for the module; each test reads its own part of the file."""
    out = tmp_path_factory.mktemp("secrets") / "secrets.sqlite"
    return out, _record(out, upstream)


def test_no_planted_secret_reaches_the_recording_file_and_the_recording_lists_what_it_redacted(recorded):
    out, done = recorded
    assert done.returncode == 0, done.stderr
    assert not Path(f"{out}-wal").exists()
    data = out.read_bytes()
    leaked = {name: value for name, value in {**SECRETS, **UPSTREAM_SECRETS}.items() if value.encode() in data}
    assert leaked == {}
    # the run did carry them: the traffic, the terminal and the file are there, only the values are gone
    with sqlite3.connect(out) as conn:
        assert conn.execute("SELECT count(*) FROM exchanges WHERE flow_state IS NOT NULL").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 1
        path = conn.execute("SELECT path FROM exchanges").fetchone()[0]
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    conn.close()
    assert "access_token=[redacted]" in path and "page=1" in path
    summaries = {s.source: s for s in Redactions.read_all(meta)}
    assert set(summaries) == {"proxy", "harness"}
    proxy, harness = summaries["proxy"], summaries["harness"]
    assert proxy.patterns == ("tenant",) and harness.patterns == ("tenant",)
    assert {"authorization", "x-auth-token", "x-goog-api-key", "cookie", "x-tenant", "set-cookie"} <= set(
        proxy.counts["header"]
    )
    assert {"access_token", "api_key"} <= set(proxy.counts["query"])
    assert {"apiKey", "password", "client_secret", "tenantPin", "sessionToken"} <= set(proxy.counts["json-member"])
    assert {"bearer", "OPENAI_API_KEY", "access_token", "github-token"} <= set(harness.counts["terminal"])
    assert {"aws_access_key_id", "slack-token", "password"} <= set(harness.counts["file"])


def test_a_recording_is_created_owner_only(recorded):
    out, done = recorded
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


@pytest.mark.parametrize("command", ["record", "check"])
def test_a_redact_pattern_that_is_not_a_regular_expression_is_a_usage_error_and_creates_nothing(tmp_path, command):
    out = tmp_path / "never.sqlite"
    done = backchannel(command, "--redact", "(", "--out", str(out))  # the flag's own check, in this process
    assert done.exit_code == 2
    assert done.stderr.strip().splitlines() == [
        "backchannel: --redact '(' is not a regular expression: missing ), unterminated subpattern at position 0"
    ]
    assert not out.exists()
