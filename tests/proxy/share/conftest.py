"""Recordings for the sharing tests: the committed references, and a hostile one made by a stranger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from backchannel.proxy.share.bug_report import bug_report_command
from backchannel.proxy.share.export import export_command
from tests.factories import new_recording

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "recordings" / "reference"
FLAWED = REFERENCE / "mrtr-provenance-toy-flawed.sqlite"
HELD_SSE = REFERENCE / "elicitation-url-mode-contract-held-sse.sqlite"

# what a stranger may put in a recording to break out of a report: markup, script, fences, escapes, bidi, mentions
HOSTILE = (
    "<script>alert(1)</script> <img src=x onerror=alert(2)> ```\n# Heading\n[click](javascript:alert(3)) "
    "\x1b[31mred\x1b[0m \u202eevil\u202c @maintainer #1 | cell | ~~~"
)
RUN_ID = "run`<b>1"


def cli() -> typer.Typer:
    """The two commands as the lead registers them in proxy/cli.py (typer-annotated functions, unchanged)."""
    app = typer.Typer()
    app.command("export")(export_command)
    app.command("bug-report")(bug_report_command)
    return app


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli(), [str(a) for a in args])


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """One run whose messages, exchange, terminal output and lab file carry HOSTILE, plus a planted secret."""
    message = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":' + _json(HOSTILE) + "}]}}"
    return new_recording(
        tmp_path / "hostile.sqlite",
        runs=[
            {
                "id": RUN_ID,
                "name": "probe <b>",
                "scenario": "mrtr-provenance",
                "client_argv": ["evil-client", "--x", f"http://127.0.0.1:1/r/{RUN_ID}/mcp", "$(touch pwned)"],
            }
        ],
        exchanges=[
            {
                "run_id": RUN_ID,
                "flow_id": "f1",
                "method": "POST",
                "path": f"/r/{RUN_ID}/mcp?customer=alice",
                "request_headers": [("Host", "127.0.0.1:9"), ("X-Customer", "alice"), ("Content-Type", "text/x")],
                "request_body": b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"customer":"alice"}}',
                "status": 200,
                "response_headers": [("content-type", "application/json"), ("content-encoding", "gzip")],
                "upstream_response_body": message.encode(),
                "t_request": 1.0e30,
                "t_response": float("nan"),
                "mutations": [{"kind": "drop-result-type", "note": HOSTILE}],
            },
            {
                "run_id": RUN_ID,
                "flow_id": "f2",
                "method": "G\u202eET",
                "path": "/\x1b[2J",
                "request_headers": [("Host", "[::1"), ("X", HOSTILE.replace("\n", " "))],
                "status": 99999,
            },
        ],
        messages=[
            {"run_id": RUN_ID, "flow_id": "f1", "direction": "to-client", "kind": "response", "text": message},
            {
                "run_id": RUN_ID,
                "flow_id": "f1",
                "direction": "to-server",
                "kind": "request",
                "method": "initialize",
                "text": '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":'
                + _json(HOSTILE)
                + ',"version":"<i>1</i>"}}}',
            },
        ],
        terminal=[{"run_id": RUN_ID, "stream": "stdout", "offset": 0, "data": HOSTILE.encode()}],
        files=[{"run_id": RUN_ID, "path": "notes/`x`<b>.md", "size": len(HOSTILE), "data": HOSTILE.encode()}],
    )


def _json(text: str) -> str:
    return json.dumps(text)


@pytest.fixture
def not_utf8(tmp_path: Path) -> Path:
    """A recording the reader accepts but that is not all UTF-8: a JSON-typed response body holding the byte 0xff,
    and (written past the writer, as a file from elsewhere may be) a response header holding a lone surrogate."""
    import sqlite3

    path = new_recording(
        tmp_path / "not-utf8.sqlite",
        runs=[{"id": "abc123abc123", "name": "probe"}],
        exchanges=[
            {
                "run_id": "abc123abc123",
                "flow_id": "f1",
                "method": "POST",
                "path": "/r/abc123abc123/mcp",
                "request_headers": [("content-type", "application/json")],
                "request_body": b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                "status": 200,
                "response_headers": [("content-type", "application/json"), ("x-odd", "ab")],
                "response_body": b'{"a":"\xff"}',
                "t_request": 1.0,
                "t_response": 1.1,
            }
        ],
    )
    with sqlite3.connect(path) as db:
        db.execute("UPDATE exchanges SET response_headers = replace(response_headers, '\"ab\"', '\"a\\udcffb\"')")
    db.close()
    return path
