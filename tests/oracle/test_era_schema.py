"""Each message is held to the definition its era's official schema has for it."""

import json
from importlib import resources

import pytest

from backchannel.oracle.era_schema import ERAS, SCHEMA_FILES, message_errors, schema

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}


def test_the_three_official_schemas_ship_unchanged_beside_their_license():
    folder = resources.files("backchannel.oracle.schema")
    assert folder.joinpath("LICENSE").read_text(encoding="utf-8").startswith("The MCP project")
    for era, name in SCHEMA_FILES.items():
        raw = json.loads(folder.joinpath(name).read_text(encoding="utf-8"))
        assert ("$defs" in raw) != ("definitions" in raw), era


@pytest.mark.parametrize("era", ERAS)
def test_every_era_maps_its_methods_and_their_results(era):
    found = schema(era)
    assert found.method_defs["tools/call"] == "CallToolRequest"
    assert found.result_defs["tools/list"] == "ListToolsResult"


def test_a_valid_initialize_passes_and_one_without_client_info_names_the_missing_member():
    assert message_errors("2025-06-18", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}) == ()
    bare = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x", "capabilities": {}}}
    (problem,) = message_errors("2025-06-18", bare)
    assert "'clientInfo' is a required property" in problem and "InitializeRequest" in problem


def test_a_result_is_judged_by_the_method_it_answers():
    wrong = {"jsonrpc": "2.0", "id": 1, "result": {"content": "text"}}
    assert message_errors("2025-11-25", wrong) == ()  # unknown method: only the envelope
    (problem,) = message_errors("2025-11-25", wrong, "tools/call")
    assert problem.startswith("result/content:") and "CallToolResult, answering tools/call" in problem


def test_an_anyof_complaint_names_the_alternative_the_value_meant():
    url = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "/relative"}}
    result = {"resultType": "input_required", "inputRequests": {"a": url}}
    (problem,) = message_errors("2026-07-28", {"jsonrpc": "2.0", "id": 1, "result": result}, "tools/call")
    assert "inputRequests/a/params/url" in problem and "'uri'" in problem


def test_the_generator_bugs_are_mended_a_number_answer_is_valid():
    accepted = {"action": "accept", "content": {"n": 1.5}}
    for era in ("2025-06-18", "2025-11-25"):  # answered as a JSON-RPC result
        assert message_errors(era, {"jsonrpc": "2.0", "id": 1, "result": accepted}, "elicitation/create") == (), era
    assert schema("2026-07-28").validator("ElicitResult").is_valid(accepted)  # answered inside inputResponses
    minimum = {"type": "number", "minimum": 0.5}
    for era in ("2025-06-18", "2025-11-25"):
        assert schema(era).validator("NumberSchema").is_valid(minimum), era


def test_a_2026_result_without_result_type_breaks_the_schema():
    (problem,) = message_errors("2026-07-28", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    assert "'resultType' is a required property" in problem


def test_typed_errors_are_held_to_their_definition():
    bad = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32021, "message": "m", "data": {}}}
    assert any("requiredCapabilities" in p for p in message_errors("2026-07-28", bad))


def test_a_batch_or_a_non_object_is_no_message():
    assert "batch" in message_errors("2025-06-18", [])[0]
    assert "not an object" in message_errors("2025-06-18", 5)[0]
