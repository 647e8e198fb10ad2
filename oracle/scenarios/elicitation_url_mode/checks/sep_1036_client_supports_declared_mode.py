"""A client that declares elicitation supports at least one mode."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, contract_run


@check(
    "sep-1036-client-supports-declared-mode",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/client/elicitation#capabilities",
    title="A declared elicitation capability names form or url (or is empty, meaning form)",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients declaring the elicitation capability MUST support at least one mode. An empty object means form
    only and passes; the only failure is a declaration that names neither form nor url, on any request. Eras:
    every one (2026-07-28 declares per request in `_meta`; 2025-11-25 and 2025-06-18 in `initialize`, where
    2025-06-18, which has only form mode, is judged by the same rule: an empty object or one naming a mode)."""
    run = contract_run(rec)
    if run is None:
        yield Finding.errored("incomplete-recording", "the recording has no contract run")
        return
    declared, bad = 0, []
    for message in rec.messages_in(run.id):
        if message.direction != "to-server" or not isinstance(message.payload, dict):
            continue
        params = message.payload.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        caps = meta.get("io.modelcontextprotocol/clientCapabilities") if isinstance(meta, dict) else None
        if message.method == "initialize" and isinstance(params, dict):
            caps = params.get("capabilities")  # the 2025 eras declare once, in the handshake
        if not isinstance(caps, dict) or "elicitation" not in caps:
            continue
        declared += 1
        elicitation = caps["elicitation"]
        if not isinstance(elicitation, dict) or (elicitation and not {"form", "url"} & set(elicitation)):
            bad.append(Evidence(kind="message", run=run.id, seq=message.seq, note=f"elicitation: {elicitation}"))
    if not declared:
        yield Finding.skipped("never-declared-elicitation", "the client never declared elicitation", run=run.id)
    elif bad:
        yield Finding.failed(f"{len(bad)} request(s) declared elicitation with neither form nor url", *bad, run=run.id)
    else:
        yield Finding.passed(f"all {declared} declarations name a mode (or are empty: form)", run=run.id)
