"""The run side of `elicitation-sep1036-url-mode`: backchannel plays the client, the server is under test.

One recording, one run per probe, in the order the seed fixes: discovery first (is this MCP, does it offer the
tools?), then the calls declaring both modes (accept, decline and cancel flows), then `elicitation: {}`, then
`{"form": {}}` (so a server that remembers an earlier request's capabilities is caught), then the reverse probe (a
URL-only client on the form tool). Every request goes through the proxy and waits at most `--request-timeout`;
a server that stops answering is not waited for again and again: after two timeouts in a row the rest is left out
and the recording says so. The oracle decides everything from the recording alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backchannel.proxy.clients.toy_agent_wire import form_content
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture, UpstreamDown
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.client import Outcome, ScriptedClient
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.endpoint import FORM_TOOL, TOOLS, URL_TOOL
from backchannel.recordings.shapes import Fact

SCENARIO = "elicitation-sep1036-url-mode"
DEFAULT_REQUEST_TIMEOUT_S = 5.0
MAX_TOOL_PAGES = 20  # tools/list pages followed before the listing counts as complete enough
MAX_TOOL_NAMES = 4000  # characters of tool names kept in the discovery run's facts
TIMEOUTS_BEFORE_GIVING_UP = 2
BOTH: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
DISCOVERY = "discovery"


@dataclass(frozen=True)
class Probe:
    """One flow: a tools/call declaring `capabilities`, then (with `answer`) one retry answering every request."""

    name: str
    tool: str
    capabilities: dict[str, Any]
    answer: str | None = None  # accept, decline or cancel


PROBES = (
    Probe("both-modes-accept", URL_TOOL, BOTH, "accept"),
    Probe("both-modes-decline", URL_TOOL, BOTH, "decline"),
    Probe("both-modes-cancel", URL_TOOL, BOTH, "cancel"),
    Probe("elicitation-empty", URL_TOOL, {"elicitation": {}}),
    Probe("form-only", URL_TOOL, {"elicitation": {"form": {}}}),
    Probe("url-only-form-tool", FORM_TOOL, {"elicitation": {"url": {}}}),
)


def answers_for(result: dict[str, Any], action: str) -> dict[str, Any]:
    """The inputResponses a user choosing `action` gives: a form accept carries content, a URL accept none."""
    requests = result.get("inputRequests")
    answers: dict[str, Any] = {}
    for key, request in requests.items() if isinstance(requests, dict) else ():
        params = request.get("params") if isinstance(request, dict) else None
        if not isinstance(request, dict) or request.get("method") != "elicitation/create":
            continue  # this client declared no sampling and no roots: nothing it could answer
        answer: dict[str, Any] = {"action": action}
        if action == "accept" and isinstance(params, dict) and params.get("mode", "form") == "form":
            answer["content"] = form_content(params.get("requestedSchema"))
        answers[key] = answer
    return answers


def _facts(prefix: str, outcome: Outcome) -> dict[str, Fact]:
    facts: dict[str, Fact] = {prefix: outcome.kind}
    if outcome.detail:
        facts[f"{prefix}_detail"] = outcome.detail[:500]
    return facts


class ServerProbe:
    def __init__(self, options: CheckOptions, progress: Progress) -> None:
        self.options = options
        self.progress = progress
        self.timeout = float(options.setting("request_timeout", DEFAULT_REQUEST_TIMEOUT_S))
        if not self.timeout > 0:
            raise CheckError("--request-timeout must be more than 0 seconds")
        self.timeouts_in_a_row = 0

    def run(self) -> Path:
        server = self.options.server
        endpoint = None if server else EndpointConfig(tools=TOOLS)
        try:
            with Capture(
                self.options.out,
                upstream=server,
                endpoint=endpoint,
                scenario=SCENARIO,
                redaction=self.options.redaction,
                limits=self.options.limits,
            ) as capture:
                self.progress(f"probing {server or 'the bundled conformant server'} as a 2026-07-28 client")
                tools = self._discover(capture)
                if tools is None or URL_TOOL not in tools:
                    return self.options.out
                for probe in PROBES:
                    if probe.tool not in tools:
                        continue  # the reverse probe without the form tool: the oracle says "not exercised"
                    if self.timeouts_in_a_row >= TIMEOUTS_BEFORE_GIVING_UP:
                        self._gave_up(capture, probe)
                        break
                    self._probe(capture, probe)
        except UpstreamDown:
            pass  # the finalised recording holds why (an upstream-unreachable anomaly): judged ERROR
        return self.options.out

    def _request(self, client: ScriptedClient, method: str, params: dict[str, Any]) -> Outcome:
        outcome = client.request(method, params)
        self.timeouts_in_a_row = self.timeouts_in_a_row + 1 if outcome.kind == "timeout" else 0
        return outcome

    def _discover(self, capture: Capture) -> set[str] | None:
        """server/discover and tools/list; the tool names, or None when the server gave no usable listing."""
        self.progress("discovery: server/discover, then tools/list")
        run = capture.new_run(DISCOVERY, {}, scenario=SCENARIO, facts={"request_timeout": self.timeout})
        client = ScriptedClient(run.url, BOTH, self.timeout)
        facts: dict[str, Fact] = _facts("discover", self._request(client, "server/discover", {}))
        names: list[str] = []
        cursor: str | None = None
        listing = Outcome("not-jsonrpc")
        for _ in range(MAX_TOOL_PAGES):
            listing = self._request(client, "tools/list", {"cursor": cursor} if cursor else {})
            if listing.kind != "result" or listing.result is None:
                break
            tools = listing.result.get("tools")
            names += (
                [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
                if isinstance(tools, list)
                else []
            )
            next_cursor = listing.result.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor or next_cursor == cursor:
                break
            cursor = next_cursor
        facts.update(_facts("tools_list", listing))
        facts["tools"] = json.dumps(sorted(set(names)))[:MAX_TOOL_NAMES]
        facts["request_timeout"] = self.timeout
        capture.add_facts(run, facts)
        capture.end_run(run, outcome="probed")
        if not names and listing.kind != "result":
            self.progress(f"tools/list: {listing.summary()}")
            return None
        missing = [tool for tool in (URL_TOOL, FORM_TOOL) if tool not in names]
        if missing:
            self.progress(f"the server does not list {' or '.join(missing)}")
        return set(names)

    def _probe(self, capture: Capture, probe: Probe) -> None:
        declared = json.dumps(probe.capabilities, separators=(",", ":"))
        self.progress(f"{probe.name}: {probe.tool} declaring {declared}")
        facts: dict[str, Fact] = {"probe": probe.name, "tool": probe.tool, "declared": declared}
        if probe.answer:
            facts["answer"] = probe.answer
        run = capture.new_run(probe.name, {}, scenario=SCENARIO, facts=facts)
        client = ScriptedClient(run.url, probe.capabilities, self.timeout)
        call = {"name": probe.tool, "arguments": {}}
        first = self._request(client, "tools/call", call)
        found = _facts("call", first)
        result = first.result or {}
        if probe.answer and first.kind == "result" and result.get("resultType") == "input_required":
            retry: dict[str, Any] = {**call, "inputResponses": answers_for(result, probe.answer)}
            if isinstance(result.get("requestState"), str):
                retry["requestState"] = result["requestState"]
            found.update(_facts("retry", self._request(client, "tools/call", retry)))
        capture.add_facts(run, found)
        capture.end_run(run, outcome="probed")

    def _gave_up(self, capture: Capture, probe: Probe) -> None:
        detail = (
            f"the server left {TIMEOUTS_BEFORE_GIVING_UP} requests in a row unanswered for {self.timeout:g} s each;"
            f" {probe.name} and the probes after it were not sent"
        )
        self.progress(detail)
        capture.note_anomaly("server-stopped-answering", detail)


def run(options: CheckOptions, progress: Progress) -> Path:
    """The scenario's runner: discovery, then every probe, into one recording."""
    if options.client or options.target:
        raise CheckError(
            f"--scenario {SCENARIO} tests a server: give --server URL (or nothing, for the bundled conformant"
            " server), not --client or --target"
        )
    return ServerProbe(options, progress).run()
