"""The `elicitation-ui` scenario: what a terminal client shows its user when a server elicits (2026-07-28)."""

from pathlib import Path

from backchannel.proxy.scenarios.base import Scenario
from backchannel.proxy.scenarios.elicitation_ui.endpoint import TOOLS
from backchannel.proxy.scenarios.elicitation_ui.runner import run

SCENARIO = Scenario(
    name="elicitation-ui",
    description=(
        "What a terminal client shows its user when a server elicits: URL, host, consent, escapes."
        " Give --client (with {url}, {tool} for one call per tool) or --target (a CLI to discover)."
    ),
    tools=TOOLS,
    runner=run,
    contract=(Path(__file__).parent / "contract.md").read_text(encoding="utf-8"),
)
