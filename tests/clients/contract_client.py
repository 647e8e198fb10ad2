"""A stdlib-only MCP client (2026-07-28 only) that follows the elicitation-url-mode contract, or breaks it once.

    python tests/clients/contract_client.py URL [--break NAME] [--modes form,url]

It calls `server/discover`, `tools/list`, then every listed tool once, each tool's flow in its own thread (the
contract allows concurrent calls, and the two held retries then overlap). Every input request is answered anew:
a URL-mode request is declined when its message starts with `DECLINE:` and accepted with no content otherwise;
a form-mode request (or one with no mode) is accepted with `{"confirmed": true}`. Each retry carries a new id, the
answers and the newest requestState exactly. No URL is ever fetched. `--break NAME` makes exactly one deliberate
mistake (see BREAKS); `--modes form` declares form mode only.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from backchannel.proxy.clients.toy_agent_wire import (
    META,
    MODERN_VERSION,
    RpcFailure,
    WireError,
    answer_in,
    header_value,
    sse_events,
)

CLIENT_NAME = "backchannel-contract-client"
CLIENT_VERSION = "0.1.0"
TIMEOUT_S = 30.0
EARLY_TIMEOUT_S = 1.0
FETCH_TIMEOUT_S = 5.0
MAX_ROUNDS = 10
FORM_ANSWER = {"action": "accept", "content": {"confirmed": True}}

BREAKS = {
    "supports-declared-mode": "declare elicitation {'foo': {}} on the tools/list request only",
    "constructs-inputs": "on url_rounds, resend round 1's answers on the round-2 retry",
    "request-state-echoed": "on url_rounds, echo round 1's requestState on the round-2 retry",
    "constructs-inputs-mixed": "on url_and_form, answer only the URL request",
    "missing-mode-is-form": "treat a request that carries a url field as URL mode",
    "no-url-prefetch": "GET every URL a URL-mode request offers, the declined one included",
    "held-json": "close the held_json retry after 1 s",
    "held-sse": "close the held_sse stream after its first keep-alive",
    "wire-schema-valid": "send clientInfo without its required version",
    "held-both": "close both held retries early",
}


class ClosedEarly(Exception):
    """This client closed a request before its answer arrived, on purpose."""


class ContractClient:
    def __init__(self, url: str, modes: list[str], broken: str | None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// URL")
        self.host, self.port = parts.hostname, parts.port or 80
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.modes = modes
        self.broken = broken
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _meta(self, method: str, request_id: int) -> dict[str, Any]:
        elicitation: dict[str, Any] = {mode: {} for mode in self.modes}
        if self.broken == "supports-declared-mode" and method == "tools/list":
            elicitation = {"foo": {}}
        info = {"name": CLIENT_NAME, "version": CLIENT_VERSION}
        if self.broken == "wire-schema-valid":
            del info["version"]
        meta = {
            f"{META}protocolVersion": MODERN_VERSION,
            f"{META}clientCapabilities": {"elicitation": elicitation},
            f"{META}clientInfo": info,
        }
        if method == "tools/call":
            meta["progressToken"] = f"progress-{request_id}"
        return meta

    def request(
        self, method: str, params: dict[str, Any], *, timeout: float = TIMEOUT_S, close_on_keepalive: bool = False
    ) -> dict[str, Any]:
        """Send one request under a fresh id; its result, from a JSON or an SSE response.

        Raises:
            RpcFailure: a JSON-RPC error answered it.
            ClosedEarly: this client gave up on it on purpose (a deliberate break).
            WireError: anything else.
        """
        request_id = self._next_id()
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": {**params, "_meta": self._meta(method, request_id)},
        }
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": MODERN_VERSION,
            "Mcp-Method": method,
        }
        if method == "tools/call":
            headers["Mcp-Name"] = header_value(params["name"])
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request("POST", self.path, body=json.dumps(message).encode(), headers=headers)
            response = conn.getresponse()
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            if kind == "text/event-stream":
                bodies = sse_events(_lines(response, close_on_keepalive))
            else:
                bodies = iter([response.read().decode("utf-8", errors="replace")])
            answer = answer_in(bodies, request_id)
        except TimeoutError as exc:
            if timeout < TIMEOUT_S:
                raise ClosedEarly(f"{method} closed after {timeout} s without an answer") from exc
            raise WireError(f"{method}: no answer within {timeout} s") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise WireError(f"{method}: {exc or type(exc).__name__}") from exc
        finally:
            conn.close()
        if answer is None:
            raise WireError(f"{method}: HTTP {response.status} carried no response to id {request_id}", response.status)
        if "error" in answer:
            error = answer["error"]
            raise RpcFailure(error if isinstance(error, dict) else {"message": str(error)})
        result = answer.get("result")
        if not isinstance(result, dict):
            raise WireError(f"{method}: the result is not an object")
        return result

    def answer(self, tool: str, request: Any) -> dict[str, Any]:
        """This client's user's answer to one input request, asked afresh every time."""
        params = request.get("params") if isinstance(request, dict) else None
        params = params if isinstance(params, dict) else {}
        mode = params.get("mode")
        if self.broken == "missing-mode-is-form" and mode is None and "url" in params:
            mode = "url"
        if mode != "url":
            return dict(FORM_ANSWER)
        if self.broken == "no-url-prefetch" and isinstance(params.get("url"), str):
            prefetch(params["url"])
        message = params.get("message")
        if isinstance(message, str) and message.startswith("DECLINE:"):
            return {"action": "decline"}
        return {"action": "accept"}

    def run_tool(self, tool: str) -> str:
        """Call `tool` and follow its input rounds to the end; a one-line outcome."""
        answers: dict[str, Any] | None = None
        state: str | None = None
        history: list[tuple[dict[str, Any], str | None]] = []  # (answers, state) sent on each retry
        for number in range(1, MAX_ROUNDS + 1):
            params: dict[str, Any] = {"name": tool, "arguments": {}}
            if answers is not None:
                params["inputResponses"] = answers
            if state is not None:
                params["requestState"] = state
            early = answers is not None and self._closes_early(tool)
            try:
                result = self.request(
                    "tools/call",
                    params,
                    timeout=EARLY_TIMEOUT_S if early == "json" else TIMEOUT_S,
                    close_on_keepalive=early == "sse",
                )
            except RpcFailure as exc:
                return f"{tool}: error {exc.code} {exc.message}"
            except ClosedEarly as exc:
                return f"{tool}: closed early on purpose ({exc})"
            if result.get("resultType") != "input_required":
                return f"{tool}: complete after {number} call(s), isError={result.get('isError')}"
            requests = result.get("inputRequests")
            requests = requests if isinstance(requests, dict) else {}
            newest = result.get("requestState")
            answers = {key: self.answer(tool, request) for key, request in requests.items()}
            state = newest if isinstance(newest, str) else None
            if tool == "url_and_form" and self.broken == "constructs-inputs-mixed":
                answers = {k: a for k, a in answers.items() if _mode(requests[k]) == "url"}
            if tool == "url_rounds" and number == 2 and history:
                if self.broken == "constructs-inputs":
                    answers = history[0][0]
                if self.broken == "request-state-echoed":
                    state = history[0][1]
            history.append((answers, state))
        return f"{tool}: still asking after {MAX_ROUNDS} rounds"

    def _closes_early(self, tool: str) -> str | None:
        if tool == "held_json" and self.broken in ("held-json", "held-both"):
            return "json"
        if tool == "held_sse" and self.broken in ("held-sse", "held-both"):
            return "sse"
        return None

    def run(self) -> int:
        self.request("server/discover", {})
        tools: list[str] = []
        cursor: str | None = None
        while True:
            listed = self.request("tools/list", {"cursor": cursor} if cursor else {})
            tools += [
                t["name"] for t in listed.get("tools", []) if isinstance(t, dict) and isinstance(t.get("name"), str)
            ]
            cursor = listed.get("nextCursor") if isinstance(listed.get("nextCursor"), str) else None
            if cursor is None:
                break
        with ThreadPoolExecutor(max_workers=max(len(tools), 1)) as pool:
            outcomes = list(pool.map(self._safe_run_tool, tools))
        for line in outcomes:
            print(line, flush=True)
        return 1 if any(": failed:" in line for line in outcomes) else 0

    def _safe_run_tool(self, tool: str) -> str:
        try:
            return self.run_tool(tool)
        except WireError as exc:
            return f"{tool}: failed: {exc}"


def _mode(request: Any) -> str:
    params = request.get("params") if isinstance(request, dict) else None
    mode = params.get("mode") if isinstance(params, dict) else None
    return mode if isinstance(mode, str) else "form"


def _lines(response: http.client.HTTPResponse, close_on_keepalive: bool) -> Iterator[bytes]:
    while line := response.readline():
        if close_on_keepalive and line.startswith(b":"):
            raise ClosedEarly("closed the SSE stream after its first keep-alive")
        yield line


def prefetch(url: str) -> None:
    """The deliberate mistake of `--break no-url-prefetch`: GET the URL before anyone consented."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        return
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=FETCH_TIMEOUT_S)
    try:
        conn.request("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
        conn.getresponse().read()
    except (OSError, http.client.HTTPException):
        pass
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--break", dest="broken", choices=sorted(BREAKS), help="make this one deliberate mistake")
    parser.add_argument("--modes", default="form,url", help="elicitation modes to declare (comma-separated)")
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    try:
        return ContractClient(args.url, modes, args.broken).run()
    except (WireError, RpcFailure) as exc:
        print(f"contract client: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
