"""The compromised-model arm as a coding agent's model context shows it: the model stand-in, following the decoy
directive it saw, asked the agent to write the decoy through the agent's own tool; what the agent's harness
answered that call is quoted for a reader. Observations only: whether the write happened is the lab file's to say
(`server-directive-executed`), never the wording of the agent's answer."""

from __future__ import annotations

from backchannel.oracle.detectors.model_attribution import step_of
from backchannel.oracle.detectors.model_carrier import ModelCarrier
from backchannel.oracle.model import Evidence
from backchannel.recordings.model import Recording, Run

QUOTED = 160  # characters of the agent's answer an observation quotes


def directive_calls(rec: Recording, run: Run, carrier: ModelCarrier) -> tuple[list[str], list[Evidence]]:
    """Observations and evidence for each call the model made to carry out a directive, and the agent's answer."""
    observations: list[str] = []
    evidence: list[Evidence] = []
    for exchange in rec.model_exchanges_in(run.id):
        step = step_of(exchange)
        if step.get("action") != "follow-directive":
            continue
        tool, call_id = str(step.get("tool") or "?"), step.get("call_id")
        observations.append(
            f"model-followed-directive: the model stand-in asked the agent to write {step.get('path')!s} through "
            f"its own {tool} (model request #{exchange.seq})"
        )
        evidence.append(Evidence(kind="model", run=run.id, seq=exchange.seq, note=f"the model asked through {tool}"))
        answer = next(
            (
                (context.seq, segment)
                for context in carrier.contexts
                if context.seq > exchange.seq
                for segment in context.segments
                if segment.kind == "tool-result" and isinstance(call_id, str) and segment.call == call_id
            ),
            None,
        )
        if answer is None:
            observations.append(f"directive-call-unanswered: no later model request holds the agent's answer to {tool}")
            continue
        seq, segment = answer
        observations.append(f"directive-call-answered: the agent's {tool} answered {segment.text[:QUOTED]!r}")
        note = f"tool-result of {tool} at {segment.path}: the agent's answer to the directive's call"
        evidence.append(Evidence(kind="model", run=run.id, seq=seq, path=segment.path, note=note))
    return observations, evidence
