"""The toy agent's `ui` command: a careful terminal client for the elicitation-ui scenario, and one flawed build per
check (`--ui-flaw NAME`, see UI_FLAWS). Every tool of the server is called once; each elicitation names the server
and its origin, shows its message fenced and escaped, and asks the user before anything is opened or sent.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any, Literal
from urllib.parse import urlsplit

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import HELP_WORDS, PROG, UI_FLAWS, Agent, Build, UsageError, call_tool
from backchannel.proxy.clients.toy_agent_ui_text import (
    field_hint,
    host_of,
    is_punycode,
    neutralise,
    osc8,
    parse_field,
    review,
)

UI_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
OPEN_PROMPT = "Open this URL in your browser? [y]es / [n]o (decline) / [c]ancel: "
OPEN_PROMPT_NO_DECLINE = "Open this URL in your browser? [y]: "
SEND_PROMPT = "Send? [y]es / [e]dit / [n]o (decline) / [c]ancel: "
SEND_PROMPT_NO_DECLINE = "Send? [y]: "
FIELD_PROMPT = "{name} ({hint}) [enter to review]: "
PUNYCODE_WARNING = "WARNING: the host is Punycode (xn--): it may imitate another name"
MAX_TOOL_PAGES = 10
LATE_URL_DELAY_S = 1.0  # show-url-after-consent waits this long after the answer left, so no harness can misorder it
UI_HELP = f"""usage: {PROG} [--ui-flaw NAME]... ui SERVER_URL

List the tools of the MCP server at SERVER_URL (Streamable HTTP) and call each once, as a careful terminal client:
every elicitation names the server and its origin and shows its message fenced, with control characters escaped.
A URL-mode request shows the full URL and its host (with a warning for a Punycode host) and asks before opening
it with xdg-open; a form-mode request asks for each field, then shows a review and asks before sending.
Exit 0 when every tool returned a result that is not an error, 1 otherwise.

options:
  --ui-flaw NAME  Build in one flaw (repeatable). One of: {", ".join(UI_FLAWS[:3])},
                  {", ".join(UI_FLAWS[3:6])},
                  {", ".join(UI_FLAWS[6:])} (default: none)
  -h, --help      Show this help

