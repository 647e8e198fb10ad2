"""The `sampling` scenario: what a client does with a server's sampling requests, in every era."""

from pathlib import Path

from backchannel.proxy.scenarios.base import Scenario
from backchannel.proxy.scenarios.sampling.endpoint import TOOLS
from backchannel.proxy.scenarios.sampling.runner import run

SCENARIO = Scenario(
    name="sampling",
    description=(
        "Sampling in every era (an MRTR input request in 2026-07-28, a server request in 2025): the human in the"
        " loop, the server named, tools and context only as declared, and one round of every kind answered whole."
        " Give --client (with {url})."
    ),
    tools=TOOLS,
    runner=run,
    needs_client=True,
    contract=(Path(__file__).parent / "contract.md").read_text(encoding="utf-8"),
)
