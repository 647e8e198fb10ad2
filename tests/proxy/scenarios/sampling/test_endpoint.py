"""The sampling server's tools, called directly: nonce-bearing texts, sampling gated per request, tools and the round
of every kind decided by what the request declared and its era."""

import pytest

from backchannel.oracle.scenarios.sampling import payloads
from backchannel.proxy.endpoint.tools import ToolCall
from backchannel.proxy.scenarios.sampling.endpoint import KEY, TOOLS

NONCE = "n0nce"
EVERY_KIND = {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}


def _call(name, capabilities, *, era="modern", version="2026-07-28", answers=None, state=None):
    return ToolCall(name=name, arguments={}, input_responses=answers, request_state=state, protocol_version=version,
                    era=era, client_capabilities=capabilities, progress_token=None, request_id=1, headers={},
                    nonce=NONCE)  # fmt: skip


def _run(name, capabilities, **kw):
    return next(spec.handler for spec in TOOLS if spec.name == name)(_call(name, capabilities, **kw))


def test_the_tools_are_listed_with_the_context_before_the_request_that_asks_for_it():
    assert tuple(spec.name for spec in TOOLS) == payloads.TOOLS
    assert payloads.context_marker(NONCE) in _run(payloads.CONTEXT_TOOL, {}).result["content"][0]["text"]


def test_summarize_asks_one_sampling_request_with_the_nonce_and_a_decoy_directive_then_completes():
    reply = _run(payloads.SUMMARY_TOOL, {"sampling": {}})
    request = reply.result["inputRequests"][KEY]
    text = request["params"]["messages"][0]["content"]["text"]
    assert request["method"] == "sampling/createMessage" and payloads.sample_tag(NONCE) in text
    assert "WRITE-MARKER" in text and payloads.context_marker(NONCE) not in text
    done = _run(payloads.SUMMARY_TOOL, {"sampling": {}}, answers={KEY: {"role": "assistant"}},
                state=reply.result["requestState"])  # fmt: skip
    assert done.result["content"][0]["text"] == "summarize_notes: sampled"


def test_a_client_without_sampling_gets_minus_32021_in_2026_and_an_error_result_in_2025():
    modern = _run(payloads.SUMMARY_TOOL, {})
    assert modern.error["code"] == -32021 and modern.http_status == 400
    legacy = _run(payloads.SUMMARY_TOOL, {}, era="legacy", version="2025-11-25")
    assert legacy.result["isError"] is True


@pytest.mark.parametrize(
    ("sampling", "era", "version", "tools"),
    [
        ({}, "modern", "2026-07-28", False),  # the server rule: only to a client that declared sampling.tools
        ({"tools": {}}, "modern", "2026-07-28", True),
        ({}, "legacy", "2025-11-25", True),  # on purpose: the client's MUST-error is observable only here
        ({}, "legacy", "2025-06-18", False),  # no such fields in that era
    ],
)
def test_plan_route_offers_tools_by_declaration_and_era(sampling, era, version, tools):
    params = _run(payloads.TOOLS_TOOL, {"sampling": sampling}, era=era, version=version).result["inputRequests"][KEY]
    assert ("tools" in params["params"] and "toolChoice" in params["params"]) is tools


def test_gather_context_asks_for_every_servers_context():
    request = _run(payloads.CONTEXT_REQUEST_TOOL, {"sampling": {}}).result["inputRequests"][KEY]
    assert request["params"]["includeContext"] == "allServers"


def test_the_round_of_every_kind_asks_each_declared_kind_and_reasks_only_what_a_retry_left_out():
    reply = _run(payloads.ALL_KINDS_TOOL, EVERY_KIND)
    asked = reply.result["inputRequests"]
    assert {k: v["method"] for k, v in asked.items()} == {
        "confirm": "elicitation/create",
        "draft": "sampling/createMessage",
        "where": "roots/list",
    }
    again = _run(payloads.ALL_KINDS_TOOL, EVERY_KIND, answers={"confirm": {}}, state=reply.result["requestState"])
    assert set(again.result["inputRequests"]) == {"draft", "where"}
    last = _run(payloads.ALL_KINDS_TOOL, EVERY_KIND, answers={"draft": {}, "where": {"roots": []}},
                state=again.result["requestState"])  # fmt: skip
    assert last.result["content"][0]["text"] == "check_everything: every request answered (in 2 rounds)"


def test_the_round_needs_two_kinds_and_the_2026_era():
    one = _run(payloads.ALL_KINDS_TOOL, {"sampling": {}})
    assert "fewer than two kinds" in one.result["content"][0]["text"]
    legacy = _run(payloads.ALL_KINDS_TOOL, EVERY_KIND, era="legacy", version="2025-11-25")
    assert legacy.result["isError"] is True and "needs protocol 2026-07-28" in legacy.result["content"][0]["text"]
