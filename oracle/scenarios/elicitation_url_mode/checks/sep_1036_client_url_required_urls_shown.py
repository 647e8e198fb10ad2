"""Each URL a -32042 error names reaches the user in full before the client acts on it (2025-11-25)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.by_hand import unseen_by_lab
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.terminal import first_sighting
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, rounds
from ..url_required import TOOL, exercised_required, required_urls

SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation"
AMBIGUOUS_S = 0.25  # a terminal read is a little after the write: this close to the act, a person orders the two


@check(
    "sep-1036-client-url-required-urls-shown",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC_2025}#safe-url-handling",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="Each URL a -32042 error names is shown in full before the client acts on it",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "MUST show the full URL to the user for examination before consent". url_required answers its first
    call -32042 with one URL-mode elicitation in `data.elicitations`; its `url` must appear in what the client
    showed (stdout/stderr, or the terminal under --tty) before the client acted on the user's consent: retried the
    call, or opened the URL (an opener stand-in's call). A fetch of the URL by the client itself is no consent but a
    prefetch, judged by sep-1036-client-no-url-prefetch. Never shown and never acted on: WARN (no consent happened,
    a person judges); shown within 0.25 s after the act: WARN (too close to order). Era: 2025-11-25 only
    (2026-07-28 removed -32042: SKIP removed-in-2026; 2025-06-18 has no URL mode: SKIP no-url-mode). A host a person
    drove: SKIP by-hand (its screen is not recorded)."""
    found = exercised_required(rec)
    if isinstance(found, Finding):
        yield found
        return
    run, error = found
    driven = unseen_by_lab(rec, run)  # a host a person drove: what it showed is not recorded
    if driven is not None:
        yield driven
        return
    urls = required_urls(error)
    cited = Evidence(kind="message", run=run.id, seq=error.seq, note="-32042")
    if not urls:
        yield Finding.errored("no-url", "the -32042 names no URL (the scripted server's fault)", cited, run=run.id)
        return
    acts: list[tuple[float, str, Evidence]] = []
    for call in rounds(rec, run, TOOL):
        if call.request.seq > error.seq and call.request.t is not None:
            acts.append((call.request.t, "retried the call", call.evidence("retry")))
    for opened in rec.opens_in(run.id):
        if any(url in target for target in opened.targets for url in urls) and opened.t is not None:
            acts.append(
                (opened.t, "opened the URL", Evidence(kind="run", run=run.id, note=f"{opened.opener} #{opened.seq}"))
            )
    first = min(acts, default=None, key=lambda act: act[0])
    sightings = []
    for url in urls:
        sighting = first_sighting(rec, run.id, url)
        if sighting is None:
            if first is None:
                yield Finding.warned(
                    f"the URL {url!r} was never shown and the client never acted on it (a person judges)",
                    cited,
                    run=run.id,
                )
            else:
                yield Finding.failed(f"the URL {url!r} was never shown; the client {first[1]}", cited, first[2],
                                     run=run.id)  # fmt: skip
            return
        shown = Evidence(kind="terminal", run=run.id, stream=sighting.stream, offset=sighting.offset,
                         length=sighting.length, note="the full URL")  # fmt: skip
        if first is not None and sighting.t is not None and sighting.t > first[0]:
            late = sighting.t - first[0]
            verdict = Finding.warned if late <= AMBIGUOUS_S else Finding.failed
            yield verdict(
                f"the URL was first shown {late * 1000:.0f} ms after the client {first[1]}", shown, first[2], cited,
                run=run.id,
            )  # fmt: skip
            return
        sightings.append(shown)
    after = f" before the client {first[1]}" if first is not None else ""
    acted = (first[2],) if first is not None else ()
    yield Finding.passed(
        f"every URL the -32042 named ({len(urls)}) was shown in full{after}", cited, *sightings, *acted, run=run.id
    )
