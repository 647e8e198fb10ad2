"""A URL the user declined is never fetched."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..eras import asked
from ..facts import SCENARIO, SPEC, exercised, legacy, message_of
from ..url_required import REQUIRED_PATH, required_error

TOOL = "url_rounds"


@check(
    "sep-1036-client-no-url-prefetch",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/client/elicitation#safe-url-handling",
    title="The declined URL is never fetched (no prefetch, preview, HEAD or favicon)",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients MUST NOT automatically pre-fetch a URL-mode URL or any of its metadata. The declined URL is served
    by its own loopback server that records every hit; only hits after the DECLINE request reached the client are
    judged, because on the accept path a consented open looks exactly like a prefetch. Eras: 2026-07-28 (the
    DECLINE request in an InputRequiredResult) and 2025-11-25 (the DECLINE `elicitation/create` on the call's
    stream; and the URL of url_required's -32042 error, also served by the declined server, which the contract's
    user never consents to open: any hit on it after the error reached the client counts); 2025-06-18 has no URL
    mode (SKIP no-url-mode)."""
    found = exercised(rec, TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, calls = found
    if legacy(rec, run):
        offered = next((a.request for a in asked(rec, run, TOOL) if message_of(_req(a.params)).startswith("DECLINE:")),
                       None)  # fmt: skip
    else:
        declined = next(
            (c for c in calls if any(message_of(r).startswith("DECLINE:") for r in c.input_requests.values())), None
        )
        offered = declined.response if declined is not None else None
    if offered is None:
        yield Finding.skipped("decline-not-reached", "the declined URL request never reached the client", run=run.id)
        return
    since = offered.t or 0.0
    error = required_error(rec, run)
    required_since = error.t or 0.0 if error is not None else None
    hits = [
        h
        for h in rec.url_hits
        if h.run_id == run.id
        and h.server == "declined"
        and (
            (h.path != REQUIRED_PATH and (h.t or 0.0) >= since)
            or (h.path == REQUIRED_PATH and required_since is not None and (h.t or 0.0) >= required_since)
        )
    ]
    cited = [Evidence(kind="message", run=run.id, seq=offered.seq, note="DECLINE request")]
    if error is not None:
        cited.append(Evidence(kind="message", run=run.id, seq=error.seq, note="-32042 naming a URL"))
    if hits:
        yield Finding.failed(
            f"the declined URL was fetched {len(hits)} time(s): " + ", ".join(f"{h.method} {h.path}" for h in hits[:5]),
            *(Evidence(kind="run", run=run.id, seq=h.seq, note=f"url hit {h.method} {h.path}") for h in hits),
            *cited,
            run=run.id,
        )
        return
    yield Finding.passed("no request reached the declined URL's server after it was offered", *cited, run=run.id)


def _req(params: dict[str, Any]) -> dict[str, Any]:
    return {"params": params}
