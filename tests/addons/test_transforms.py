import json

from backchannel.addons.plan import parse_plan
from backchannel.addons.transforms import progress_token, rewrite_response, sse_event

REQUEST = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "t", "_meta": {"progressToken": 9}}}
RESULT = '{"jsonrpc":"2.0","id":4,"result":{"content":[],"resultType":"complete","_meta":{"x":1}}}'


def mutations(*raw):
    return parse_plan({"mutations": list(raw)}).mutations


def test_dropping_result_type_records_the_exact_span():
    new, records = rewrite_response(RESULT, REQUEST, mutations({"kind": "drop-result-type"}), lambda m: "s")
    assert new == '{"jsonrpc":"2.0","id":4,"result":{"content":[],"_meta":{"x":1}}}'
    (record,) = records
    assert RESULT[: record["start"]] + RESULT[record["end"] :] == new


def test_injecting_input_requests_keeps_the_result_meta_and_adds_the_minted_state():
    inject = {"kind": "inject-input-requests", "inputRequests": {"q": {"method": "elicitation/create", "params": {}}}}
    new, records = rewrite_response(RESULT, REQUEST, mutations(inject), lambda m: "STATE")
    result = json.loads(new)["result"]
    assert result == {
        "resultType": "input_required",
        "inputRequests": inject["inputRequests"],
        "requestState": "STATE",
        "_meta": {"x": 1},
    }
    assert records[0]["requestState"] == "STATE"


def test_a_response_to_another_request_is_not_touched():
    other = RESULT.replace('"id":4', '"id":5')
    assert rewrite_response(other, REQUEST, mutations({"kind": "drop-result-type"}), lambda m: "s") == (None, [])


def test_notifications_and_errors_are_not_touched():
    note = '{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'
    error = '{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"x"}}'
    for text in (note, error, "garbage"):
        assert rewrite_response(text, REQUEST, mutations({"kind": "drop-result-type"}), lambda m: "s") == (None, [])


def test_an_sse_event_carries_the_text_as_data_lines():
    assert sse_event('{"a":1}') == b'event: message\r\ndata: {"a":1}\r\n\r\n'
    assert sse_event("{\n}") == b"event: message\r\ndata: {\r\ndata: }\r\n\r\n"


def test_the_progress_token_comes_from_the_request_meta():
    assert progress_token(REQUEST) == 9
    assert progress_token({"params": {}}) is None
    assert progress_token({"params": {"_meta": {"progressToken": True}}}) is None
