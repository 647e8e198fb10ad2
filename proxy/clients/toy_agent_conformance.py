"""The toy agent's `conformance` command: a client that follows the official conformance suite's driver contract
(`MCP_CONFORMANCE_SCENARIO` says which scenario, the URL comes last), and one flaw per check it can break
(`--conformance-flaw NAME`, CONFORMANCE_FLAWS), for backchannel's `conformance` scenario.

It speaks 2026-07-28 only, on a wire of its own (stdlib http.client), so every header and id it sends is chosen here.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import HELP_WORDS, PROG, Build, UsageError
from backchannel.proxy.clients.toy_agent_headers import param_headers, problems

# each flaw and the check it breaks
CONFORMANCE_FLAWS: dict[str, str] = {
    "stale-state": "session-client-request-state-echoed",  # requestState parsed and re-serialised
    "same-id": "sep-2322-client-jsonrpc-id-different",  # a retry reuses its request's id
    "state-on-no-state": "sep-2322-client-no-state-omitted",  # the no-state retry carries the last state
    "leak-unrelated": "sep-2322-client-parallel-isolation",  # the unrelated call carries the pending round's fields
    "retry-no-result-type": "sep-2322-default-result-type-complete",  # no resultType read as input_required
    "no-version-retry": "sep-2575-client-retry-supported-version",  # gives up on -32022
    "no-routing-headers": "sep-2575-http-routing-headers-match-body",  # no Mcp-Method / Mcp-Name
    "no-param-headers": "sep-2243-client-supports-custom-headers",  # no Mcp-Param-* at all
    "skip-empty": "sep-2243-client-mirrors-designated-params",  # "" treated as absent
    "mirror-all": "sep-2243-client-mirrors-designated-params",  # unannotated parameters mirrored too
    "python-str": "sep-2243-client-encode-values",  # True/False
    "sanitise-unsafe": "sep-2243-client-base64-unsafe",  # unsafe characters replaced, not Base64-encoded
    "null-as-text": "sep-2243-client-omit-null",  # a null parameter sent as `null`
    "no-tool-validation": "sep-2243-x-mcp-header-*",  # calls tools whose x-mcp-header is invalid
    "reject-whole-list": "sep-2243-client-reject-invalid-tool",  # one invalid tool: every tool dropped
    "fetch-ref": "sep-2106-no-network-ref-deref",  # dereferences a schema's network $ref on its own
}
CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}}
CONFORMANCE_HELP = f"""usage: {PROG} conformance [--conformance-flaw NAME]... SERVER_URL

Act as the official conformance suite's client for the scenario MCP_CONFORMANCE_SCENARIO names (with
MCP_CONFORMANCE_CONTEXT where the suite gives one), against the MCP server at SERVER_URL (2026-07-28, Streamable HTTP).

options:
  --conformance-flaw NAME  Build in one flaw (repeatable). One of: {", ".join(CONFORMANCE_FLAWS)} (default: none)
  -h, --help               Show this help
