"""Which era an `elicitation-url-mode` run spoke, and what a 2025 run shows: each tool's server-initiated requests
on its call's stream, paired with the answers the client POSTed.

In 2026-07-28 a tool's input requests reach the client inside InputRequiredResults and come back in retries
(facts.rounds). In 2025-06-18 and 2025-11-25 the endpoint sends the same requests as `elicitation/create` requests on
the call's SSE stream and the client answers each with a JSON-RPC response of the same id (`Asked`). Which checks
apply in which era is decided here once (`era_gate`), so a 2025 client is never judged by a 2026 expectation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.recordings.model import Message, Recording, Run

MODERN = "2026-07-28"
URL_MODE_FROM = "2025-11-25"  # the first revision with URL-mode elicitation (and elicitationId, -32042)
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
# the modes each tool's requests need (the endpoint's NEEDS, read here: the oracle imports no proxy code)
NEEDS = {
    "url_rounds": ("url",),
    "url_and_form": ("url", "form"),
    "missing_mode": ("form",),
    "form_only": ("form",),
    "held_json": ("url",),
    "held_sse": ("url",),
    "url_required": ("url",),
}


def _params(message: Message) -> dict[str, Any]:
    payload = message.payload
    params = payload.get("params") if isinstance(payload, dict) else None
    return params if isinstance(params, dict) else {}


def run_era(rec: Recording, run: Run) -> str | None:
    """The era the run's client spoke: 2026-07-28 when its tools/call carried that version in `_meta`, else the
    version its `initialize` answer agreed (None: neither happened)."""
    agreed: str | None = None
    for m in rec.messages_in(run.id):
        if m.direction == "to-server" and m.kind == "request" and m.method == "tools/call":
            meta = _params(m).get("_meta")
            if isinstance(meta, dict) and meta.get(PROTOCOL_VERSION) == MODERN:
                return MODERN
        if m.direction == "to-client" and m.kind == "response" and m.method == "initialize":
            result = m.payload.get("result") if isinstance(m.payload, dict) else None
            version = result.get("protocolVersion") if isinstance(result, dict) else None
            agreed = version if isinstance(version, str) else agreed
    return agreed


def initialize_modes(rec: Recording, run: Run) -> tuple[set[str], Message | None]:
    """The elicitation modes the run's last `initialize` declared ({} means form), and that request."""
    last = None
    for m in rec.messages_in(run.id):
        if m.direction == "to-server" and m.kind == "request" and m.method == "initialize":
            last = m
    caps = _params(last).get("capabilities") if last is not None else None
    elicitation = caps.get("elicitation") if isinstance(caps, dict) else None
    if not isinstance(elicitation, dict):
        return set(), last
    return ({"form"} if not elicitation else {m for m in ("form", "url") if m in elicitation}), last


def era_gate(rec: Recording, run: Run, tool: str, *, mrtr_only: bool = False) -> Finding | None:
    """The SKIP that says why `tool` cannot be judged in the run's era (None: judge it)."""
    era = run_era(rec, run)
    if era is None or era == MODERN:
        return None
    if mrtr_only:
        return Finding.skipped(
            "mrtr-only",
            f"the run spoke {era}: this check judges a 2026-07-28 (MRTR) retry, and a {era} client gets {tool}'s "
            "request on its call's stream, with no retry to judge",
            run=run.id,
        )
    if "url" in NEEDS.get(tool, ()) and era < URL_MODE_FROM:
        return Finding.skipped(
            "no-url-mode", f"the run spoke {era}, which has no URL-mode elicitation (2025-11-25 added it)", run=run.id
        )
    declared, init = initialize_modes(rec, run)
    missing = [mode for mode in NEEDS.get(tool, ()) if mode not in declared]
    if missing:
        cited = () if init is None else (Evidence(kind="message", run=run.id, seq=init.seq, note="initialize"),)
        return Finding.skipped(
            "mode-not-declared",
            f"{tool} needs elicitation {', '.join(missing)}, which the client's initialize did not declare "
            "(2025 has no -32021: the tool answered a tool error)",
            *cited,
            run=run.id,
        )
    return None


@dataclass(frozen=True)
class Asked:
    """One request the server sent on a tool call's stream (2025 eras) and the client's answer to it, if any."""

    request: Message
    answer: Message | None

    @property
    def params(self) -> dict[str, Any]:
        return _params(self.request)

    @property
    def result(self) -> dict[str, Any] | None:
        """The answer's result (None: no answer, or an error)."""
        payload = self.answer.payload if self.answer is not None else None
        result = payload.get("result") if isinstance(payload, dict) else None
        return result if isinstance(result, dict) else None

    @property
    def mode(self) -> str:
        mode = self.params.get("mode")
        return mode if isinstance(mode, str) else "form"

    def evidence(self, note: str) -> Evidence:
        message = self.answer if self.answer is not None else self.request
        return Evidence(kind="message", run=message.run_id, seq=message.seq, note=note)


def asked(rec: Recording, run: Run, tool: str) -> list[Asked]:
    """Every request sent on the streams of `tool`'s calls, in order, each with the client's first later response
    of its id (the client POSTs it on its own, so it pairs by id within the run)."""
    messages = list(rec.messages_in(run.id))
    flows = {
        m.flow_id
        for m in messages
        if m.direction == "to-server" and m.kind == "request" and m.method == "tools/call"
        and _params(m).get("name") == tool
    }  # fmt: skip
    out = []
    for m in messages:
        if m.direction != "to-client" or m.kind != "request" or m.flow_id not in flows or m.jsonrpc_id is None:
            continue
        answer = next(
            (
                a
                for a in messages
                if a.seq > m.seq
                and a.direction == "to-server"
                and a.kind in ("response", "error")
                and a.jsonrpc_id == m.jsonrpc_id
            ),
            None,
        )
        out.append(Asked(m, answer))
    return out


def notifications(rec: Recording, run: Run, method: str) -> list[Message]:
    """The server's notifications of `method` in the run, in order."""
    return [
        m
        for m in rec.messages_in(run.id)
        if m.direction == "to-client" and m.kind == "notification" and m.method == method
    ]
