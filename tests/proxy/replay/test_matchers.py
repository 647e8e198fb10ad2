"""A live request matches a recorded one on HTTP method, JSON-RPC method and params; id, _meta and the client's
inputResponses values are not required equal, and every difference is named."""

import json

from backchannel.proxy.replay.matchers import RequestView, differences, reported_differences


def view(message: object, http_method: str = "POST") -> RequestView:
    return RequestView.parse(http_method, json.dumps(message).encode())


CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_repo_status", "arguments": {}}}


def test_the_same_call_with_another_id_and_other_request_metadata_matches():
    live = {**CALL, "id": "x-9", "params": {**CALL["params"], "_meta": {"progressToken": 7}}}
    assert differences(view(live), view(CALL)) == []


def test_a_different_tool_or_argument_is_named_by_its_dotted_path():
    live = {**CALL, "params": {"name": "other", "arguments": {"repo": "x"}}}
    assert differences(view(live), view(CALL)) == ["params.arguments.repo", "params.name"]


def test_a_different_json_rpc_or_http_method_does_not_match():
    assert differences(view({**CALL, "method": "tools/list"}), view(CALL)) == ["method"]
    assert "http method" in differences(view(CALL, "DELETE"), view(CALL))


def test_a_retry_matches_only_the_round_whose_request_state_it_echoes():
    recorded = {**CALL, "params": {**CALL["params"], "requestState": "round-1", "inputResponses": {"a": 1}}}
    echoed = {**CALL, "params": {**CALL["params"], "requestState": "round-1", "inputResponses": {"a": 1}}}
    stale = {**CALL, "params": {**CALL["params"], "requestState": "round-0", "inputResponses": {"a": 1}}}
    assert differences(view(echoed), view(recorded)) == []
    assert differences(view(stale), view(recorded)) == ["params.requestState"]


def test_other_input_responses_still_match_and_the_difference_is_reported():
    recorded = {**CALL, "params": {**CALL["params"], "inputResponses": {"q": {"action": "accept"}}}}
    live = {**CALL, "params": {**CALL["params"], "inputResponses": {"q": {"action": "decline"}}}}
    assert differences(view(live), view(recorded)) == []
    assert reported_differences(live=view(live), recorded=view(recorded)) == ["params.inputResponses.q.action"]


def test_bodiless_requests_match_on_the_http_method_and_their_bytes():
    assert differences(RequestView.parse("GET", b""), RequestView.parse("GET", None)) == []
    assert differences(RequestView.parse("GET", b"x"), RequestView.parse("GET", b"")) == ["body"]


def test_a_batch_matches_message_by_message_and_a_notification_on_its_method():
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert differences(view([CALL, note]), view([{**CALL, "id": 8}, note])) == []
    assert differences(view([CALL]), view([CALL, note])) == ["method", "batch size"]


def test_a_hostile_body_is_compared_without_crashing():
    deep = b"[" * 100_000 + b"]" * 100_000
    assert differences(RequestView.parse("POST", deep), view(CALL)) != []
    assert RequestView.parse("POST", b"\xff\xfe not json").body is None
