"""The ledger: what reached the proxy in a run, from the recording; it, not a regex, says what a client did."""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.recordings.model import Message, Recording


@dataclass(frozen=True, slots=True)
class Ledger:
    """One run's JSON-RPC traffic, as the proxy saw it."""

    messages: tuple[Message, ...]

    @staticmethod
    def of(rec: Recording, run_id: str) -> Ledger:
        return Ledger(tuple(rec.messages_in(run_id)))

    def requests(self, method: str) -> list[Message]:
        return [m for m in self.messages if m.direction == "to-server" and m.kind == "request" and m.method == method]

    def responses(self, method: str) -> list[Message]:
        return [
            m for m in self.messages if m.direction == "to-client" and m.method == method and m.kind != "notification"
        ]

    def tool_calls(self) -> list[Message]:
        return self.requests("tools/call")

    def retries_with_input_responses(self) -> list[Message]:
        out = []
        for message in self.tool_calls():
            params = message.payload.get("params") if isinstance(message.payload, dict) else None
            if isinstance(params, dict) and "inputResponses" in params:
                out.append(message)
        return out

    def era(self) -> str | None:
        """'legacy' if the client ran initialize (it may have probed server/discover first), 'modern' if it sent
        2026-07-28 _meta and never initialized, else None."""
        modern = False
        for message in self.messages:
            if message.direction != "to-server" or not isinstance(message.payload, dict):
                continue
            if message.method == "initialize":
                return "legacy"
            params = message.payload.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            modern = modern or (isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta)
        return "modern" if modern else None

    def legacy_version(self) -> str | None:
        for message in self.requests("initialize"):
            params = message.payload.get("params") if isinstance(message.payload, dict) else None
            if isinstance(params, dict) and isinstance(params.get("protocolVersion"), str):
                return str(params["protocolVersion"])
        return None
