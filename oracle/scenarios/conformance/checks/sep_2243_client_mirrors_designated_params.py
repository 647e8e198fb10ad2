"""Each annotated string parameter (header-safe) is mirrored into its Mcp-Param header as it is."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import HTTP_SPEC
from ..mirroring import judge_mirrored
from ..param_headers import MIRRORS


@check(
    MIRRORS,
    scenario=SCENARIO,
    level="MUST",
    spec=f"{HTTP_SPEC}#custom-headers-from-tool-parameters",
    title="Each x-mcp-header string parameter is mirrored into its Mcp-Param header (none for unannotated ones)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "When a server's tool definition includes x-mcp-header annotations, conforming clients MUST mirror the
    designated parameter values into HTTP headers." Every tools/call (HTTP, not over the stdio bridge) to a tool
    whose listed schema annotates a header-safe string parameter with a value: `Mcp-Param-{name}` must be present
    and stand for the value (plain, or Base64-encoded: the spec does not forbid encoding a safe value, nor does the
    suite). Missing or different: FAIL. An `Mcp-Param-*` header no annotation names: WARN. The suite FAILs that
    (its `ClientCustomHeaderNoMirror*` entries), but the spec has no MUST NOT for it: backchannel follows the spec
    and leaves it to a person. No such parameter: SKIP (the suite backfills FAILURE)."""
    yield judge_mirrored(rec, MIRRORS, "annotated string parameter(s)")
