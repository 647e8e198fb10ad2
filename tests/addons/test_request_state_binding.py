"""A requestState is bound to the call it was minted for; a valid retry goes upstream as that call, an invalid one
gets -32602 under the endpoint's HTTP status rules."""

from __future__ import annotations

from typing import Any

import pytest

from backchannel.addons import request_state
from backchannel.addons.transforms import error_status
from tests.addons.conftest import CALL, CALLS, FORM_REQUEST, RESULT, Rig, wire

PLAN = {"mutations": [{"match": CALLS, "kind": "inject-input-requests", "times": 1, "inputRequests": FORM_REQUEST}]}
RESPONSES = {"confirm": {"action": "accept", "content": {"confirmed": True}}}


def call(request_id: int, **params: Any) -> dict[str, Any]:
    return {**CALL, "id": request_id, "params": {**CALL["params"], **params}}


def minted(rig: Rig, run_id: str, first: dict[str, Any] | None = None) -> str:
    flow = rig.exchange(run_id, first or call(1), {**RESULT, "id": (first or call(1))["id"]})
    assert flow.response is not None
    state: str = flow.response.json()["result"]["requestState"]
    return state


def rejected(flow: Any, status: int = 400) -> str:
    assert flow.response is not None and flow.response.status_code == status
    error = flow.response.json()["error"]
    assert error["code"] == -32602
    return str(error["message"])


def test_a_state_minted_for_one_tool_is_rejected_on_a_retry_of_another_tool(rig: Rig):
    run_id = rig.runs.add(PLAN)
    state = minted(rig, run_id)
    flow = rig.exchange(run_id, call(2, name="delete_repo", inputResponses=RESPONSES, requestState=state), RESULT)
    assert "minted for another call (tool 'get_repo_status'" in rejected(flow)
    [_, exchange] = rig.recording().exchanges
    assert not exchange.forwarded and [m["kind"] for m in exchange.mutations] == ["reject-request-state"]


def test_a_state_is_rejected_on_a_retry_with_other_arguments(rig: Rig):
    run_id = rig.runs.add(PLAN)
    state = minted(rig, run_id, call(1, arguments={"path": "a"}))
    flow = rig.exchange(run_id, call(2, arguments={"path": "b"}, inputResponses=RESPONSES, requestState=state), RESULT)
    assert "other arguments" in rejected(flow)


def test_a_state_is_rejected_on_another_method(rig: Rig):
    run_id = rig.runs.add(PLAN)
    state = minted(rig, run_id)
    retry = {**call(2, inputResponses=RESPONSES, requestState=state), "method": "prompts/get"}
    assert "method 'tools/call'" in rejected(rig.exchange(run_id, retry, RESULT))


def test_a_valid_retry_is_forwarded_as_the_original_call_not_the_retrys_own_params(rig: Rig):
    run_id = rig.runs.add(PLAN)
    original = call(1, arguments={"path": "a"})
    state = minted(rig, run_id, original)
    # the same tool and arguments, but the retry also smuggles a member the original call never had
    retry = call(2, arguments={"path": "a"}, inputResponses=RESPONSES, requestState=state, extra="smuggled")
    flow = rig.exchange(run_id, retry, {**RESULT, "id": 2})
    assert flow.request.content == wire({**retry, "params": original["params"]})


def test_a_retry_whose_arguments_differ_only_in_key_order_is_the_same_call(rig: Rig):
    run_id = rig.runs.add(PLAN)
    state = minted(rig, run_id, call(1, arguments={"a": 1, "b": 2}))
    retry = call(2, arguments={"b": 2, "a": 1}, inputResponses=RESPONSES, requestState=state)
    flow = rig.exchange(run_id, retry, {**RESULT, "id": 2})
    assert flow.response is not None and flow.response.status_code == 200 and "error" not in flow.response.json()


def test_a_rejection_on_a_legacy_era_request_travels_under_http_200_like_the_endpoints(rig: Rig):
    run_id = rig.runs.add(PLAN)
    state = minted(rig, run_id)
    legacy = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "requestState": state}}
    rejected(rig.exchange(run_id, legacy, RESULT), status=200)


def test_a_state_minted_for_another_recording_is_rejected(rig: Rig):
    run_id = rig.runs.add(PLAN)
    state = minted(rig, run_id)
    rig.session.recording_id = "another-recording"
    flow = rig.exchange(run_id, call(2, inputResponses=RESPONSES, requestState=state), RESULT)
    assert "another recording" in rejected(flow)


def test_a_state_with_valid_tag_that_this_proxy_never_handed_out_is_rejected(rig: Rig):
    run_id = rig.runs.add(PLAN)
    claims = {"run": run_id, "rec": rig.session.recording_id, **request_state.call_claims(call(1))}
    forged = request_state.mint(rig.session.key, claims)
    flow = rig.exchange(run_id, call(2, inputResponses=RESPONSES, requestState=forged), RESULT)
    assert "not minted by this proxy" in rejected(flow)


@pytest.mark.parametrize(
    ("code", "modern", "status"),
    [
        (-32700, True, 400),
        (-32600, False, 400),
        (-32602, True, 400),
        (-32602, False, 200),
        (-32601, True, 404),
        (-32601, False, 200),
        (-32603, True, 500),
        (-32001, True, 504),
    ],
)
def test_every_proxy_made_error_follows_the_endpoints_status_rules(code: int, modern: bool, status: int):
    request = call(1) if modern else {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}
    assert error_status(code, request) == status


def test_an_error_for_a_request_that_could_not_be_read_is_treated_as_modern():
    assert error_status(-32602, None) == 400
