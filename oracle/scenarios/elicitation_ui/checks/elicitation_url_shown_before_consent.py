"""The full URL of a URL-mode elicitation reaches the user's terminal before the client's answer leaves."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, exercised, seen_before_answer
from ..payloads import URL_TOOL


@check(
    "elicitation-url-shown-before-consent",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#safe-url-handling",
    title="The full URL, exactly as sent, is shown before the user's answer leaves",
    eras=("2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "MUST show the full URL to the user for examination before consent". The exact `url` the server
    sent (connect_account) must appear in what the user saw (stdout/stderr piped; the terminal's text under --tty,
    escape sequences removed; a URL wrapped across lines counts) before the retry carrying the answer left the
    client. Terminal chunks carry the time the harness read them and messages the time the proxy saw them, on one
    clock; a sighting up to 0.25 s after the answer is too close to order: WARN for a person, never FAIL, unless
    the client showed the tool's final result (which it has only once its answer left) earlier in the same stream."""
    found = exercised(rec, URL_TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    if asked.url is None:
        yield Finding.errored("no-url", f"{URL_TOOL}'s request carries no url (the scripted server's fault)")
        return
    yield seen_before_answer(rec, run, asked, asked.url, "the full URL")
