"""Every message one side sent, validated against the official schema of the era it speaks (both sides' rule)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.era_schema import ERAS, message_errors
from backchannel.oracle.model import Finding
from backchannel.recordings.model import Recording

from .facts import Session, Tally, client_sessions, server_sessions


def judged(rec: Recording, sender: str) -> Finding:
    """FAIL for a message that breaks its era's schema where the message or its own session said the era; WARN
    when every such message's era was only inferred (the run's last handshake); SKIP when no message of `sender`
    spoke an era whose schema ships. Messages cut at the recorder's size limit (not JSON any more) are not read."""
    tally = Tally()
    sure_breaks = 0
    unvalidated: dict[str, int] = {}
    sessions: Iterator[Session] = client_sessions(rec) if sender == "client" else server_sessions(rec)
    for session in sessions:
        for sent in session.sent:
            if sent.sender != sender or sent.payload is None:
                continue
            if sent.era not in ERAS:
                unvalidated[sent.era or "unknown"] = unvalidated.get(sent.era or "unknown", 0) + 1
                continue
            tally.exercise(session.run_id)
            errors = message_errors(sent.era, sent.payload, sent.answers, sent.text)
            what = f"{sent.message.kind} {sent.message.method or ''} (id {sent.message.jsonrpc_id})".replace("  ", " ")
            if errors:
                sure_breaks += not sent.era_inferred
                note = f"{sent.era} schema (era from {sent.era_from}): {'; '.join(errors)}"
                tally.broke(f"{what}: {errors[0]}", (sent.evidence(note[:600]),))
            elif tally.keeping:
                tally.keep(sent.evidence(f"valid against the {sent.era} schema (era from {sent.era_from})"))
    besides = ""
    if unvalidated:
        named = ", ".join(f"{count} of era {era}" for era, count in sorted(unvalidated.items()))
        besides = f" (not validated, no schema shipped for their era: {named})"
    kept = f"each valid against its era's official schema{besides}"
    level = "MUST" if sure_breaks or not tally.broken else "SHOULD"  # only inferred eras broke: WARN for a person
    finding = tally.finding(what=f"message(s) the {sender} sent{besides}", kept=kept, level=level)
    if finding.status == "WARN":
        return Finding.warned(
            f"{finding.message} (each of these messages' era was inferred from the run's last handshake)",
            *finding.evidence,
            run=finding.run,
        )
    return finding
