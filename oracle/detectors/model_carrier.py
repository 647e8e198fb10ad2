"""The model carrier of one run: every request the coding agent sent the lab's model stand-in, read into its context
(model_context.py) or reported unread, with the names the run's server goes by, and evidence that cites it."""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.recordings.model import Recording, Run

from ..model import Evidence
from .model_attribution import ModelOccurrence, ServerNames, occurrences_in, server_names
from .model_context import ModelContext, Unread, context_of

CARRIER = "model"  # the carrier's name in reports, beside stdout, stderr, tty and file
_NAMED_UNREAD = 3  # how many unread requests a message names before it counts the rest


@dataclass(frozen=True, slots=True)
class ModelCarrier:
    """One run's model requests: the ones read and the ones the oracle could not read (never judged clean)."""

    run_id: str
    contexts: tuple[ModelContext, ...]
    unread: tuple[Unread, ...]
    names: ServerNames

    @staticmethod
    def of(rec: Recording, run: Run, nonce_name: str) -> ModelCarrier:
        exchanges = tuple(rec.model_exchanges_in(run.id))
        read = [context_of(exchange) for exchange in exchanges]
        return ModelCarrier(
            run.id,
            tuple(c for c in read if isinstance(c, ModelContext)),
            tuple(c for c in read if isinstance(c, Unread)),
            server_names(run, exchanges, nonce_name),
        )

    @property
    def exchanged(self) -> bool:
        """The run's client talked to the model stand-in at all (a coding agent)."""
        return bool(self.contexts or self.unread)

    def occurrences(self, token: str) -> list[ModelOccurrence]:
        return [found for context in self.contexts for found in occurrences_in(context, token, self.names)]

    def unread_summary(self) -> str:
        """Which requests were not read and why: `model request #4 (the request body was truncated ...)`."""
        named = [f"model request #{u.seq} ({u.reason})" for u in self.unread[:_NAMED_UNREAD]]
        more = len(self.unread) - len(named)
        return "; ".join(named) + (f"; and {more} more" if more > 0 else "")

    def unread_observation(self) -> str:
        total = len(self.unread) + len(self.contexts)
        return f"model-context-unread: {len(self.unread)} of {total} model request(s): {self.unread_summary()}"

    def unread_evidence(self) -> list[Evidence]:
        return [Evidence(kind="model", run=self.run_id, seq=u.seq, note=f"unread: {u.reason}") for u in self.unread]


def model_evidence(run_id: str, found: ModelOccurrence, length: int, note: str) -> Evidence:
    """Evidence citing a marker in a model request: the exchange's seq, the segment's JSON path in the request body,
    and the byte offset in that segment's text."""
    segment = found.segment
    tied = f" of {segment.namespace + '/' if segment.namespace else ''}{segment.tool}" if segment.tool else ""
    return Evidence(
        kind="model",
        run=run_id,
        seq=found.seq,
        path=segment.path,
        offset=found.offset,
        length=length,
        note=f"{segment.kind}{tied} at {segment.path}: {note}",
    )
