"""The bundled conformant server's tools, called directly: each decides from the capabilities of the request in hand."""

import pytest

from backchannel.proxy.endpoint.tools import ToolCall
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode import endpoint
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.endpoint import FORM_TOOL, URL_TOOL


def _call(name, elicitation, *, answers=None, state=None):
    capabilities = {} if elicitation is None else {"elicitation": elicitation}
    return ToolCall(
        name=name,
        arguments={},
        input_responses=answers,
        request_state=state,
        protocol_version="2026-07-28",
        era="modern",
        client_capabilities=capabilities,
        progress_token=None,
        request_id=1,
        headers={},
    )


def _tool(name):
    return next(spec.handler for spec in endpoint.TOOLS if spec.name == name)


@pytest.mark.parametrize("elicitation", [None, {}, {"form": {}}])
def test_the_url_tool_refuses_a_client_without_url_mode_with_minus_32021_under_400_naming_elicitation_url(elicitation):
    reply = _tool(URL_TOOL)(_call(URL_TOOL, elicitation))
    assert reply.http_status == 400
    assert reply.error["code"] == -32021
    assert reply.error["data"] == {"requiredCapabilities": {"elicitation": {"url": {}}}}


@pytest.mark.parametrize("elicitation", [{"url": {}}, {"form": {}, "url": {}}])
def test_the_url_tool_asks_one_url_mode_request_of_a_client_with_url_mode(elicitation):
    reply = _tool(URL_TOOL)(_call(URL_TOOL, elicitation))
    assert reply.result["resultType"] == "input_required"
    [(key, request)] = reply.result["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "url" and request["params"]["url"].startswith("https://")
    assert reply.result["requestState"].startswith("sep1036.test_url_elicitation.")


@pytest.mark.parametrize(("action", "is_error"), [("accept", False), ("decline", True), ("cancel", True)])
def test_the_url_tool_ends_every_answered_retry_with_a_tool_result(action, is_error):
    first = _tool(URL_TOOL)(_call(URL_TOOL, {"url": {}}))
    [key] = first.result["inputRequests"]
    retry = _call(URL_TOOL, {"url": {}}, answers={key: {"action": action}}, state=first.result["requestState"])
    reply = _tool(URL_TOOL)(retry)
    assert reply.error is None and reply.result["isError"] is is_error


def test_an_answer_without_this_tools_own_request_state_is_asked_again():
    reply = _tool(URL_TOOL)(_call(URL_TOOL, {"url": {}}, answers={"authorize": {"action": "accept"}}, state="other"))
    assert reply.result["resultType"] == "input_required"


def test_the_form_tool_refuses_a_url_only_client_instead_of_asking_in_form_mode():
    reply = _tool(FORM_TOOL)(_call(FORM_TOOL, {"url": {}}))
    assert (reply.http_status, reply.error["code"]) == (400, -32021)
    assert reply.error["data"] == {"requiredCapabilities": {"elicitation": {"form": {}}}}


@pytest.mark.parametrize("elicitation", [{}, {"form": {}}, {"form": {}, "url": {}}])
def test_the_form_tool_asks_in_form_mode_whenever_form_mode_is_declared(elicitation):
    reply = _tool(FORM_TOOL)(_call(FORM_TOOL, elicitation))
    [request] = reply.result["inputRequests"].values()
    assert request["params"]["mode"] == "form" and "requestedSchema" in request["params"]


def test_no_tool_function_is_named_like_a_test_so_importing_them_collects_nothing():
    assert not [name for name in dir(endpoint) if name.startswith("test")]
