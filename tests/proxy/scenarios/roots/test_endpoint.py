"""The roots scenario's tool and GET-stream hook: roots/list asked only of a client that declared roots (except in
the dedicated run's endpoint), and asked on the GET stream when it opens and after list_changed."""

from __future__ import annotations

from typing import Any

from backchannel.proxy.endpoint.tools import ListenEvent, ToolCall
from backchannel.proxy.scenarios.roots.endpoint import ASK, KEY, MISSING_CAPABILITY, list_roots, listen


def call(capabilities: dict[str, Any], era: str = "modern", **changes: Any) -> ToolCall:
    base: dict[str, Any] = {
        "name": "list_roots",
        "arguments": {},
        "input_responses": None,
        "request_state": None,
        "protocol_version": "2026-07-28" if era == "modern" else "2025-11-25",
        "era": era,
        "client_capabilities": capabilities,
        "progress_token": None,
        "request_id": 1,
        "headers": {},
    }
    return ToolCall(**{**base, **changes})


def test_a_client_that_declared_roots_is_asked_roots_list_with_a_state_of_the_tools_own():
    reply = list_roots(call({"roots": {}}))
    assert reply.result is not None and reply.result["resultType"] == "input_required"
    assert reply.result["inputRequests"] == {KEY: ASK}
    assert reply.result["requestState"].startswith("roots.list_roots.")


def test_the_retry_with_the_roots_completes_and_counts_them():
    state = list_roots(call({"roots": {}})).result["requestState"]  # type: ignore[index]
    answered = {KEY: {"roots": [{"uri": "file:///w"}, {"uri": "file:///w/a"}]}}
    reply = list_roots(call({"roots": {}}, input_responses=answered, request_state=state))
    assert reply.result == {"content": [{"type": "text", "text": "list_roots: the client gave 2 root(s)"}],
                            "isError": False}  # fmt: skip
    refused = list_roots(call({}, input_responses={KEY: {"error": {"code": -32601}}}, request_state=state))
    assert refused.result is not None and refused.result["isError"] is True


def test_a_client_without_roots_is_refused_in_each_era_unless_the_run_asks_out_of_turn():
    modern = list_roots(call({}))
    assert (modern.error or {}).get("code") == MISSING_CAPABILITY and modern.http_status == 400
    legacy = list_roots(call({}, era="legacy"))
    assert legacy.result is not None and legacy.result["isError"] is True
    asked = list_roots(call({}, params={"ask_undeclared": "1"}))
    assert asked.result is not None and asked.result["inputRequests"] == {KEY: ASK}


def test_the_get_stream_asks_when_it_opens_and_after_list_changed_only_a_client_with_roots():
    def event(trigger: str, capabilities: dict[str, Any]) -> ListenEvent:
        return ListenEvent(trigger, "2025-11-25", capabilities)

    assert listen(event("opened", {"roots": {"listChanged": True}})) == [ASK]
    assert listen(event("notifications/roots/list_changed", {"roots": {}})) == [ASK]
    assert listen(event("notifications/initialized", {"roots": {}})) == []
    assert listen(event("opened", {})) == []
