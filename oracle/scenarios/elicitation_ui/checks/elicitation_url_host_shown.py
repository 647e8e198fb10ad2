"""The target host of a URL-mode elicitation is displayed before the client's answer leaves."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, exercised, seen_before_answer
from ..payloads import URL_TOOL


@check(
    "elicitation-url-host-shown",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#user-interaction-model",
    title="The target domain/host of a URL request is shown before the user's answer leaves",
    eras=("2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients MUST "for URL mode, clearly display the target domain/host and gather user consent before
    navigation to the target URL". The host of connect_account's url must appear at the terminal before the retry
    carrying the answer left (the same ordering rule as elicitation-url-shown-before-consent: close calls WARN)."""
    found = exercised(rec, URL_TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    if asked.host is None:
        yield Finding.errored("no-url", f"{URL_TOOL}'s request carries no url with a host")
        return
    yield seen_before_answer(rec, run, asked, asked.host, "the host")
