"""The proxy side of `echo-once`: one tool that echoes its text; the default runner runs --client once."""

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.base import Scenario

ECHO_PREFIX = "echo-once says: "


def echo(call: ToolCall) -> ToolReply:
    """Answer with the given text (or 'nothing'), prefixed so the check can recognise the answer."""
    text = call.arguments.get("text", "nothing")
    return ToolReply(result={"content": [{"type": "text", "text": f"{ECHO_PREFIX}{text}"}], "isError": False})


SCENARIO = Scenario(
    name="echo-once",
    description="One echo tool; the client must call it and get its answer.",
    tools=(
        ToolSpec("echo", "Echo the given text.", {"type": "object", "properties": {"text": {"type": "string"}}}, echo),
    ),
)
