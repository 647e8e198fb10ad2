"""What a `roots` recording shows: every roots list a client gave, in either era, and the folders its lab configured.

A roots answer is found wherever the client gave one: in 2026-07-28 the `inputResponses` entry of the retry that
answered a round's `roots/list` input request; in a 2025 era the client's POSTed response to a `roots/list` the
server sent, on a call's stream or on the client's GET stream (the session facts pair them by run and id, whatever
stream the request came on). The folders the lab configured are the run's facts (proxy/scenarios/roots/runner.py):
the lab's working folder (where the client runs, as given and as resolved) and its HOME.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from backchannel.oracle.model import Evidence
from backchannel.oracle.session.capabilities import declared
from backchannel.oracle.session.facts import MODERN, cite, sessions
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Message, Recording, Run

from . import SCENARIO as SCENARIO

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28/client/roots"
SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25/client/roots"
TOOL = "list_roots"  # the tool whose call asks for the client's roots
CONTRACT_RUN = "contract"  # the client as its user configured it
UNDECLARED_RUN = "undeclared"  # the dedicated run: its tool asks even a client that declared no roots
ASK_UNDECLARED = "ask_undeclared"  # the endpoint setting of that run
LAB_FOLDERS = "lab_folders"  # run fact: the folders the lab configured, a JSON array of paths
LAB_HOME = "lab_home"  # run fact: the lab's HOME
LIST_CHANGED = "notifications/roots/list_changed"


@dataclass(frozen=True)
class RootsAnswer:
    """One roots/list the client was asked, and what it answered (as it sent it)."""

    run: Run
    era: str | None  # the era the request spoke
    via: str  # where the request came: "MRTR input request", "the call's stream", "the GET stream"
    asked: Message  # the server's roots/list request, or the input_required result carrying it
    answer: Message | None  # the client's response, or its retry; None: never answered
    result: Any  # the answer's result as sent (None: an error, or no answer)
    session: str | None  # 2025: the Mcp-Session-Id of the handshake that opened the session

    @property
    def roots(self) -> list[Any] | None:
        """The roots list the client gave; None when it gave none (an error, no answer, no list)."""
        found = member(self.result, "roots")
        return found if isinstance(found, list) else None

    @property
    def modern(self) -> bool:
        return self.era == MODERN

    def evidence(self, note: str) -> tuple[Evidence, ...]:
        asked = cite(self.asked, f"roots/list ({self.via})")
        return (asked,) if self.answer is None else (asked, cite(self.answer, note))


def roots_runs(rec: Recording) -> list[Run]:
    return [run for run in rec.runs if run.scenario == SCENARIO]


def answers(rec: Recording) -> list[RootsAnswer]:
    """Every roots/list asked in the scenario's runs, in recording order, with the client's answer."""
    runs = {run.id: run for run in roots_runs(rec)}
    gets = {x.flow_id for x in rec.exchanges if (x.method or "").upper() == "GET"}
    found: list[RootsAnswer] = []
    for session in sessions(rec):
        run = runs.get(session.run_id or "")
        if run is None:
            continue
        for request in session.server:
            if request.message.method != "roots/list":
                continue
            via = "the GET stream" if request.message.flow_id in gets else "the call's stream"
            result = member(request.answered_as_sent, "result")
            session_id = request.handshake.session_id if request.handshake is not None else None
            found.append(RootsAnswer(run, request.era, via, request.message, request.answer, result, session_id))
        for round_ in session.rounds:
            asked = round_.result.get("inputRequests")
            for key, value in asked.items() if isinstance(asked, dict) else ():
                if member(value, "method") != "roots/list":
                    continue
                retry = round_.retry
                responses = retry.params.get("inputResponses") if retry is not None else None
                result = responses.get(key) if isinstance(responses, dict) else None
                at = round_.request.answer or round_.request.message
                answer = retry.message if retry is not None else None
                found.append(RootsAnswer(run, MODERN, "MRTR input request", at, answer, result, None))
    return sorted(found, key=lambda a: a.asked.seq)


def configured(run: Run) -> tuple[list[str], str | None]:
    """The folders the lab configured for `run` (normalised paths) and its HOME; ([], None) when not recorded.

    The run's facts say, when they are its own: their HOME is the one the run's client was launched with. A replay
    (`check --replay`) carries the recorded run's facts into a new lab; there the folder follows the lab the client
    did run in: the working folder beside its HOME (proxy/run/lab.py: `<lab>/home`, `<lab>/work`)."""
    home = run.detail.facts.get(LAB_HOME)
    if not isinstance(home, str) or not home.startswith("/"):
        return [], None
    if run.lab_home is not None and posixpath.normpath(run.lab_home) != posixpath.normpath(home):
        launched = posixpath.normpath(run.lab_home)
        return [posixpath.join(posixpath.dirname(launched), "work")], launched
    raw = run.detail.facts.get(LAB_FOLDERS)
    try:
        folders = json.loads(raw) if isinstance(raw, str) else []
    except ValueError:
        folders = []
    paths = [posixpath.normpath(f) for f in folders if isinstance(f, str) and f.startswith("/")]
    return paths, posixpath.normpath(home)


def uri_of(root: Any) -> Any:
    return member(root, "uri")


def is_file_uri(uri: Any) -> bool:
    """A `file://` URI: the scheme `file` (case-insensitive, RFC 3986) followed by `//`."""
    return isinstance(uri, str) and uri[:7].lower() == "file://"


def path_of(uri: str) -> str:
    """The local path a file:// URI names (its percent-escapes decoded), normalised."""
    return posixpath.normpath(unquote(urlsplit(uri).path) or "/")


def within(path: str, folders: Sequence[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def shown(roots: Sequence[Any], limit: int = 5) -> str:
    """A root list as a person reads it in a finding: the uris, JSON-quoted, the first `limit`."""
    uris = [json.dumps(uri_of(root) if isinstance(root, dict) else root)[:120] for root in roots[:limit]]
    more = f" and {len(roots) - limit} more" if len(roots) > limit else ""
    return "[" + ", ".join(uris) + "]" + more


def by_run(found: Sequence[RootsAnswer]) -> Iterator[tuple[Run, list[RootsAnswer]]]:
    runs: dict[str, tuple[Run, list[RootsAnswer]]] = {}
    for answer in found:
        runs.setdefault(answer.run.id, (answer.run, []))[1].append(answer)
    yield from runs.values()


def handshake_roots(rec: Recording, run: Run, session_id: str | None) -> Mapping[str, Any] | None:
    """The roots capability the 2025 handshake of `session_id` (in `run`) declared, or None."""
    for session in sessions(rec):
        if session.run_id != run.id:
            continue
        for handshake in session.handshakes:
            if handshake.session_id == session_id and "roots" in handshake.capabilities:
                value = handshake.capabilities["roots"]
                return value if isinstance(value, dict) else {}
    return None


def declared_roots(rec: Recording, run: Run) -> Mapping[str, Any] | None:
    """What the run's client declared as its roots capability (the first request that declares one), or None."""
    for session in sessions(rec):
        if session.run_id != run.id:
            continue
        for request in session.client:
            capabilities = declared(request)
            if capabilities is not None and "roots" in capabilities:
                value = capabilities["roots"]
                return value if isinstance(value, dict) else {}
    return None
