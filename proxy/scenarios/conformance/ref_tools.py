"""The `json-schema-ref-no-deref` run's tool (SEP-2106): `lookup_user`, whose inputSchema has a same-document `$ref`
(safe to resolve) and a `$ref` to a network URI, the canary: a loopback server that records every request reaching
it. A client MUST NOT dereference the network `$ref` on its own."""

from __future__ import annotations

from typing import Any

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec

CANARY_SERVER = "canary"  # the UrlServer's name: url_hits rows of this server are the canary's
CANARY_PATH = "/canary/profile-schema.json"  # the suite's path


def lookup_schema(canary_url: str) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"userId": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
        "properties": {"id": {"$ref": "#/$defs/userId"}, "profile": {"$ref": canary_url}},
        "required": ["id"],
    }


def _lookup(call: ToolCall) -> ToolReply:
    return ToolReply(result={"content": [{"type": "text", "text": f"user {call.arguments.get('id')!s:.40}"}]})


def ref_tools(canary_url: str) -> tuple[ToolSpec, ...]:
    """The run's one tool, its network `$ref` pointing at `canary_url`."""
    return (ToolSpec("lookup_user", "Look up a user profile by id", lookup_schema(canary_url), _lookup),)
