"""The run side of `elicitation-ui`: one run of the client against the five tools, piped or under a terminal.

A client that calls one tool per invocation (a CLI's `call URL TOOL`) takes `{tool}` in its command line: then it
runs once per tool, each run named `contract` like the single one, so the checks read them alike. A coding agent
(`check --agent`) runs once per tool too, its scripted model asking for that tool.

With `--target` the CLI is discovered first (proxy/run/target_discovery.py): each trial call is answered at once
with a JSON-RPC error, the server never asked, so no trial can start an elicitation the CLI would wait on. The
confirmed invocation names one tool; made a per-tool template (the name as the CLI took it, as given or dashed),
it runs once per tool exactly as a `--client` with `{tool}` does. A discovery that finds nothing leaves no client
run and a `client-not-run` anomaly, so every check of the recording is ERROR, never a SKIP or a pass."""

from __future__ import annotations

import secrets
import shlex
from pathlib import Path
from typing import Any

from backchannel.oracle.harness import NOT_RUN  # the anomaly a failed discovery leaves: ERROR for every check
from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.agent_lab import is_agent_client, scripted
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.discovery import TOOL_SLOT, ToolTemplate, tool_template
from backchannel.proxy.run.target_discovery import discover_target
from backchannel.proxy.run.tty import under_terminal
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.proxy.scenarios.elicitation_ui.endpoint import TOOLS
from backchannel.recordings.shapes import Fact, Invocation, ProbeOptions

SCENARIO = "elicitation-ui"
RUN = "contract"
DISCOVERY_ERROR = -32000  # the trial call's answer: a JSON-RPC error, in the implementation-defined server range
DISCOVERY_MESSAGE = "backchannel discovery: this call only confirms how the client calls a tool; no tool ran"
# every trial call answered at once, upstream never contacted: an elicitation would hold the CLI until its timeout.
# HTTP 200, so a client reads the body as the JSON-RPC answer it is (a 4xx may be read as a transport failure)
DISCOVERY_PLAN: dict[str, Any] = {
    "mutations": [
        {
            "kind": "error",
            "match": {"method": "tools/call"},
            "error": {"code": DISCOVERY_ERROR, "message": DISCOVERY_MESSAGE},
            "status": 200,
        }
    ]
}


def run(options: CheckOptions, progress: Progress) -> Path:
    """The `contract` runs of `--client` (or of the invocation `--target` discovery found), the recording's nonce in
    every text the server sends."""
    if options.client and options.target:
        raise CheckError(
            f"{SCENARIO} takes --target (a CLI to discover) or --client (an invocation with {{url}}), not both"
        )
    if not options.client and not options.target:
        raise CheckError(f"{SCENARIO} needs --target (a CLI to discover) or --client (an invocation with {{url}})")
    nonce = secrets.token_hex(8)
    client = tuple(options.client) if options.client else None
    target = tuple(options.target) if options.target else None
    stdin = None if options.stdin is None else options.stdin.decode("utf-8", "replace")
    meta = (ProbeOptions(target=target, client=client, stdin=stdin),)
    with Capture(
        options.out,
        endpoint=EndpointConfig(tools=TOOLS, nonce=nonce, era=options.era, answer_timeout_s=options.answer_timeout_s),
        nonce=nonce,
        scenario=SCENARIO,
        meta=meta,
        env=options.env,
        max_output=options.max_output,
        mcp_config=options.mcp_config,
        tty=options.tty,
        redaction=options.redaction,
        limits=options.limits,
    ) as capture:
        if client:  # once, or once per tool when it takes {tool}
            invocation: tuple[str, ...] | None = client
            template = ToolTemplate(client) if any(TOOL_SLOT in part for part in client) else None
        else:
            template = _discovered(capture, options, progress)
            invocation = template.argv if template else None
        if invocation is None:
            return options.out
        capture.set_meta(Invocation(argv=invocation))
        runs: list[tuple[tuple[str, ...], str | None]]
        if template:
            runs = [(tuple(template.argv_for(tool)), tool) for tool in payloads.TOOLS]
        elif is_agent_client(invocation):  # an agent calls the tool its scripted model asks for: one run per tool
            runs = [(tuple(invocation), tool) for tool in payloads.TOOLS]
        else:
            runs = [(tuple(invocation), None)]
        terminal = under_terminal(options.tty)
        how = "under a terminal" if terminal else "piped, answered at its prompts" if options.tty else "piped"
        for argv, tool in runs:
            facts: dict[str, Fact] = {"tty": terminal}
            if tool is not None:
                facts["tool"] = tool
            run_ = capture.new_run(RUN, {}, scenario=SCENARIO, facts=facts)
            what = f"the tool {tool}" if tool else "the five elicitation-ui tools"
            progress(f"running the client against {what}, {how}")
            with scripted({"tool": tool} if tool is not None and is_agent_client(argv) else None):
                capture.run_client(run_, list(argv), timeout=options.timeout, stdin=options.stdin)
    return options.out


def _discovered(capture: Capture, options: CheckOptions, progress: Progress) -> ToolTemplate | None:
    """`--target` discovered, as a per-tool template (the tool's name where the confirmed invocation put its own);
    None (and a `client-not-run` anomaly) when discovery found no invocation, or one that names none of the tools."""
    assert options.target
    found = discover_target(
        capture,
        options.target,
        scenario=SCENARIO,
        tools=payloads.TOOLS,
        timeout=options.timeout,
        stdin=options.stdin,
        progress=progress,
        call_plan=DISCOVERY_PLAN,
    )
    if found.invocation is None:
        capture.note_anomaly(
            NOT_RUN, f"discovery of {shlex.join(options.target)} found no invocation ({found.status}): no client run"
        )
        return None
    template = tool_template(found.invocation, payloads.TOOLS)
    if template is None:  # discovery calls one of the tools it was given; a candidate naming none is not one of its
        capture.note_anomaly(
            NOT_RUN, f"the invocation discovery found names none of the tools: {shlex.join(found.invocation)}"
        )
        return None
    return template
