"""A tool with x-mcp-header on a non-primitive or number parameter is left out"""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import SPEC
from ..invalid_tools import judge_invalid


@check(
    "sep-2243-x-mcp-header-primitive-only",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/server/tools#x-mcp-header",
    title="A tool with x-mcp-header on a non-primitive or number parameter is left out",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """The x-mcp-header value "MUST only be applied to parameters with primitive types (integer, string, boolean).
    Parameters with type number are not permitted.". "Clients using the Streamable HTTP transport MUST reject tool
    definitions where any x-mcp-header value violates these constraints. Rejection means the client MUST exclude the
    invalid tool from the result of tools/list." Decided on the wire: a call to a tool listed with such an
    annotation is FAIL; such tools listed and none called, PASS. The constraint is read from the listed schema, not
    the suite's tool names, so any server's tools count. None listed (or only over the stdio bridge, where a client
    MAY ignore the annotations): SKIP. The suite reports SUCCESS even when the client never listed the tools (its
    separate tools-list gate FAILs then); backchannel says SKIP not-exercised instead."""
    yield judge_invalid(
        rec, "sep-2243-x-mcp-header-primitive-only", "is on a type other than integer, string or boolean"
    )
