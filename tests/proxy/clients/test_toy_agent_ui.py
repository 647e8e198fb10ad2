"""The toy agent's `ui` command (toy_agent_ui.py), the elicitation-ui scenario's client: the careful build and one
flaw per check, against a server mimicking the scenario's tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSet, ToolSpec
from tests.proxy.clients.conftest import Lab, elicitation, run_agent, text_result

UI_NONCE = "n0nce42"
UI_SERVER = "ui-lab-server"
UI_URL = f"https://accounts.example.com/connect?session={UI_NONCE}&step=authorize"
UI_PUNY = f"https://login.xn--80ak6aa92e.com/verify?session={UI_NONCE}"
UI_LINK = f"https://help.example.com/changes/{UI_NONCE}"
UI_ESCAPES = "\x1b[31mRED\x1b[0m \x1b]0;pwned\x07 \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
OPEN_PROMPT = "Open this URL in your browser? [y]es / [n]o (decline) / [c]ancel: "
SEND_PROMPT = "Send? [y]es / [e]dit / [n]o (decline) / [c]ancel: "
FIELD_PROMPT = "confirmed (true/false) [enter to review]: "
WARNING = "WARNING: the host is Punycode (xn--): it may imitate another name"
OSC8_LINK = f"\x1b]8;;{UI_LINK}\x1b\\{UI_LINK}\x1b]8;;\x1b\\"


class UiServer:
    """The five elicitation-ui tools, in the endpoint's scenario shape; each result echoes the answer it got."""

    def __init__(self) -> None:
        self.answers: dict[str, Any] = {}
        self.opener_log: Path | None = None  # the fake xdg-open's log, read as each answer arrives
        self.stdout: Path | None = None  # where the agent's stdout goes, read as each answer arrives
        self.opened_by_answer: dict[str, list[str]] = {}
        self.printed_by_answer: dict[str, str] = {}

    def _ask_then_echo(self, call: ToolCall, request: dict[str, Any]) -> ToolReply:
        if call.input_responses is None:
            result = {"resultType": "input_required", "inputRequests": {"ask": request}, "requestState": "s1"}
            return ToolReply(result=result)
        self.answers[call.name] = call.input_responses.get("ask")
        log = self.opener_log
        self.opened_by_answer[call.name] = log.read_text().splitlines() if log and log.exists() else []
        self.printed_by_answer[call.name] = self.stdout.read_text(encoding="utf-8") if self.stdout else ""
        return ToolReply(result=text_result(f"{call.name} got {json.dumps(self.answers[call.name])}"))

    @staticmethod
    def _url(message: str, url: str) -> dict[str, Any]:
        return {"method": "elicitation/create", "params": {"mode": "url", "message": message, "url": url}}

    def tool_set(self) -> ToolSet:
        handlers = {
            "connect_account": lambda c: self._ask_then_echo(c, self._url(f"Connect (BCKCH-UI-{UI_NONCE}).", UI_URL)),
            "open_dashboard": lambda c: self._ask_then_echo(c, self._url(f"Verify (BCKCH-UI-{UI_NONCE}).", UI_PUNY)),
            "confirm_change": lambda c: self._ask_then_echo(c, elicitation(f"Confirm the change at {UI_LINK} (x).")),
            "show_notice": lambda c: self._ask_then_echo(c, elicitation(f"Notice {UI_ESCAPES} end")),
            "get_notice": lambda c: ToolReply(result=text_result(f"Result {UI_ESCAPES} end")),
        }
        specs = tuple(ToolSpec(name, name, {"type": "object"}, handler) for name, handler in handlers.items())
        return ToolSet(name="ui", description="The elicitation-ui tools, mimicked.", tools=specs)


@dataclass(frozen=True)
class UiRun:
    stdout: str
    stderr: str
    returncode: int
    opened: list[str]  # what the fake xdg-open was handed, one argv entry per line
    answers: dict[str, Any]  # what the server got back, per tool


