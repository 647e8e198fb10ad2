"""The toy agent's `roots` command: a client that exposes its working folder as its one root, and its flawed builds.

`roots [--roots-flaw NAME]... [--no-roots] SERVER_URL` connects once (2026-07-28 when the server speaks it, else the
2025 handshake), calls `list_roots`, then, as a user adding a folder to the workspace would, adds `added/` under its
working folder to its roots and calls `list_roots` again. The careful build declares `roots` (with `listChanged` in
a 2025 era), exposes only its working folder (and what was added in it), listens on the session's GET stream in a
2025 era (answering the server's requests there), announces the change with `notifications/roots/list_changed`
and waits (bounded) for the server to ask again, and ends its session with DELETE. `--no-roots` declares no roots
and refuses a roots/list (a JSON-RPC error in 2025; in 2026-07-28 it stops rather than retry a round it cannot
answer). Each `--roots-flaw NAME` (ROOTS_FLAWS) breaks the one check it names; every build has the provenance and
resultType fixes, so it breaks nothing else.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import HELP_WORDS, PROG, Agent, Build, UsageError, call_tool, on_the_wire

TOOL = "list_roots"
LIST_CHANGED = "notifications/roots/list_changed"
ADDED = "added"  # the folder the toy's user adds mid-session, inside the working folder
WAIT_S = 10.0  # how long the toy waits for its GET stream to open, and for the server to ask again after a change
NOT_EXPOSED = {"code": -32601, "message": "Method not found: this client exposes no roots"}
# `--roots-flaw NAME`: each breaks the roots check it names (the oracle's ids)
ROOTS_FLAWS: dict[str, str] = {
    "non-file-uri": "roots-file-uri",  # a root whose uri is not file:// (a remote workspace's vscode-vfs:// URI)
    "expose-home": "roots-within-configured",  # the whole HOME besides the working folder
    "answer-undeclared": "roots-only-with-capability",  # declares no roots, answers roots/list with them anyway
    "unannounced-change": "roots-list-changed-notified",  # declares listChanged, changes without the notification
}
NON_FILE_URI = "vscode-vfs://github/backchannel-toy/project"
USAGE = f"usage: {PROG} roots [--roots-flaw NAME]... [--no-roots] SERVER_URL"
HELP = f"""{USAGE}

Connect to SERVER_URL, call {TOOL}, add the folder {ADDED}/ to the roots, call {TOOL} again. The roots exposed are
the working folder (and {ADDED}/ once added). --no-roots declares no roots capability.
--roots-flaw NAME (repeatable) builds in one flaw: {", ".join(ROOTS_FLAWS)}.
"""


class RootsConnection(wire.Connection):
    """A connection that declares `roots` as each era spells it: `{}` in 2026-07-28 (which has no listChanged)."""

    def _declared(self, flaws: frozenset[str]) -> dict[str, Any]:
        declared = super()._declared(flaws)
        if self.era == "modern" and isinstance(declared.get("roots"), dict):
            declared["roots"] = {}
        return declared


class RootsAgent(Agent):
    """The toy agent whose roots are its working folder, with the build's roots flaws."""

    def __init__(self, build: Build, flaws: frozenset[str], declares: bool) -> None:
        super().__init__(build)
        self.flaws = flaws
        self.declares = declares
        self.folders = [Path.cwd()]
        self.asked = threading.Event()  # set each time the server asks for the roots

    def roots(self) -> list[dict[str, Any]]:
        found = [{"uri": folder.as_uri(), "name": folder.name} for folder in self.folders]
        if "non-file-uri" in self.flaws:
            found[0] = {"uri": NON_FILE_URI, "name": "project"}
        if "expose-home" in self.flaws:
            found.append({"uri": self.home.as_uri(), "name": "home"})
        return found

    def exposes(self) -> bool:
        return self.declares or "answer-undeclared" in self.flaws

    def answer(self, requests: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A round's inputResponses: the roots (when this client exposes them), the rest as the toy always does."""
        others = {k: r for k, r in requests.items() if not (isinstance(r, dict) and r.get("method") == "roots/list")}
        asked = [k for k in requests if k not in others]
        if asked and not self.exposes():
            raise wire.WireError("the server asked for roots, which this client does not expose; not retrying")
        responses = super().answer(others, server, origin) if others else {}
        for key in asked:
            responses[key] = self.given()
        return responses

    def given(self) -> dict[str, Any]:
        roots = self.roots()
        self.say(f"roots: exposing {', '.join(str(r['uri']) for r in roots)}")
        self.asked.set()
        return {"roots": roots}

    def on_request(self, conn: wire.Connection, request: dict[str, Any]) -> dict[str, Any] | None:
        """A server-initiated request (2025): roots/list answered (or refused with an error, posted here)."""
        if request.get("method") != "roots/list":
            return self.answer({"asked": request}, conn.server_name, conn.origin).get("asked")
        if self.exposes():
            return self.given()
        self.say("roots: refused a roots/list (this client exposes no roots)")
        conn._post({"jsonrpc": "2.0", "id": request.get("id"), "error": NOT_EXPOSED}, None)
        return None


class Listening:
    """The session's GET stream (2025 eras), read on a thread of its own; each request on it answered."""

    def __init__(self, conn: wire.Connection, agent: RootsAgent) -> None:
        self.conn, self.agent = conn, agent
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)

    def start(self) -> bool:
        self.thread.start()
        return self.opened.wait(WAIT_S)

    def _read(self) -> None:
        import http.client  # only a run that listens needs it (toy_agent_wire.py says why it is imported late)

        parts = urlsplit(self.conn.url)
        http_conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=WAIT_S * 6)
        headers = {"Accept": "text/event-stream", "MCP-Protocol-Version": self.conn.version}
        if self.conn.session_id is not None:
            headers["Mcp-Session-Id"] = self.conn.session_id
        try:
            http_conn.request("GET", parts.path or "/", headers=headers)
            response = http_conn.getresponse()
            if response.status != 200:
                return
            self.opened.set()
            for body in wire.sse_events(iter(response.readline, b"")):
                message = json.loads(body)
                if isinstance(message, dict) and "method" in message and "id" in message:
                    result = self.agent.on_request(self.conn, message)
                    if result is not None:
                        self.conn._post({"jsonrpc": "2.0", "id": message["id"], "result": result}, None)
        except (OSError, ValueError, http.client.HTTPException):
            return
        finally:
            self.opened.set()  # never leaves start() waiting out its bound
            http_conn.close()


