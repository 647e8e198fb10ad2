"""The `default` scenario: one benign read-only tool; `check` runs `--client` once against it, unmutated."""

from backchannel.proxy.scenarios.base import Scenario
from backchannel.proxy.scenarios.default.endpoint import TOOLS

SCENARIO = Scenario(
    name="default",
    description="One benign read-only tool, get_repo_status; the client runs once, nothing is mutated.",
    tools=TOOLS,
)