@pytest.fixture
def ui_server() -> Iterator[tuple[UiServer, str]]:
    tools = UiServer()
    config = EndpointConfig(tools=tools.tool_set().tools, server_name=UI_SERVER)
    with start_endpoint(config) as running:
        yield tools, running.url


def run_ui(lab: Lab, served: tuple[UiServer, str], answers: str, *options: str) -> UiRun:
    """The toy agent's `ui` command, piped, with `answers` on stdin and a fake xdg-open on PATH that logs its argv."""
    tools, url = served
    bin_dir, log = lab.home / "bin", lab.home / "xdg-open.log"
    tools.opener_log, tools.stdout = log, lab.home / "stdout.txt"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "xdg-open"
    fake.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{log}'\n", encoding="utf-8")
    fake.chmod(0o755)
    env = {**os.environ, "HOME": str(lab.home), "PYTHONIOENCODING": "utf-8"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    with tools.stdout.open("w", encoding="utf-8") as out:  # a file, so the server can read what was shown so far
        done = subprocess.run(
            [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", *options, "ui", url],
            cwd=lab.work,
            env=env,
            input=answers,
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            timeout=60,
        )
    opened = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    stdout = tools.stdout.read_text(encoding="utf-8")
    return UiRun(stdout, done.stderr, done.returncode, opened, tools.answers)


# connect: yes; dashboard: no; confirm_change: true, send; show_notice: enter (review), cancel
CAREFUL_ANSWERS = "y\nn\ntrue\ny\n\nc\n"


def section(stdout: str, tool: str) -> str:
    """What the agent printed while calling `tool`."""
    start = stdout.index(f"== {tool} ==")
    end = stdout.find("\n== ", start + 1)
    return stdout[start : end if end != -1 else len(stdout)]


@pytest.mark.live
def test_ui_mode_shows_the_url_and_host_before_asking_and_opens_only_what_was_accepted(
    lab: Lab, ui_server: Any
) -> None:
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS)
    assert run.returncode == 0, run.stderr
    connect = section(run.stdout, "connect_account")
    assert f'from MCP server "{UI_SERVER}" at http://127.0.0.1:' in connect
    assert connect.index(f"URL: {UI_URL}\nHost: accounts.example.com\n") < connect.index(OPEN_PROMPT)
    assert WARNING not in connect
    dashboard = section(run.stdout, "open_dashboard")
    assert f"URL: {UI_PUNY}\nHost: login.xn--80ak6aa92e.com\n{WARNING}\n{OPEN_PROMPT}n\ndeclined\n" in dashboard
    assert run.opened == [UI_URL]
    assert run.answers["connect_account"] == {"action": "accept"}
    assert run.answers["open_dashboard"] == {"action": "decline"}


@pytest.mark.live
def test_ui_mode_opens_an_accepted_url_only_once_the_accept_has_reached_the_server(lab: Lab, ui_server: Any) -> None:
    tools, _ = ui_server
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS)
    assert tools.opened_by_answer["connect_account"] == [] and run.opened == [UI_URL]
    assert f"URL: {UI_URL}\nHost: accounts.example.com\n" in tools.printed_by_answer["connect_account"]
    connect = section(run.stdout, "connect_account")
    assert f"{OPEN_PROMPT}y\nopening it in your browser (xdg-open)\nresult: connect_account got" in connect


@pytest.mark.live
def test_ui_mode_asks_for_each_field_then_reviews_before_sending_and_never_links_or_leaks_escapes(
    lab: Lab, ui_server: Any
) -> None:
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS)
    confirm = section(run.stdout, "confirm_change")
    assert f"  │ Confirm the change at {UI_LINK} (x).\n" in confirm
    assert f"{FIELD_PROMPT}true\nReview: confirmed=true\n{SEND_PROMPT}y\n" in confirm
    assert run.answers["confirm_change"] == {"action": "accept", "content": {"confirmed": True}}
    notice = section(run.stdout, "show_notice")
    assert "Notice \\x1b[31mRED\\x1b[0m \\x1b]0;pwned\\x07 \\x1b]8;;https://evil.example/\\x1b\\click" in notice
    assert f"{FIELD_PROMPT}\nReview: (no values)\n(missing required: confirmed)\n{SEND_PROMPT}c\ncancelled\n" in notice
    assert run.answers["show_notice"] == {"action": "cancel"}
    assert "result: Result \\x1b[31mRED\\x1b[0m" in section(run.stdout, "get_notice")
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout


