"""The HAR is mitmproxy's own HAR 1.2 document, valid against the HAR 1.2 structure, with mutations in comments."""

from __future__ import annotations

import json

import jsonschema

from backchannel.proxy.share.flows import client_flows
from backchannel.proxy.share.har import har_document, har_text
from backchannel.recordings import load

from .conftest import FLAWED, HELD_SSE

_NAME_VALUE = {
    "type": "array",
    "items": {"type": "object", "required": ["name", "value"], "properties": {"name": {"type": "string"}}},
}
# HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the required members of log, entry, request, response
HAR_12 = {
    "type": "object",
    "required": ["log"],
    "properties": {
        "log": {
            "type": "object",
            "required": ["version", "creator", "entries"],
            "properties": {
                "version": {"const": "1.2"},
                "creator": {"type": "object", "required": ["name", "version"]},
                "entries": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
                        "properties": {
                            "comment": {"type": "string"},
                            "request": {
                                "type": "object",
                                "required": [
                                    "method",
                                    "url",
                                    "httpVersion",
                                    "cookies",
                                    "headers",
                                    "queryString",
                                    "headersSize",
                                    "bodySize",
                                ],  # fmt: skip
                                "properties": {"headers": _NAME_VALUE, "queryString": _NAME_VALUE},
                            },
                            "response": {
                                "type": "object",
                                "required": [
                                    "status",
                                    "statusText",
                                    "httpVersion",
                                    "cookies",
                                    "headers",
                                    "content",
                                    "redirectURL",
                                    "headersSize",
                                    "bodySize",
                                ],  # fmt: skip
                                "properties": {
                                    "status": {"type": "integer"},
                                    "headers": _NAME_VALUE,
                                    "content": {"type": "object"},
                                },
                            },
                            "timings": {"type": "object", "required": ["send", "wait", "receive"]},
                        },
                    },
                },
            },
        }
    },
}


def test_the_har_is_valid_har_1_2_and_reads_back_as_the_same_document():
    flows = client_flows(load(FLAWED))
    text = har_text(flows)
    document = json.loads(text)
    jsonschema.validate(document, HAR_12)
    assert document == json.loads(json.dumps(har_document(flows)))
    assert document["log"]["creator"]["name"] == "mitmproxy"


def test_each_mutated_entry_says_what_backchannel_changed_in_its_comment():
    rec = load(FLAWED)
    entries = json.loads(har_text(client_flows(rec)))["log"]["entries"]
    for exchange, entry in zip(rec.exchanges, entries, strict=True):
        if exchange.mutations:
            kinds = {m["kind"] for m in exchange.mutations}
            assert all(f"backchannel mutation {kind}" in entry["comment"] for kind in kinds)
            assert entry["_marked"]
        else:
            assert "comment" not in entry
        assert entry["response"]["content"]["text"] == (exchange.response_body or b"").decode()


def test_an_sse_response_is_in_the_har_whole():
    rec = load(HELD_SSE)
    entries = json.loads(har_text(client_flows(rec)))["log"]["entries"]
    streamed = [(x, e) for x, e in zip(rec.exchanges, entries, strict=True) if x.streamed]
    assert streamed
    for exchange, entry in streamed:
        assert entry["response"]["content"]["text"] == (exchange.response_body or b"").decode()
        assert entry["response"]["content"]["mimeType"] == "text/event-stream"


def test_a_hostile_recording_gives_valid_har_with_its_control_and_bidi_characters_escaped(hostile):
    text = har_text(client_flows(load(hostile)))
    jsonschema.validate(json.loads(text), HAR_12)
    assert "\u202e" not in text and "\x1b" not in text
