"""One URL rule for every check: the schema's `format: uri`, as jsonschema's checker decides it with the installed
rfc3986-validator. A relative URL fails sep-1036-url-valid and wire-schema-valid alike."""

import json

import pytest
from jsonschema import FormatChecker

from backchannel.oracle import all_checks
from backchannel.oracle.uri import URI_FORMAT, is_uri
from backchannel.oracle.wire_schema import request_problems
from backchannel.recordings import load
from tests.factories import new_recording
from tests.oracle.reference import results, server


@pytest.mark.parametrize(
    "url",
    ["https://mcp.example.com/connect?session=1", "http://127.0.0.1:8080/x", "mailto:someone@example.com", "urn:x:y"],
)
def test_absolute_uris_of_any_scheme_are_valid(url):
    assert is_uri(url)


@pytest.mark.parametrize(
    "url", ["/connect?session=1", "connect", "example.com/connect", "https://exa mple.com/", "a b", "", "//host/x"]
)
def test_relative_references_and_strings_with_spaces_are_not(url):
    assert not is_uri(url)


@pytest.mark.parametrize("value", [None, 7, ["https://a.example"], {"url": "https://a.example"}])
def test_a_value_that_is_not_a_string_is_not_a_valid_url(value):
    assert not is_uri(value)


def test_the_uri_checker_is_really_installed_not_a_format_jsonschema_lets_through():
    # without a URI package jsonschema has no "uri" checker and format: uri accepts anything
    assert "uri" in FormatChecker.checkers
    assert not URI_FORMAT.conforms("/relative", "uri")


def _client_answer_with_root(uri):
    params = {
        "name": "url_rounds",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        },
        "inputResponses": {"roots": {"roots": [{"uri": uri}]}},
        "requestState": "s",
    }
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}


def _wire_schema_valid(tmp_path, uri):
    message = {
        "run_id": "r",
        "flow_id": "f",
        "direction": "to-server",
        "kind": "request",
        "jsonrpc_id": "2",
        "method": "tools/call",
        "text": json.dumps(_client_answer_with_root(uri)),
    }
    runs = [{"id": "r", "name": "contract", "scenario": "elicitation-url-mode"}]
    rec = load(new_recording(tmp_path / "r.sqlite", runs=runs, messages=[message]))
    [finding] = all_checks()["wire-schema-valid"].fn(rec)
    return finding


def test_a_relative_url_fails_wire_schema_valid_too(tmp_path):
    assert request_problems(_client_answer_with_root("/home/user/project"), "tools/call")
    assert _wire_schema_valid(tmp_path, "/home/user/project").status == "FAIL"


def test_an_absolute_url_passes_wire_schema_valid(tmp_path):
    assert _wire_schema_valid(tmp_path, "file:///home/user/project").status == "PASS"


def test_a_relative_url_fails_sep_1036_url_valid():
    result = results(server("broken-url-valid"))["sep-1036-url-valid"]
    assert result.status == "FAIL" and "/connect?session=relative" in result.message