@pytest.mark.live
def test_ui_mode_edits_a_form_and_reads_the_end_of_input_as_cancel(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, "c\nc\nmaybe\nfalse\ne\ntrue\ny\n")
    assert run.answers["connect_account"] == run.answers["open_dashboard"] == {"action": "cancel"}
    confirm = section(run.stdout, "confirm_change")
    assert f"{FIELD_PROMPT}maybe\nnot a value confirmed takes: expected true/false\n{FIELD_PROMPT}false\n" in confirm
    assert run.answers["confirm_change"] == {"action": "accept", "content": {"confirmed": True}}
    assert run.answers["show_notice"] == {"action": "cancel"}  # stdin ran out at its first field
    assert "cancelled (end of input)" in section(run.stdout, "show_notice")
    assert run.opened == []


@pytest.mark.live
def test_ui_flaw_hide_url_shows_only_the_host_before_asking(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS, "--ui-flaw", "hide-url")
    assert UI_URL not in run.stdout and UI_PUNY not in run.stdout
    assert f"Host: accounts.example.com\n{OPEN_PROMPT}y\n" in section(run.stdout, "connect_account")
    assert f"Host: login.xn--80ak6aa92e.com\n{WARNING}\n{OPEN_PROMPT}" in run.stdout
    assert run.opened == [UI_URL]


@pytest.mark.live
def test_ui_flaw_show_url_after_consent_prints_the_url_only_once_answered(lab: Lab, ui_server: Any) -> None:
    tools, _ = ui_server
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS, "--ui-flaw", "show-url-after-consent")
    connect = section(run.stdout, "connect_account")
    assert connect.index(OPEN_PROMPT) < connect.index(UI_URL)
    assert f"Host: accounts.example.com\n{OPEN_PROMPT}y\nURL: {UI_URL}\nopening it in your browser" in connect
    assert f"{WARNING}\n{OPEN_PROMPT}n\ndeclined\nURL: {UI_PUNY}\n" in section(run.stdout, "open_dashboard")
    assert UI_URL not in tools.printed_by_answer["connect_account"]  # not shown before the answer left
    assert "Host: accounts.example.com" in tools.printed_by_answer["connect_account"]
    assert run.opened == [UI_URL]


@pytest.mark.live
def test_ui_flaw_open_at_once_runs_xdg_open_before_asking(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, "n\nc\ntrue\ny\n\nc\n", "--ui-flaw", "open-at-once")
    assert run.opened == [UI_URL, UI_PUNY]  # declined and cancelled, yet both opened
    assert ui_server[0].opened_by_answer["connect_account"] == [UI_URL]  # before the answer reached the server
    connect = section(run.stdout, "connect_account")
    assert connect.index("opening it in your browser (xdg-open)") < connect.index(OPEN_PROMPT)
    assert run.answers["connect_account"] == {"action": "decline"}


@pytest.mark.live
def test_ui_flaw_open_declined_opens_a_declined_url_but_not_a_cancelled_one(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, "n\nc\ntrue\ny\n\nc\n", "--ui-flaw", "open-declined")
    assert run.opened == [UI_URL]
    assert run.answers["connect_account"] == {"action": "decline"}
    assert run.answers["open_dashboard"] == {"action": "cancel"}


