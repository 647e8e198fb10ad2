"""Every message a server sends is valid against the official schema of the era it speaks."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC
from ..schema_valid import judged


@check(
    "session-server-wire-schema-valid",
    scenario=SCENARIO,
    side="server",
    level="MUST",
    spec=f"{SPEC}/schema",
    title="Every message the server sent is valid against its era's official schema",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Each request, notification, result and error the server sent, as it sent it, validated against the official
    schema.json of the era that message speaks (2025-06-18, 2025-11-25 or 2026-07-28, shipped unchanged): the
    definition of its method, of its error code, or of the result of the request it answers, and the JSON-RPC
    envelope. Its era comes from the message itself (`_meta`, `MCP-Protocol-Version`) or its session's
    `initialize` handshake, shown in the evidence. A message that fails: FAIL with the schema's complaints; when
    its era was only inferred from the run's last handshake: WARN. No message of a shipped era: SKIP."""
    yield judged(rec, "server")
