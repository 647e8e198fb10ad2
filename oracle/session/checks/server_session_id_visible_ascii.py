"""A 2025-era server's Mcp-Session-Id holds only visible ASCII."""

from __future__ import annotations

import re
from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, Tally, cite, server_sessions

SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25"
_VISIBLE = re.compile(r"[\x21-\x7e]+")


@check(
    "server-session-id-visible-ascii",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC_2025}/basic/transports#session-management",
    title="The Mcp-Session-Id a server assigns holds only visible ASCII (0x21 to 0x7E)",
    eras=("2025-06-18", "2025-11-25"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)." Judged on each
    session id a server assigned in its answer to `initialize`, as the server sent the header (the id the official
    suite checks under the same name). Anything else in it (a space, a control character, a non-ASCII letter):
    FAIL, citing the initialize. No session id assigned: SKIP."""
    tally = Tally()
    for session in server_sessions(rec):
        for handshake in session.handshakes:
            if handshake.session_id is None:
                continue
            tally.exercise(session.run_id)
            if _VISIBLE.fullmatch(handshake.session_id) is None:
                bad = sorted({f"U+{ord(c):04X}" for c in handshake.session_id if not _VISIBLE.fullmatch(c)})[:5]
                held = f"holds {', '.join(bad)}" if bad else "is empty"
                why = f"the session id assigned to initialize (id {handshake.request.jsonrpc_id}) {held}"
                tally.broke(why, (cite(handshake.request, f"answered with an Mcp-Session-Id that {held}"),))
            elif tally.keeping:
                tally.keep(cite(handshake.request, "answered with a visible-ASCII Mcp-Session-Id"))
    yield tally.finding(what="session id(s) assigned", kept="each visible ASCII")
