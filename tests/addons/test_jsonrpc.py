from backchannel.addons.jsonrpc import PARSE_LIMIT, classify, parse_body


def test_requests_notifications_responses_and_errors_are_told_apart():
    assert classify({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}).kind == "request"
    assert classify({"jsonrpc": "2.0", "method": "notifications/progress"}).kind == "notification"
    assert classify({"jsonrpc": "2.0", "id": 1, "result": {}}).kind == "response"
    assert classify({"jsonrpc": "2.0", "id": 1, "error": {}}).kind == "error"


def test_ids_keep_their_json_type():
    assert classify({"id": 7, "method": "m"}).jsonrpc_id == "7"
    assert classify({"id": "7", "method": "m"}).jsonrpc_id == '"7"'


def test_a_non_json_body_is_an_anomaly_not_a_crash():
    parsed = parse_body(b"<html>", "text/html")
    assert parsed.messages == ()
    assert parsed.anomalies[0][0] == "not-json"


def test_invalid_utf8_is_an_anomaly():
    assert parse_body(b'{"a": "\xff"}', None).anomalies[0][0] == "invalid-utf8"


def test_a_batch_is_parsed_member_by_member_and_flagged():
    parsed = parse_body(b'[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]', None)
    assert [m.method for m in parsed.messages] == ["a", "b"]
    assert parsed.anomalies[0][0] == "jsonrpc-batch"


def test_a_body_over_the_parse_limit_is_kept_raw_and_flagged():
    parsed = parse_body(b" " * (PARSE_LIMIT + 1), None)
    assert parsed.messages == () and parsed.anomalies[0][0] == "body-too-large"


def test_a_json_value_that_is_not_jsonrpc_is_flagged():
    assert parse_body(b"[]", None).anomalies[0][0] == "jsonrpc-batch"
    assert parse_body(b"42", None).anomalies[0][0] == "not-jsonrpc"
