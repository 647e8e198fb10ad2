"""The sdk-regressions tools: a DECLINE: form then another, a loop the endpoint itself ends, a request in the mode
the client did not declare; every value minted with the recording's nonce."""

from __future__ import annotations

from typing import Any

from backchannel.oracle.scenarios.sdk_regressions.facts import (
    DECLINE_PREFIX,
    DECLINE_TOOL,
    DECLINE_URL_TOOL,
    LOOP_ROUNDS,
    LOOP_TOOL,
    MODE_TOOL,
)
from backchannel.proxy.endpoint.tools import ToolCall
from backchannel.proxy.scenarios.sdk_regressions.endpoint import (
    KEY,
    TOOLS,
    ask_other_mode,
    decline_then_accept,
    decline_url_then_accept,
    keep_asking,
)

FORM = {"elicitation": {"form": {}}}


def call(capabilities: dict[str, Any], era: str = "modern", **changes: Any) -> ToolCall:
    base: dict[str, Any] = {
        "name": "t",
        "arguments": {},
        "input_responses": None,
        "request_state": None,
        "protocol_version": "2026-07-28" if era == "modern" else "2025-11-25",
        "era": era,
        "client_capabilities": capabilities,
        "progress_token": None,
        "request_id": 1,
        "headers": {},
        "nonce": f"nonce-{id(changes)}",
    }
    return ToolCall(**{**base, **changes})


def asked(reply: Any) -> tuple[dict[str, Any], str]:
    assert reply.result["resultType"] == "input_required"
    return reply.result["inputRequests"][KEY]["params"], reply.result["requestState"]


def test_the_tools_are_the_oracles_in_order():
    assert [tool.name for tool in TOOLS] == [DECLINE_TOOL, DECLINE_URL_TOOL, LOOP_TOOL, MODE_TOOL]


def test_a_decline_form_then_another_schema_each_value_minted_with_the_nonce():
    first, state = asked(decline_then_accept(call(FORM, nonce="N0")))
    assert first["message"].startswith(DECLINE_PREFIX) and "mode" not in first
    assert set(first["requestedSchema"]["properties"]) == {"declined_field", "shared_note"}
    second, state = asked(decline_then_accept(call(FORM, nonce="N0", request_state=state)))
    assert set(second["requestedSchema"]["properties"]) == {"accepted_field", "shared_note"}
    values = [p["enum"][0] for p in (*first["requestedSchema"]["properties"].values(),
                                     *second["requestedSchema"]["properties"].values())]  # fmt: skip
    assert all("N0" in v for v in values) and len(set(values)) == 4
    done = decline_then_accept(call(FORM, request_state=state, input_responses={KEY: {"action": "accept"}}))
    assert done.result is not None and done.result["content"][0]["text"].endswith("answered 'accept'")


def test_the_url_decline_is_asked_only_of_a_client_that_declared_url_mode():
    assert decline_url_then_accept(call(FORM)).result["isError"] is False  # type: ignore[index]
    first, state = asked(decline_url_then_accept(call({"elicitation": {"form": {}, "url": {}}}, nonce="N1")))
    assert first["mode"] == "url" and first["message"].startswith(DECLINE_PREFIX) and "N1" in first["url"]


def test_the_loop_asks_anew_each_round_and_the_endpoint_ends_it_after_its_bound():
    state, seen = None, set()
    for _ in range(LOOP_ROUNDS):
        params, state = asked(keep_asking(call(FORM, nonce="loop", request_state=state)))
        seen.add((params["message"], state))
    assert len(seen) == LOOP_ROUNDS
    ended = keep_asking(call(FORM, nonce="loop", request_state=state))
    assert ended.result is not None and ended.result["isError"] is True
    assert f"after {LOOP_ROUNDS} answered rounds" in ended.result["content"][0]["text"]


def test_a_loop_whose_client_drops_the_state_is_still_ended():
    replies = [keep_asking(call(FORM, nonce="stateless")) for _ in range(LOOP_ROUNDS * 3 + 1)]
    assert replies[-1].result is not None and replies[-1].result["isError"] is True


def test_the_other_mode_is_the_one_the_client_did_not_declare():
    params, _ = asked(ask_other_mode(call({"elicitation": {}})))
    assert params["mode"] == "url" and params["url"].startswith("https://example.com/")
    params, _ = asked(ask_other_mode(call({"elicitation": {"url": {}}})))
    assert params["mode"] == "form"
    for capabilities in ({"elicitation": {"form": {}, "url": {}}}, {}):
        assert ask_other_mode(call(capabilities)).result["isError"] is False  # type: ignore[index]
    assert "2026-07-28 only" in ask_other_mode(call(FORM, era="legacy")).result["content"][0]["text"]  # type: ignore[index]
