"""The runner a scenario gets when it declares none: the client, once, against the scenario's tools, unmutated."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.recordings.shapes import Invocation, ProbeOptions


def run_once(scenario: str, options: CheckOptions, progress: Progress) -> Path:
    """One run named `run` of `--client`; the oracle judges it with the scenario's checks."""
    if not options.client:
        raise CheckError(f'--scenario {scenario} runs a client once: give --client "CMD ... {{url}}"')
    client = list(options.client)
    meta = (ProbeOptions(client=tuple(client)),)
    with Capture(
        options.out,
        endpoint=EndpointConfig(scenario=scenario),
        scenario=scenario,
        meta=meta,
        env=options.env,
        max_output=options.max_output,
        mcp_config=options.mcp_config,
        tty=options.tty,
        redaction=options.redaction,
        limits=options.limits,
    ) as capture:
        capture.set_meta(Invocation(argv=tuple(client)))
        run = capture.new_run("run", {}, scenario=scenario)
        progress(f"running the client once against the {scenario} tools")
        capture.run_client(run, client, timeout=options.timeout, stdin=options.stdin)
    return options.out
