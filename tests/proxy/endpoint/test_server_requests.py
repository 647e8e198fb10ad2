"""A tool that asks for input, called in a 2025 session: its requests go out as server-initiated requests on the
call's SSE stream, the client's POSTed answers reach the tool as its inputResponses, and the call completes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.server_requests import MAX_ROUNDS, answer_of, is_response, meant_in, server_request
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSpec

CONFIRM = {
    "method": "elicitation/create",
    "params": {"mode": "form", "message": "Confirm? nonce-1", "requestedSchema": {"type": "object"}},
}
SAMPLE = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 8}}
ROOTS = {"method": "roots/list", "params": {}}
SEEN: list[ToolCall] = []


def asking(call: ToolCall) -> ToolReply:
    SEEN.append(call)
    if call.request_state == "st-1" and call.input_responses:
        text = json.dumps(call.input_responses, sort_keys=True)
        return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": False})
    requests = {"confirm": CONFIRM, "sample": SAMPLE, "roots": ROOTS}
    return ToolReply(result={"resultType": "input_required", "inputRequests": requests, "requestState": "st-1"})


def forever(call: ToolCall) -> ToolReply:
    return ToolReply(result={"resultType": "input_required", "inputRequests": {"again": CONFIRM}, "requestState": "x"})


TOOLS = (
    ToolSpec("asking", "asks three kinds", {"type": "object"}, asking),
    ToolSpec("forever", "never done", {"type": "object"}, forever),
)


def rpc(method: str, params: dict[str, Any], request_id: object = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


@pytest.fixture
def url() -> Iterator[str]:
    with start_endpoint(EndpointConfig(tools=TOOLS, answer_timeout_s=3)) as running:
        yield running.url


def open_session(http: httpx.Client, url: str, version: str) -> dict[str, str]:
    response = http.post(url, json=rpc("initialize", {"protocolVersion": version, "capabilities": {}}))
    return {"mcp-session-id": response.headers["mcp-session-id"], "mcp-protocol-version": version}


def events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.startswith("data:"):
            yield json.loads(line[5:])


def call_answering(http: httpx.Client, url: str, session: dict[str, str], tool: str, answer: Any) -> list[Any]:
    """Call `tool`, answer every server request on its stream with `answer(request)`; every message it streamed."""
    seen: list[Any] = []
    headers = {**session, "accept": "application/json, text/event-stream"}
    with http.stream("POST", url, json=rpc("tools/call", {"name": tool}, 7), headers=headers) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for message in events(response.iter_lines()):
            seen.append(message)
            if "method" in message:
                posted = http.post(
                    url, json={"jsonrpc": "2.0", "id": message["id"], **answer(message)}, headers=session
                )
                assert posted.status_code == 202
    return seen


def test_each_input_request_goes_out_as_a_request_and_the_answers_reach_the_tool_as_its_input_responses(url):
    SEEN.clear()
    with httpx.Client(timeout=10) as http:
        session = open_session(http, url, "2025-11-25")
        seen = call_answering(http, url, session, "asking", lambda m: {"result": {"answered": m["method"]}})
    methods = [m.get("method") for m in seen[:-1]]
    assert methods == ["elicitation/create", "sampling/createMessage", "roots/list"]
    assert seen[0]["params"]["message"] == "Confirm? nonce-1"  # the tool's own text, unchanged
    final = seen[-1]
    assert final["id"] == 7 and "resultType" not in final["result"]
    answers = json.loads(final["result"]["content"][0]["text"])
    assert answers == {
        "confirm": {"answered": "elicitation/create"},
        "sample": {"answered": "sampling/createMessage"},
        "roots": {"answered": "roots/list"},
    }
    assert [c.request_state for c in SEEN] == [None, "st-1"]


def test_an_unanswered_request_ends_the_call_with_a_tool_error_that_names_it(url):
    with httpx.Client(timeout=10) as http:
        session = open_session(http, url, "2025-06-18")
        headers = {**session, "accept": "application/json, text/event-stream"}
        with http.stream("POST", url, json=rpc("tools/call", {"name": "asking"}), headers=headers) as response:
            seen = list(events(response.iter_lines()))
    final = seen[-1]["result"]
    assert final["isError"] is True
    assert "did not answer elicitation/create bckch-ask-1" in final["content"][0]["text"]


def test_a_tool_that_keeps_asking_is_stopped_after_the_round_limit(url):
    with httpx.Client(timeout=10) as http:
        session = open_session(http, url, "2025-11-25")
        seen = call_answering(http, url, session, "forever", lambda m: {"result": {"action": "accept"}})
    assert sum("method" in m for m in seen) == MAX_ROUNDS
    assert f"after {MAX_ROUNDS} rounds" in seen[-1]["result"]["content"][0]["text"]


def test_an_answer_no_request_awaits_is_refused_with_400(url):
    with httpx.Client(timeout=10) as http:
        session = open_session(http, url, "2025-11-25")
        stray = http.post(url, json={"jsonrpc": "2.0", "id": "bckch-ask-99", "result": {}}, headers=session)
    assert stray.status_code == 400


def test_a_url_elicitation_gains_the_elicitation_id_only_from_2025_11_25_on():
    url_request = {"method": "elicitation/create", "params": {"mode": "url", "url": "https://x.test", "message": "m"}}
    assert "elicitationId" in server_request("a", url_request, "2025-11-25")["params"]
    assert "elicitationId" not in server_request("a", url_request, "2025-06-18")["params"]
    assert "elicitationId" not in server_request("a", CONFIRM, "2025-11-25")["params"]


def test_an_error_answer_reaches_the_tool_as_an_error_entry():
    assert answer_of({"id": 1, "error": {"code": -1, "message": "User rejected"}}) == {
        "error": {"code": -1, "message": "User rejected"}
    }
    assert is_response({"jsonrpc": "2.0", "id": 1, "result": {}})
    assert not is_response({"jsonrpc": "2.0", "id": 1, "method": "ping"})


@pytest.mark.parametrize("era", ["2025-11-25", "2025-06-18"])
def test_a_forced_2025_era_answers_initialize_with_that_version_and_refuses_modern_requests(era):
    with start_endpoint(EndpointConfig(tools=TOOLS, era=era)) as running, httpx.Client(timeout=5) as http:
        answered = http.post(running.url, json=rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}))
        modern = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
        discover = http.post(running.url, json=rpc("server/discover", modern))
    assert answered.json()["result"]["protocolVersion"] == era
    assert discover.status_code == 400


def test_a_forced_2026_era_refuses_initialize():
    with start_endpoint(EndpointConfig(tools=TOOLS, era="2026-07-28")) as running, httpx.Client(timeout=5) as http:
        answered = http.post(running.url, json=rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}))
    assert answered.status_code == 400 and "2026-07-28" in answered.json()["error"]["message"]


def test_an_unknown_era_is_refused_with_the_ones_there_are():
    with pytest.raises(ValueError, match="2025-06-18"):
        EndpointConfig(tools=(), era="2024-11-05")


def test_concurrent_calls_in_one_session_get_requests_of_distinct_ids(url):
    from concurrent.futures import ThreadPoolExecutor

    with httpx.Client(timeout=10) as http:
        session = open_session(http, url, "2025-11-25")
        with ThreadPoolExecutor(2) as pool:
            runs = list(
                pool.map(lambda _: call_answering(http, url, session, "asking", lambda m: {"result": {}}), range(2))
            )
    ids = [m["id"] for seen in runs for m in seen if "method" in m]
    assert len(ids) == 6 and len(set(ids)) == 6
    assert all(seen[-1]["result"]["isError"] is False for seen in runs)


def test_before_2025_11_25_an_elicitation_declaration_means_form_only_so_no_url_request_is_sent():
    declared = {"elicitation": {"form": {}, "url": {}}, "sampling": {}}  # a 2025-11-25 client that agreed 2025-06-18
    assert meant_in("2025-06-18", declared) == {"elicitation": {}, "sampling": {}}
    assert meant_in("2025-11-25", declared) == declared
    assert meant_in("2025-06-18", {"sampling": {}}) == {"sampling": {}}  # nothing declared is nothing added


COMPLETE = {"method": "notifications/elicitation/complete", "params": {"elicitationId": "e-1"}}


def notifying(call: ToolCall) -> ToolReply:
    if call.input_responses:
        return ToolReply(result={"content": [], "isError": False}, notifications=(COMPLETE,))
    link = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x.example/"}}
    return ToolReply(result={"resultType": "input_required", "inputRequests": {"link": link}, "requestState": "s"})


def test_a_replys_notifications_go_out_on_the_calls_stream_before_the_calls_answer():
    tools = (ToolSpec("notifying", "notifies after the answer", {"type": "object"}, notifying),)
    with start_endpoint(EndpointConfig(tools=tools, answer_timeout_s=3)) as running, httpx.Client(timeout=10) as http:
        session = open_session(http, running.url, "2025-11-25")
        seen: list[Any] = []
        headers = {**session, "accept": "application/json, text/event-stream"}
        body = rpc("tools/call", {"name": "notifying"}, 7)
        with http.stream("POST", running.url, json=body, headers=headers) as response:
            for message in events(response.iter_lines()):
                seen.append(message)
                if "method" in message and "id" in message:
                    answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"action": "accept"}}
                    assert http.post(running.url, json=answer, headers=session).status_code == 202
    assert [m.get("method") for m in seen] == ["elicitation/create", COMPLETE["method"], None]
    assert seen[1] == {"jsonrpc": "2.0", **COMPLETE}
    assert seen[2]["id"] == 7 and seen[2]["result"]["isError"] is False