"""


class Refused(Exception):
    """The server answered a JSON-RPC error."""

    def __init__(self, status: int, error: Mapping[str, Any]) -> None:
        super().__init__(f"HTTP {status}: {error.get('code')} {error.get('message')}")
        self.error = error


class Wire:
    """Raw 2026-07-28 requests: `_meta`, the version and routing headers, a new id each (unless told which)."""

    def __init__(self, url: str, flaws: frozenset[str]) -> None:
        self.url, self.flaws, self.version = url, flaws, wire.MODERN_VERSION
        self._ids = itertools.count(1)

    def call(
        self, method: str, params: dict[str, Any], *, rid: int | None = None, extra: Mapping[str, str] = {}
    ) -> Any:
        rid = next(self._ids) if rid is None else rid
        meta = {
            f"{wire.META}protocolVersion": self.version,
            f"{wire.META}clientInfo": {"name": wire.CLIENT_NAME, "version": wire.CLIENT_VERSION},
            f"{wire.META}clientCapabilities": CAPABILITIES,
        }
        body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": meta}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        headers["MCP-Protocol-Version"] = self.version
        if "no-routing-headers" not in self.flaws:
            headers["Mcp-Method"] = method
            named = params.get("name", params.get("uri"))
            if isinstance(named, str):
                headers["Mcp-Name"] = wire.header_value(named)
        status, answer = self._post(json.dumps(body, ensure_ascii=False).encode(), {**headers, **extra})
        if isinstance(answer.get("error"), dict):
            raise Refused(status, answer["error"])
        return answer.get("result")

    def _post(self, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        import http.client  # imported late, as in toy_agent_wire.py: most toy runs never post

        parts = urlsplit(self.url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=wire.TIMEOUT_S)
        try:
            conn.putrequest("POST", parts.path or "/")
            for name, value in headers.items():
                try:
                    conn.putheader(name, value)
                except ValueError:  # a header http.client will not send (an invalid name): left out
                    continue
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            response = conn.getresponse()
            if response.getheader("content-type", "").startswith("text/event-stream"):
                events = list(wire.sse_events(iter(response.readline, b"")))
                text = events[-1] if events else "{}"
            else:
                text = response.read().decode("utf-8", "replace")
            found = json.loads(text or "{}")
            return response.status, found if isinstance(found, dict) else {}
        finally:
            conn.close()


def _say(text: str) -> None:
    print(text, flush=True)


def _content(result: Any) -> str:
    content = result.get("content") if isinstance(result, dict) else None
    texts = [c.get("text", "") for c in content or [] if isinstance(c, dict)]
    return " ".join(str(t) for t in texts)


def request_state_run(net: Wire, flaws: frozenset[str]) -> None:
    """The suite's MRTR script: echo (an unrelated call before the retry), no state, no resultType."""
    net.call("tools/list", {})
    first_id = 1000
    asked = net.call("tools/call", {"name": "test_mrtr_echo_state", "arguments": {}}, rid=first_id)
    answers = {key: {"action": "accept", "content": {"confirmed": True}} for key in asked.get("inputRequests", {})}
    state = received = asked.get("requestState")
    if "stale-state" in flaws and isinstance(state, str):
        state = json.dumps(json.loads(state))  # parsed and written again: the bytes change
    leak = {"inputResponses": answers, "requestState": received} if "leak-unrelated" in flaws else {}
    _say(_content(net.call("tools/call", {"name": "test_mrtr_unrelated", "arguments": {}, **leak})))
    retry = {"name": "test_mrtr_echo_state", "arguments": {}, "inputResponses": answers, "requestState": state}
    _say(_content(net.call("tools/call", retry, rid=first_id if "same-id" in flaws else None)))
    asked = net.call("tools/call", {"name": "test_mrtr_no_state", "arguments": {}})
    answers = {key: {"action": "accept", "content": {"confirmed": True}} for key in asked.get("inputRequests", {})}
    again: dict[str, Any] = {"name": "test_mrtr_no_state", "arguments": {}, "inputResponses": answers}
    if "state-on-no-state" in flaws:
        again["requestState"] = state
    _say(_content(net.call("tools/call", again)))
    result = net.call("tools/call", {"name": "test_mrtr_no_result_type", "arguments": {}})
    if "resultType" not in result and "retry-no-result-type" in flaws:  # read as unfinished: asked again
        result = net.call("tools/call", {"name": "test_mrtr_no_result_type", "arguments": {}, "inputResponses": {}})
    _say(_content(result))


def request_metadata_run(net: Wire, flaws: frozenset[str]) -> None:
    """server/discover; refused -32022, again with a version the error lists; then the tools."""
    try:
        net.call("server/discover", {})
    except Refused as refused:
        data = refused.error.get("data")
        supported = data.get("supported") if isinstance(data, dict) else None
        if refused.error.get("code") != wire.UNSUPPORTED_PROTOCOL_VERSION or "no-version-retry" in flaws:
            raise
        listed = [v for v in supported or [] if v == wire.MODERN_VERSION]
        if not listed:
            raise
        net.version = listed[0]
        net.call("server/discover", {})
    _say(json.dumps(net.call("tools/list", {}).get("tools", [])))


def standard_headers_run(net: Wire, _flaws: frozenset[str]) -> None:
    for tool in net.call("tools/list", {}).get("tools", []):
        _say(_content(net.call("tools/call", {"name": tool["name"], "arguments": {}})))


def custom_headers_run(net: Wire, flaws: frozenset[str]) -> None:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    schemas = {t["name"]: t.get("inputSchema", {}) for t in net.call("tools/list", {}).get("tools", [])}
    for planned in context.get("toolCalls", []):
        arguments = planned.get("arguments", {})
        extra = param_headers(schemas.get(planned["name"], {}), arguments, flaws)
        _say(_content(net.call("tools/call", {"name": planned["name"], "arguments": arguments}, extra=extra)))


