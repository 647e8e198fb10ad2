"""The `conformance` scenario: what the official conformance suite's 2026-07-28 client scenarios provoke (MRTR's
requestState, the forced -32022, the HTTP header scenarios), staged under the proxy, one run per suite scenario."""

from pathlib import Path

from backchannel.proxy.scenarios.base import Option, Scenario
from backchannel.proxy.scenarios.conformance.mrtr_tools import MRTR_TOOLS
from backchannel.proxy.scenarios.conformance.runner import run
from backchannel.proxy.scenarios.conformance.runs import RUN_NAMES

SCENARIO = Scenario(
    name="conformance",
    description=(
        "The official suite's 2026-07-28 client scenarios staged under the proxy, one run each, the client driven by "
        "the suite's contract (MCP_CONFORMANCE_SCENARIO, {url} last). Give --client (with {url})."
    ),
    tools=MRTR_TOOLS,
    runner=run,
    needs_client=True,
    options=(
        Option(
            "suite_scenario",
            str,
            "all",
            f"Stage only these suite scenarios (comma-separated): all, {', '.join(RUN_NAMES)}.",
        ),
    ),
    contract=(Path(__file__).parent / "contract.md").read_text(encoding="utf-8"),
)
