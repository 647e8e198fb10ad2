"""Who talked in a recording: the tool that recorded it, and the clients and servers by the names they gave."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from backchannel.proxy.replay.through_proxy import client_template
from backchannel.recordings.model import Recording
from backchannel.recordings.shapes import Discovery, Invocation

CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
NAME_LIMIT = 200


@dataclass(frozen=True, slots=True)
class Party:
    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name} {self.version}".strip()


@dataclass(frozen=True, slots=True)
class Versions:
    tool: str
    mitmproxy: str
    clients: tuple[Party, ...]
    servers: tuple[Party, ...]
    protocol_versions: tuple[str, ...]


def _party(value: object) -> Party | None:
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        return None
    version = value.get("version")
    # cut: a name is a few words, and a report's title and table hold every one a recording gives
    return Party(value["name"][:NAME_LIMIT], version[:NAME_LIMIT] if isinstance(version, str) else "(no version)")


def _member(payload: object, *path: str) -> Any:
    for key in path:
        if not isinstance(payload, Mapping):
            return None
        payload = payload.get(key)
    return payload


def versions(rec: Recording) -> Versions:
    """From the recording's meta and its `initialize` / `server/discover` (and any message's `_meta`) exchange."""
    clients: dict[Party, None] = {}
    servers: dict[Party, None] = {}
    protocols: dict[str, None] = {}
    for message in rec.messages:
        payload = message.payload
        for found, into in (
            (_member(payload, "params", "clientInfo"), clients),
            (_member(payload, "params", "_meta", CLIENT_INFO), clients),
            (_member(payload, "result", "serverInfo"), servers),
            (_member(payload, "result", "_meta", SERVER_INFO), servers),
        ):
            party = _party(found)
            if party is not None:
                into.setdefault(party, None)
        for version in (
            _member(payload, "params", "protocolVersion"),
            _member(payload, "result", "protocolVersion"),
            _member(payload, "params", "_meta", "io.modelcontextprotocol/protocolVersion"),
        ):
            if isinstance(version, str):
                protocols.setdefault(version, None)
    info = rec.info
    return Versions(
        tool=f"{info.tool or 'backchannel'} {info.tool_version or '(unknown version)'}",
        mitmproxy=rec.meta.get("mitmproxy_version", "(unknown)"),
        clients=tuple(clients),
        servers=tuple(servers),
        protocol_versions=tuple(protocols),
    )


def client_invocation(rec: Recording) -> list[str] | None:
    """The client command line with `{url}`, as `check --client` takes it: the recorded one, else a run's."""
    recorded = Invocation.read(rec.meta)
    if recorded is not None:
        return list(recorded.argv)
    discovery = Discovery.read(rec.meta)
    if discovery is not None and discovery.invocation is not None:
        return list(discovery.invocation)
    for run in rec.runs:
        argv = client_template(run)
        if argv is not None and "{url}" in argv:
            return argv
    return None
