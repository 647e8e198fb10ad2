"""endpoint_2025.py: what the elicitation-url-mode tools answer in a 2025 era (pure: ToolCall in, ToolReply out)."""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any, Literal

from backchannel.proxy.endpoint.tools import ToolCall
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint import TOOLS, url_rounds
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint_2025 import (
    COMPLETE,
    UNKNOWN_ID,
    URL_ELICITATION_REQUIRED,
    url_required,
)

BOTH = {"elicitation": {"form": {}, "url": {}}}


def call(name: str, version: str = "2025-11-25", caps: dict[str, Any] | None = None, **extra: Any) -> ToolCall:
    era: Literal["modern", "legacy"] = "modern" if version == "2026-07-28" else "legacy"
    return ToolCall(
        name=name, arguments={}, input_responses=None, request_state=None, protocol_version=version, era=era,
        client_capabilities=BOTH if caps is None else caps, progress_token=None, request_id=1,
        headers={"mcp-session-id": secrets.token_hex(8)}, params={"url_declined_base": "http://127.0.0.1:5"},
        **extra,
    )  # fmt: skip


def handler(name: str):
    return next(tool.handler for tool in TOOLS if tool.name == name)


def text(reply) -> str:
    return reply.result["content"][0]["text"]


def test_2025_06_18_has_no_url_mode_a_url_tool_answers_a_tool_error_and_a_form_tool_still_asks():
    refused = handler("url_rounds")(call("url_rounds", "2025-06-18"))
    assert refused.result["isError"] is True and "which 2025-06-18 does not have" in text(refused)
    asked = handler("form_only")(call("form_only", "2025-06-18"))
    assert asked.result["resultType"] == "input_required"


def test_a_mode_the_initialize_did_not_declare_is_a_tool_error_not_minus_32021():
    reply = handler("url_and_form")(call("url_and_form", caps={"elicitation": {}}))
    assert reply.error is None and reply.result["isError"] is True
    assert "elicitation.url" in text(reply)


def test_held_tools_answer_at_once_in_2025():
    reply = handler("held_sse")(call("held_sse"))
    assert reply.hold_ms == 0 and reply.result["isError"] is False and "no retry to hold" in text(reply)


def test_2025_11_25_url_requests_carry_an_id_and_an_accept_brings_its_completion_after_an_unknown_one():
    first = url_rounds(call("url_rounds"))
    state = first.result["requestState"]
    request = first.result["inputRequests"]["url_1"]
    assert request["params"]["elicitationId"] == f"{state}.url_1"
    assert first.notifications == ()
    answered = replace(call("url_rounds"), request_state=state, input_responses={"url_1": {"action": "accept"}})
    second = url_rounds(answered)
    assert [n["params"]["elicitationId"] for n in second.notifications] == [UNKNOWN_ID, f"{state}.url_1"]
    assert {n["method"] for n in second.notifications} == {COMPLETE}
    declined = replace(answered, input_responses={"url_1": {"action": "decline"}})
    assert url_rounds(declined).notifications == ()


def test_2026_07_28_requests_carry_no_elicitation_id_and_no_completion():
    modern = call("url_rounds", "2026-07-28")
    first = url_rounds(modern)
    assert "elicitationId" not in first.result["inputRequests"]["url_1"]["params"]
    answered = replace(
        modern, request_state=first.result["requestState"], input_responses={"url_1": {"action": "accept"}}
    )
    assert url_rounds(answered).notifications == ()


def test_url_required_answers_minus_32042_once_per_session_then_the_result():
    first_call = call("url_required")
    error = url_required(first_call).error
    assert error is not None and error["code"] == URL_ELICITATION_REQUIRED
    [elicitation] = error["data"]["elicitations"]
    assert elicitation["mode"] == "url" and elicitation["url"] == "http://127.0.0.1:5/link/required"
    assert elicitation["elicitationId"].startswith("bckch-required-")
    assert url_required(first_call).result["isError"] is False  # the same session retries: the step is done


def test_url_required_asks_nothing_in_2026_which_removed_the_error():
    reply = url_required(call("url_required", "2026-07-28"))
    assert reply.error is None and "2026-07-28 removed it" in text(reply)
