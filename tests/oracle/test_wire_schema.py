from backchannel.oracle.wire_schema import request_problems, response_problems

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def call(**params):
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "_meta": META, **params}}


def test_a_well_formed_retry_validates():
    retry = call(inputResponses={"k": {"action": "accept", "content": {"confirmed": True}}}, requestState="s")
    assert request_problems(retry, "tools/call") == []


def test_a_decimal_in_elicitation_content_is_not_held_against_the_client():
    assert (
        request_problems(call(inputResponses={"k": {"action": "accept", "content": {"age": 30.5}}}), "tools/call") == []
    )


def test_missing_required_meta_and_a_bad_retry_are_named():
    bad = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}
    assert request_problems(bad, "tools/call")
    problems = request_problems(call(requestState=7, inputResponses={"k": {"action": "maybe"}}), "tools/call")
    assert any("requestState" in p for p in problems) and any("inputResponses/k" in p for p in problems)


def test_result_types_the_schema_leaves_loose_are_checked():
    assert response_problems({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "foo", "content": []}}, "tools/call")
    assert response_problems({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}}, "tools/call")
    ok = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}}
    assert response_problems(ok, "tools/call") == []
