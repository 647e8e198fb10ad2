"""What a `sampling` recording shows, shared by its checks: the client run, each tool's sampling request (what the
server asked, in which era, what the client had declared, what it answered and when).

In 2026-07-28 a request is an entry of an InputRequiredResult's `inputRequests` and its answer the entry of the same
key in the retry's `inputResponses`; in the 2025 eras it is a server-initiated request on the call's stream and its
answer the client's POSTed response (or error) with its id. The user's steps and the terminal are read as the
elicitation-ui checks read them (oracle/scenarios/elicitation_ui/facts.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.scenarios.elicitation_ui.facts import judged_runs, tool_of
from backchannel.recordings.model import Message, Recording, Run

from . import SCENARIO as SCENARIO  # re-exported: checks import the name with the facts

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28/client/sampling"
SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25/client/sampling"
MODERN = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
SAMPLING = "sampling/createMessage"
MISSING_CAPABILITY = -32021


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Asked:
    """One input request of a tool's call and the client's answer to it (if any)."""

    tool: str
    call: Message  # the tools/call whose answer asked
    asked: Message  # 2026-07-28: the InputRequiredResult; 2025: the server-initiated request
    key: str  # its inputRequests key (2026-07-28) or JSON-RPC id (2025)
    method: str
    params: dict[str, Any]
    reply: Message | None  # 2026-07-28: the retry carrying the key; 2025: the client's response or error
    server_request: bool
    era: str  # the protocol version the exchange spoke
    declared: dict[str, Any]  # the client capabilities in force (the call's _meta, or initialize's)

    @property
    def answer(self) -> dict[str, Any] | None:
        """The client's answer (a result), or None: no answer, or an error."""
        payload = _dict(self.reply.payload if self.reply else None)
        if self.server_request:
            return _dict(payload["result"]) if isinstance(payload.get("result"), dict) else None
        found = _dict(_dict(payload.get("params")).get("inputResponses")).get(self.key)
        return found if isinstance(found, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error the client answered with (2025 eras only: a round's answers have no error slot)."""
        payload = _dict(self.reply.payload if self.reply else None)
        return _dict(payload["error"]) if self.server_request and "error" in payload else None

    @property
    def texts(self) -> list[str]:
        """The text blocks of a sampling request's messages, in order."""
        found: list[str] = []
        messages = self.params.get("messages")
        for message in messages if isinstance(messages, list) else ():
            content = _dict(message).get("content")
            for block in content if isinstance(content, list) else [content]:
                if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                    found.append(block["text"])
        return found

    @property
    def sampling_declared(self) -> dict[str, Any] | None:
        found = self.declared.get("sampling")
        return found if isinstance(found, dict) else None

    def evidence(self, note: str, *, reply: bool = False) -> Evidence:
        message = self.reply if reply and self.reply is not None else self.asked
        return Evidence(kind="message", run=message.run_id, seq=message.seq, note=note)


def _handshake(messages: list[Message], before: int) -> tuple[str, dict[str, Any]]:
    """The era and capabilities of the run's last initialize before seq `before` (2025 eras)."""
    version, declared = "2025-11-25", {}
    for m in messages:
        if m.seq >= before:
            break
        if m.method == "initialize" and m.direction == "to-server" and m.kind == "request":
            declared = _dict(_dict(_dict(m.payload).get("params")).get("capabilities"))
        if m.method == "initialize" and m.direction == "to-client" and m.kind == "response":
            agreed = _dict(_dict(m.payload).get("result")).get("protocolVersion")
            version = agreed if isinstance(agreed, str) else version
    return version, declared


def _answers(call: Message) -> dict[str, Any]:
    return _dict(_dict(_dict(call.payload).get("params")).get("inputResponses"))


def _modern(call: Message) -> tuple[str, dict[str, Any]]:
    meta = _dict(_dict(_dict(call.payload).get("params")).get("_meta"))
    version = meta.get(META_VERSION)
    return (version if isinstance(version, str) else MODERN), _dict(meta.get(META_CAPABILITIES))


def asked_in(rec: Recording, run: Run, tool: str, method: str = SAMPLING) -> list[Asked]:
    """Every `method` request `tool`'s calls were asked in the run, in order, each with the client's answer."""
    messages = list(rec.messages_in(run.id))
    calls = {(m.flow_id, m.jsonrpc_id): m for m in messages if m.direction == "to-server" and m.method == "tools/call"}
    flows = {m.flow_id: m for m in calls.values()}
    found: list[Asked] = []
    for m in messages:
        if m.direction != "to-client":
            continue
        if m.kind == "request" and m.method == method:
            call = flows.get(m.flow_id)
            if call is None or tool_of(call) != tool or m.jsonrpc_id is None:
                continue
            reply = next((r for r in messages if r.seq > m.seq and r.direction == "to-server"
                          and r.kind in ("response", "error") and r.jsonrpc_id == m.jsonrpc_id), None)  # fmt: skip
            era, declared = _handshake(messages, m.seq)
            params = _dict(_dict(m.payload).get("params"))
            found.append(Asked(tool, call, m, m.jsonrpc_id, method, params, reply, True, era, declared))
            continue
        call = calls.get((m.flow_id, m.jsonrpc_id)) if m.kind == "response" else None
        if call is None or tool_of(call) != tool:
            continue
        requests = _dict(_dict(_dict(m.payload).get("result")).get("inputRequests"))
        era, declared = _modern(call)
        for key, request in requests.items():
            if _dict(request).get("method") != method:
                continue
            retry = next(
                (c for c in calls.values() if tool_of(c) == tool and c.seq > m.seq and key in _answers(c)), None
            )
            params = _dict(_dict(request).get("params"))
            found.append(Asked(tool, call, m, key, method, params, retry, False, era, declared))
    return found


def refused(rec: Recording, run: Run, tool: str) -> bool:
    """The server refused the tool for a capability the client did not declare (-32021, or a 2025 error result)."""
    for m in rec.messages_in(run.id):
        if m.direction != "to-client" or m.kind not in ("response", "error"):
            continue
        payload = _dict(m.payload)
        if _dict(payload.get("error")).get("code") == MISSING_CAPABILITY and tool in str(payload):
            return True
        content = _dict(payload.get("result")).get("content")
        text = str(content) if isinstance(content, list) else ""
        if f"{tool} needs the sampling client capability" in text:
            return True
    return False


def exercised(rec: Recording, tool: str, *, wire_only: bool = False) -> tuple[Run, Asked] | Finding:
    """The client run and the tool's first sampling request, or the ERROR/SKIP that says why it cannot be judged; a
    check that reads what the client showed (not `wire_only`) SKIPs a run a person drove (oracle/by_hand.py)."""
    runs = judged_runs(rec, by_hand=wire_only)
    if isinstance(runs, Finding):
        return runs
    for run in runs:
        found = asked_in(rec, run, tool)
        if found:
            return run, found[0]
    run = runs[-1]
    if any(refused(rec, each, tool) for each in runs):
        return Finding.skipped(
            "sampling-not-declared", "the client did not declare sampling: none was sent", run=run.id
        )
    return Finding.skipped("tool-not-called", f"the client never got {tool}'s sampling request", run=run.id)
