"""The `elicitation-sep1036-url-mode` scenario: the server is under test; backchannel plays a 2026-07-28 client."""

from pathlib import Path

from backchannel.proxy.scenarios.base import Option, Scenario
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.endpoint import TOOLS
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.runner import DEFAULT_REQUEST_TIMEOUT_S, run

SCENARIO = Scenario(
    name="elicitation-sep1036-url-mode",
    description="A server's URL-mode elicitation under MRTR (SEP-1036): backchannel plays the client, 7 checks.",
    tools=TOOLS,
    runner=run,
    side="server",
    options=(
        Option(
            "request_timeout",
            float,
            DEFAULT_REQUEST_TIMEOUT_S,
            "Seconds the scripted client waits for each answer of the server under test.",
        ),
    ),
    contract=(Path(__file__).parent / "contract.md").read_text(encoding="utf-8"),
)