Point it only at servers you run yourself.
"""

Choice = Literal["accept", "decline", "cancel", "edit"]


class UiAgent(Agent):
    """The `ui` command's agent: a terminal client that shows each elicitation carefully and asks its user."""

    def __init__(self, build: Build) -> None:
        super().__init__(build)
        self.flaws = build.ui_flaws
        self.to_open: list[str] = []  # URLs the user accepted: opened once the accept has been sent
        self.to_say: list[str] = []  # the show-url-after-consent build's URL lines, shown once the answer has been sent

    def answers_sent(self) -> None:
        """Open what the user accepted, now that the accept has left: never before the answer has."""
        lines, opening, self.to_say, self.to_open = self.to_say, self.to_open, [], []
        if lines:
            time.sleep(LATE_URL_DELAY_S)
        for line in lines:
            self.say(line)
        for url in opening:
            self.open_url(url)

    def text(self, line: str, *, links: bool = False) -> str:
        """One line of server text as this build renders it: escaped, unless raw-escapes; linked, if osc8-links."""
        shown = line if "raw-escapes" in self.flaws else neutralise(line)
        return osc8(shown) if links and "osc8-links" in self.flaws else shown

    def ask(self, prompt: str) -> str | None:
        """Ask the user (stdin); None at end of input. A piped answer is echoed, as a terminal would have."""
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print(flush=True)
            return None
        answer = line.rstrip("\r\n")
        if not sys.stdin.isatty():
            print(neutralise(answer), flush=True)
        return answer

    def choose(self, prompt: str, no_decline: str, *, edit: bool = False) -> Choice:
        """Ask until the user picks; the no-decline-option build offers only [y] and declines on anything else."""
        if "no-decline-option" in self.flaws:
            answer = self.ask(no_decline)
            return "accept" if answer is not None and answer.strip().lower() in ("y", "yes") else "decline"
        words: dict[str, Choice] = {"y": "accept", "yes": "accept", "n": "decline", "no": "decline"}
        words.update({"c": "cancel", "cancel": "cancel", **({"e": "edit", "edit": "edit"} if edit else {})})
        while True:
            answer = self.ask(prompt)
            if answer is None:
                self.say("cancelled (end of input)")
                return "cancel"
            choice = words.get(answer.strip().lower())
            if choice is not None:
                if choice in ("decline", "cancel"):
                    self.say("declined" if choice == "decline" else "cancelled")
                return choice
            self.say(f"please answer {'y, e, n or c' if edit else 'y, n or c'}")

    def fence(self, mode: str, message: str, server: str | None, origin: str, *, links: bool = False) -> None:
        name = neutralise(server or "unnamed")
        source = "" if "no-server-name" in self.flaws else f' from MCP server "{name}" at {origin}'
        self.say(f"[elicitation ({mode}){source} — untrusted server-supplied text follows]", quarantined=True)
        for line in message.split("\n"):
            self.say("  │ " + self.text(line, links=links), quarantined=True)
        self.say("[end of server text]", quarantined=True)

    def open_url(self, url: str) -> None:
        """Hand the URL to xdg-open (no shell); only http(s) URLs are opened."""
        if urlsplit(url).scheme not in ("http", "https"):
            self.say("not opening it: only http:// and https:// URLs are opened")
            return
        self.say("opening it in your browser (xdg-open)")
        try:
            subprocess.run(
                ["xdg-open", url],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=15,
                check=False,
            )
        except FileNotFoundError:
            self.complain("xdg-open is not installed; open the URL yourself", prefix="warning")
        except (OSError, subprocess.SubprocessError) as exc:
            self.complain(f"xdg-open failed: {exc}", prefix="warning")

    def url_request(self, params: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A URL-mode elicitation: the URL and its host before the question; xdg-open after a yes, once sent."""
        raw = params.get("url")
        url = raw if isinstance(raw, str) else ""
        host = host_of(url)
        self.fence("URL mode", str(params.get("message", "")), server, origin)
        url_line = f"URL: {neutralise(url)}"
        late = "show-url-after-consent" in self.flaws
        hidden = "hide-url" in self.flaws or "hide-host" in self.flaws
        if not late and not hidden:
            self.say(url_line)
        if "hide-host" not in self.flaws:
            self.say(f"Host: {neutralise(host) or '(none)'}")
        if is_punycode(host) and "no-punycode-warning" not in self.flaws:
            self.say(PUNYCODE_WARNING)
        if "open-at-once" in self.flaws:
            self.open_url(url)
        choice = self.choose(OPEN_PROMPT, OPEN_PROMPT_NO_DECLINE)
        if late:
            self.to_say.append(url_line)
        if choice == "accept" and "open-at-once" not in self.flaws:
            self.to_open.append(url)
        elif choice == "decline" and "open-declined" in self.flaws:
            self.open_url(url)
        return {"action": choice}

    def form_request(self, params: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """A form-mode elicitation: each field asked for, then a review and a question before anything is sent."""
        schema = params.get("requestedSchema")
        schema = schema if isinstance(schema, dict) else {}
        props = schema.get("properties")
        fields = {n: p for n, p in props.items() if isinstance(p, dict)} if isinstance(props, dict) else {}
        required = set(schema.get("required") or ()) if isinstance(schema.get("required"), list) else set()
        self.fence("form", str(params.get("message", "")), server, origin, links=True)
        self.say(f"The form asks for {len(fields)} field(s)")
        for name, prop in fields.items():
            about = prop.get("description") or prop.get("title")
            extra = (" (required)" if name in required else "") + (
                f" — {neutralise(about)}" if isinstance(about, str) else ""
            )
            self.say(f"  {neutralise(name)}: {field_hint(prop)}{extra}")
        if "auto-accept" in self.flaws:
            filled = wire.form_content(schema)
            self.say(f"Sending: {review(filled)}")
            return {"action": "accept", "content": filled}
        while True:
            content: dict[str, Any] = {}
            for name, prop in fields.items():
                while True:
                    raw = self.ask(FIELD_PROMPT.format(name=neutralise(name), hint=field_hint(prop)))
                    if raw is None:
                        self.say("cancelled (end of input)")
                        return {"action": "cancel"}
                    if raw == "":
                        break
                    ok, value = parse_field(prop, raw)
                    if ok:
                        content[name] = value
                        break
                    self.say(f"not a value {neutralise(name)} takes: expected {field_hint(prop)}")
                if raw == "":
                    break  # enter: straight to the review
            self.say(f"Review: {review(content)}")
            missing = [neutralise(n) for n in fields if n in required and n not in content]
            if missing:
                self.say(f"(missing required: {', '.join(missing)})")
            choice = self.choose(SEND_PROMPT, SEND_PROMPT_NO_DECLINE, edit=True)
            if choice == "edit":
                continue
            return {"action": "accept", "content": content} if choice == "accept" else {"action": choice}

    def answer(self, requests: dict[str, Any], server: str | None, origin: str) -> dict[str, Any]:
        """The inputResponses for one round: elicitations asked of the user; no directive is ever followed."""
        responses: dict[str, Any] = {}
        for key, request in requests.items():
            method, params = (request.get("method"), request.get("params")) if isinstance(request, dict) else (0, 0)
            params = params if isinstance(params, dict) else {}
            if method == "elicitation/create" and params.get("mode") == "url":
                responses[key] = self.url_request(params, server, origin)
            elif method == "elicitation/create":
                responses[key] = self.form_request(params, server, origin)
            elif method == "roots/list":
                responses[key] = {"roots": []}
            else:
                self.complain(f"ignoring input request {neutralise(str(key))!r}: unsupported method", prefix="warning")
        return responses


def show_ui_result(agent: Agent, result: dict[str, Any]) -> int:
    """A complete result's content, escaped unless the build is raw-escapes."""
    text = agent.text if isinstance(agent, UiAgent) else neutralise
    content = result.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            lines = str(block.get("text", "")).split("\n")
            agent.say(f"result: {text(lines[0])}")
            for line in lines[1:]:
                agent.say(f"        {text(line)}")
        else:
            kind = neutralise(str(block.get("type"))) if isinstance(block, dict) else "unreadable"
            agent.say(f"result: [{kind} content]")
    return 1 if result.get("isError") is True else 0


def list_tools(conn: wire.Connection) -> list[str]:
    """Every tool name the server lists, following nextCursor (at most MAX_TOOL_PAGES pages)."""
    names: list[str] = []
    params: dict[str, Any] = {}
    for _ in range(MAX_TOOL_PAGES):
        result = conn.request("tools/list", params)
        conn.note_server(result)
        tools = result.get("tools")
        names += (
            [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
            if isinstance(tools, list)
            else []
        )
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            break
        params = {"cursor": cursor}
    return names


def run_ui(build: Build, args: list[str]) -> int:
    """The `ui` command: every tool of the server called once, its elicitations shown and asked at the terminal."""
    if any(a in HELP_WORDS for a in args):
        print(UI_HELP, end="")
        return 0
    if len(args) != 1 or args[0].startswith("-"):
        raise UsageError(f"usage: {PROG} [--ui-flaw NAME]... ui SERVER_URL")
    try:
        conn = wire.Connection(args[0], UI_CAPABILITIES)
    except ValueError as exc:
        raise UsageError(f"SERVER_URL: {exc}") from exc
    agent = UiAgent(build)
    try:
        conn.connect("auto")
        tools = list_tools(conn)
    except (wire.RpcFailure, wire.WireError) as exc:
        agent.complain(str(exc))
        return 1
    name = neutralise(conn.server_name or "unnamed")
    agent.say(f'MCP server "{name}" at {conn.origin} offers {len(tools)} tool(s): {neutralise(", ".join(tools))}')
    status = 0
    for tool in tools:
        agent.say(f"== {neutralise(tool)} ==")
        try:
            status |= call_tool(conn, agent, tool, {}, show=show_ui_result)
        except wire.RpcFailure as exc:
            agent.complain(f"{exc.code} {neutralise(exc.message)}")
            status = 1
        except wire.WireError as exc:
            agent.complain(neutralise(str(exc)))
            status = 1
    return status
