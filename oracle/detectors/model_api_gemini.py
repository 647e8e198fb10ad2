"""Gemini generateContent and streamGenerateContent requests into segments.

`systemInstruction` is a content (`parts`) or a string; `contents` holds turns (`user`, `model`, and `function` in
older clients) whose parts are text, `functionCall` (name, args, optional id) or `functionResponse` (name, response,
optional id: the answer to the call of that id, else of that name); `tools[].functionDeclarations` offer tools."""

from __future__ import annotations

from .model_segments import (
    Kind,
    Segments,
    ShapeError,
    child,
    described,
    each_object,
    expect_object,
    optional_str,
    role_kind,
)

# parts that carry no text the agent chose (media, the model's own code and thoughts): known, passed over
SILENT = frozenset({"inlineData", "fileData", "executableCode", "codeExecutionResult"})
META = frozenset({"thought", "thoughtSignature", "videoMetadata", "partMetadata", "mediaResolution"})


def _parts(out: Segments, kind: Kind, role: str, content: dict[str, object], path: str, calls: dict[str, str]) -> None:
    for part, where in each_object(content.get("parts"), child(path, "parts")):
        if part.get("thought") is True:
            continue  # the model's own thinking, sent back to it
        present = set(part) - META
        if "text" in present:
            out.text(kind, role, optional_str(part["text"], child(where, "text")) or "", child(where, "text"))
        elif "functionCall" in present:
            call = expect_object(part["functionCall"], child(where, "functionCall"))
            name = optional_str(call.get("name"), child(child(where, "functionCall"), "name"))
            call_id = optional_str(call.get("id"), child(child(where, "functionCall"), "id"))
            if call_id is not None and name is not None:
                calls[call_id] = name
            where_args = child(child(where, "functionCall"), "args")
            out.value("tool-call", role, call.get("args"), where_args, name, call=call_id)
        elif "functionResponse" in present:
            reply = expect_object(part["functionResponse"], child(where, "functionResponse"))
            answered = optional_str(reply.get("id"), child(child(where, "functionResponse"), "id"))
            named = optional_str(reply.get("name"), child(child(where, "functionResponse"), "name"))
            tool = calls.get(answered, named) if answered is not None else named
            where_response = child(child(where, "functionResponse"), "response")
            out.value("tool-result", role, reply.get("response"), where_response, tool, call=answered)
        elif not present <= SILENT:
            raise ShapeError(f"{where} is a part with {sorted(present)!r}, which this reader does not know")


def read(body: dict[str, object], out: Segments) -> None:
    calls: dict[str, str] = {}
    system = body.get("systemInstruction", body.get("system_instruction"))
    if isinstance(system, str):
        out.text("system", "system", system, "$.systemInstruction")
    elif system is not None:
        _parts(out, "system", "system", expect_object(system, "$.systemInstruction"), "$.systemInstruction", calls)
    if "contents" not in body:
        raise ShapeError("$.contents is missing")
    for content, path in each_object(body["contents"], "$.contents"):
        role = optional_str(content.get("role"), child(path, "role")) or "user"
        kind: Kind = "tool-result" if role == "function" else role_kind(role, child(path, "role"))
        _parts(out, kind, role, content, path, calls)
    for tool, path in each_object(body.get("tools"), "$.tools"):
        for declaration, where in each_object(tool.get("functionDeclarations"), child(path, "functionDeclarations")):
            key = "parametersJsonSchema" if "parametersJsonSchema" in declaration else "parameters"
            described(out, declaration, where, key)
