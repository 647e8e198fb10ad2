"""The default scenario: one benign, read-only repository-status tool."""

from __future__ import annotations

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec


def get_repo_status(call: ToolCall) -> ToolReply:
    """Report a fixed, clean status for the named repository."""
    repo = call.arguments.get("repo", "demo")
    if not isinstance(repo, str):
        return ToolReply(result={"content": [{"type": "text", "text": "repo must be a string"}], "isError": True})
    text = f"repo {repo}: branch main, clean, 0 ahead / 0 behind"
    return ToolReply(result={"content": [{"type": "text", "text": text}], "isError": False})


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_repo_status",
        description="Show the branch and sync state of a repository.",
        input_schema={
            "type": "object",
            "properties": {
                "repo": {"type": "string", "description": "Repository name.", "default": "demo"},
            },
        },
        handler=get_repo_status,
        annotations={"readOnlyHint": True},
    ),
)
