"""The run side of the `elicitation-url-mode` scenario: one run of a contract-following client, URL servers up."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.url_servers import UrlServer
from backchannel.proxy.scenarios.base import CheckOptions, Progress
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint import TOOLS
from backchannel.recordings.rows import UrlHitRow
from backchannel.recordings.shapes import ProbeOptions, UrlServers

SCENARIO = "elicitation-url-mode"
DEFAULT_HOLD_MS = 5000


class UrlModeScenario:
    def __init__(self, options: CheckOptions, progress: Progress) -> None:
        self.options = options
        self.progress = progress

    def run(self) -> Path:
        pending: list[UrlHitRow] = []
        capture: Capture | None = None

        def sink(row: UrlHitRow) -> None:
            if capture is not None and capture.writer is not None:
                capture.writer.insert(row)
            else:
                pending.append(row)

        declined, accepted = UrlServer("declined", sink), UrlServer("accepted", sink)
        hold = int(self.options.setting("hold_ms", DEFAULT_HOLD_MS))
        params = {
            "url_declined": declined.url("/link/round-1"),
            "url_declined_base": declined.url(""),
            "url_base": accepted.url(""),
            "hold_ms": str(hold),
        }
        meta = (
            UrlServers(ports={"declined": declined.port, "accepted": accepted.port}),
            ProbeOptions(client=tuple(self.options.client or ()), hold_ms=hold),
        )
        endpoint = EndpointConfig(
            tools=TOOLS, params=params, era=self.options.era, answer_timeout_s=self.options.answer_timeout_s
        )
        try:
            with Capture(
                self.options.out,
                endpoint=endpoint,
                scenario=SCENARIO,
                meta=meta,
                env=self.options.env,
                max_output=self.options.max_output,
                mcp_config=self.options.mcp_config,
                tty=self.options.tty,
                redaction=self.options.redaction,
                limits=self.options.limits,
            ) as cap:
                capture = cap
                for row in pending:
                    sink(row)
                run = cap.new_run("contract", {}, scenario=SCENARIO, facts={**params, "hold_ms": hold})
                declined.run_id = accepted.run_id = run.id
                self.progress("running the client against seven tools, with two URL servers recording every hit")
                cap.run_client(
                    run,
                    list(self.options.client or []),
                    timeout=max(self.options.timeout, hold / 500 + 30),
                    stdin=self.options.stdin,
                )
        finally:
            declined.stop()
            accepted.stop()
        return self.options.out


def run(options: CheckOptions, progress: Progress) -> Path:
    """The scenario's runner: one run of a contract-following client, with two URL servers recording every hit."""
    return UrlModeScenario(options, progress).run()
