"""Validating recorded messages against the official 2026-07-28 JSON schema, plus what the schema leaves out.

The schema ships unchanged under oracle/schema/ with its license. Two of its gaps are filled here: it types
ElicitResult content values as integer where the TypeScript source says number (a generator bug clients must
not fail on), and it leaves resultType and the retry fields loose.
"""

from __future__ import annotations

import copy
import json
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from .uri import URI_FORMAT

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


@cache
def _defs() -> dict[str, Any]:
    text = resources.files("backchannel.oracle.schema").joinpath("schema.json").read_text(encoding="utf-8")
    defs: dict[str, Any] = copy.deepcopy(json.loads(text)["$defs"])
    # ElicitResult.content: schema.json says integer, schema.ts says number; accept what the spec means
    content = defs["ElicitResult"]["properties"]["content"]["additionalProperties"]["anyOf"]
    for option in content:
        if option.get("type") == ["string", "integer", "boolean"]:
            option["type"] = ["string", "number", "boolean"]
    return defs


@cache
def validator(name: str) -> Draft202012Validator:
    # format: uri is checked (oracle/uri.py: the same rule sep-1036-url-valid applies); the schema's other formats
    # (byte, uri-template) are not: which of them jsonschema checks would depend on what else happens to be installed
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": _defs()}, format_checker=URI_FORMAT)


def schema_errors(name: str, payload: Any) -> tuple[tuple[str, str], ...]:
    """The schema's complaints about `payload` as (path, message) pairs, remembered by its exact JSON text: the
    same message (a corpus of one client's recordings repeats most of its messages) is validated once per process."""
    text = json.dumps(payload, ensure_ascii=False)
    return _errors_of_text(name, text) if len(text) <= CACHED_TEXT else _errors_of_text.__wrapped__(name, text)


@lru_cache(maxsize=8192)
def _errors_of_text(name: str, text: str) -> tuple[tuple[str, str], ...]:
    payload = json.loads(text)  # decoded from the key itself, so the remembered answer depends on nothing else
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
