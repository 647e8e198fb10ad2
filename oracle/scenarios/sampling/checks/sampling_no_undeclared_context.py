"""A client that did not declare `sampling.context` puts no context in its answer to `includeContext`."""

from __future__ import annotations

import json
from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, exercised
from ..payloads import CONTEXT_PREFIX, CONTEXT_REQUEST_TOOL, CONTEXT_TOOL


@check(
    "sampling-no-undeclared-context",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#capabilities",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="Asked for includeContext without a declared sampling.context, the answer carries no context",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """`sampling.context` says "whether the client supports context inclusion via includeContext" (the client "MAY
    ignore" the request), and "both parties MUST only use capabilities that were successfully negotiated". Every
    era: gather_context asks with `includeContext: "allServers"`; read_notes, called before it, put a context
    marker (BCKCH-CTX-<nonce>) in the client's context, and no sampling request ever carries it, so found in the
    answer it can only have come from the context the client holds. WARN when the marker is in the answer of a
    client that did not declare `sampling.context` (a SHOULD: no MUST says so outright); PASS when it is not (what
    reached the client's model is not seen, only what it returned). SKIP: `sampling.context` declared, or no answer.
    A second server's context cannot be staged through the one `{url}` the client is given: this server's own
    earlier result stands in for "context the client holds"."""
    found = exercised(rec, CONTEXT_REQUEST_TOOL, wire_only=True)  # the wire alone: a run driven by hand is judged
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    if "context" in (asked.sampling_declared or {}):
        yield Finding.skipped(
            "context-declared", "the client declared sampling.context: context is allowed", run=run.id
        )
        return
    if asked.answer is None:
        yield Finding.skipped("not-answered", "the client returned no answer to the request", run=run.id)
        return
    marker = f"{CONTEXT_PREFIX}{rec.info.nonce or ''}"
    answered = asked.evidence(f"includeContext {asked.params.get('includeContext')!r} answered", reply=True)
    if rec.info.nonce and marker in json.dumps(asked.answer, ensure_ascii=False):
        yield Finding.warned(
            f"the answer carries {marker}, from {CONTEXT_TOOL}'s earlier result: context included without "
            "sampling.context declared",
            asked.evidence("includeContext asked"),
            answered,
            run=run.id,
        )
        return
    yield Finding.passed(
        f"the answer carries no context marker ({marker}); what reached the client's model is not seen",
        answered,
        run=run.id,
    )
