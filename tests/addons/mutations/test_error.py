"""error: the proxy answers itself with a JSON-RPC error; nothing goes upstream."""

from __future__ import annotations

import json

import pytest

from backchannel.addons.mutations.base import PlanError
from backchannel.addons.mutations.error import Error, ErrorRecord
from tests.addons.conftest import CALL, CALLS, RESULT, Rig
from tests.addons.mutations.conftest import body_json, records

RAW = {"status": 400, "error": {"code": -32021, "message": "Missing capability", "data": {"need": "url"}}}


def test_it_parses_the_error_and_the_status_with_todays_default():
    assert Error.parse(RAW) == Error(code=-32021, message="Missing capability", data={"need": "url"}, status=400)
    assert Error.parse({"error": {"code": 1, "message": "m"}}).status == 400


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({}, "error must be an object"),
        ({"error": {"code": True, "message": "m"}}, "integer code"),
        ({"error": {"code": 1}}, "string message"),
        ({"error": {"code": 1, "message": "m"}, "status": "400"}, "status must be an HTTP status number"),
        ({"error": {"code": 1, "message": "m"}, "status": 1000}, "status must be an HTTP status number"),
    ],
)
def test_invalid_members_are_named(raw, words):
    with pytest.raises(PlanError, match=words):
        Error.parse(raw)


def test_the_answer_carries_the_request_id_the_error_and_the_record():
    answer = Error.parse(RAW).answer(5, {**CALL, "id": "abc"})
    assert answer is not None and answer.status == 400
    assert json.loads(answer.body) == {"jsonrpc": "2.0", "id": "abc", "error": RAW["error"]}
    assert answer.record == ErrorRecord(index=5, status=400, code=-32021)
    assert "HTTP 400" in Error.parse(RAW).describe() and "-32021" in Error.parse(RAW).describe()


def test_through_the_rewriter_the_request_is_answered_without_the_upstream(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "error", "match": CALLS, **RAW}]})
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None and flow.response.status_code == 400
    assert body_json(flow)["error"] == RAW["error"]
    assert records(rig) == [[{"kind": "error", "index": 0, "status": 400, "code": -32021}]]
    [exchange] = rig.recording().exchanges
    assert exchange.forwarded is False


FORCED = {
    "status": 400,
    "echoRequested": True,
    "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"]}},
}


def test_echo_requested_names_the_version_the_request_declared_in_its_meta():
    request = {**CALL, "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}
    answer = Error.parse(FORCED).answer(0, request)
    assert answer is not None
    data = json.loads(answer.body)["error"]["data"]
    assert data == {"supported": ["2026-07-28"], "requested": "2026-07-28"}
    assert "data.requested" in Error.parse(FORCED).describe()


def test_echo_requested_says_an_empty_version_when_the_request_declared_none():
    answer = Error.parse(FORCED).answer(0, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert answer is not None and json.loads(answer.body)["error"]["data"]["requested"] == ""


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({**FORCED, "echoRequested": "yes"}, "echoRequested must be true or false"),
        ({**FORCED, "error": {"code": 1, "message": "m", "data": [1]}}, "error.data to be an object"),
    ],
)
def test_echo_requested_is_validated(raw, words):
    with pytest.raises(PlanError, match=words):
        Error.parse(raw)
