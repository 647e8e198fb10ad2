"""Finding how a CLI calls a tool, through a capture: `--target` for any scenario that runs a client.

The help probes and candidate tries of proxy/run/discovery.py, each as a run of the capture (`discovery-help`,
`discovery-call`); the ledger (the proxy's recording) confirms the first candidate whose `tools/call` reached it. What
was found goes into the recording as its `discovery` meta; the caller records the invocation it then runs.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.discovery import Discovery, HelpOutput, discover, rejection
from backchannel.recordings.shapes import Discovery as DiscoveryRecord

HELP_TIMEOUT = 20.0  # seconds a help probe may take, at most
LEDGER_WAIT = 2.0  # seconds the ledger is given, after a candidate ended, to show its tools/call


def discover_target(
    capture: Capture,
    target: Sequence[str],
    *,
    scenario: str,
    tools: Sequence[str],
    timeout: float,
    stdin: bytes | None,
    progress: Callable[[str], None],
    call_plan: Mapping[str, Any] | None = None,
) -> Discovery:
    """Discover how `target` calls one of `tools`, record the `discovery` meta, and return what was found.

    Each help probe is a `discovery-help` run (no plan, at most HELP_TIMEOUT s), each candidate a `discovery-call`
    run with `call_plan` (a scenario whose tools would hold the CLI, e.g. by eliciting, answers the trial call at
    once instead), `stdin` and `timeout`. A candidate is confirmed when the ledger saw its `tools/call` go to the
    server, whatever the CLI made of the answer."""
    base = list(target)
    progress(f"discovering how {shlex.join(base)} calls a tool")

    def run_help(probe: tuple[str, ...]) -> HelpOutput:
        run = capture.new_run("discovery-help", {}, scenario=scenario, argv=[*base, *probe])
        chunks: list[bytes] = []
        result = capture.run_client(
            run,
            [*base, *probe],
            timeout=min(timeout, HELP_TIMEOUT),
            on_output=lambda _s, data: chunks.append(data),
        )
        return HelpOutput(probe, result.exit_code, b"".join(chunks).decode("utf-8", "replace"))

    def try_candidate(candidate: tuple[str, ...]) -> str | None:
        """None when the ledger saw this candidate's tools/call reach the proxy, else why it was rejected."""
        run = capture.new_run("discovery-call", dict(call_plan or {}), scenario=scenario, argv=list(candidate))
        progress(f"trying {shlex.join(candidate)}")
        result = capture.run_client(run, list(candidate), timeout=timeout, stdin=stdin)
        reached = capture.wait_for(
            lambda: any(
                m.method == "tools/call" and m.direction == "to-server" for m in capture.read().messages_in(run.id)
            ),
            timeout=LEDGER_WAIT,
        )
        if reached:
            return None
        reason = rejection(result.outcome, result.exit_code, result.detail)
        progress(f"rejected: {reason}")
        return reason

    found = discover(base, run_help, try_candidate, tools=tuple(tools))
    capture.set_meta(
        DiscoveryRecord(
            status=found.status,
            invocation=tuple(found.invocation) if found.invocation else None,
            candidates=tuple(tuple(c) for c in found.candidates),
            tried=tuple(tuple(c) for c in found.tried),
            rejected=tuple((tuple(argv), reason) for argv, reason in found.rejected),
        )
    )
    capture.flush()
    if found.invocation is None:
        progress(f"discovery: {found.status}")
    return found
