"""Did the harness see every run? Read from the recording only: a harness that could not see is ERROR, never a pass.

The proxy records what went wrong around the runs (`proxy-exit`, `proxy-failed`, `orchestrator-interrupted`
anomalies), when each run ended and how its client exited. A recording that shows any of these cannot back a
clean report: `judge` adds one ERROR result per scenario, and a scenario's own gate may turn its SKIPs into
ERRORs with the same reason.
"""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.recordings.model import Recording, Run

from .model import Evidence, Finding
from .terminal import error_text

CHECK_ID = "harness-saw-every-run"
TITLE = "The harness saw every run: the proxy stayed up, nothing interrupted it, every client reached the endpoint"
SPEC = "docs/reliability.md"
STDERR_LINES = 5  # how many first lines of a failed client's stderr the message quotes
STDERR_CHARS = 600
PROXY_DIED = ("proxy-exit", "proxy-failed")
INTERRUPTED = "orchestrator-interrupted"
# the proxy passed an SSE event too large to hold (past the larger of --max-body and --max-sse-event) to the client
# unread: whatever message it carried is in no message row, so no check can have judged it
UNREAD = "sse-event-unread"
# the same for a whole request or response body too large to hold (addons/unread_body.py)
BODY_UNREAD = "body-unread"
NOT_RUN = "client-not-run"  # a scenario that could not run its client at all (e.g. --target discovery found none)
# a coding agent tried a host outside the lab (its refusing proxy saw it: proxy/run/agent_lab.py); judged by
# session-agent-stays-in-lab, never a harness problem
AGENT_OUTSIDE_HOST = "agent-outside-host"


def _stderr_head(rec: Recording, run: Run) -> tuple[str, str]:
    """(where: `stderr`, or `terminal` for a run under a tty, its first lines)."""
    where, data = error_text(rec, run.id)
    text = data[: STDERR_CHARS * 2].decode("utf-8", "replace")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()][:STDERR_LINES]
    head = " | ".join(lines)
    return where, head[:STDERR_CHARS] + ("…" if len(head) > STDERR_CHARS else "")


def _client_failed_early(rec: Recording, run: Run) -> Finding | None:
    """A client that never started, or exited non-zero before any request of its run reached the proxy."""
    if run.client_argv is None:
        return None  # a run the harness drove itself (a witness), not a client
    evidence = Evidence(kind="run", run=run.id, note=run.name)
    if run.outcome == "failed-to-start":
        note = run.detail.note or "the command could not be executed"
        return Finding.errored(
            "client-failed-to-start", f"the client of run {run.name} did not start: {note}", evidence, run=run.id
        )
    if run.name.startswith("discovery-"):
        return None  # discovery tries candidates on purpose; the ledger, not the exit code, decides
    if run.outcome != "exited" or run.exit_code in (None, 0) or any(True for _ in rec.exchanges_in(run.id)):
        return None
    where, head = _stderr_head(rec, run)
    return Finding.errored(
        "client-exited-before-any-request",
        f"the client of run {run.name} exited with code {run.exit_code} before any request reached the endpoint"
        + (f"; its {where} begins: {head}" if head else f"; it wrote nothing on {where}"),
        evidence,
        run=run.id,
    )


def harness_problems(rec: Recording) -> Iterator[Finding]:
    """Every reason this recording cannot be trusted to have seen its runs, in a stable order."""
    if rec.left_open:
        yield Finding.errored(
            INTERRUPTED,
            "the recording was left open: the process writing it stopped before it closed it (its committed rows"
            " were read from the -wal beside it)",
            Evidence(kind="recording", note="left open"),
        )
    for anomaly in rec.anomalies:
        evidence = Evidence(kind="anomaly", run=anomaly.run_id, seq=anomaly.seq, note=anomaly.kind)
        if anomaly.kind in PROXY_DIED:
            yield Finding.errored("proxy-died", f"the proxy did not serve to the end: {anomaly.detail}", evidence)
        elif anomaly.kind == INTERRUPTED:
            yield Finding.errored("orchestrator-interrupted", f"the run was interrupted: {anomaly.detail}", evidence)
        elif anomaly.kind == NOT_RUN:
            yield Finding.errored(NOT_RUN, f"the client was never run: {anomaly.detail}", evidence)
        elif anomaly.kind == UNREAD:
            yield Finding.errored(UNREAD, f"a message went to the client unread: {anomaly.detail}", evidence)
        elif anomaly.kind == BODY_UNREAD:
            yield Finding.errored(BODY_UNREAD, f"a body went on unread: {anomaly.detail}", evidence)
    for run in rec.runs:
        if run.ended_at is None:
            yield Finding.errored(
                "run-never-ended",
                f"run {run.name} has no recorded end: the harness stopped before it did",
                Evidence(kind="run", run=run.id, note=run.name),
                run=run.id,
            )
            continue
        failed = _client_failed_early(rec, run)
        if failed is not None:
            yield failed


def first_problem(rec: Recording) -> Finding | None:
    """The first harness problem, for a scenario gate that must not SKIP a recording the harness did not see."""
    return next(harness_problems(rec), None)
