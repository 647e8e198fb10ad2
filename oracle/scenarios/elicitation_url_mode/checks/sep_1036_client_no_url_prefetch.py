"""A URL the user declined is never fetched."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, exercised, message_of

TOOL = "url_rounds"


@check(
    "sep-1036-client-no-url-prefetch",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/client/elicitation#safe-url-handling",
    title="The declined URL is never fetched (no prefetch, preview, HEAD or favicon)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients MUST NOT automatically pre-fetch a URL-mode URL or any of its metadata. The declined URL is served
    by its own loopback server that records every hit; only hits after the DECLINE request reached the client are
    judged, because on the accept path a consented open looks exactly like a prefetch."""
    found = exercised(rec, TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, calls = found
    declined = next(
        (c for c in calls if any(message_of(r).startswith("DECLINE:") for r in c.input_requests.values())), None
    )
    if declined is None or declined.response is None:
        yield Finding.skipped("decline-not-reached", "the declined URL request never reached the client", run=run.id)
        return
    since = declined.response.t or 0.0
    hits = [h for h in rec.url_hits if h.run_id == run.id and h.server == "declined" and (h.t or 0.0) >= since]
    if hits:
        yield Finding.failed(
            f"the declined URL was fetched {len(hits)} time(s): " + ", ".join(f"{h.method} {h.path}" for h in hits[:5]),
            *(Evidence(kind="run", run=run.id, seq=h.seq, note=f"url hit {h.method} {h.path}") for h in hits),
            Evidence(kind="message", run=run.id, seq=declined.response.seq, note="DECLINE request"),
            run=run.id,
        )
        return
    yield Finding.passed(
        "no request reached the declined URL's server after it was offered",
        Evidence(kind="message", run=run.id, seq=declined.response.seq, note="DECLINE request"),
        run=run.id,
    )
