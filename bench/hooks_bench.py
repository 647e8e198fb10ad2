#!/usr/bin/env python3
"""The addons' own Python work per exchange, in process: Router → Rewriter → Recorder hooks on mitmproxy flows.

No sockets: flows are made with mitmproxy's test helpers, the recording is a real SQLite file with its real writer
thread. It isolates what backchannel adds on the proxy's path (the latency benchmark, proxy_bench.py, measures the
whole thing through mitmdump). Usage: python bench/hooks_bench.py [--exchanges N] [--rounds R] [--plan drop]
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

from mitmproxy import http
from mitmproxy.test import tflow, tutils

from backchannel.addons.hold import HoldServer
from backchannel.addons.recorder import Recorder
from backchannel.addons.rewriter import Rewriter
from backchannel.addons.router import Router
from backchannel.addons.session import Session
from backchannel.recordings import store
from backchannel.recordings.meta import RecordingInfo
from backchannel.recordings.rows import RunRow
from backchannel.recordings.shapes import RunDetail

warnings.simplefilter("ignore", DeprecationWarning)

CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "get_repo_status",
        "arguments": {"repo": "demo"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        },
    },
}
RESULT = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "content": [{"type": "text", "text": "repo demo: branch main, clean, 0 ahead / 0 behind"}],
        "isError": False,
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "bench", "version": "1"}},
    },
}
PLANS = {"none": {}, "drop": {"mutations": [{"kind": "drop-result-type", "match": {"method": "tools/call"}}]}}
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "get_repo_status",
    "user-agent": "bench/1.0",
}


def make_flow(run_id: str, body: bytes, answer: bytes) -> tuple[http.HTTPFlow, http.Response]:
    """A client's flow as it reaches the addons in reverse mode, and the upstream's answer, made before timing."""
    flow = tflow.tflow(req=tutils.treq(host="127.0.0.1", port=9, path=f"/r/{run_id}/mcp", method=b"POST"))
    flow.request.headers.clear()
    for name, value in HEADERS.items():
        flow.request.headers[name] = value
    flow.request.content = body
    flow.response = None
    return flow, http.Response.make(200, answer, {"content-type": "application/json"})


def one_exchange(
    router: Router, rewriter: Rewriter, recorder: Recorder, flow: http.HTTPFlow, response: http.Response
) -> None:
    """The hooks in mitmdump's order (Backchannel's): what backchannel adds to one exchange."""
    router.requestheaders(flow)
    router.request(flow)
    rewriter.request(flow)
    recorder.request(flow)
    if flow.response is None:
        flow.response = response
    rewriter.responseheaders(flow)
    recorder.responseheaders(flow)
    rewriter.response(flow)
    recorder.response(flow)
    rewriter.session.flows.pop(flow.id, None)


def measure(exchanges: int, plan: str) -> tuple[float, float, float]:
    """µs per exchange: the hooks' wall time, wall time until the writer committed everything, and the process's CPU
    time (both threads) over the same span."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.sqlite"
        store.create(path, RecordingInfo(nonce="bench", tool_version="bench"))
        orchestrator = store.RecordingWriter(path)
        run_id = secrets.token_hex(6)
        orchestrator.insert(
            RunRow(
                id=run_id,
                ordinal=1,
                name="bench",
                upstream="http://127.0.0.1:8123/mcp",
                plan=PLANS[plan],
                detail=RunDetail(url=f"/r/{run_id}/mcp"),
            )
        )
        orchestrator.flush()
        session = Session(str(path))
        recorder = Recorder(session)
        rewriter, router = Rewriter(session, HoldServer(), recorder.sse_item), Router(session)
        body, answer = json.dumps(CALL).encode(), json.dumps(RESULT).encode()
        one_exchange(router, rewriter, recorder, *make_flow(run_id, body, answer))  # the plan is read once, as live
        flows = [make_flow(run_id, body, answer) for _ in range(exchanges)]
        began, cpu = time.perf_counter(), time.process_time()
        for flow, response in flows:
            one_exchange(router, rewriter, recorder, flow, response)
        hooks = time.perf_counter() - began
        session.writer.flush(60)
        total, cpu = time.perf_counter() - began, time.process_time() - cpu
        session.writer.close()
        orchestrator.close()
        return hooks / exchanges * 1e6, total / exchanges * 1e6, cpu / exchanges * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--plan", choices=sorted(PLANS), default="none")
    args = parser.parse_args()
    results = [measure(args.exchanges, args.plan) for _ in range(args.rounds)]
    hooks, total, cpu = (min(r[i] for r in results) for i in range(3))  # the least disturbed round
    print(
        f"plan={args.plan}: hooks {hooks:.1f} µs/exchange, until committed {total:.1f}, CPU {cpu:.1f} "
        f"(best of {args.rounds} × {args.exchanges}; median hooks {statistics.median(r[0] for r in results):.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