@pytest.mark.live
def test_ui_flaw_no_punycode_warning_drops_only_the_warning(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS, "--ui-flaw", "no-punycode-warning")
    assert WARNING not in run.stdout
    assert f"URL: {UI_PUNY}\nHost: login.xn--80ak6aa92e.com\n{OPEN_PROMPT}" in run.stdout


@pytest.mark.live
def test_ui_flaw_auto_accept_sends_forms_without_asking(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, "y\nn\n", "--ui-flaw", "auto-accept")
    assert FIELD_PROMPT not in run.stdout and SEND_PROMPT not in run.stdout
    assert "Sending: confirmed=true" in section(run.stdout, "confirm_change")
    accepted = {"action": "accept", "content": {"confirmed": True}}
    assert run.answers["confirm_change"] == run.answers["show_notice"] == accepted
    assert run.stdout.count(OPEN_PROMPT) == 2 and run.opened == [UI_URL]


@pytest.mark.live
def test_ui_flaw_no_decline_option_offers_only_yes_and_declines_anything_else_silently(
    lab: Lab, ui_server: Any
) -> None:
    run = run_ui(lab, ui_server, "y\nn\ntrue\nn\n\n", "--ui-flaw", "no-decline-option")
    assert OPEN_PROMPT not in run.stdout and SEND_PROMPT not in run.stdout
    assert "Open this URL in your browser? [y]: n\n" in run.stdout and "Send? [y]: n\n" in run.stdout
    assert "declined" not in run.stdout and "cancelled" not in run.stdout
    assert run.answers["open_dashboard"] == run.answers["confirm_change"] == {"action": "decline"}
    assert run.answers["show_notice"] == {"action": "decline"}  # end of input: declined too
    assert run.answers["connect_account"] == {"action": "accept"} and run.opened == [UI_URL]


@pytest.mark.live
def test_ui_flaw_osc8_links_turns_a_form_message_url_into_a_hyperlink(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS, "--ui-flaw", "osc8-links")
    assert f"  │ Confirm the change at {OSC8_LINK} (x).\n" in section(run.stdout, "confirm_change")
    assert run.stdout.count("\x1b") == 4  # that link only: the server's own escapes are still neutralised
    assert f"URL: {UI_URL}\n" in run.stdout


@pytest.mark.live
def test_ui_flaw_raw_escapes_lets_the_server_escapes_reach_the_terminal(lab: Lab, ui_server: Any) -> None:
    run = run_ui(lab, ui_server, CAREFUL_ANSWERS, "--ui-flaw", "raw-escapes")
    assert f"  │ Notice {UI_ESCAPES} end\n" in section(run.stdout, "show_notice")
    assert f"result: Result {UI_ESCAPES} end\n" in section(run.stdout, "get_notice")
    assert OSC8_LINK not in run.stdout  # the form message's own URL stays plain text


def test_ui_flaw_must_be_one_the_toy_agent_knows_and_version_lists_the_chosen_ones(lab: Lab) -> None:
    bad = run_agent(lab, "--ui-flaw", "nope", "ui", "http://127.0.0.1:1/mcp")
    assert bad.returncode == 2
    assert "--ui-flaw 'nope' is not one of: hide-url, hide-host, show-url-after-consent" in bad.stderr
    shown = run_agent(lab, "--ui-flaw", "raw-escapes", "--ui-flaw=hide-url", "version")
    assert shown.stdout.endswith("flaws: provenance, result-type, ui:hide-url, ui:raw-escapes)\n")
    assert run_agent(lab, "version").stdout.endswith("flaws: provenance, result-type)\n")


def test_ui_help_names_the_command_and_every_flaw_and_a_missing_url_is_a_usage_error(lab: Lab) -> None:
    helped = run_agent(lab, "ui", "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: backchannel-toy-agent [--ui-flaw NAME]... ui")
    assert "raw-escapes" in helped.stdout and "no-decline-option" in helped.stdout
    assert run_agent(lab, "ui").returncode == 2
    assert run_agent(lab, "--variant", "method-verb", "ui", "http://127.0.0.1:1/mcp").returncode == 2
