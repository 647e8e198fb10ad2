"""Validating recorded 2026-07-28 requests and responses by their method, plus what the schema leaves out.

The schema ships unchanged under oracle/schema/ with its license; oracle/era_schema.py reads it and mends its
generator bugs (ElicitResult content values typed integer where the TypeScript source says number). What is filled
in here: the schema leaves resultType and the retry fields loose.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from jsonschema.protocols import Validator

from .era_schema import schema

MODERN = "2026-07-28"

REQUEST_DEFS = {
    "server/discover": "DiscoverRequest",
    "tools/list": "ListToolsRequest",
    "tools/call": "CallToolRequest",
    "prompts/list": "ListPromptsRequest",
    "prompts/get": "GetPromptRequest",
    "resources/list": "ListResourcesRequest",
    "resources/read": "ReadResourceRequest",
    "completion/complete": "CompleteRequest",
}
RESPONSE_DEFS = {
    "tools/call": "CallToolResultResponse",
    "tools/list": "ListToolsResultResponse",
    "server/discover": "DiscoverResultResponse",
}
RESULT_TYPES = ("complete", "input_required")
CACHED_TEXT = 64 * 1024  # messages longer than this are validated every time, so the cache's memory stays bounded


def validator(name: str) -> Validator:
    """The 2026-07-28 schema's validator for definition `name` (oracle/era_schema.py reads and mends the file)."""
    return schema(MODERN).validator(name)


def schema_errors(name: str, payload: Any) -> tuple[tuple[str, str], ...]:
    """The schema's complaints about `payload` as (path, message) pairs, remembered by its exact JSON text: the
    same message (a corpus of one client's recordings repeats most of its messages) is validated once per process."""
    text = json.dumps(payload, ensure_ascii=False)
    return _errors_of_text(name, text) if len(text) <= CACHED_TEXT else _errors_of_text.__wrapped__(name, text)


@lru_cache(maxsize=8192)
def _errors_of_text(name: str, text: str) -> tuple[tuple[str, str], ...]:
    payload = json.loads(text)  # decoded from the key itself, so the remembered answer depends on nothing else
    if schema(MODERN).accepts(name, payload):  # the quick reading's yes (oracle/schema_fast.py)
        return ()
    return tuple(("/".join(map(str, e.absolute_path)), e.message[:160]) for e in validator(name).iter_errors(payload))


def request_problems(payload: Any, method: str | None) -> list[str]:
    """What is wrong with a client request, by the schema and by the retry rules the schema leaves loose."""
    name = REQUEST_DEFS.get(method or "")
    if name is None:
        return []
    problems = [f"{path or '(message)'}: {message}" for path, message in schema_errors(name, payload)]
    params = payload.get("params") if isinstance(payload, dict) else None
    if isinstance(params, dict):
        if "requestState" in params and not isinstance(params["requestState"], str):
            problems.append("params/requestState: must be a string")
        if "inputResponses" in params:
            answers = params["inputResponses"]
            if not isinstance(answers, dict):
                problems.append("params/inputResponses: must be an object")
            else:
                for key, answer in answers.items():
                    problems += [
                        f"params/inputResponses/{key}: {message}"
                        for _, message in schema_errors("InputResponses", {key: answer})
                    ]
    return problems


def response_problems(payload: Any, method: str | None) -> list[str]:
    """What is wrong with a server response; for a client check these are the harness's own faults."""
    problems: list[str] = []
    name = RESPONSE_DEFS.get(method or "")
    if name is not None and isinstance(payload, dict) and "result" in payload:
        problems += [message for _, message in schema_errors(name, payload)]
    result = payload.get("result") if isinstance(payload, dict) else None
    if isinstance(result, dict):
        kind = result.get("resultType")
        if kind not in RESULT_TYPES:
            problems.append(f"resultType {kind!r} is not one of {RESULT_TYPES}")
        if kind == "input_required" and not ({"inputRequests", "requestState"} & set(result)):
            problems.append("input_required without inputRequests or requestState")
    return problems
