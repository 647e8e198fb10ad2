"""The run side of `elicitation-ui`: one run of the client against the five tools, piped or under a terminal."""

from __future__ import annotations

import secrets
from pathlib import Path

from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.recordings.shapes import Invocation, ProbeOptions

SCENARIO = "elicitation-ui"
RUN = "contract"


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
        run_ = capture.new_run(RUN, {}, scenario=SCENARIO, facts={"tty": options.tty is not None})
        how = "under a terminal" if options.tty is not None else "piped"
        progress(f"running the client once against the five elicitation-ui tools, {how}")
        capture.run_client(run_, list(client), timeout=options.timeout, stdin=options.stdin)
    return options.out
