"""The toy agent's SEP-2243 custom headers: which `x-mcp-header` annotations a tool's inputSchema may carry, and the
`Mcp-Param-*` headers a call's arguments give (pure; the `conformance` command's careful build and its flaws).

Spec (2026-07-28, transports/streamable-http, "Custom Headers from Tool Parameters"): an annotation is a non-empty
HTTP token (`1*tchar`), case-insensitively unique in the schema, on a property of type integer, string or boolean,
reached from the root through `properties` keys only; a client over HTTP MUST leave out a tool that breaks any of it.
A value is mirrored as text (integers in decimal, booleans `true`/`false`), Base64 sentinel-encoded when it is not
plain visible ASCII without edge whitespace (or looks like the sentinel itself); a null or absent value gets no header.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from backchannel.proxy.clients.toy_agent_wire import header_value

ANNOTATION = "x-mcp-header"
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
PRIMITIVE = ("integer", "string", "boolean")
_NOT_SENT = object()


def header_annotations(
    schema: Any, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any, Mapping[str, Any]]]:
    """Every `x-mcp-header` in `schema` reached through `properties` keys only: (property path, annotation, its
    property schema). One anywhere else makes the tool invalid (`problems`)."""
    if not isinstance(schema, Mapping):
        return
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return
    for key, sub in properties.items():
        if isinstance(sub, Mapping):
            if ANNOTATION in sub:
                yield (*path, str(key)), sub[ANNOTATION], sub
            yield from header_annotations(sub, (*path, str(key)))


def _all_annotations(schema: Any) -> int:
    if isinstance(schema, Mapping):
        return (ANNOTATION in schema) + sum(_all_annotations(v) for v in schema.values())
    if isinstance(schema, list):
        return sum(_all_annotations(v) for v in schema)
    return 0


def problems(schema: Any) -> list[str]:
    """Why a tool's inputSchema breaks the x-mcp-header constraints ([]: it does not)."""
    found: list[str] = []
    seen: dict[str, str] = {}
    reachable = list(header_annotations(schema))
    if _all_annotations(schema) > len(reachable):
        found.append("an x-mcp-header is not statically reachable through properties")
    for path, name, prop in reachable:
        where = ".".join(path)
        if not isinstance(name, str) or not name:
            found.append(f"{where}: x-mcp-header is empty or not a string")
            continue
        if not _TOKEN.fullmatch(name):
            found.append(f"{where}: x-mcp-header {name!r} is not an HTTP token")
        if prop.get("type") not in PRIMITIVE:
            found.append(f"{where}: x-mcp-header on type {prop.get('type')!r} (integer, string or boolean only)")
        if name.lower() in seen:
            found.append(f"{where}: x-mcp-header {name!r} repeats {seen[name.lower()]}'s")
        seen[name.lower()] = where
    return found


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    value = arguments
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return _NOT_SENT
        value = value[key]
    return value


def as_text(value: Any, *, python_str: bool = False) -> str:
    """A parameter value's header text: `true`/`false`, decimal integers, strings as they are (the flawed build's
    `python_str` spells booleans the way Python prints them)."""
    if isinstance(value, bool) and not python_str:
        return "true" if value else "false"
    return str(value)


def sanitised(value: str) -> str:
    """The flawed build's 'encoding': unsafe characters dropped or replaced instead of the Base64 sentinel."""
    return "".join(c if " " <= c <= "~" else "?" if ord(c) > 127 else " " for c in value).strip()


def param_headers(schema: Any, arguments: Mapping[str, Any], flaws: frozenset[str] = frozenset()) -> dict[str, str]:
    """The `Mcp-Param-*` headers of a call with `arguments` to a tool of `schema` (with the flaws given)."""
    headers: dict[str, str] = {}
    if "no-param-headers" in flaws:
        return headers
    for path, name, _prop in header_annotations(schema):
        value = _at(arguments, path)
        if value is _NOT_SENT or (value is None and "null-as-text" not in flaws):
            continue
        if value == "" and "skip-empty" in flaws:
            continue
        text = "null" if value is None else as_text(value, python_str="python-str" in flaws)
        if isinstance(name, str) and _TOKEN.fullmatch(name):  # a name no header can carry: left out
            headers[f"Mcp-Param-{name}"] = sanitised(text) if "sanitise-unsafe" in flaws else encoded(text)
    if "mirror-all" in flaws and isinstance(schema, Mapping):
        for key, value in arguments.items():
            prop = schema.get("properties", {}).get(key, {})
            if isinstance(prop, Mapping) and ANNOTATION not in prop and value is not None:
                headers[f"Mcp-Param-{key.replace('_', '').title()}"] = encoded(as_text(value))
    return headers


def encoded(text: str) -> str:
    """The header value of `text`: as it is when header-safe (an empty string too), else the Base64 sentinel."""
    return "" if text == "" else header_value(text)
