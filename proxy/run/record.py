"""`backchannel record`: one run recorded, either of a command in a lab or of a live client until Ctrl-C."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from backchannel.addons.session import Limits
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolSpec
from backchannel.proxy.judging.keep import keep_report
from backchannel.proxy.run.capture import MAX_OUTPUT, Capture
from backchannel.proxy.run.launcher import WebUiOptions
from backchannel.proxy.run.live_rules import LiveRules
from backchannel.proxy.run.placeholders import McpConfigOptions
from backchannel.proxy.run.tty import TtyOptions
from backchannel.proxy.run.web_marks import WebMarks
from backchannel.proxy.timeline import ARROWS, safe, summary
from backchannel.recordings import load, redact
from backchannel.recordings.reader import messages_after


@dataclass(frozen=True)
class RecordResult:
    exit_code: int | None
    outcome: str
    messages: int
    detail: str = ""


def record_command(
    out: Path,
    argv: Sequence[str],
    *,
    upstream: str | None,
    plan: dict[str, Any],
    scenario: str,
    tools: tuple[ToolSpec, ...],
    timeout: float,
    keep_lab: bool,
    console: Console,
    flow_state: bool = False,
    env: Mapping[str, str] | None = None,
    max_output: int = MAX_OUTPUT,
    mcp_config: McpConfigOptions | None = None,
    tty: TtyOptions | None = None,
    redaction: redact.Policy = redact.DEFAULT_POLICY,
    limits: Limits | None = None,
) -> RecordResult:
    """Run the command once through the proxy, record everything, close the recording.

    Without `upstream` the scripted endpoint serves `tools` (the scenario's, which the caller found) and the run
    names `scenario`."""
    endpoint = EndpointConfig(tools=tools)
    with Capture(
        out,
        upstream=upstream,
        endpoint=endpoint,
        flow_state=flow_state,
        env=env,
        max_output=max_output,
        mcp_config=mcp_config,
        tty=tty,
        redaction=redaction,
        limits=limits,
    ) as capture:
        run = capture.new_run("record", plan, scenario=None if upstream else scenario, argv=argv)
        console.print(f"run {run.id}: {run.url}", markup=False, style="dim")
        result = capture.run_client(run, argv, timeout=timeout, keep_lab=keep_lab)
    warning = keep_report(out)
    if warning is not None:
        console.print(f"backchannel: {safe(warning)}", style="dim", markup=False)
    messages = len(load(out).messages)
    return RecordResult(result.exit_code, result.outcome, messages, result.detail)


def record_live(
    out: Path,
    *,
    upstream: str | None,
    plan: dict[str, Any],
    scenario: str,
    tools: tuple[ToolSpec, ...],
    console: Console,
    flow_state: bool = False,
    redaction: redact.Policy = redact.DEFAULT_POLICY,
    limits: Limits | None = None,
    web_ui: WebUiOptions | None = None,
) -> None:
    """Print the URL for a live client and show each message as one line until Ctrl-C (the endpoint, without
    `upstream`, serving `tools`; with `web_ui`, the proxy is mitmweb, its UI served as it says)."""
    with Capture(
        out,
        upstream=upstream,
        endpoint=EndpointConfig(tools=tools),
        flow_state=flow_state,
        redaction=redaction,
        limits=limits,
        web_ui=web_ui,
    ) as capture:
        run = capture.new_run("live", plan, scenario=None if upstream else scenario)
        console.print(f"Point your client at: [bold]{run.url}[/bold]")
        console.print(f"Recording to {out}. Ctrl-C stops and closes the recording.", style="dim", markup=False)
        last, judged_at, rules = 0, 0, LiveRules(out)
        marks = WebMarks(web_ui.url) if web_ui is not None else None
        try:
            while True:
                for message in messages_after(out, last):
                    last = message.seq
                    mark = f" [red]mutated: {escape(message.mutation)}[/red]" if message.mutation else ""
                    # method and payload come from the client's traffic: never let them be read as markup
                    line = escape(safe(f"{message.kind} {message.method or ''} {summary(message.payload)}"))
                    console.print(f"#{message.seq} {ARROWS[message.direction]} {line}{mark}", highlight=False)
                if last > judged_at and rules.due():  # paced by LiveRules: it judges the whole recording so far
                    judged_at = last
                    for broken in rules.news():  # the session rules, over the recording so far
                        console.print(escape(broken.line), style="red", highlight=False)
                        if marks is not None and not marks.failed and not marks.mark(broken.flows, broken.status,
                                                                                     broken.line):  # fmt: skip
                            console.print(f"backchannel: could not mark the flow in mitmweb ({marks.failed})",
                                          style="dim", markup=False)  # fmt: skip
                time.sleep(0.1)  # a display refresh, not a wait for an event
        except KeyboardInterrupt:
            capture.end_run(run, outcome="live-stopped")
    warning = keep_report(out)
    if warning is not None:
        console.print(f"backchannel: {safe(warning)}", style="dim", markup=False)
    console.print(f"Closed {out}. See: backchannel show {out}", markup=False)
