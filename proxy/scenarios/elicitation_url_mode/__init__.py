"""The `elicitation-url-mode` scenario: seven tools asking URL- and form-mode input (MRTR, or 2025 server requests)."""

from pathlib import Path

from backchannel.proxy.scenarios.base import Option, Scenario
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint import TOOLS
from backchannel.proxy.scenarios.elicitation_url_mode.runner import DEFAULT_HOLD_MS, run

SCENARIO = Scenario(
    name="elicitation-url-mode",
    description=(
        "URL-mode elicitation (MRTR in 2026-07-28; server requests and -32042 in 2025-11-25): seven tools for a "
        "client that follows the written contract."
    ),
    tools=TOOLS,
    runner=run,
    needs_client=True,
    options=(Option("hold_ms", int, DEFAULT_HOLD_MS, "How long the server holds a retry, in milliseconds."),),
    contract=(Path(__file__).parent / "contract.md").read_text(encoding="utf-8"),
)