def parse(args: list[str]) -> tuple[frozenset[str], bool, str]:
    flaws: set[str] = set()
    declares, rest = True, list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option == "--no-roots":
            declares = False
        elif option == "--roots-flaw" and rest and rest[0] in ROOTS_FLAWS:
            flaws.add(rest.pop(0))
        else:
            raise UsageError(f"{option}: not an option of roots (--roots-flaw is one of: {', '.join(ROOTS_FLAWS)})")
    if len(rest) != 1:
        raise UsageError(USAGE)
    if "answer-undeclared" in flaws:
        declares = False
    return frozenset(flaws), declares, rest[0]


def run_roots(build: Build, args: list[str]) -> int:
    """The `roots` command."""
    if any(a in HELP_WORDS for a in args):
        print(HELP, end="")
        return 0
    flaws, declares, url = parse(args)
    # the roots builds carry their roots flaws only: provenance fenced, an absent resultType read as complete
    build = Build.of(build.variant, frozenset({"provenance", "result-type"}), build.ui_flaws, build.wire_flaws)
    capabilities = {"roots": {"listChanged": True}} if declares else {}
    try:
        conn = RootsConnection(url, capabilities)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
    agent = RootsAgent(build, flaws, declares)
    conn.on_request = lambda request: agent.on_request(conn, request)
    listening: Listening | None = None

    def work() -> int:
        nonlocal listening
        conn.connect("auto")
        if conn.era == "legacy":
            listening = Listening(conn, agent)
            if not listening.start():
                agent.complain("the GET stream did not open; going on without it", prefix="warning")
        status = call_tool(conn, agent, TOOL, {})
        added = Path.cwd() / ADDED
        added.mkdir(exist_ok=True)
        agent.folders.append(added)
        agent.say(f"roots: the user added {added.as_uri()}")
        if conn.era == "legacy" and declares and "unannounced-change" not in flaws:
            agent.asked.clear()
            conn.notify(LIST_CHANGED)
            if listening is not None and listening.opened.is_set() and listening.thread.is_alive():
                agent.asked.wait(WAIT_S)  # the server asks again on the GET stream (bounded)
        return status | call_tool(conn, agent, TOOL, {})

    try:
        return on_the_wire(agent, work)
    finally:
        if conn.era == "legacy" and conn.session_id is not None:
            end_session(conn)
        if listening is not None:
            listening.thread.join(WAIT_S)


def end_session(conn: wire.Connection) -> None:
    """DELETE the 2025 session (which also ends its GET stream); a failure to do so changes nothing."""
    import http.client  # imported late, as in toy_agent_wire.py

    parts = urlsplit(conn.url)
    http_conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=WAIT_S)
    headers = {"Mcp-Session-Id": conn.session_id or "", "MCP-Protocol-Version": conn.version}
    try:
        http_conn.request("DELETE", parts.path or "/", headers=headers)
        http_conn.getresponse().read()
    except (OSError, http.client.HTTPException):
        pass
    finally:
        http_conn.close()
