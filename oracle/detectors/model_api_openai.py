"""OpenAI Chat Completions and Responses requests into segments.

Chat: `messages` with system/developer/user/assistant turns (an assistant's `tool_calls` name the functions it
calls, by id) and `tool` turns answering a call by `tool_call_id`; `tools[].function` offer tools.
Responses: `instructions` (the system text), `input` (a string, or items: messages, `function_call` with its
`call_id` and an optional `namespace`, `function_call_output` answering a `call_id`, and the custom-tool and local
shell pairs); `tools` are functions or a `namespace` grouping functions under one name and description (how Codex
offers an MCP server's tools: namespace `mcp__NAME`)."""

from __future__ import annotations

from .model_segments import (
    Segments,
    ShapeError,
    child,
    described,
    each_object,
    expect_object,
    optional_str,
    role_kind,
    text_or_blocks,
)

# content parts and items that carry no text the agent chose (media, the model's own reasoning): known, passed over
SILENT_PARTS = frozenset({"input_image", "input_file", "input_audio", "image_url", "file", "refusal"})
SILENT_ITEMS = frozenset({"reasoning", "web_search_call", "image_generation_call", "compaction", "item_reference"})
CALLS = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "local_shell_call": "action",
    "tool_search_call": "arguments",  # Codex's client-side tool search (deferred MCP tools)
}
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})
Call = tuple[str | None, str | None]  # a call's tool name and namespace


def chat(body: dict[str, object], out: Segments) -> None:
    calls: dict[str, str] = {}  # tool_call id -> function name
    if "messages" not in body:
        raise ShapeError("$.messages is missing")
    for message, path in each_object(body["messages"], "$.messages"):
        role = optional_str(message.get("role"), child(path, "role")) or ""
        content = message.get("content")
        if role in ("tool", "function"):
            answered = optional_str(message.get("tool_call_id"), child(path, "tool_call_id"))
            named = optional_str(message.get("name"), child(path, "name"))
            tool = calls.get(answered, named) if answered is not None else named
            if content is not None:
                text_or_blocks(
                    out, "tool-result", role, content, child(path, "content"), SILENT_PARTS, tool, call=answered
                )
            continue
        kind = role_kind(role, child(path, "role"))
        if content is not None:
            text_or_blocks(out, kind, role, content, child(path, "content"), SILENT_PARTS)
        for call, where in each_object(message.get("tool_calls"), child(path, "tool_calls")):
            function = expect_object(call.get("function"), child(where, "function"))
            name = optional_str(function.get("name"), child(child(where, "function"), "name"))
            call_id = optional_str(call.get("id"), child(where, "id"))
            if call_id is not None and name is not None:
                calls[call_id] = name
            where_args = child(child(where, "function"), "arguments")
            out.value("tool-call", role, function.get("arguments"), where_args, name, call=call_id)
    for offered, path in each_object(body.get("tools"), "$.tools"):
        if offered.get("function") is not None:
            where = child(path, "function")
            described(out, expect_object(offered["function"], where), where, "parameters")


def responses(body: dict[str, object], out: Segments) -> None:
    instructions = optional_str(body.get("instructions"), "$.instructions")
    if instructions is not None:
        out.text("system", "system", instructions, "$.instructions")
    items = body.get("input")
    if isinstance(items, str):
        out.text("user", "user", items, "$.input")
    else:
        _items(out, items)
    offered_tools(out, body.get("tools"), "$.tools")


def offered_tools(out: Segments, tools: object, where: str) -> None:
    """Tools offered to the model (the request's `tools`, or those a tool search found): functions, and namespaces
    whose description and tools are tied to the namespace's name."""
    for tool, path in each_object(tools, where):
        if tool.get("type") == "namespace":
            namespace = optional_str(tool.get("name"), child(path, "name"))
            description = optional_str(tool.get("description"), child(path, "description"))
            if description is not None:
                out.text("tool-description", "tool", description, child(path, "description"), None, namespace)
            for inner, where in each_object(tool.get("tools"), child(path, "tools")):
                described(out, inner, where, "parameters", namespace)
        else:
            described(out, tool, path, "parameters")


def _items(out: Segments, items: object) -> None:
    calls: dict[str, Call] = {}  # call_id -> the call's tool name and namespace
    for item, path in each_object(items, "$.input"):
        item_type = item.get("type")
        if item_type == "message" or (item_type is None and "role" in item):
            role = optional_str(item.get("role"), child(path, "role")) or ""
            kind = role_kind(role, child(path, "role"))
            text_or_blocks(out, kind, role, item.get("content"), child(path, "content"), SILENT_PARTS)
        elif isinstance(item_type, str) and item_type in CALLS:
            name = optional_str(item.get("name"), child(path, "name"))
            namespace = optional_str(item.get("namespace"), child(path, "namespace"))
            call_id = optional_str(item.get("call_id"), child(path, "call_id"))
            if call_id is not None:
                calls[call_id] = (name or ("local_shell" if item_type == "local_shell_call" else None), namespace)
            key = CALLS[item_type]
            out.value("tool-call", "assistant", item.get(key), child(path, key), name, namespace, call_id)
        elif item_type in OUTPUTS:
            answered = optional_str(item.get("call_id"), child(path, "call_id"))
            name, namespace = calls.get(answered, (None, None)) if answered is not None else (None, None)
            output = item.get("output")
            if output is not None:
                where = child(path, "output")
                text_or_blocks(out, "tool-result", "tool", output, where, SILENT_PARTS, name, namespace, answered)
        elif item_type == "tool_search_output":  # the tools the search found, offered from here on
            offered_tools(out, item.get("tools"), child(path, "tools"))
        elif item_type not in SILENT_ITEMS:
            raise ShapeError(f"{path} is an item of type {item_type!r}, which this reader does not know")
