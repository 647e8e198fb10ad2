"""A session as the proxy records one, built by hand for the session rules' tests: each call a POST exchange with
its headers, the client's request and the server's answer as messages of that flow."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backchannel.oracle import judge
from backchannel.oracle.model import Result
from backchannel.oracle.registry import session_checks
from backchannel.recordings import load
from tests.factories import new_recording

MODERN = "2026-07-28"
META = "io.modelcontextprotocol/"
CAPS: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}, "sampling": {}}


def modern_meta(**over: Any) -> dict[str, Any]:
    meta = {
        f"{META}protocolVersion": MODERN,
        f"{META}clientCapabilities": CAPS,
        f"{META}clientInfo": {"name": "test-client", "version": "1"},
    }
    meta.update({f"{META}{k}": v for k, v in over.items()})
    return {k: v for k, v in meta.items() if v is not None}


def text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass
class Wire:
    run: str = "r1"
    scenario: str | None = None  # None: a plain recorded session of two parties that are not backchannel's
    messages: list[dict[str, Any]] = field(default_factory=list)
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: iter(range(1, 10_000)))

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        rpc_id: Any = None,
        answer_id: Any = "same",
        meta: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        upstream_result: dict[str, Any] | None = None,
    ) -> Any:
        """A client request in a POST of its own, answered in that flow (a result, or an error with `answer_id`)."""
        rpc_id = next(self._ids) if rpc_id is None else rpc_id
        flow = f"f{len(self.exchanges) + 1}"
        params = dict(params or {})
        params["_meta"] = modern_meta() if meta is None else meta
        request = {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}
        if headers is None:
            headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
            if method == "tools/call":
                headers["Mcp-Name"] = params.get("name", "")
        self.exchanges.append(
            {
                "flow_id": flow,
                "run_id": self.run,
                "method": "POST",
                "path": f"/r/{self.run}/mcp",
                "status": 200,
                "request_headers": list(headers.items()),
                "request_body": text(request).encode(),
            }
        )
        self._message("to-server", "request", request, flow, method)
        if error is not None:
            said = rpc_id if answer_id == "same" else answer_id
            self._message("to-client", "error", {"jsonrpc": "2.0", "id": said, "error": error}, flow, method)
        elif result is not None:
            answer = {"jsonrpc": "2.0", "id": rpc_id, "result": result}
            upstream = None if upstream_result is None else {"jsonrpc": "2.0", "id": rpc_id, "result": upstream_result}
            self._message("to-client", "response", answer, flow, method, upstream=upstream)
        return rpc_id

    def legacy(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        version: str | None = "2025-11-25",
        session_id: str | None = "s-1",
        assigns: str | None = None,
        rpc_id: Any = None,
    ) -> Any:
        """A 2025-era client request in a POST of its own (no _meta), with the MCP-Protocol-Version and
        Mcp-Session-Id headers given (None: not sent), answered in that flow; `assigns` is the session id the
        response's headers assign (an initialize's)."""
        rpc_id = next(self._ids) if rpc_id is None else rpc_id
        flow = f"f{len(self.exchanges) + 1}"
        request: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": dict(params or {})}
        headers = {"MCP-Protocol-Version": version, "Mcp-Session-Id": session_id}
        status = 200 if error is None else 400
        self.exchanges.append(
            {
                "flow_id": flow,
                "run_id": self.run,
                "method": "POST",
                "path": f"/r/{self.run}/mcp",
                "status": status,
                "request_headers": [(k, v) for k, v in headers.items() if v is not None],
                "response_headers": [] if assigns is None else [("mcp-session-id", assigns)],
                "request_body": text(request).encode(),
            }
        )
        self._message("to-server", "request", request, flow, method)
        if error is not None:
            self._message("to-client", "error", {"jsonrpc": "2.0", "id": rpc_id, "error": error}, flow, method)
        elif result is not None:
            self._message("to-client", "response", {"jsonrpc": "2.0", "id": rpc_id, "result": result}, flow, method)
        return rpc_id

    def initialize(
        self, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None, *, assigns: str | None = "s-1"
    ) -> Any:
        """A 2025-era handshake: initialize (no version or session header), answered agreeing `version` and
        assigning session id `assigns`."""
        params = {
            "protocolVersion": version,
            "capabilities": {} if capabilities is None else capabilities,
            "clientInfo": {"name": "test-client", "version": "1"},
        }
        agreed = {"protocolVersion": version, "capabilities": {}, "serverInfo": {"name": "test-server", "version": "1"}}
        return self.legacy("initialize", params, result=agreed, version=None, session_id=None, assigns=assigns)

    def server_request(self, method: str, params: dict[str, Any], rpc_id: Any) -> None:
        """A request the server sent the client (on the stream of the run's last POST)."""
        flow = self.exchanges[-1]["flow_id"] if self.exchanges else "f0"
        self._message("to-client", "request", {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params},
                      flow, method)  # fmt: skip

    def client_response(self, rpc_id: Any, result: dict[str, Any]) -> None:
        """The client's JSON-RPC response, in a POST of its own."""
        flow = f"f{len(self.exchanges) + 1}"
        self.exchanges.append({"flow_id": flow, "run_id": self.run, "method": "POST", "path": "/mcp", "status": 202})
        self._message("to-server", "response", {"jsonrpc": "2.0", "id": rpc_id, "result": result}, flow, None)

    def _message(
        self, direction: str, kind: str, payload: dict[str, Any], flow: str, method: str | None, *, upstream: Any = None
    ) -> None:
        self.messages.append(
            {
                "run_id": self.run,
                "flow_id": flow,
                "direction": direction,
                "kind": kind,
                "jsonrpc_id": None if "id" not in payload else text(payload["id"]),
                "method": method,
                "text": text(payload),
                "upstream_text": None if upstream is None else text(upstream),
                "mutation": None if upstream is None else "drop-result-type",
            }
        )

    def judged(self, tmp_path: Path, rule: str) -> Result:
        """Record the session, judge it, and return the one result of `rule`."""
        path = new_recording(
            tmp_path / f"session-{len(list(tmp_path.iterdir()))}.sqlite",
            runs=[{"id": self.run, "name": "live", "scenario": self.scenario}],
            exchanges=self.exchanges,
            messages=self.messages,
        )
        with sqlite3.connect(path) as conn:  # the run ended as a client's does: the harness saw all of it
            conn.execute("UPDATE runs SET started_at = 1, ended_at = 2, outcome = 'exited', exit_code = 0")
        conn.close()
        # the session rules alone: a scenario named here has no runs of its own to judge (its checks would ERROR)
        (found,) = [r for r in judge(load(path), session_checks().values()).results if r.id == rule]
        return found


def input_required(**result: Any) -> dict[str, Any]:
    return {"resultType": "input_required", **result}


def elicit(mode: str = "form") -> dict[str, Any]:
    params: dict[str, Any] = {"mode": mode, "message": "Confirm?"}
    if mode == "url":
        params.update(url="https://example.test/x", elicitationId="e1")
    else:
        params["requestedSchema"] = {"type": "object", "properties": {}}
    return {"method": "elicitation/create", "params": params}


def complete(**result: Any) -> dict[str, Any]:
    return {"resultType": "complete", "content": [], **result}
