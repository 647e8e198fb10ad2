"""The `mrtr-provenance` probe: one benign tool, the same client run as CONTROL, PROBE, ABSENT and ABSENT-LEGACY."""

import sys

from backchannel.proxy.scenarios.base import Option, Scenario
from backchannel.proxy.scenarios.mrtr_provenance.endpoint import TOOLS
from backchannel.proxy.scenarios.mrtr_provenance.runner import run

SCENARIO = Scenario(
    name="mrtr-provenance",
    description="Does the client attribute server-supplied input requests, and treat an absent resultType as complete?",
    tools=TOOLS,
    runner=run,
    default_target=(sys.executable, "-m", "backchannel.proxy.clients.toy_agent"),
    options=(
        Option(
            "ignore_capabilities",
            bool,
            False,
            "Send the probe's input request even if the client did not declare it (out of spec).",
        ),
        Option(
            "result_type_rule",
            str,
            "spec",
            "Grade the modern ABSENT run by the spec or as the seed.",
            choices=("spec", "seed"),
        ),
    ),
    contract="Any MCP client: given with --client and {url}, or a CLI discovered from its help with --target.",
)
