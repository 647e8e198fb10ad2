"""The run side of `sdk-regressions`: one run of `--client` against the three tools.

The recording's nonce goes into every value the tools mint (proxy/scenarios/sdk_regressions/endpoint.py), so the
oracle can tell by structure which request a value in an answer belongs to."""

from __future__ import annotations

import secrets
from pathlib import Path

from backchannel.oracle.scenarios.sdk_regressions import SCENARIO
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.proxy.scenarios.sdk_regressions.endpoint import TOOLS
from backchannel.recordings.shapes import Invocation, ProbeOptions

RUN = "contract"


def run(options: CheckOptions, progress: Progress) -> Path:
    """The `contract` run of `--client`."""
    if not options.client:
        raise CheckError(f'--scenario {SCENARIO} runs a client: give --client "CMD ... {{url}}"')
    nonce = secrets.token_hex(8)
    client = tuple(options.client)
    stdin = None if options.stdin is None else options.stdin.decode("utf-8", "replace")
    config = EndpointConfig(tools=TOOLS, nonce=nonce, era=options.era, answer_timeout_s=options.answer_timeout_s)
    with Capture(
        options.out,
        endpoint=config,
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
        handle = capture.new_run(RUN, {}, scenario=SCENARIO)
        progress("running the client against decline_then_accept, keep_asking and ask_other_mode")
        capture.run_client(handle, list(client), timeout=options.timeout, stdin=options.stdin)
    return options.out
