"""Which protocol era each recorded message speaks, and how that is known.

A message's era is read from the message itself where it says (a 2026-07-28 request's `_meta` or header, any
request's `MCP-Protocol-Version` header), from the `initialize` handshake that opened its session (the session id
its exchange carries), and only failing both from the run's last handshake: that last is an inference, and every
rule that uses it says so in its evidence. A response speaks the era of the request it answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backchannel.oracle.model import Evidence
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Exchange, Message

MODERN = "2026-07-28"
LEGACY = ("2025-06-18", "2025-11-25")  # the 2025 eras whose schema ships (older ones are named, not validated)

OWN_META = "its _meta or MCP-Protocol-Version header"
OWN_HEADER = "its MCP-Protocol-Version header"
AGREED = "the version its initialize answer agreed"
ASKED = "the version it asked for (its initialize was never answered)"
SESSION = "its session's initialize handshake (the Mcp-Session-Id it carried)"
ANSWERED = "the request it answers, by"
GUESSED = "the run's last initialize handshake (inferred: no session id or version header tied it to one)"
UNKNOWN = "nothing said (no handshake, header or _meta)"


@dataclass(slots=True)  # not frozen: one per message (a frozen init costs twice); treat as read-only
class Sent:
    """One message as its sender sent it, with the era it speaks and how that era is known."""

    message: Message
    payload: Any
    sender: str  # "client" or "server"
    era: str | None
    era_from: str
    answers: str | None = None  # a response's: the method of the request it answers, when known

    @property
    def text(self) -> str:
        """The message's JSON text as its sender sent it (`payload` parsed from it)."""
        if self.sender == "server" and self.message.upstream_text is not None:
            return self.message.upstream_text
        return self.message.text

    @property
    def era_inferred(self) -> bool:
        """The era came from no statement of this message or of its own session (only the run's last handshake)."""
        return self.era_from.endswith(GUESSED)

    def evidence(self, note: str) -> Evidence:
        return Evidence(kind="message", run=self.message.run_id, seq=self.message.seq, note=note)


PROTOCOL_HEADERS = frozenset({"mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id"})
_HEADER_LENGTHS = frozenset(len(name) for name in PROTOCOL_HEADERS)


@dataclass(frozen=True, slots=True)
class FlowHeaders:
    """The protocol's own headers of one exchange (lowered names, first values), read once per flow."""

    sent: dict[str, str]  # the request's MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id
    assigned: str | None  # the Mcp-Session-Id the server's response set, as the server sent it
    posted: bool  # the exchange is a POST (its headers are its own message's)

    @property
    def version(self) -> str | None:
        return self.sent.get("mcp-protocol-version")

    @property
    def session(self) -> str | None:
        return self.sent.get("mcp-session-id")


NO_HEADERS = FlowHeaders({}, None, False)


class Hints:
    """Each exchange's protocol headers, read once per flow."""

    def __init__(self, exchanges: dict[str, Exchange]) -> None:
        self._exchanges = exchanges
        self._read: dict[str | None, FlowHeaders] = {}

    def of(self, flow_id: str | None) -> FlowHeaders:
        found = self._read.get(flow_id)
        if found is None:
            exchange = self._exchanges.get(flow_id or "")
            found = NO_HEADERS if exchange is None else _read(exchange)
            self._read[flow_id] = found
        return found


def _read(exchange: Exchange) -> FlowHeaders:
    sent: dict[str, str] = {}
    for name, value in exchange.request_headers:  # only the protocol's own: the length test spares a lower()
        if len(name) in _HEADER_LENGTHS and (low := name.lower()) in PROTOCOL_HEADERS:
            sent.setdefault(low, value)
    assigned = None
    for headers in (exchange.upstream_response_headers, exchange.response_headers):
        assigned = next((v for k, v in headers if len(k) == 14 and k.lower() == "mcp-session-id"), None)
        if assigned is not None:
            break
    return FlowHeaders(sent, assigned, (exchange.method or "").upper() == "POST")


@dataclass(frozen=True, slots=True)
class Handshake:
    """One `initialize` as the client sent it, with what its answer agreed and assigned (as the server sent it)."""

    request: Message
    params: Any  # the initialize request's params, as the client sent them
    version: str | None  # the protocolVersion the answer agreed (None: never answered with one)
    session_id: str | None  # the Mcp-Session-Id the answer's HTTP response assigned

    @property
    def capabilities(self) -> dict[str, Any]:
        found = member(self.params, "capabilities")
        return found if isinstance(found, dict) else {}


class Tracker:
    """One run's handshakes as they happen: the version each session agreed, and the run's last."""

    def __init__(self, hints: Hints) -> None:
        self.hints = hints
        self.by_session: dict[str, str] = {}
        self.last: str | None = None
        self.handshakes: list[Handshake] = []

    def handshake_of(self, flow_id: str | None) -> tuple[Handshake | None, bool]:
        """The handshake that opened the session a message belongs to, and whether that is sure (its exchange's
        Mcp-Session-Id names it) or inferred (the run's last handshake)."""
        session = self.hints.of(flow_id).session
        if session:
            found = next((h for h in reversed(self.handshakes) if h.session_id == session), None)
            if found is not None:
                return found, True
        return (self.handshakes[-1], False) if self.handshakes else (None, False)

    def of_exchange(self, flow_id: str | None) -> tuple[str | None, str]:
        """The era a message says nothing of itself speaks, by the exchange that carried it."""
        headers = self.hints.of(flow_id)
        header, session = headers.version, headers.session
        if header:
            return header, OWN_HEADER
        if session and session in self.by_session:
            return self.by_session[session], SESSION
        if self.last is not None:
            return self.last, GUESSED
        return None, UNKNOWN

    def of_client_request(self, modern: bool, message: Message, params: Any, answer: Any) -> tuple[str | None, str]:
        """A client request's era; an `initialize` answered with a version records its session's handshake."""
        if modern:
            return MODERN, OWN_META
        if message.method == "initialize":
            agreed = member(member(answer, "result"), "protocolVersion")
            assigned = self.hints.of(message.flow_id).assigned
            version = agreed if isinstance(agreed, str) else None
            self.handshakes.append(Handshake(message, params, version, assigned if answer is not None else None))
            if isinstance(agreed, str):
                if assigned:
                    self.by_session[assigned] = agreed
                self.last = agreed
                return agreed, AGREED
            asked = member(params, "protocolVersion")
            if isinstance(asked, str):
                return asked, ASKED
        return self.of_exchange(message.flow_id)
