"""The sep-2322-client-request-state tools answer as the official suite's mock does."""

import json

from backchannel.proxy.endpoint.tools import ToolCall
from backchannel.proxy.scenarios.conformance import mrtr_tools


def call(name: str, *, responses=None, state=None, rid: object = 7) -> ToolCall:
    return ToolCall(name, {}, responses, state, "2026-07-28", "modern", {}, None, rid, {})


def test_echo_state_asks_with_a_compact_json_state_naming_the_asking_request():
    reply = mrtr_tools.echo_state(call("test_mrtr_echo_state"))
    assert reply.result is not None and reply.result["resultType"] == "input_required"
    assert reply.result["inputRequests"]["confirm"]["method"] == "elicitation/create"
    state = reply.result["requestState"]
    assert json.loads(state)["originalId"] == 7 and ", " not in state and ": " not in state


def test_a_call_with_input_responses_is_a_retry_and_completes():
    reply = mrtr_tools.echo_state(call("test_mrtr_echo_state", responses={}))
    assert reply.result == {"content": [{"type": "text", "text": "echo-state-ok"}]}


def test_no_state_asks_without_a_request_state():
    reply = mrtr_tools.no_state(call("test_mrtr_no_state"))
    assert reply.result is not None and "requestState" not in reply.result
    assert mrtr_tools.no_state(call("test_mrtr_no_state", responses={"confirm": {}})).result is not None


def test_the_no_result_type_tool_answers_complete_and_says_so_when_retried():
    first = mrtr_tools.no_result_type(call("test_mrtr_no_result_type")).result
    again = mrtr_tools.no_result_type(call("test_mrtr_no_result_type", responses={})).result
    assert first is not None and first["content"][0]["text"] == "no-result-type-test-ok"
    assert again is not None and again["content"][0]["text"] == "unexpected-retry"
    assert [t.name for t in mrtr_tools.MRTR_TOOLS] == [
        "test_mrtr_echo_state",
        "test_mrtr_no_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_result_type",
    ]
