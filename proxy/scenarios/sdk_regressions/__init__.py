"""The `sdk-regressions` scenario: bugs real SDKs shipped, each staged so a client that has one is seen to."""

from pathlib import Path

from backchannel.proxy.scenarios.base import Scenario
from backchannel.proxy.scenarios.sdk_regressions.endpoint import TOOLS
from backchannel.proxy.scenarios.sdk_regressions.runner import run

SCENARIO = Scenario(
    name="sdk-regressions",
    description=(
        "Bugs real SDKs shipped: declined content reused in a later accept, an MRTR loop retried without end, a"
        " request in an undeclared mode declined in the user's name. Give --client (with {url})."
    ),
    tools=TOOLS,
    runner=run,
    needs_client=True,
    contract=(Path(__file__).parent / "contract.md").read_text(encoding="utf-8"),
)
