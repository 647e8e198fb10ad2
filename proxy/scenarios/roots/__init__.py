"""The `roots` scenario: what a client exposes when a server asks for its roots, in 2026-07-28 and the 2025 eras."""

from pathlib import Path

from backchannel.proxy.scenarios.base import Scenario
from backchannel.proxy.scenarios.roots.endpoint import TOOLS
from backchannel.proxy.scenarios.roots.runner import run

SCENARIO = Scenario(
    name="roots",
    description=(
        "What a client exposes as its roots: file:// URIs, only its configured folders, only with the capability,"
        " changes announced. Give --client with {url}."
    ),
    tools=TOOLS,
    runner=run,
    contract=(Path(__file__).parent / "contract.md").read_text(encoding="utf-8"),
    needs_client=True,
)
