"""Validating any JSON-RPC message against the official schema of its protocol era.

Three official schemas ship unchanged under oracle/schema/ with their license: 2025-06-18 (draft-07, `definitions`),
2025-11-25 and 2026-07-28 (draft 2020-12, `$defs`). Each message is matched to the most specific definition its
era's schema has for it: a request or notification by its `method` (the definition whose `method` is that const),
an error by its `error.code` (the typed error definitions), a result by the method of the request it answers (the
`...Request` definition's `...Result`; an `input_required` result by `InputRequiredResult`), and the JSON-RPC
envelope in every case. A method the schema does not know (an extension's) is held to the envelope only.

Known generator bugs in the released files are mended when they are loaded, never in the files: ElicitResult
content values and NumberSchema's minimum, maximum and default are generated as `integer` where the TypeScript
source says `number`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator

from .schema_fast import Accepts, compiled
from .uri import URI_FORMAT

SCHEMA_FILES = {
    "2025-06-18": "schema-2025-06-18.json",
    "2025-11-25": "schema-2025-11-25.json",
    "2026-07-28": "schema.json",
}
ERAS = tuple(SCHEMA_FILES)
# unions that alias one concrete definition and so carry a `method` const without being that method's definition
_UNIONS = frozenset(
    f"{side}{kind}" for side in ("Client", "Server") for kind in ("Request", "Notification", "Result", "Message")
)
MAX_ERRORS = 6
CACHED_TEXT = 64 * 1024  # longer messages are validated every time, so the cache's memory stays bounded


@dataclass(slots=True)
class EraSchema:
    """One era's schema, with the maps from a message's shape to its definition."""

    era: str
    defs_key: str
    defs: Mapping[str, Any]
    method_defs: dict[str, str] = field(default_factory=dict)  # method -> request or notification definition
    result_defs: dict[str, str] = field(default_factory=dict)  # request method -> result definition
    error_defs: dict[int, str] = field(default_factory=dict)  # error code -> typed error response definition
    _validators: dict[str, Validator] = field(default_factory=dict)
    _quick: dict[str, Accepts] = field(default_factory=dict)

    def validator(self, name: str) -> Validator:
        found = self._validators.get(name)
        if found is None:
            root = {"$ref": f"#/{self.defs_key}/{name}", self.defs_key: self.defs}
            kind = Draft202012Validator if self.defs_key == "$defs" else Draft7Validator
            # format: uri is checked (oracle/uri.py); the schema's other formats (byte, uri-template) are not
            found = self._validators[name] = kind(root, format_checker=URI_FORMAT)
        return found

    def accepts(self, name: str, value: Any) -> bool:
        """True when `value` certainly meets definition `name` (the compiled reading: schema_fast.py); False means
        only that jsonschema must decide."""
        quick = self._quick.get(name)
        if quick is None:
            quick = self._quick[name] = compiled(self.defs_key, self.defs, name)
        return quick(value)

    def first(self, *names: str) -> str:
        """The first of `names` this era defines (the envelopes were renamed between eras)."""
        return next((name for name in names if name in self.defs), names[-1])


def _mended(era: str, defs: dict[str, Any]) -> dict[str, Any]:
    defs = copy.deepcopy(defs)
    content = defs.get("ElicitResult", {}).get("properties", {}).get("content", {}).get("additionalProperties", {})
    for option in [content, *content.get("anyOf", [])]:
        if option.get("type") == ["string", "integer", "boolean"]:
            option["type"] = ["string", "number", "boolean"]
    if era != "2026-07-28":
        for name in ("minimum", "maximum", "default"):
            prop = defs.get("NumberSchema", {}).get("properties", {}).get(name)
            if isinstance(prop, dict) and prop.get("type") == "integer":
                prop["type"] = "number"
    return defs


@cache
def schema(era: str) -> EraSchema:
    """The schema of `era` (one of ERAS), read and indexed once per process."""
    text = resources.files("backchannel.oracle.schema").joinpath(SCHEMA_FILES[era]).read_text(encoding="utf-8")
    raw = json.loads(text)
    key = "$defs" if "$defs" in raw else "definitions"
    found = EraSchema(era, key, _mended(era, raw[key]))
    for name, definition in found.defs.items():
        if name in _UNIONS or not isinstance(definition, dict):
            continue
        props = definition.get("properties", {})
        method = props.get("method", {}).get("const")
        if isinstance(method, str):
            found.method_defs[method] = name
            if name.endswith("Request") and f"{name[: -len('Request')]}Result" in found.defs:
                found.result_defs[method] = f"{name[: -len('Request')]}Result"
        for part in props.get("error", {}).get("allOf", []):
            code = part.get("properties", {}).get("code", {}).get("const") if isinstance(part, dict) else None
            if isinstance(code, int):
                found.error_defs[code] = name
    return found


def message_errors(era: str, payload: Any, answers: str | None = None, text: str | None = None) -> tuple[str, ...]:
    """The schema of `era`'s complaints about one JSON-RPC message (empty: valid), at most MAX_ERRORS and a count
    of the rest; `answers` is the method of the request a response answers, when known. Remembered by the exact
    JSON text (`text`, the message as recorded, when the caller has it): a corpus repeats most of its messages."""
    if text is None:
        text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
    if len(text) > CACHED_TEXT:
        return _errors_of_text.__wrapped__(era, text, answers)
    return _errors_of_text(era, text, answers)


@lru_cache(maxsize=16384)
def _errors_of_text(era: str, text: str, answers: str | None) -> tuple[str, ...]:
    spec = schema(era)
    message = json.loads(text)
    if isinstance(message, list):
        return (f"a batch (JSON array) is not a message in {era}",)
    if not isinstance(message, dict):
        return ("not a JSON-RPC request, notification or response (not an object)",)
    if isinstance(message.get("method"), str):
        envelope = "JSONRPCRequest" if "id" in message else "JSONRPCNotification"
        return _against(spec, spec.method_defs.get(message["method"], envelope), message)
    if message.get("error") is not None:
        error = message["error"]
        code = error.get("code") if isinstance(error, dict) else None
        typed = spec.error_defs.get(code) if isinstance(code, int) and not isinstance(code, bool) else None
        return _against(spec, typed or spec.first("JSONRPCErrorResponse", "JSONRPCError"), message)
    if "result" in message:
        result = message["result"]
        typed = spec.result_defs.get(answers or "")
        if (
            isinstance(result, dict)
            and result.get("resultType") == "input_required"
            and "InputRequiredResult" in spec.defs
        ):
            typed = "InputRequiredResult"
        elif isinstance(result, dict) and "task" in result and "CreateTaskResult" in spec.defs:
            typed = "CreateTaskResult"  # 2025-11-25: a task-augmented request is answered with the task it made
        if typed is not None:
            errors = _against(spec, typed, result, prefix="result", label=f"{typed}, answering {answers or '?'}")
            if errors:
                return errors
        return _against(spec, spec.first("JSONRPCResultResponse", "JSONRPCResponse"), message)
    return ("not a JSON-RPC request, notification or response (no method, result or error)",)


def _closest(error: ValidationError) -> ValidationError:
    """For an anyOf or oneOf, the complaint of the alternative the value meant: the one whose consts and enums
    (a `method`, a `type`, a `mode`) it met, then the deepest; jsonschema's best_match where none stands out."""
    while error.context:
        alternatives: dict[Any, list[ValidationError]] = {}
        for inner in error.context:
            alternatives.setdefault(inner.relative_schema_path[0], []).append(inner)
        meant = [errs for errs in alternatives.values() if not any(e.validator in ("const", "enum") for e in errs)]
        if len(meant) == 1:
            error = max(meant[0], key=lambda e: len(e.absolute_path))
        else:
            error = best_match(error.context) or error
            if error.context is None or not error.context:
                break
    return error


def _against(spec: EraSchema, name: str, value: Any, prefix: str = "", label: str = "") -> tuple[str, ...]:
    if spec.accepts(name, value):
        return ()
    validator = spec.validator(name)
    if validator.is_valid(value):
        return ()
    found = []
    for error in validator.iter_errors(value):
        error = _closest(error)
        path = "/".join(str(p) for p in (prefix, *error.absolute_path) if p != "")
        found.append(f"{path or '(message)'}: {error.message[:160]} ({label or name})")
    shown = found[:MAX_ERRORS]
    if len(found) > MAX_ERRORS:
        shown.append(f"and {len(found) - MAX_ERRORS} more")
    return tuple(shown) or (f"{name}: invalid",)
