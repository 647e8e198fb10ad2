"""A client that did not declare `sampling.tools` answers tool-enabled sampling with an error."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC_2025, exercised
from ..payloads import TOOLS_TOOL


@check(
    "sampling-tools-undeclared-error",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC_2025}#tools-in-sampling",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="Tool-enabled sampling without a declared sampling.tools is answered with an error (2025-11-25)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """`CreateMessageRequestParams.tools` (and `toolChoice`): "The client MUST return an error if this field is
    provided but ClientCapabilities.sampling.tools is not declared." Judged in 2025-11-25, where plan_route sends
    `tools` and `toolChoice` whatever was declared and a JSON-RPC error can answer it: PASS for an error, FAIL for
    a result (or no answer at all). SKIP: in 2026-07-28 (a round's `inputResponses` have no error slot, so how a
    client returns this error is unverified; plan_route sends tools there only to a client that declared them), in
    2025-06-18 (the fields do not exist in that era), and for a client that declared `sampling.tools`."""
    found = exercised(rec, TOOLS_TOOL, wire_only=True)  # the wire alone: a run driven by hand is judged
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    if not asked.server_request:
        yield Finding.skipped(
            "no-error-slot",
            f"{asked.era}: a round's inputResponses have no error slot (how a client returns this error is unverified)",
            run=run.id,
        )
        return
    if "tools" not in asked.params and "toolChoice" not in asked.params:
        yield Finding.skipped("no-tools-sent", f"{asked.era} has no tool-enabled sampling: none was sent", run=run.id)
        return
    if "tools" in (asked.sampling_declared or {}):
        yield Finding.skipped("tools-declared", "the client declared sampling.tools: nothing to refuse", run=run.id)
        return
    asked_at = asked.evidence("tool-enabled sampling/createMessage; sampling.tools not declared")
    if asked.error is not None:
        yield Finding.passed(
            f"the client answered with error {asked.error.get('code')}",
            asked_at,
            asked.evidence("the error", reply=True),
            run=run.id,
        )
    elif asked.answer is not None:
        yield Finding.failed(
            "the client answered tool-enabled sampling with a result though it never declared sampling.tools",
            asked_at,
            asked.evidence("the result", reply=True),
            run=run.id,
        )
    else:
        yield Finding.failed("the client never answered (no error returned)", asked_at, run=run.id)
