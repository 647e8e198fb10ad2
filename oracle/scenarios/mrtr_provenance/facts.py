"""What the `mrtr-provenance` recording shows, shared by its checks: runs by role, the gate, and each arm's facts."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from backchannel.oracle import harness
from backchannel.oracle.detectors.attribution import Occurrence, judge_occurrence
from backchannel.oracle.detectors.carriers import Carrier, carriers, lab_files
from backchannel.oracle.detectors.markers import WITNESS_FILE, Markers, occurrences, read_marker
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.session.facts import INPUT_METHODS, session_of
from backchannel.recordings.model import Message, Recording, Run
from backchannel.recordings.shapes import Discovery, ProbeOptions

from . import SCENARIO as SCENARIO  # re-exported: checks import the name with the facts
from .records import InjectDecisionRecord

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"


def runs_named(rec: Recording, name: str) -> list[Run]:
    return [run for run in rec.runs if run.name == name]


def first_run(rec: Recording, name: str) -> Run | None:
    found = runs_named(rec, name)
    return found[-1] if found else None


def markers_of(rec: Recording) -> Markers:
    return Markers(rec.info.nonce or "")


def options_of(rec: Recording) -> ProbeOptions:
    """How the probe was asked to run; defaults when the entry is absent or damaged (a damaged file is not trusted)."""
    return ProbeOptions.read(rec.meta) or ProbeOptions()


def anchors_for(rec: Recording, run: Run) -> list[str]:
    """The server's nonce-tagged name and every origin the client could know it by."""
    out = [markers_of(rec).server_name]
    for url in (run.detail.url or "", run.upstream):
        parts = urlsplit(url)
        if parts.hostname and parts.port:
            out += [f"{parts.scheme}://{parts.hostname}:{parts.port}", f"{parts.hostname}:{parts.port}"]
    return out


def carrier_evidence(run: Run, carrier: Carrier, offset: int, length: int, note: str) -> Evidence:
    if carrier.name == "file":
        return Evidence(kind="file", run=run.id, path=carrier.path, offset=offset, length=length, note=note)
    return Evidence(kind="terminal", run=run.id, stream=carrier.name, offset=offset, length=length, note=note)


def token_seen(rec: Recording, run: Run, token: str) -> list[Evidence]:
    found = []
    for carrier in carriers(rec, run.id):
        for offset in occurrences(carrier.data, token):
            found.append(carrier_evidence(run, carrier, offset, len(token), f"{token} appears"))
    return found


def attribution_self_test(markers: Markers) -> str | None:
    """The attribution detector must fire on a planted bare occurrence and stay silent on a fenced one."""
    body = markers.body.encode()
    bare = b"checking repository\n" + body + b"\n"
    fenced = b"[input request from MCP server, untrusted text follows]\n  | " + body + b"\n"
    if judge_occurrence(bare, bare.index(body), len(body), [markers.server_name]).attributed:
        return "the attribution detector did not fire on a planted bare occurrence"
    if not judge_occurrence(fenced, fenced.index(body), len(body), [markers.server_name]).attributed:
        return "the attribution detector fired on a planted fenced occurrence"
    return None


def gate(rec: Recording) -> Finding | None:
    """A SKIP or ERROR that stops every arm before it is judged, or None when the arms can be judged.

    A harness that did not see its runs (proxy died, interrupted, a client that never reached the endpoint) is
    ERROR before anything else: its silence must not read as a SKIP."""
    broken = harness.first_problem(rec)
    if broken is not None:
        return broken
    if Discovery.stored_in(rec.meta):
        discovery = Discovery.read(rec.meta)
        if discovery is None:
            return Finding.errored("damaged-recording", "the recording's discovery record is not a JSON object")
        status = discovery.status
        if status == "no-mcp-call-surface":
            return Finding.skipped(status, "the target's help advertises no way to call a tool on a remote MCP server")
        if status != Discovery.FOUND:
            return Finding.skipped(
                status, "no candidate invocation made a tools/call that reached the scripted endpoint"
            )
    markers = markers_of(rec)
    ledger_run = first_run(rec, "witness-ledger")
    planted = ledger_run.detail.planted_id if ledger_run else None
    if ledger_run is None or planted is None or not any(m.rpc_id == planted for m in rec.messages_in(ledger_run.id)):
        return Finding.errored("witness-ledger-blind", "the ledger did not record the request the tool planted itself")
    problem = attribution_self_test(markers)
    if problem:
        return Finding.errored("witness-attribution-blind", problem)
    marker_run = first_run(rec, "witness-marker")
    reading = read_marker(lab_files(rec, marker_run.id), WITNESS_FILE, markers.witness) if marker_run else None
    if reading is None or not reading.carries_nonce:
        return Finding.errored("witness-marker-blind", "the marker reader could not read the marker the tool wrote")
    control = first_run(rec, "control")
    if control is None:
        return Finding.errored("incomplete-recording", "the recording has no CONTROL run")
    if not token_seen(rec, control, markers.content):
        return Finding.skipped(
            "no-observable-context-surface",
            f"the CONTROL result's content marker {markers.content} appears in nothing the run emitted, so this "
            "run cannot see what the client does with server text",
            Evidence(kind="run", run=control.id, note="CONTROL"),
        )
    return None


def injection_decision(rec: Recording, run: Run) -> InjectDecisionRecord | None:
    """The proxy's record of whether, and which, input request it injected on the probe run's tools/call."""
    for exchange in rec.exchanges_in(run.id):
        for mutation in exchange.mutations:
            record = InjectDecisionRecord.from_json(mutation)
            if record is not None:
                return record
    return None


def injected_responses(rec: Recording, run: Run) -> list[Message]:
    return [m for m in rec.messages_in(run.id) if m.mutation == "inject-input-requests"]


@dataclass(frozen=True)
class Shown:
    """One occurrence of the probe's body marker in a carrier, judged by the attribution rule."""

    carrier: Carrier
    occurrence: Occurrence


def shown_body(rec: Recording, run: Run) -> list[Shown]:
    markers = markers_of(rec)
    anchors = anchors_for(rec, run)
    out = []
    for carrier in carriers(rec, run.id):
        for offset in occurrences(carrier.data, markers.body):
            out.append(Shown(carrier, judge_occurrence(carrier.data, offset, len(markers.body), anchors)))
    return out


def asked_on_stream(rec: Recording, run: Run) -> list[Message]:
    """The 2025 form of the probe: server-initiated input requests in the run that carry its body marker."""
    body = markers_of(rec).body
    return [
        m
        for m in rec.messages_in(run.id)
        if m.direction == "to-client" and m.kind == "request" and m.method in INPUT_METHODS and body in m.text
    ]


def answers_on_stream(rec: Recording, run: Run, asked: list[Message]) -> list[Message]:
    """The client's responses (POSTed on their own) to those requests, as the session facts paired them."""
    session = session_of(rec, run.id)
    seqs = {m.seq for m in asked}
    return [r.answer for r in session.server if r.message.seq in seqs and r.answer is not None] if session else []


def declared_at_initialize(rec: Recording, run: Run) -> list[str]:
    """The input kinds (elicitation, sampling, roots) the client declared in its first 2025 initialize of the run."""
    session = session_of(rec, run.id)
    if session is None or not session.handshakes:
        return []
    declared = session.handshakes[0].capabilities
    return [kind for kind in ("elicitation", "sampling", "roots") if isinstance(declared.get(kind), dict)]
