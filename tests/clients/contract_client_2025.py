"""A stdlib-only 2025 MCP client that follows the elicitation-url-mode contract in a 2025 era, or breaks it once.

    python tests/clients/contract_client_2025.py URL [--version 2025-11-25|2025-06-18] [--break NAME]

It opens a session with `initialize` (declaring elicitation {form, url}), lists the tools and calls every one, each
in its own thread. Every `elicitation/create` the server sends on a call's stream is answered anew with a POST: a
URL-mode request is declined when its message starts with `DECLINE:` and accepted with no content otherwise; a
form-mode request (or one with no mode) is accepted with `{"confirmed": true}`. Notifications on the stream are
printed and otherwise ignored. A call answered -32042 has each URL it names printed (never opened) and is retried
once. No URL is ever fetched. `--break NAME` makes exactly one deliberate mistake (see BREAKS).
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

from backchannel.proxy.clients.toy_agent_wire import RpcFailure, WireError, sse_events

CLIENT_NAME = "backchannel-contract-client-2025"
CLIENT_VERSION = "0.1.0"
TIMEOUT_S = 30.0
FETCH_TIMEOUT_S = 5.0
URL_ELICITATION_REQUIRED = -32042
FORM_ANSWER = {"action": "accept", "content": {"confirmed": True}}

BREAKS = {
    "supports-declared-mode": "declare elicitation {'foo': {}} in initialize",
    "constructs-inputs": "answer a URL request whose url was asked before with the earlier answer (no new ask)",
    "constructs-inputs-mixed": "on url_and_form, accept the form request with no content",
    "missing-mode-is-form": "treat a request that carries a url field as URL mode",
    "no-url-prefetch": "GET every URL a URL-mode request or a -32042 error offers",
    "wire-schema-valid": "send clientInfo without its required version",
    "url-required-shown": "print only the -32042's code, never the URLs it names",
    "url-required-retried": "give up on a call answered -32042 (no retry)",
}


class Client2025:
    def __init__(self, url: str, version: str, broken: str | None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// URL")
        self.host, self.port = parts.hostname, parts.port or 80
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.version = version
        self.broken = broken
        self.session = ""
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._asked: dict[str, dict[str, Any]] = {}  # url -> the first answer given to it (the constructs break)

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def post(self, message: dict[str, Any]) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
        try:
            conn.request("POST", self.path, body=json.dumps(message).encode(), headers=self._headers())
            return conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise WireError(f"{message.get('method', 'answer')}: {exc or type(exc).__name__}") from exc

    def request(self, method: str, params: dict[str, Any], tool: str = "") -> dict[str, Any]:
        """One request; its result. Server requests on its stream are answered, notifications printed.

        Raises:
            RpcFailure: a JSON-RPC error answered it.
            WireError: anything else.
        """
        request_id = self._next_id()
        response = self.post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            if method == "initialize":
                self.session = response.getheader("Mcp-Session-Id") or ""
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            if kind == "text/event-stream":
                bodies = sse_events(_lines(response))
            else:
                bodies = iter([response.read().decode("utf-8", errors="replace")])
            for body in bodies:
                message = json.loads(body)
                if not isinstance(message, dict):
                    continue
                if "method" in message and "id" in message:
                    self.answer_request(tool, message)
                elif "method" in message:
                    print(f"{tool}: notification {message['method']} {json.dumps(message.get('params'))}", flush=True)
                elif message.get("id") == request_id:
                    if "error" in message:
                        error = message["error"]
                        raise RpcFailure(error if isinstance(error, dict) else {"message": str(error)})
                    result = message.get("result")
                    return result if isinstance(result, dict) else {}
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise WireError(f"{method}: {exc or type(exc).__name__}") from exc
        finally:
            response.close()
        raise WireError(f"{method}: HTTP {response.status} carried no response to id {request_id}")

    def answer_request(self, tool: str, request: dict[str, Any]) -> None:
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        answer = self.answer(tool, params) if request.get("method") == "elicitation/create" else None
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request.get("id")}
        if answer is None:
            reply["error"] = {"code": -32601, "message": f"Method not found: {request.get('method')}"}
        else:
            reply["result"] = answer
        self.post(reply).close()

    def answer(self, tool: str, params: dict[str, Any]) -> dict[str, Any]:
        """This client's user's answer to one elicitation, asked afresh every time (unless broken)."""
        mode = params.get("mode")
        url = params.get("url")
        if self.broken == "missing-mode-is-form" and mode is None and "url" in params:
            mode = "url"
        if mode != "url":
            if tool == "url_and_form" and self.broken == "constructs-inputs-mixed":
                return {"action": "accept"}
            return dict(FORM_ANSWER)
        print(f"{tool}: url (shown, not opened): {url}", flush=True)
        if self.broken == "no-url-prefetch" and isinstance(url, str):
            prefetch(url)
        if self.broken == "constructs-inputs" and isinstance(url, str) and url in self._asked:
            return dict(self._asked[url])
        message = params.get("message")
        answer = {"action": "decline" if isinstance(message, str) and message.startswith("DECLINE:") else "accept"}
        if isinstance(url, str):
            self._asked.setdefault(url, answer)
        return answer

    def run_tool(self, tool: str) -> str:
        params = {"name": tool, "arguments": {}}
        try:
            result = self.request("tools/call", params, tool)
        except RpcFailure as exc:
            if exc.code != URL_ELICITATION_REQUIRED:
                return f"{tool}: error {exc.code} {exc.message}"
            data = exc.data if isinstance(exc.data, dict) else {}
            required = [e for e in data.get("elicitations", []) if isinstance(e, dict)]
            for each in required:
                if self.broken != "url-required-shown":
                    print(f"{tool}: {each.get('message')}\n  url (shown, not opened): {each.get('url')}", flush=True)
                if self.broken == "no-url-prefetch" and isinstance(each.get("url"), str):
                    prefetch(each["url"])
            print(f"{tool}: error -32042 ({len(required)} URL elicitation(s) required)", flush=True)
            if self.broken == "url-required-retried":
                return f"{tool}: gave up after -32042"
            try:
                result = self.request("tools/call", params, tool)
            except RpcFailure as again:
                return f"{tool}: retry answered error {again.code} {again.message}"
        return f"{tool}: complete, isError={result.get('isError')}"

    def run(self) -> int:
        info = {"name": CLIENT_NAME, "version": CLIENT_VERSION}
        if self.broken == "wire-schema-valid":
            del info["version"]
        elicitation: dict[str, Any] = (
            {"foo": {}} if self.broken == "supports-declared-mode" else {"form": {}, "url": {}}
        )
        init = {"protocolVersion": self.version, "capabilities": {"elicitation": elicitation}, "clientInfo": info}
        agreed = self.request("initialize", init).get("protocolVersion")
        if isinstance(agreed, str):
            self.version = agreed
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).close()
        listed = self.request("tools/list", {})
        tools = [t["name"] for t in listed.get("tools", []) if isinstance(t, dict) and isinstance(t.get("name"), str)]
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


def _lines(response: http.client.HTTPResponse) -> Iterator[bytes]:
    while line := response.readline():
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
    parser.add_argument("--version", default="2025-11-25", help="the protocol version initialize asks for")
    parser.add_argument("--break", dest="broken", choices=sorted(BREAKS), help="make this one deliberate mistake")
    args = parser.parse_args(argv)
    try:
        return Client2025(args.url, args.version, args.broken).run()
    except (WireError, RpcFailure) as exc:
        print(f"contract client 2025: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
