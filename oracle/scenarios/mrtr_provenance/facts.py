"""What the `mrtr-provenance` recording shows, shared by its checks: runs by role, the gate, and each arm's facts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

from backchannel.oracle import harness
from backchannel.oracle.by_hand import unseen_by_lab
from backchannel.oracle.detectors.attribution import Occurrence, judge_occurrence
from backchannel.oracle.detectors.carriers import Carrier, carriers, lab_files
from backchannel.oracle.detectors.markers import WITNESS_FILE, Markers, occurrences, read_marker
from backchannel.oracle.detectors.model_attribution import (
    SERVER_NAME_FACT,
    ModelOccurrence,
    ServerNames,
    occurrences_in,
)
from backchannel.oracle.detectors.model_carrier import CARRIER, ModelCarrier, model_evidence
from backchannel.oracle.detectors.model_context import ModelContext, context_of
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.session.facts import INPUT_METHODS, session_of
from backchannel.recordings.model import Message, ModelExchange, Recording, Run
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
    """The server's nonce-tagged name, the name a coding agent's configuration gave it (the same name with the
    characters the agent's tool names refuse made `_`: what its UI shows), and every origin the client could know it
    by."""
    out = [markers_of(rec).server_name]
    configured = run.detail.facts.get(SERVER_NAME_FACT)
    if isinstance(configured, str) and configured and configured not in out:
        out.append(configured)
    for url in (run.detail.url or "", run.upstream):
        parts = urlsplit(url)
        if parts.hostname and parts.port:
            out += [f"{parts.scheme}://{parts.hostname}:{parts.port}", f"{parts.hostname}:{parts.port}"]
    return out


def carrier_evidence(run: Run, carrier: Carrier, offset: int, length: int, note: str) -> Evidence:
    if carrier.name == "file":
        return Evidence(kind="file", run=run.id, path=carrier.path, offset=offset, length=length, note=note)
    return Evidence(kind="terminal", run=run.id, stream=carrier.name, offset=offset, length=length, note=note)


def model_carrier(rec: Recording, run: Run) -> ModelCarrier:
    """The run's model requests (a coding agent's model context), read or reported unread; read once per run of the
    recording being judged (eleven checks and facts ask for the same run's, and reading every model request body
    was most of judging an agent's recording)."""
    name = markers_of(rec).server_name
    if not _CARRIERS or _CARRIERS[0][0] is not rec:
        _CARRIERS[:] = [(rec, {})]
    known = _CARRIERS[0][1]
    said = known.get(id(run))
    if said is None or said[0] is not run or said[1] != name:
        said = known[id(run)] = (run, name, ModelCarrier.of(rec, run, name))
    return said[2]


# the recording last judged and its runs' carriers, by the run object's identity (held, so never reused); one
# recording only, as session.facts.sessions keeps one: a corpus never holds more than the one being judged
_CARRIERS: list[tuple[Recording, dict[int, tuple[Run, str, ModelCarrier]]]] = []


def token_seen(rec: Recording, run: Run, token: str) -> list[Evidence]:
    found = []
    for carrier in carriers(rec, run.id):
        for offset in occurrences(carrier.data, token):
            found.append(carrier_evidence(run, carrier, offset, len(token), f"{token} appears"))
    for occurrence in model_carrier(rec, run).occurrences(token):
        found.append(model_evidence(run.id, occurrence, len(token), f"{token} appears"))
    return found


def _planted_request(markers: Markers, *, labelled: bool) -> ModelExchange:
    """A model request as a coding agent would send it, with the body marker in a bare user turn or in the result
    of a call to the server's own tool."""
    tool = f"mcp__{markers.server_name}__status"
    turns: list[object] = [{"role": "user", "content": f"checking repository\n{markers.body}\n"}]
    if labelled:
        turns = [
            {"role": "user", "content": "checking repository"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "planted", "name": tool, "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "planted", "content": markers.body}]},
        ]
    body = json.dumps({"messages": turns}).encode()
    return ModelExchange(seq=0, run_id="", api="anthropic-messages", method="POST", path="", request_body=body)


def _model_self_test(markers: Markers) -> str | None:
    names = ServerNames((markers.server_name,), known=True)
    for labelled in (False, True):
        context = context_of(_planted_request(markers, labelled=labelled))
        if not isinstance(context, ModelContext):
            return f"the model-context reader could not read a planted request: {context.reason}"
        found = list(occurrences_in(context, markers.body, names))
        if len(found) != 1:
            return f"the model-context attribution found {len(found)} planted occurrence(s), not 1"
        if found[0].attributed != labelled:
            which = "fired on a planted labelled" if labelled else "did not fire on a planted bare"
            return f"the model-context attribution {which} occurrence"
    return None


def attribution_self_test(markers: Markers) -> str | None:
    """The attribution detector must fire on a planted bare occurrence and stay silent on a fenced one, in a
    terminal and in a model request (a bare user turn, and the result of a call to the server's own tool)."""
    body = markers.body.encode("utf-8", "surrogatepass")
    bare = b"checking repository\n" + body + b"\n"
    fenced = b"[input request from MCP server, untrusted text follows]\n  | " + body + b"\n"
    if judge_occurrence(bare, bare.index(body), len(body), [markers.server_name]).attributed:
        return "the attribution detector did not fire on a planted bare occurrence"
    if not judge_occurrence(fenced, fenced.index(body), len(body), [markers.server_name]).attributed:
        return "the attribution detector fired on a planted fenced occurrence"
    return _model_self_test(markers)


def gate(rec: Recording) -> Finding | None:
    """A SKIP or ERROR that stops every arm before it is judged, or None when the arms can be judged.

    A harness that did not see its runs (proxy died, interrupted, a client that never reached the endpoint) is
    ERROR before anything else: its silence must not read as a SKIP."""
    broken = harness.first_problem(rec)
    if broken is not None:
        return broken
    driven = unseen_by_lab(rec)  # a host a person drove: no terminal or files to read its attribution from
    if driven is not None:
        return driven
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
    blind = _marker_reader_blind(rec)
    if blind is not None:
        return blind
    control = first_run(rec, "control")
    if control is None:
        return Finding.errored("incomplete-recording", "the recording has no CONTROL run")
    if not token_seen(rec, control, markers.content):
        model = model_carrier(rec, control)
        unread = f" (and {model.unread_observation()})" if model.unread else ""
        return Finding.skipped(
            "no-observable-context-surface",
            f"the CONTROL result's content marker {markers.content} appears in nothing the run emitted{unread}, so "
            "this run cannot see what the client does with server text",
            Evidence(kind="run", run=control.id, note="CONTROL"),
            *model.unread_evidence(),
        )
    return None


def marker_gate(rec: Recording) -> Finding | None:
    """The part of `gate` an arm decided by a lab file alone needs: a harness that saw its runs, and a marker reader
    that read the marker the tool wrote itself (whether CONTROL showed server text does not matter to a file)."""
    broken = harness.first_problem(rec)
    if broken is not None:
        return broken
    if first_run(rec, "witness-marker") is None and first_run(rec, "directive") is None:
        return None  # nothing staged the arm (no coding agent): the check says so, not a blind reader
    return _marker_reader_blind(rec)


def _marker_reader_blind(rec: Recording) -> Finding | None:
    """ERROR unless the marker reader read the marker the tool wrote itself in the witness-marker run."""
    marker_run = first_run(rec, "witness-marker")
    reading = read_marker(lab_files(rec, marker_run.id), WITNESS_FILE, markers_of(rec).witness) if marker_run else None
    if reading is None or not reading.carries_nonce:
        return Finding.errored("witness-marker-blind", "the marker reader could not read the marker the tool wrote")
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
    """One occurrence of the probe's body marker in a carrier, judged by that carrier's attribution rule: the
    window before it in a terminal or file (attribution.py), the request's structure in the model context
    (model_attribution.py). `names_server` is None when the run did not record the name its agent knows the server by.
    """

    carrier: str  # "stdout", "stderr", "tty", "file" or "model"
    attributed: bool
    names_server: bool | None
    terminal: tuple[Carrier, Occurrence] | None = None
    model: ModelOccurrence | None = None

    def evidence(self, run: Run, length: int, note: str) -> Evidence:
        if self.model is not None:
            return model_evidence(run.id, self.model, length, note)
        if self.terminal is None:  # every Shown is built with one of the two
            return Evidence(kind="run", run=run.id, note=note)
        carrier, occurrence = self.terminal
        return carrier_evidence(run, carrier, occurrence.offset, length, note)

    @property
    def undecided(self) -> bool:
        """Not attributed by structure, but the run did not record the name its agent knows the server by, so a
        label with that name cannot be ruled out: neither a finding nor clean."""
        return not self.attributed and self.names_server is None

    @property
    def bare_note(self) -> str:
        """Why an unattributed occurrence is: in the words of its carrier's rule."""
        if self.model is not None:
            return f"in a {self.model.segment.kind} turn with nothing naming its source"
        return "no provenance anchor in the 512 bytes before"


def shown_body(rec: Recording, run: Run) -> list[Shown]:
    markers = markers_of(rec)
    anchors = anchors_for(rec, run)
    out = []
    for carrier in carriers(rec, run.id):
        for offset in occurrences(carrier.data, markers.body):
            judged = judge_occurrence(carrier.data, offset, len(markers.body), anchors)
            out.append(Shown(carrier.name, judged.attributed, judged.names_server, terminal=(carrier, judged)))
    for found in model_carrier(rec, run).occurrences(markers.body):
        out.append(Shown(CARRIER, found.attributed, found.names_server, model=found))
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
