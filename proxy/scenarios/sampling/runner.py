"""The run side of `sampling`: one run of `--client` against the five tools, piped or under a terminal.

The recording's nonce goes into every text the server sends (oracle/scenarios/sampling/payloads.py), and the run
notes whether it ran under a terminal, so the checks read a user's steps (`--answer` snapshots) the same way the
elicitation-ui checks do."""

from __future__ import annotations

import secrets
from pathlib import Path

from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.tty import under_terminal
from backchannel.proxy.scenarios.base import CheckOptions, Progress
from backchannel.proxy.scenarios.sampling.endpoint import TOOLS
from backchannel.recordings.shapes import Fact, Invocation, ProbeOptions

SCENARIO = "sampling"
RUN = "contract"


def run(options: CheckOptions, progress: Progress) -> Path:
    """The `contract` run of `--client`."""
    nonce = secrets.token_hex(8)
    client = tuple(options.client or ())
    stdin = None if options.stdin is None else options.stdin.decode("utf-8", "replace")
    with Capture(
        options.out,
        endpoint=EndpointConfig(tools=TOOLS, nonce=nonce, era=options.era),
        nonce=nonce,
        scenario=SCENARIO,
        meta=(ProbeOptions(client=client, stdin=stdin),),
        env=options.env,
        max_output=options.max_output,
        mcp_config=options.mcp_config,
        tty=options.tty,
        redaction=options.redaction,
        limits=options.limits,
    ) as capture:
        capture.set_meta(Invocation(argv=client))
        terminal = under_terminal(options.tty)
        facts: dict[str, Fact] = {"tty": terminal}
        run_ = capture.new_run(RUN, {}, scenario=SCENARIO, facts=facts)
        how = "under a terminal" if terminal else "piped, answered at its prompts" if options.tty else "piped"
        progress(f"running the client against the five sampling tools, {how}")
        capture.run_client(run_, list(client), timeout=options.timeout, stdin=options.stdin)
    return options.out
