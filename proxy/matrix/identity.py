"""Who a recording is of: the client under test (the name and version it announced on the wire, and the command that
ran it), or, for a server scenario, the server under test (the name its results carry in `_meta`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backchannel.recordings.model import Recording
from backchannel.recordings.safe_text import neutralise

# 2026-07-28 clients send who they are in every request's `_meta`; older ones once, in `initialize`
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
# a client name is a label, not a document: a hostile recording must not fill the page with one
LONGEST = 120


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """A client as the recording shows it (every text neutralised); `name` is "unknown client" when it never said."""

    name: str
    version: str | None
    argv: tuple[str, ...] | None
    role: str = "client"  # "server" for a recording of a server scenario: the column is the server under test

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}" if self.version else self.name


def _short(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    return neutralise(value if len(value) <= LONGEST else value[:LONGEST] + "…")


def _client_info(payload: Any) -> dict[str, Any] | None:
    """The clientInfo object a request carries, from `initialize` params or from the per-request `_meta`."""
    if not isinstance(payload, dict) or not isinstance(params := payload.get("params"), dict):
        return None
    if payload.get("method") == "initialize" and isinstance(info := params.get("clientInfo"), dict):
        return info
    meta = params.get("_meta")
    if isinstance(meta, dict) and isinstance(info := meta.get(META_CLIENT_INFO), dict):
        return info
    return None


def _argv(rec: Recording) -> tuple[str, ...] | None:
    """The command of the first run that talked to the server (discovery runs only ask for help), else any."""
    talked = {m.run_id for m in rec.messages if m.direction == "to-server"}
    with_argv = [run for run in rec.runs if run.client_argv]
    chosen = next((run for run in with_argv if run.id in talked), with_argv[0] if with_argv else None)
    return None if chosen is None or chosen.client_argv is None else tuple(neutralise(a) for a in chosen.client_argv)


def _server_info(payload: Any) -> dict[str, Any] | None:
    """The serverInfo a 2026-07-28 result carries in `_meta` (or a discover result's own `serverInfo`)."""
    result = payload.get("result") if isinstance(payload, dict) else None
    if not isinstance(result, dict):
        return None
    meta = result.get("_meta")
    if isinstance(meta, dict) and isinstance(info := meta.get(META_SERVER_INFO), dict):
        return info
    return info if isinstance(info := result.get("serverInfo"), dict) else None


def _server(rec: Recording) -> ClientIdentity:
    for message in rec.messages:
        if message.direction == "to-client" and (info := _server_info(message.payload)) is not None:
            if (name := _short(info.get("name"))) is not None:
                return ClientIdentity(name, _short(info.get("version")), None, role="server")
    return ClientIdentity("unknown server", None, None, role="server")


def identify(rec: Recording, *, server_side: bool = False) -> ClientIdentity:
    """The first client name (and its version) a request announced, and the command line of the client's run; with
    `server_side` (the recording's scenario tests a server), the server's name instead."""
    if server_side:
        return _server(rec)
    for message in rec.messages:
        if message.direction != "to-server":
            continue
        info = _client_info(message.payload)
        if info is not None and (name := _short(info.get("name"))) is not None:
            return ClientIdentity(name, _short(info.get("version")), _argv(rec))
    return ClientIdentity("unknown client", None, _argv(rec))
