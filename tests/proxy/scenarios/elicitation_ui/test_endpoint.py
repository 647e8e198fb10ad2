"""The elicitation-ui server's own tools, called directly: nonce-bearing texts, modes gated per request."""

import pytest

from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.proxy.endpoint.tools import ToolCall
from backchannel.proxy.scenarios.elicitation_ui.endpoint import OWN_TOOLS

NONCE = "n0nce"


def _call(name, elicitation, *, answers=None, state=None):
    return ToolCall(
        name=name,
        arguments={},
        input_responses=answers,
        request_state=state,
        protocol_version="2026-07-28",
        era="modern",
        client_capabilities={"elicitation": elicitation},
        progress_token=None,
        request_id=1,
        headers={},
        nonce=NONCE,
    )


def _tool(name):
    return next(spec.handler for spec in OWN_TOOLS if spec.name == name)


@pytest.mark.parametrize(
    ("tool", "url"), [(payloads.URL_TOOL, payloads.url(NONCE)), (payloads.PUNYCODE_TOOL, payloads.punycode_url(NONCE))]
)
def test_each_url_tool_asks_one_url_request_carrying_the_nonce(tool, url):
    reply = _tool(tool)(_call(tool, {"url": {}}))
    [request] = reply.result["inputRequests"].values()
    assert request["params"] == {"mode": "url", "message": request["params"]["message"], "url": url}
    assert NONCE in request["params"]["message"]


def test_the_punycode_tool_really_sends_an_xn_label():
    assert ".xn--" in payloads.punycode_url(NONCE)


def test_the_form_tool_message_holds_a_url_and_the_nonce():
    reply = _tool(payloads.FORM_TOOL)(_call(payloads.FORM_TOOL, {"form": {}}))
    [request] = reply.result["inputRequests"].values()
    assert payloads.form_link(NONCE) in request["params"]["message"] and request["params"]["mode"] == "form"


@pytest.mark.parametrize(("tool", "mode"), [(payloads.URL_TOOL, "url"), (payloads.FORM_TOOL, "form")])
def test_a_client_without_the_mode_gets_minus_32021_under_400(tool, mode):
    other = {"form": {}} if mode == "url" else {"url": {}}
    reply = _tool(tool)(_call(tool, other))
    assert (reply.http_status, reply.error["code"]) == (400, -32021)
    assert reply.error["data"]["requiredCapabilities"] == {"elicitation": {mode: {}}}


def test_the_retry_with_this_tools_state_ends_with_a_result_naming_the_action():
    first = _tool(payloads.URL_TOOL)(_call(payloads.URL_TOOL, {"url": {}}))
    state = first.result["requestState"]
    reply = _tool(payloads.URL_TOOL)(
        _call(payloads.URL_TOOL, {"url": {}}, answers={"ask": {"action": "cancel"}}, state=state)
    )
    assert reply.result["content"][0]["text"].endswith("cancel")


def test_no_urls_put_the_nonce_under_a_name_the_recording_redacts():
    from backchannel.recordings.redact import DEFAULT_NAMES

    for url in (payloads.url(NONCE), payloads.punycode_url(NONCE), payloads.form_link(NONCE)):
        assert not any(f"{name}=" in url for name in DEFAULT_NAMES), url


def test_no_other_text_the_server_sends_holds_the_url_tools_host():
    from backchannel.oracle.scenarios.elicitation_ui import escapes

    host = "accounts.example.com"
    others = [escapes.payload(NONCE), payloads.form_message(NONCE), payloads.punycode_message(NONCE)]
    others += [payloads.punycode_url(NONCE), payloads.url_message(NONCE)]
    assert not any(host in text for text in others)  # else a client hiding the host could still "show" it
