"""Who talked in a recording, by the names they gave: the clientInfo a client's requests carry and the serverInfo a
server's results carry. The one reader of those keys: the matrix's column and a bug report's title both come here.

2026-07-28 clients say who they are in every request's `_meta`, older ones once, in `initialize`; a 2026-07-28
server says it in every result's `_meta`, and `initialize` and `server/discover` results carry it as `serverInfo`.
Names are returned as sent (cut, never neutralised): each renderer makes them safe for its own page.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from backchannel.recordings.json_form import member
from backchannel.recordings.model import Recording, Run

META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
# a name is a label, not a document: a hostile recording must not fill a page or a title with one. Long enough for
# any real name and version (and for a hostile one to be seen for what it is), cut visibly
LONGEST = 200
CUT = "…"


@dataclass(frozen=True, slots=True)
class Party:
    """A client or server as it named itself; `version` is None when it gave none (or not as text)."""

    name: str
    version: str | None


def _cut(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value if len(value) <= LONGEST else value[:LONGEST] + CUT


def _party(info: object) -> Party | None:
    """A party needs a name; its version is kept as given (an empty one too), None when it is not a string."""
    if not isinstance(info, Mapping) or not (name := _cut(info.get("name"))):
        return None
    return Party(name, _cut(info.get("version")))


def client_parties(payload: object) -> Iterator[Party]:
    """The clients a request names: its `initialize` clientInfo, then its per-request `_meta`."""
    if member(payload, "method") == "initialize":
        yield from _found(member(payload, "params", "clientInfo"))
    yield from _found(member(payload, "params", "_meta", META_CLIENT_INFO))


def server_parties(payload: object) -> Iterator[Party]:
    """The servers a result names: its own `serverInfo` (initialize, server/discover), then its `_meta`."""
    yield from _found(member(payload, "result", "serverInfo"))
    yield from _found(member(payload, "result", "_meta", META_SERVER_INFO))


def _found(info: object) -> Iterator[Party]:
    party = _party(info)
    if party is not None:
        yield party


def named_clients(rec: Recording) -> Iterator[Party]:
    """Each client naming in the recording's requests, in order (repeats too: a 2026-07-28 client names itself in
    every request)."""
    return (p for m in rec.messages if m.direction == "to-server" for p in client_parties(m.payload))


def named_servers(rec: Recording) -> Iterator[Party]:
    """Each server naming in the recording's results, in order (repeats too)."""
    return (p for m in rec.messages if m.direction == "to-client" for p in server_parties(m.payload))


AGENT_FACT = "agent"  # the run fact the agent lab records: which coding agent's recipe ran (proxy/run/agent_lab.py)


def agent_of(run: Run) -> str | None:
    """The coding agent a run drove (its recipe's name), or None for a client that follows a scenario's contract.

    An agent answers input requests by its own policy (non-interactive Claude Code cancels every elicitation): a
    check whose expectation comes from a scenario's contract (accept this, decline that) cannot hold it to one."""
    found = run.detail.facts.get(AGENT_FACT)
    return found if isinstance(found, str) and found else None
