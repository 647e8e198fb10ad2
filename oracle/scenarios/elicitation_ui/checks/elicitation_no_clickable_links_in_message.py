"""A URL inside a form message is not rendered as a terminal hyperlink (OSC 8)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.terminal import raw_bytes, stream_names
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, exercised
from ..payloads import FORM_TOOL, form_link

# OSC 8 ; params ; URI (BEL or ST): a hyperlink opening, with a target
HYPERLINK = re.compile(rb"\x1b\]8;[^;\x07\x1b]*;([^\x07\x1b]+)(?:\x07|\x1b\\)")


@check(
    "elicitation-no-clickable-links-in-message",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#safe-url-handling",
    title="A URL in a form message is not rendered clickable (no OSC 8 hyperlink)",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "SHOULD NOT render URLs as clickable in any field of an elicitation request, except for the `url`
    field in a URL elicitation request". confirm_change's message holds a URL; an OSC 8 hyperlink to it in the
    terminal's raw bytes is WARN (a SHOULD NOT); none is PASS. The form message not shown at all: SKIP."""
    found = exercised(rec, FORM_TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, asked = found
    link = form_link(rec.info.nonce or "")
    shown, hits = False, []
    for name in stream_names(rec, run.id):
        raw = raw_bytes(rec, run.id, name)
        shown = shown or link.encode("utf-8", "surrogatepass") in raw
        for match in HYPERLINK.finditer(raw):
            if link.encode("utf-8", "surrogatepass") in match.group(1):
                note = "an OSC 8 hyperlink to the form message's URL"
                hits.append(
                    Evidence(
                        kind="terminal", run=run.id, stream=name, offset=match.start(), length=len(match[0]), note=note
                    )
                )
    if hits:
        yield Finding.warned(f"the form message's URL was rendered clickable {len(hits)} time(s)", *hits, run=run.id)
    elif not shown:
        yield Finding.skipped("message-not-shown", "the form message's URL was never shown", run=run.id)
    else:
        yield Finding.passed("the form message's URL was shown as plain text", asked.evidence("the form"), run=run.id)