PLACEHOLDER = {"string": "us-west1", "integer": 1, "boolean": True, "number": 1.5, "object": {}, "array": []}


def invalid_tool_headers_run(net: Wire, flaws: frozenset[str]) -> None:
    tools = net.call("tools/list", {}).get("tools", [])
    invalid = {t["name"]: problems(t.get("inputSchema")) for t in tools}
    for name, why in invalid.items():
        if why:
            print(f"warning: tool {name!r} left out: {'; '.join(why)}", file=sys.stderr)
    if "reject-whole-list" in flaws and any(invalid.values()):
        _say("no usable tools")
        return
    for tool in tools:
        if invalid[tool["name"]] and "no-tool-validation" not in flaws:
            continue
        props = tool.get("inputSchema", {}).get("properties", {})
        arguments = {key: PLACEHOLDER.get(str(p.get("type")), None) for key, p in props.items()}
        extra = param_headers(tool.get("inputSchema", {}), arguments, flaws)
        try:
            _say(_content(net.call("tools/call", {"name": tool["name"], "arguments": arguments}, extra=extra)))
        except Refused as refused:  # one tool refused: the others are still called
            print(f"{tool['name']}: {refused}", file=sys.stderr)


def network_refs(schema: Any) -> list[str]:
    """Every `$ref` in `schema` that names a network URI (http or https)."""
    if isinstance(schema, Mapping):
        own = schema.get("$ref")
        found = [own] if isinstance(own, str) and own.startswith(("http://", "https://")) else []
        return found + [ref for value in schema.values() for ref in network_refs(value)]
    if isinstance(schema, list):
        return [ref for value in schema for ref in network_refs(value)]
    return []


def ref_no_deref_run(net: Wire, flaws: frozenset[str]) -> None:
    """List the tools (their network $refs left alone, or fetched by the flawed build) and call each with an id."""
    for tool in net.call("tools/list", {}).get("tools", []):
        for ref in network_refs(tool.get("inputSchema")):
            if "fetch-ref" in flaws:
                import urllib.request  # only this flaw fetches

                with urllib.request.urlopen(ref, timeout=wire.TIMEOUT_S) as fetched:  # noqa: S310 (the flaw itself)
                    fetched.read()
            else:
                print(f"warning: {tool['name']}: $ref {ref} not dereferenced (a network URI)", file=sys.stderr)
        _say(_content(net.call("tools/call", {"name": tool["name"], "arguments": {"id": "user-1"}})))


SCRIPTS = {
    "sep-2322-client-request-state": request_state_run,
    "request-metadata": request_metadata_run,
    "http-standard-headers": standard_headers_run,
    "http-custom-headers": custom_headers_run,
    "http-invalid-tool-headers": invalid_tool_headers_run,
    "json-schema-ref-no-deref": ref_no_deref_run,
}


def run_conformance(build: Build, args: list[str]) -> int:
    """`conformance [--conformance-flaw NAME]... SERVER_URL`: 0 when the scenario's script finished, 1 when refused."""
    del build  # the conformance client has flaws of its own; the global build options do not apply
    flaws: set[str] = set()
    rest = list(args)
    if any(a in HELP_WORDS for a in rest):
        print(CONFORMANCE_HELP, end="")
        return 0
    while rest and rest[0] == "--conformance-flaw":
        rest.pop(0)
        flaw = rest.pop(0) if rest else ""
        if flaw not in CONFORMANCE_FLAWS:
            raise UsageError(f"--conformance-flaw {flaw!r} is not one of: {', '.join(CONFORMANCE_FLAWS)}")
        flaws.add(flaw)
    if len(rest) != 1:
        raise UsageError(f"usage: {PROG} conformance [--conformance-flaw NAME]... SERVER_URL")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    script = SCRIPTS.get(scenario)
    if script is None:
        raise UsageError(f"MCP_CONFORMANCE_SCENARIO {scenario!r} is not one of: {', '.join(SCRIPTS)}")
    try:
        script(Wire(rest[0], frozenset(flaws)), frozenset(flaws))
    except (Refused, OSError, ValueError) as exc:
        print(f"{wire.CLIENT_NAME}: {scenario}: {exc}", file=sys.stderr)
        return 1
    return 0
