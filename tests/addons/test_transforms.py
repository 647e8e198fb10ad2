import json

from backchannel.addons.mutations.drop_result_type import DropResultTypeRecord
from backchannel.addons.mutations.inject_input_requests import InjectInputRequestsRecord
from backchannel.addons.mutations.truncate_sse import TruncateSseRecord
from backchannel.addons.plan import parse_plan
from backchannel.addons.sse import StreamCut
from backchannel.addons.transforms import progress_token, rewrite_response, sse_event

REQUEST = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "t", "_meta": {"progressToken": 9}}}
RESULT = '{"jsonrpc":"2.0","id":4,"result":{"content":[],"resultType":"complete","_meta":{"x":1}}}'
INJECT = {"kind": "inject-input-requests", "inputRequests": {"q": {"method": "elicitation/create", "params": {}}}}


def mutations(*raw):
    return parse_plan({"mutations": list(raw)}).mutations


def rewrite(text, *raw, sse_idx=None, chosen=None):
    records: list = []
    new = rewrite_response(
        text, REQUEST, mutations(*raw), lambda index: f"STATE{index}", records, chosen, sse_idx=sse_idx
    )
    return new, records


def test_dropping_result_type_records_the_exact_span():
    new, records = rewrite(RESULT, {"kind": "drop-result-type"})
    assert new == '{"jsonrpc":"2.0","id":4,"result":{"content":[],"_meta":{"x":1}}}'
    (record,) = records
    assert isinstance(record, DropResultTypeRecord)
    assert RESULT[: record.start] + RESULT[record.end :] == new
    assert record.to_json() == {
        "kind": "drop-result-type",
        "index": 0,
        "removed": '"resultType":"complete",',
        "start": record.start,
        "end": record.end,
    }


def test_injecting_input_requests_keeps_the_result_meta_and_adds_the_minted_state():
    new, records = rewrite(RESULT, INJECT)
    result = json.loads(new)["result"]
    assert result == {
        "resultType": "input_required",
        "inputRequests": INJECT["inputRequests"],
        "requestState": "STATE0",
        "_meta": {"x": 1},
    }
    assert records == [InjectInputRequestsRecord(index=0, request_state="STATE0")]


def test_mutations_apply_in_plan_order_each_to_the_text_the_one_before_left():
    new, records = rewrite(RESULT, {"kind": "drop-result-type"}, {"kind": "malformed", "shape": "wrong-id"})
    assert json.loads(new) == {"jsonrpc": "2.0", "id": 1_000_004, "result": {"content": [], "_meta": {"x": 1}}}
    assert [r.KIND for r in records] == ["drop-result-type", "malformed"]


def test_a_response_to_another_request_is_not_touched():
    other = RESULT.replace('"id":4', '"id":5')
    assert rewrite(other, {"kind": "drop-result-type"}) == (None, [])


def test_notifications_and_errors_are_not_touched_by_result_mutations():
    note = '{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'
    error = '{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"x"}}'
    for text in (note, error, "garbage"):
        assert rewrite(text, {"kind": "drop-result-type"}, INJECT) == (None, [])


def test_without_mutations_the_text_is_not_even_parsed():
    assert rewrite("not json at all") == (None, [])


def test_truncate_sse_cuts_the_stream_at_the_response_event_and_records_its_index():
    new, records = rewrite(RESULT, {"kind": "truncate-sse"}, sse_idx=3)
    assert new == StreamCut("truncate-sse")
    assert records == [TruncateSseRecord(index=0, event=3)]


def test_truncate_sse_leaves_a_json_body_alone():
    assert rewrite(RESULT, {"kind": "truncate-sse"}) == (None, [])


def test_an_sse_event_carries_the_text_as_data_lines():
    assert sse_event('{"a":1}') == b'event: message\r\ndata: {"a":1}\r\n\r\n'
    assert sse_event("{\n}") == b"event: message\r\ndata: {\r\ndata: }\r\n\r\n"


def test_the_progress_token_comes_from_the_request_meta():
    assert progress_token(REQUEST) == 9
    assert progress_token({"params": {}}) is None
    assert progress_token({"params": {"_meta": {"progressToken": True}}}) is None
