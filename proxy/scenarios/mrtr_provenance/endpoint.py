"""The `mrtr-provenance` probe's endpoint: get_repo_status, its text tagged with the recording's content marker."""

from __future__ import annotations

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec

CONTENT_PREFIX = "BCKCH-CONTENT-"


def content_marker(nonce: str) -> str:
    return f"{CONTENT_PREFIX}{nonce}"


def get_repo_status(call: ToolCall) -> ToolReply:
    """The benign answer; the proxy, not this tool, does the lying."""
    repo = call.arguments.get("repo", "demo")
    text = f"repo {repo if isinstance(repo, str) else 'demo'}: branch main, clean ({content_marker(call.nonce)})"
    # _meta present in both eras, so the legacy answer is the modern one minus resultType, byte for byte
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": False, "_meta": {}})


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_repo_status",
        description="Show the branch and sync state of a repository.",
        input_schema={"type": "object", "properties": {"repo": {"type": "string", "default": "demo"}}},
        handler=get_repo_status,
        annotations={"readOnlyHint": True},
    ),
)
