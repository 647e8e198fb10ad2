"""The run side of the `conformance` scenario: one run per staged suite scenario (runs.py), each against an endpoint
of its own tools, the client given the suite's environment, all into one recording."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.url_servers import UrlServer
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.recordings.rows import UrlHitRow
from backchannel.recordings.shapes import Invocation, ProbeOptions, UrlServers

from .ref_tools import CANARY_PATH, CANARY_SERVER, ref_tools
from .runs import RUN_NAMES, RUNS

SCENARIO = "conformance"


def chosen(only: str) -> tuple[str, ...]:
    """The runs `--suite-scenario` names (comma-separated; "all" or empty: every run), in the scenario's order."""
    if only in ("", "all"):
        return RUN_NAMES
    wanted = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in RUN_NAMES]
    if unknown:
        raise CheckError(f"--suite-scenario {', '.join(unknown)}: not one of all, {', '.join(RUN_NAMES)}")
    return tuple(name for name in RUN_NAMES if name in wanted)


def run(options: CheckOptions, progress: Progress) -> Path:
    """Each chosen run of `--client` against its suite scenario's tools and plan, into `options.out`; a loopback
    canary server records every request that reaches the network `$ref` of `json-schema-ref-no-deref`."""
    names = chosen(str(options.setting("suite_scenario", "all")))
    client = list(options.client or ())
    pending: list[UrlHitRow] = []
    capture: Capture | None = None

    def sink(row: UrlHitRow) -> None:
        if capture is not None and capture.writer is not None:
            capture.writer.insert(row)
        else:
            pending.append(row)

    canary = UrlServer(CANARY_SERVER, sink)
    meta = (ProbeOptions(client=tuple(client)), UrlServers(ports={CANARY_SERVER: canary.port}))
    try:
        with Capture(
            options.out,
            endpoint=EndpointConfig(tools=(), era=options.era, answer_timeout_s=options.answer_timeout_s),
            scenario=SCENARIO,
            meta=meta,
            env=options.env,
            max_output=options.max_output,
            mcp_config=options.mcp_config,
            tty=options.tty,
            redaction=options.redaction,
            limits=options.limits,
        ) as cap:
            capture = cap
            for row in pending:
                sink(row)
            cap.set_meta(Invocation(argv=tuple(client)))
            for staged in (r for r in RUNS if r.name in names):
                tools = ref_tools(canary.url(CANARY_PATH)) if staged.canary else staged.tools
                endpoint = cap.start_endpoint(
                    EndpointConfig(tools=tools, era=options.era, answer_timeout_s=options.answer_timeout_s)
                )
                facts = {"suite_scenario": staged.name}
                if staged.canary:
                    facts["canary_url"] = canary.url(CANARY_PATH)
                handle = cap.new_run(
                    staged.name, dict(staged.plan), scenario=SCENARIO, upstream=endpoint.url, facts=facts
                )
                canary.run_id = handle.id
                progress(f"{staged.name}: {staged.summary}")
                cap.run_client(handle, client, timeout=options.timeout, stdin=options.stdin, env=staged.env())
    finally:
        canary.stop()
    return options.out
