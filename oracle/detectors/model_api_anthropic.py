"""Anthropic Messages requests (`POST /v1/messages`) into segments.

`system` is a string or text blocks; `messages` holds user and assistant turns (and a `role: "system"` item, which
Claude Code sends with the MCP servers' instructions); a turn's content is a string or blocks: text, `tool_use`
(the model's call: id, name, input) and `tool_result` (the agent's answer to a call, by `tool_use_id`)."""

from __future__ import annotations

from .model_segments import (
    Segments,
    ShapeError,
    child,
    described,
    each_object,
    optional_str,
    role_kind,
    text_or_blocks,
)

# blocks that carry no text the agent chose for its model (the model's own reasoning, media): known, passed over
# (`tool_reference`: Claude Code's tool search loading a tool by name; the tool's own text is in `tools`)
SILENT = frozenset(
    {
        "thinking",
        "redacted_thinking",
        "image",
        "document",
        "server_tool_use",
        "web_search_tool_result",
        "tool_reference",
    }
)
CALLS = frozenset({"tool_use", "mcp_tool_use"})
RESULTS = frozenset({"tool_result", "mcp_tool_result"})


def read(body: dict[str, object], out: Segments) -> None:
    if body.get("system") is not None:
        text_or_blocks(out, "system", "system", body["system"], "$.system", SILENT)
    calls: dict[str, str] = {}  # tool_use id -> the tool's name, for the results that answer them
    if "messages" not in body:
        raise ShapeError("$.messages is missing")
    for message, path in each_object(body["messages"], "$.messages"):
        role = optional_str(message.get("role"), child(path, "role")) or ""
        kind = role_kind(role, child(path, "role"))
        content = message.get("content")
        if isinstance(content, str):
            out.text(kind, role, content, child(path, "content"))
            continue
        for block, where in each_object(content, child(path, "content")):
            block_type = block.get("type")
            if block_type == "text":
                out.text(kind, role, optional_str(block.get("text"), child(where, "text")) or "", child(where, "text"))
            elif block_type in CALLS:
                name = optional_str(block.get("name"), child(where, "name"))
                call_id = optional_str(block.get("id"), child(where, "id"))
                if call_id is not None and name is not None:
                    calls[call_id] = name
                out.value("tool-call", role, block.get("input"), child(where, "input"), name, call=call_id)
            elif block_type in RESULTS:
                answered = optional_str(block.get("tool_use_id"), child(where, "tool_use_id"))
                tool = calls.get(answered) if answered is not None else None
                if block.get("content") is not None:
                    where_content = child(where, "content")
                    text_or_blocks(
                        out, "tool-result", role, block["content"], where_content, SILENT, tool, call=answered
                    )
            elif block_type not in SILENT:
                raise ShapeError(f"{where} is a block of type {block_type!r}, which this reader does not know")
    for offered, path in each_object(body.get("tools"), "$.tools"):
        described(out, offered, path, "input_schema")
