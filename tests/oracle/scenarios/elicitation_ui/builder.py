"""Small elicitation-ui recordings for the checks' tests: one client run, one tool's elicitation and its answer,
and terminal output at chosen times (the same clock as the messages', as the harness and proxy record them)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from backchannel.oracle import all_checks
from backchannel.oracle.model import Finding
from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.oracle.terminal import plain
from backchannel.recordings import Recording, load, store
from backchannel.recordings.rows import RunEnd
from backchannel.recordings.shapes import ProbeOptions, RunDetail
from tests.factories import new_recording

NONCE = "test-nonce"  # tests/factories.py's
URL = payloads.url(NONCE)
PUNY = payloads.punycode_url(NONCE)
LINK = payloads.form_link(NONCE)
ASKED_T, ANSWER_T = 10.0, 20.0


def url_params(url: str = URL) -> dict[str, Any]:
    return {"mode": "url", "message": payloads.url_message(NONCE), "url": url}


def form_params() -> dict[str, Any]:
    schema = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}}
    return {"mode": "form", "message": payloads.form_message(NONCE), "requestedSchema": schema}


def build(
    tmp_path: Path,
    *,
    tool: str = payloads.URL_TOOL,
    params: dict[str, Any] | None = None,
    answer: dict[str, Any] | None = None,
    terminal: list[tuple[str, str | bytes, float]] = (),  # type: ignore[assignment]
    screens: list[dict[str, Any]] = (),  # type: ignore[assignment]
    stdin: str | None = None,
    opens: list[tuple[str, float]] = (),  # type: ignore[assignment]  # (url, t): an xdg-open call in the lab
    options: bool = False,  # the recording says how its check ran (probe_options), even with nothing on stdin
    outcome: str | None = None,  # the tool's final result text, sent just after the answer
) -> Recording:
    """A recording whose `contract` run got `tool`'s elicitation at ASKED_T and answered `answer` at ANSWER_T."""
    params = params if params is not None else url_params()
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
    result = {
        "resultType": "input_required",
        "inputRequests": {"ask": {"method": "elicitation/create", "params": params}},
        "requestState": "s",
    }
    messages = [
        {
            "run_id": "r",
            "flow_id": "f1",
            "direction": "to-server",
            "kind": "request",
            "jsonrpc_id": "1",
            "method": "tools/call",
            "text": json.dumps(call),
            "t": ASKED_T - 1,
        },
        {
            "run_id": "r",
            "flow_id": "f1",
            "direction": "to-client",
            "kind": "response",
            "jsonrpc_id": "1",
            "method": "tools/call",
            "text": json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}),
            "t": ASKED_T,
        },
    ]
    if answer is not None:
        retry = {**call, "id": 2, "params": {**call["params"], "inputResponses": {"ask": answer}, "requestState": "s"}}
        messages.append(
            {
                "run_id": "r",
                "flow_id": "f2",
                "direction": "to-server",
                "kind": "request",
                "jsonrpc_id": "2",
                "method": "tools/call",
                "text": json.dumps(retry),
                "t": ANSWER_T,
            }
        )
    if answer is not None and outcome is not None:
        final = {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"content": [{"type": "text", "text": outcome}], "isError": False},
        }
        messages.append(
            {
                "run_id": "r",
                "flow_id": "f2",
                "direction": "to-client",
                "kind": "response",
                "jsonrpc_id": "2",
                "method": "tools/call",
                "text": json.dumps(final),
                "t": ANSWER_T + 0.01,
            }
        )
    offsets: dict[str, int] = {}
    chunks = []
    for stream, text, t in terminal:
        data = text.encode() if isinstance(text, str) else text
        chunks.append({"run_id": "r", "stream": stream, "offset": offsets.get(stream, 0), "data": data, "t": t})
        offsets[stream] = offsets.get(stream, 0) + len(data)
    runs = [{"id": "r", "name": "contract", "scenario": "elicitation-ui", "client_argv": ["client", "URL"]}]
    path = new_recording(
        tmp_path / "ui.sqlite",
        runs=runs,
        messages=messages,
        terminal=chunks,
        screens=[{"run_id": "r", **s} for s in screens],
        opens=[{"run_id": "r", "opener": "xdg-open", "argv": [url], "t": t} for url, t in opens],
    )
    writer = store.RecordingWriter(path)  # the run ended, as a finished run does (else: ERROR run-never-ended)
    writer.update_run("r", RunEnd(ended_at=ANSWER_T + 5, exit_code=0, outcome="exited", detail=RunDetail()))
    if stdin is not None or options:
        writer.set_meta(ProbeOptions(stdin=stdin))
    writer.close()
    store.finalize(path)
    return load(path)


def judged(check_id: str, rec: Recording) -> Finding:
    [finding] = all_checks()[check_id].fn(rec)
    return finding


BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def cat_v(raw: bytes) -> bytes:
    """What `cat -v` shows of `raw`: C0 and DEL as ^X, a byte from 0x80 as M- and its low seven bits the same way
    (so U+009B, UTF-8 C2 9B, shows as M-BM-^[), tab and newline as they are."""

    def one(byte: int) -> bytes:
        meta, low = (b"M-", byte - 0x80) if byte >= 0x80 else (b"", byte)
        if low in (0x09, 0x0A) and not meta:
            return bytes([low])
        return meta + (b"^" + bytes([low ^ 0x40]) if low < 0x20 or low == 0x7F else bytes([low]))

    return b"".join(one(b) for b in raw)


def stripped(raw: bytes) -> bytes:
    """`raw` as a client that strips control sequences shows it: ESC and C1 (U+009B, U+009D) sequences and bidi
    controls gone, the text between them kept (an OSC's text goes with it, as plain() drops it)."""
    c1_sequences = rb"\xc2\x9b[0-?]*[ -/]*[@-~]|\xc2\x9d[^\xc2]*\xc2\x9c"
    return BIDI_CONTROLS.sub("", plain(re.sub(c1_sequences, b"", raw)).decode()).encode()
