"""inject-input-requests: what is chosen for each request, and the input_required answer it becomes."""

from __future__ import annotations

import json

import pytest

from backchannel.addons.mutations.base import PlanError, RequestStep, ResultStep
from backchannel.addons.mutations.inject_input_requests import (
    CapabilityOption,
    InjectDecisionRecord,
    InjectInputRequests,
    InjectInputRequestsRecord,
    declared,
)
from tests.addons.conftest import CALL, CALLS, FORM_REQUEST, MODERN, RESULT, Rig, wire
from tests.addons.mutations.conftest import body_json, records

SAMPLE = {"s": {"method": "sampling/createMessage", "params": {}}}
BY_CAPABILITY = {
    "byCapability": [
        {"capability": "elicitation", "mode": "form", "inputRequests": FORM_REQUEST},
        {"capability": "sampling", "inputRequests": SAMPLE},
    ]
}


def request_declaring(capabilities, version=MODERN):
    meta = {"io.modelcontextprotocol/clientCapabilities": capabilities}
    if version is not None:
        meta["io.modelcontextprotocol/protocolVersion"] = version
    return {**CALL, "params": {**CALL["params"], "_meta": meta}}


def test_fixed_input_requests_parse_and_go_out_whatever_the_client_declared():
    kind = InjectInputRequests.parse({"inputRequests": FORM_REQUEST})
    assert kind == InjectInputRequests(input_requests=FORM_REQUEST)
    chosen, record = kind.choose(2, request_declaring({}))
    assert chosen == FORM_REQUEST
    assert record == InjectDecisionRecord(index=2, protocol_version=MODERN, chosen="fixed")


def test_by_capability_the_first_option_the_client_declared_is_chosen():
    kind = InjectInputRequests.parse(BY_CAPABILITY)
    assert kind.by_capability == (
        CapabilityOption("elicitation", "form", FORM_REQUEST),
        CapabilityOption("sampling", None, SAMPLE),
    )
    assert kind.choose(0, request_declaring({"elicitation": {}}))[0] == FORM_REQUEST
    chosen, record = kind.choose(0, request_declaring({"sampling": {}}))
    assert chosen == SAMPLE and record.chosen == "sampling" and not record.out_of_spec


def test_a_client_that_declares_nothing_gets_nothing_unless_capabilities_are_ignored():
    none, record = InjectInputRequests.parse(BY_CAPABILITY).choose(0, request_declaring({}))
    assert none is None and record.reason == "client-declares-no-input-capability" and record.chosen is None
    forced, record = InjectInputRequests.parse({**BY_CAPABILITY, "ignoreCapabilities": True}).choose(
        0, request_declaring({})
    )
    assert forced == FORM_REQUEST
    assert record.to_json() == {
        "kind": "inject-decision",
        "index": 0,
        "protocolVersion": MODERN,
        "chosen": "elicitation",
        "outOfSpec": True,
        "reason": "sent although the client did not declare it",
    }


def test_modern_only_skips_a_legacy_era_request():
    kind = InjectInputRequests.parse({"inputRequests": FORM_REQUEST, "modernOnly": True})
    chosen, record = kind.choose(0, request_declaring({"elicitation": {}}, version=None))
    assert chosen is None and record.reason == "legacy-era"


def test_an_elicitation_mode_must_be_declared_and_an_empty_object_means_form():
    assert declared({"elicitation": {}}, "elicitation", "form")
    assert not declared({"elicitation": {}}, "elicitation", "url")
    assert declared({"elicitation": {"url": {}}}, "elicitation", "url")
    assert not declared({"elicitation": True}, "elicitation", None)


def test_on_request_keeps_the_mutation_only_when_something_was_chosen():
    step = RequestStep(request=request_declaring({}), records=[])
    assert InjectInputRequests.parse(BY_CAPABILITY).on_request(0, step) is False
    assert step.injections == {} and len(step.records) == 1
    step = RequestStep(request=request_declaring({"sampling": {}}), records=[])
    assert InjectInputRequests.parse(BY_CAPABILITY).on_request(4, step) is True
    assert step.injections == {4: SAMPLE}


def test_the_result_becomes_input_required_with_the_chosen_requests_its_meta_and_a_minted_state():
    result = {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "resultType": "complete", "_meta": {"m": 1}}}
    step = ResultStep(
        request=CALL, payload=result, records=[], mint=lambda i: f"bc1.{i}", injections={0: SAMPLE}, sse=False
    )
    new = InjectInputRequests.parse(BY_CAPABILITY).on_result(0, wire(result).decode(), step)
    assert json.loads(new or "") == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"resultType": "input_required", "inputRequests": SAMPLE, "requestState": "bc1.0", "_meta": {"m": 1}},
    }
    assert step.records == [InjectInputRequestsRecord(index=0, request_state="bc1.0")]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({}, "inputRequests must be a non-empty object"),
        ({"inputRequests": {"q": {"params": {}}}}, "inputRequests.q must be an object with a string method"),
        ({"byCapability": {}}, "byCapability must be a non-empty list"),
        ({"byCapability": [{"capability": "mind-reading"}]}, r"byCapability\[0\].capability must be"),
        ({"byCapability": [{"capability": "roots", "mode": 1}]}, r"byCapability\[0\].mode must be a string"),
        ({"byCapability": [{"capability": "roots"}]}, r"byCapability\[0\]: inputRequests must be"),
    ],
)
def test_invalid_members_are_named(raw, words):
    with pytest.raises(PlanError, match=words):
        InjectInputRequests.parse(raw)


def test_it_describes_what_it_sends():
    assert "confirm" in InjectInputRequests.parse({"inputRequests": FORM_REQUEST}).describe()
    assert "elicitation/form, sampling" in InjectInputRequests.parse(BY_CAPABILITY).describe()


def test_through_the_rewriter_the_client_gets_input_required_and_the_exchange_both_records(rig: Rig):
    run_id = rig.runs.add({"mutations": [{"kind": "inject-input-requests", "match": CALLS, **BY_CAPABILITY}]})
    flow = rig.exchange(run_id, CALL, RESULT)
    answer = body_json(flow)["result"]
    assert answer["resultType"] == "input_required" and answer["inputRequests"] == FORM_REQUEST
    assert answer["requestState"].startswith("bc1.")
    [[decision, injected]] = records(rig)
    assert (decision["kind"], decision["chosen"]) == ("inject-decision", "elicitation")
    assert injected == {"kind": "inject-input-requests", "index": 0, "requestState": answer["requestState"]}
