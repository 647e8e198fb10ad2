"""The `conformance` scenario's runs: one per client scenario of the official suite's 2026-07-28 requirement set that
backchannel stages, each named after that suite scenario, with its tools, its plan and the suite's driver contract.

A run's client gets the suite's environment (`MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`, and
`MCP_CONFORMANCE_CONTEXT` where the suite gives one) and the run's URL where its command line says `{url}` (last, in
the suite's contract), so a client written for the suite runs unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from backchannel.proxy.endpoint.tools import ToolSpec

from .header_tools import CUSTOM_HEADERS_CONTEXT, CUSTOM_TOOLS, INVALID_HEADER_TOOLS, STANDARD_TOOLS
from .mrtr_tools import MRTR_TOOLS, NO_RESULT_TYPE

PROTOCOL_VERSION = "2026-07-28"
SCENARIO_VAR, VERSION_VAR, CONTEXT_VAR = (
    "MCP_CONFORMANCE_SCENARIO",
    "MCP_CONFORMANCE_PROTOCOL_VERSION",
    "MCP_CONFORMANCE_CONTEXT",
)
UNSUPPORTED_PROTOCOL_VERSION = -32022

# request-metadata: the run's first request (whatever its method) is refused as the suite refuses it
FORCED_UNSUPPORTED_VERSION: dict[str, Any] = {
    "kind": "error",
    "times": 1,
    "status": 400,
    "echoRequested": True,
    "error": {
        "code": UNSUPPORTED_PROTOCOL_VERSION,
        "message": "Unsupported protocol version",
        "data": {"supported": [PROTOCOL_VERSION]},
    },
}
# sep-2322-client-request-state: the one tool's honest result goes out without its resultType
DROPPED_RESULT_TYPE: dict[str, Any] = {
    "kind": "drop-result-type",
    "match": {"method": "tools/call", "name": NO_RESULT_TYPE},
}


@dataclass(frozen=True)
class ConformanceRun:
    """One run: the suite scenario it stages (its name is the run's), its tools, plan and suite context."""

    name: str
    tools: tuple[ToolSpec, ...]
    plan: Mapping[str, Any] = field(default_factory=dict)
    context: Mapping[str, Any] | None = None
    summary: str = ""
    canary: bool = False  # its tools are `ref_tools`, their network $ref pointing at the run's canary server

    def env(self) -> dict[str, str]:
        """The suite's driver contract for this run."""
        env = {SCENARIO_VAR: self.name, VERSION_VAR: PROTOCOL_VERSION}
        if self.context is not None:
            env[CONTEXT_VAR] = json.dumps(self.context, ensure_ascii=False)
        return env


RUNS = (
    ConformanceRun(
        "sep-2322-client-request-state",
        MRTR_TOOLS,
        {"mutations": [DROPPED_RESULT_TYPE]},
        summary="requestState echoed, no state omitted, an unrelated call between, a result without resultType",
    ),
    ConformanceRun(
        "request-metadata",
        (),
        {"mutations": [FORCED_UNSUPPORTED_VERSION]},
        summary="the first request refused with -32022 (HTTP 400) listing the supported versions",
    ),
    ConformanceRun("http-standard-headers", STANDARD_TOOLS, summary="Mcp-Method and Mcp-Name on every request"),
    ConformanceRun(
        "http-custom-headers",
        CUSTOM_TOOLS,
        context=CUSTOM_HEADERS_CONTEXT,
        summary="x-mcp-header parameters mirrored into Mcp-Param-* headers, encoded",
    ),
    ConformanceRun(
        "http-invalid-tool-headers", INVALID_HEADER_TOOLS, summary="tools with invalid x-mcp-header left out"
    ),
    ConformanceRun(
        "json-schema-ref-no-deref",
        (),
        canary=True,
        summary="a tool whose inputSchema $ref names a network URI (a canary recording every fetch)",
    ),
)
RUN_NAMES = tuple(run.name for run in RUNS)
