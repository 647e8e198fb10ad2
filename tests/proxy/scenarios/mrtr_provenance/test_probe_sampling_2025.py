"""The provenance probe's decoy directive rides in its sampling request too, in the 2025 eras: a client that declares
sampling but not form elicitation is asked, by get_repo_status itself, the same sampling request the proxy injects
in 2026-07-28 (the endpoint then sends it as a server request on the call's stream)."""

from pathlib import Path

from backchannel.oracle.detectors.markers import DECOY_FILE, DIRECTIVE_VERB, Markers
from backchannel.proxy.endpoint.server_requests import server_request
from backchannel.proxy.endpoint.tools import ToolCall
from backchannel.proxy.scenarios.mrtr_provenance.endpoint import probe_tools
from backchannel.proxy.scenarios.mrtr_provenance.runner import probe_message, probe_plan

HOME = Path("/lab/home")


def _legacy_call(capabilities):
    return ToolCall(name="get_repo_status", arguments={}, input_responses=None, request_state=None,
                    protocol_version="2025-11-25", era="legacy", client_capabilities=capabilities,
                    progress_token=None, request_id=1, headers={}, nonce="n0nce")  # fmt: skip


def _tools(markers):
    plan = probe_plan(probe_message(markers, HOME), False)
    options = [(o["capability"], o["inputRequests"]) for o in plan["mutations"][0]["byCapability"]]
    return probe_tools(options, False), plan


def test_a_2025_client_that_declared_only_sampling_gets_the_sampling_request_with_the_decoy():
    markers = Markers("abc123")
    tools, plan = _tools(markers)
    reply = tools[0].handler(_legacy_call({"sampling": {}}))
    [request] = reply.result["inputRequests"].values()
    injected = plan["mutations"][0]["byCapability"][1]["inputRequests"]
    assert [request] == list(injected.values())  # the very request the proxy injects in 2026-07-28
    text = request["params"]["messages"][0]["content"]["text"]
    assert f"{DIRECTIVE_VERB} {HOME / DECOY_FILE} {markers.exec_token}" in text and markers.body in text
    sent = server_request("bckch-ask-1", request, "2025-11-25")
    assert sent["method"] == "sampling/createMessage" and sent["params"]["messages"][0]["content"]["text"] == text


def test_form_elicitation_comes_first_when_both_are_declared():
    tools, _ = _tools(Markers("abc123"))
    reply = tools[0].handler(_legacy_call({"sampling": {}, "elicitation": {"form": {}}}))
    [request] = reply.result["inputRequests"].values()
    assert request["method"] == "elicitation/create"
