"""The client waits for a retry the server holds open on SSE."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC
from ..held_retry import judge_held


@check(
    "sep-1036-client-held-sse-retry-complete",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}/client/elicitation#url-mode-flow",
    title="A retry held open on SSE (keep-alives, progress) is waited for",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """After the URL accept, the server holds the retry's answer on an SSE stream with keep-alive comments (and
    progress notifications when the client sent a progressToken). A client that closes the stream early fails.
    Era: 2026-07-28 only (a 2025 client has no retry to hold: SKIP mrtr-only)."""
    yield from judge_held(rec, "held_sse", "sse")
