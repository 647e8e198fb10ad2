"""The sampling scenario's facts on committed references: each tool's request found in either era, with the era,
the capabilities in force and the client's answer."""

from backchannel.oracle.scenarios.sampling import payloads
from backchannel.oracle.scenarios.sampling.facts import asked_in, exercised
from tests.oracle.reference import recording


def test_a_2026_request_is_an_input_request_answered_in_the_retry():
    rec = recording("sampling-toy-careful")
    run, asked = exercised(rec, payloads.SUMMARY_TOOL)
    assert not asked.server_request and asked.era == "2026-07-28" and asked.key == "sample"
    assert asked.declared["sampling"] == {} and asked.answer["model"] == "toy-stand-in-model" and asked.error is None
    assert payloads.sample_tag(rec.info.nonce) in asked.texts[0]


def test_a_2025_request_is_a_server_request_answered_by_id_with_the_handshakes_capabilities():
    rec = recording("sampling-toy-careful-2025-11-25")
    run, asked = exercised(rec, payloads.TOOLS_TOOL)
    assert asked.server_request and asked.era == "2025-11-25" and "tools" in asked.params
    assert asked.answer is None and asked.error["code"] == -32602
    assert [a.tool for a in asked_in(rec, run, payloads.CONTEXT_REQUEST_TOOL)] == [payloads.CONTEXT_REQUEST_TOOL]


def test_a_client_without_sampling_is_a_skip_naming_the_capability():
    found = exercised(recording("sampling-py-sdk"), payloads.SUMMARY_TOOL)
    assert found.status == "SKIP" and found.reason == "sampling-not-declared"
