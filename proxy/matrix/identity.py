"""Who a recording is of: the client under test (the name and version it announced on the wire, and the command that
ran it), or, for a server scenario, the server under test (the name its results carry): the first each named itself
by (oracle/parties.py reads the names), neutralised for the page."""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.oracle.parties import Party, named_clients, named_servers
from backchannel.recordings.model import Recording
from backchannel.recordings.safe_text import neutralise


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


def _argv(rec: Recording) -> tuple[str, ...] | None:
    """The command of the first run that talked to the server (discovery runs only ask for help), else any."""
    talked = {m.run_id for m in rec.messages if m.direction == "to-server"}
    with_argv = [run for run in rec.runs if run.client_argv]
    chosen = next((run for run in with_argv if run.id in talked), with_argv[0] if with_argv else None)
    return None if chosen is None or chosen.client_argv is None else tuple(neutralise(a) for a in chosen.client_argv)


def _identity(party: Party | None, fallback: str, argv: tuple[str, ...] | None, role: str) -> ClientIdentity:
    if party is None:
        return ClientIdentity(fallback, None, argv, role=role)
    version = neutralise(party.version) if party.version else None  # an empty version is no version on a page
    return ClientIdentity(neutralise(party.name), version, argv, role=role)


def identify(rec: Recording, *, server_side: bool = False) -> ClientIdentity:
    """The first client name (and its version) a request announced, and the command line of the client's run; with
    `server_side` (the recording's scenario tests a server), the server's name instead."""
    if server_side:
        return _identity(next(named_servers(rec), None), "unknown server", None, "server")
    return _identity(next(named_clients(rec), None), "unknown client", _argv(rec), "client")
