"""The client waits for a retry the server holds open as plain JSON."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC
from ..held_retry import judge_held


@check(
    "sep-1036-client-held-json-retry-complete",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}/client/elicitation#url-mode-flow",
    title="A retry held open as JSON (no bytes until ready) is waited for",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """After the URL accept, the server holds the retry's answer (5 s by default) and sends no bytes until it is
    ready. A flow check: the spec lets servers block; a client that closes the request early fails. Era: 2026-07-28
    only (a 2025 client has no retry to hold: SKIP mrtr-only)."""
    yield from judge_held(rec, "held_json", "json")
