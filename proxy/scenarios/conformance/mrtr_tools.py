"""The `sep-2322-client-request-state` run's four tools, behaving as the official suite's mock does.

`test_mrtr_echo_state` asks for a confirmation with a requestState the retry must echo byte for byte (compact JSON,
so a client that parses and re-serialises it changes the bytes), `test_mrtr_no_state` asks without one (the retry
must carry none), `test_mrtr_unrelated` is the call a client makes between a round and its retry, and
`test_mrtr_no_result_type` answers complete (the run's plan drops its `resultType` on the way out: the lie comes
from the proxy, as every lie does). A call with `inputResponses` is a retry, as the suite decides it.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec

ECHO_STATE, NO_STATE, UNRELATED, NO_RESULT_TYPE = (
    "test_mrtr_echo_state",
    "test_mrtr_no_state",
    "test_mrtr_unrelated",
    "test_mrtr_no_result_type",
)
EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
CONFIRM_KEY = "confirm"


def confirm_request(message: str) -> dict[str, Any]:
    """The suite's one elicitation: a boolean `confirmed` (no `mode`: absent means form)."""
    schema = {"type": "object", "properties": {"confirmed": {"type": "boolean", "description": "Confirm?"}}}
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}


def text(value: str) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": value}]})


def minted_state(request_id: object) -> str:
    """A requestState as the suite mints it: compact JSON of a nonce and the asking request's id."""
    return json.dumps({"nonce": secrets.token_hex(8), "originalId": request_id}, separators=(",", ":"))


def echo_state(call: ToolCall) -> ToolReply:
    if call.input_responses is None:
        asked = {CONFIRM_KEY: confirm_request("Please confirm to continue")}
        result = {"resultType": "input_required", "inputRequests": asked, "requestState": minted_state(call.request_id)}
        return ToolReply(result=result)
    return text("echo-state-ok")


def no_state(call: ToolCall) -> ToolReply:
    if call.input_responses is None:
        asked = {CONFIRM_KEY: confirm_request("Please confirm to continue (no state test)")}
        return ToolReply(result={"resultType": "input_required", "inputRequests": asked})
    return text("no-state-ok")


def unrelated(_call: ToolCall) -> ToolReply:
    return text("unrelated-ok")


def no_result_type(call: ToolCall) -> ToolReply:
    return text("no-result-type-test-ok" if call.input_responses is None else "unexpected-retry")


MRTR_TOOLS = (
    ToolSpec(
        ECHO_STATE,
        "Test tool: triggers MRTR flow with requestState. Client must echo state back unchanged.",
        EMPTY_SCHEMA,
        echo_state,
    ),
    ToolSpec(
        NO_STATE,
        "Test tool: triggers MRTR flow WITHOUT requestState. Client must NOT include requestState in retry.",
        EMPTY_SCHEMA,
        no_state,
    ),
    ToolSpec(
        UNRELATED,
        "Test tool: simple tool called between MRTR rounds. Must NOT carry inputResponses or requestState from "
        "another tool.",
        EMPTY_SCHEMA,
        unrelated,
    ),
    ToolSpec(
        NO_RESULT_TYPE,
        "Test tool: returns a result without resultType. Client must treat it as complete (default).",
        EMPTY_SCHEMA,
        no_result_type,
    ),
)
