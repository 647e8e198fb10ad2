"""A URL whose host has a Punycode (xn--) label is shown with a warning near it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, exercised, last_screen_before, text_until
from ..payloads import PUNYCODE_TOOL

NEAR_LINES = 3  # a warning this many lines above or below the host counts as near it
WARNING = re.compile(
    r"warn|caution|suspicious|punycode|homograph|look-?alike|imitat|spoof|not what it seems|careful", re.IGNORECASE
)


@check(
    "elicitation-url-punycode-warned",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#safe-url-handling",
    title="A URL with a Punycode (xn--) host is shown with a warning near it",
    eras=("2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "SHOULD have warnings for ambiguous/suspicious URIs (i.e., containing Punycode)". open_dashboard
    sends a URL whose host has an `xn--` label; a warning word (warning, caution, suspicious, Punycode, look-alike,
    spoof ...) within 3 lines of the host, before the answer left, passes; none is WARN (a SHOULD). The host not
    shown at all: SKIP (elicitation-url-host-shown judges showing)."""
    found = exercised(rec, PUNYCODE_TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    host = asked.host or ""
    text = text_until(rec, run, asked.retry.t if asked.retry else None)
    lines = text.splitlines()
    rows = [i for i, line in enumerate(lines) if host and host in line]
    if not rows:
        yield Finding.skipped("host-not-shown", f"the Punycode host {host} was not shown before the answer", run=run.id)
        return
    near = [
        line.strip()
        for row in rows
        for line in lines[max(0, row - NEAR_LINES) : row + NEAR_LINES + 1]
        if WARNING.search(line.replace(host, ""))
    ]
    screen = last_screen_before(rec, run, asked.retry.t if asked.retry else None)
    evidence = [asked.evidence("the Punycode URL")] + ([screen] if screen else [])
    if near:
        yield Finding.passed(f"warned near {host}: {near[0][:120]!r}", *evidence, run=run.id)
    else:
        yield Finding.warned(
            f"{host} (Punycode) was shown with no warning within {NEAR_LINES} lines", *evidence, run=run.id
        )
