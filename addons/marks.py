"""Marks a flow backchannel changed, for a person watching mitmweb: a marker in the flow list, and a comment saying
which mutations applied and what each did. Called only for flows a mutation applied to, as they end."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mitmproxy import http

MARKER = ":wrench:"  # mitmweb shows it as 🔧 beside the path
PREFIX = "backchannel: "
WHAT = {  # a record's ROLE, in words
    "request": "changed the request",
    "result": "changed the result",
    "delivery": "changed the delivery",
    "answer": "answered itself",
    "fault": "broke the answer",
    "decision": "decided",
}
_SHORT = 40  # a member longer than this (a minted requestState, a client's inputResponses) is left out


def describe(record: Any) -> str:
    """One record in words: its kind, what its role did, and its short scalar members (`hold: changed the delivery
    (as="json", ms=5000)`)."""
    members = record.to_json()
    shown = [
        f"{name}={json.dumps(value)}"
        for name, value in (members.items() if isinstance(members, dict) else ())
        if name not in ("kind", "index") and isinstance(value, str | int | bool) and len(json.dumps(value)) <= _SHORT
    ]
    kind = getattr(record, "KIND", None) or getattr(record, "kind", None) or "unknown"
    detail = f" ({', '.join(shown)})" if shown else ""
    return f"{kind}: {WHAT.get(record.ROLE, record.ROLE)}{detail}"


def mark(flow: http.HTTPFlow, records: Sequence[Any]) -> None:
    """Mark the flow and say how it was changed; a flow where only decisions were taken is left as it is."""
    if all(record.ROLE == "decision" for record in records):
        return
    flow.marked = MARKER
    flow.comment = PREFIX + "; ".join(describe(record) for record in records)
