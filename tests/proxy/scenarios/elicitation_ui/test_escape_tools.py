"""The escape probe's two tools, called directly: the form request, its retry, the result, and the mode gate."""

from __future__ import annotations

from typing import Any, Literal

from backchannel.oracle.scenarios.elicitation_ui.escapes import payload
from backchannel.proxy.endpoint.tools import ToolCall, ToolReply
from backchannel.proxy.scenarios.elicitation_ui.escape_tools import ESCAPE_TOOLS, get_notice, show_notice

NONCE = "0123abcd4567ef89"
FORM = {"elicitation": {"form": {}}}


def _call(
    name: str,
    capabilities: dict[str, Any] | None = None,
    *,
    state: str | None = None,
    responses: dict[str, Any] | None = None,
    era: Literal["modern", "legacy"] = "modern",
) -> ToolCall:
    return ToolCall(
        name=name, arguments={}, input_responses=responses, request_state=state,
        protocol_version="2026-07-28" if era == "modern" else "2025-11-25", era=era,
        client_capabilities=FORM if capabilities is None else capabilities, progress_token=None, request_id=1,
        headers={}, nonce=NONCE,
    )  # fmt: skip


def _result(reply: ToolReply) -> dict[str, Any]:
    assert reply.error is None and reply.result is not None and reply.http_status == 200
    return reply.result


def test_the_two_tools_are_listed_under_the_names_the_oracle_reads():
    assert [t.name for t in ESCAPE_TOOLS] == ["show_notice", "get_notice"]
    assert all(t.listing()["inputSchema"] == {"type": "object", "properties": {}} for t in ESCAPE_TOOLS)
    assert all(t.description for t in ESCAPE_TOOLS)


def test_show_notice_asks_one_form_request_whose_message_is_the_payload():
    result = _result(show_notice(_call("show_notice")))
    assert result["resultType"] == "input_required" and result["requestState"].startswith("esc.show_notice.")
    ((key, request),) = result["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    params = request["params"]
    assert (params["mode"], params["message"]) == ("form", payload(NONCE))
    assert params["requestedSchema"] == {
        "type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"],
    }  # fmt: skip
    assert "\x1b[1A\x1b[2K" in params["message"] and NONCE in params["message"]


def test_show_notice_completes_on_the_retry_that_answers_its_key():
    first = _result(show_notice(_call("show_notice")))
    (key,) = first["inputRequests"]
    answer = {key: {"action": "accept", "content": {"confirmed": True}}}
    done = _result(show_notice(_call("show_notice", state=first["requestState"], responses=answer)))
    assert done == {"content": [{"type": "text", "text": "show_notice: accept"}], "isError": False}
    assert "resultType" not in done  # the endpoint adds "complete" on the modern era


def test_show_notice_asks_again_when_the_retry_has_no_answer_or_a_foreign_state():
    first = _result(show_notice(_call("show_notice")))
    again = _result(show_notice(_call("show_notice", state=first["requestState"], responses={})))
    assert again["resultType"] == "input_required"
    answer = {"notice": {"action": "decline"}}
    foreign = _result(show_notice(_call("show_notice", state="ui.confirm_change.abc", responses=answer)))
    assert foreign["resultType"] == "input_required"


def test_show_notice_refuses_a_client_without_form_mode_with_minus_32021_and_http_400():
    for capabilities in ({}, {"elicitation": {"url": {}}}):
        reply = show_notice(_call("show_notice", capabilities))
        assert reply.http_status == 400 and reply.result is None and reply.error is not None
        assert reply.error["code"] == -32021
        assert reply.error["data"] == {"requiredCapabilities": {"elicitation": {"form": {}}}}


def test_show_notice_takes_an_empty_elicitation_object_as_form_mode():
    assert _result(show_notice(_call("show_notice", {"elicitation": {}})))["resultType"] == "input_required"


def test_show_notice_on_the_legacy_era_is_an_error_result_not_an_input_request():
    result = _result(show_notice(_call("show_notice", era="legacy")))
    assert result["isError"] is True and "2026-07-28" in result["content"][0]["text"]


def test_get_notice_answers_at_once_with_the_payload_as_its_text_in_either_era_and_without_capabilities():
    for era in ("modern", "legacy"):
        result = _result(get_notice(_call("get_notice", {}, era=era)))  # type: ignore[arg-type]
        assert result == {"content": [{"type": "text", "text": payload(NONCE)}], "isError": False}


def test_the_listed_handlers_are_the_tools():
    handlers = {t.name: t.handler for t in ESCAPE_TOOLS}
    asked = handlers["show_notice"](_call("show_notice"))
    assert isinstance(asked, ToolReply) and _result(asked)["resultType"] == "input_required"
    got = handlers["get_notice"](_call("get_notice"))
    assert isinstance(got, ToolReply) and _result(got)["content"][0]["text"] == payload(NONCE)
