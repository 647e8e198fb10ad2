"""Who talked in a recording: the tool that recorded it, and the clients and servers by the names they gave."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from backchannel.oracle import parties
from backchannel.oracle.parties import named_clients, named_servers
from backchannel.proxy.replay.through_proxy import client_template
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Recording
from backchannel.recordings.shapes import Discovery, Invocation


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


def _distinct(named: Iterable[parties.Party]) -> tuple[Party, ...]:
    """Each party once, in the order it first named itself, as the report shows it."""
    return tuple(dict.fromkeys(Party(p.name, "(no version)" if p.version is None else p.version) for p in named))


def versions(rec: Recording) -> Versions:
    """From the recording's meta, the names its clients and servers gave (oracle/parties.py), and the protocol
    versions its `initialize` / `server/discover` exchanges and per-request `_meta` spoke."""
    protocols: dict[str, None] = {}
    for message in rec.messages:
        payload = message.payload
        for version in (
            member(payload, "params", "protocolVersion"),
            member(payload, "result", "protocolVersion"),
            member(payload, "params", "_meta", "io.modelcontextprotocol/protocolVersion"),
        ):
            if isinstance(version, str):
                protocols.setdefault(version, None)
    info = rec.info
    return Versions(
        tool=f"{info.tool or 'backchannel'} {info.tool_version or '(unknown version)'}",
        mitmproxy=rec.meta.get("mitmproxy_version", "(unknown)"),
        clients=_distinct(named_clients(rec)),
        servers=_distinct(named_servers(rec)),
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
