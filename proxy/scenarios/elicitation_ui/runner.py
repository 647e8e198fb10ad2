"""The run side of `elicitation-ui`: one run of the client against the five tools, piped or under a terminal.

A client that calls one tool per invocation (a CLI's `call URL TOOL`) takes `{tool}` in its command line: then it
runs once per tool, each run named `contract` like the single one, so the checks read them alike."""

from __future__ import annotations

import secrets
from pathlib import Path

from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.recordings.shapes import Fact, Invocation, ProbeOptions

SCENARIO = "elicitation-ui"
RUN = "contract"
TOOL = "{tool}"  # in --client: run the client once per tool, the tool's name here


def run(options: CheckOptions, progress: Progress) -> Path:
    """One run named `contract` of `--client`, the recording's nonce in every text the server sends."""
    if not options.client:
        raise CheckError(f'--scenario {SCENARIO} runs a terminal client once: give --client "CMD ... {{url}}"')
    nonce = secrets.token_hex(8)
    client = tuple(options.client)
    stdin = None if options.stdin is None else options.stdin.decode("utf-8", "replace")
    meta = (ProbeOptions(client=client, stdin=stdin),)
    with Capture(
        options.out,
        endpoint=EndpointConfig(scenario=SCENARIO, nonce=nonce),
        nonce=nonce,
        scenario=SCENARIO,
        meta=meta,
        env=options.env,
        max_output=options.max_output,
        mcp_config=options.mcp_config,
        tty=options.tty,
    ) as capture:
        capture.set_meta(Invocation(argv=client))
        how = "under a terminal" if options.tty is not None else "piped"
        per_tool = any(TOOL in part for part in client)
        for tool in payloads.TOOLS if per_tool else (None,):
            facts: dict[str, Fact] = {"tty": options.tty is not None}
            argv = list(client)
            if tool is not None:
                facts["tool"] = tool
                argv = [part.replace(TOOL, tool) for part in client]
            run_ = capture.new_run(RUN, {}, scenario=SCENARIO, facts=facts)
            what = f"the tool {tool}" if tool else "the five elicitation-ui tools"
            progress(f"running the client against {what}, {how}")
            capture.run_client(run_, argv, timeout=options.timeout, stdin=options.stdin)
    return options.out
