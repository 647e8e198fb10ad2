"""SEP-2243's custom headers as the oracle reads them: a schema's `x-mcp-header` annotations, the constraints each
breaks, and what a call's arguments oblige its `Mcp-Param-*` headers to say (the spec's rule, stated once here).

Spec (2026-07-28, transports/streamable-http, "Custom Headers from Tool Parameters" and "Value Encoding").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from backchannel.oracle.session.checks.sep_2575_http_routing_headers_match_body import header_form, plain_safe

ANNOTATION = "x-mcp-header"
PARAM_PREFIX = "mcp-param-"
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
PRIMITIVE = ("integer", "string", "boolean")
ABSENT = object()
# the suite's ids for the constraints an annotation can break
NOT_EMPTY, PRIMITIVE_ONLY, UNIQUE, CHARSET = (
    "sep-2243-x-mcp-header-not-empty",
    "sep-2243-x-mcp-header-primitive-only",
    "sep-2243-x-mcp-header-unique",
    "sep-2243-x-mcp-header-charset",
)
MIRRORS, ENCODE, BASE64 = (
    "sep-2243-client-mirrors-designated-params",
    "sep-2243-client-encode-values",
    "sep-2243-client-base64-unsafe",
)


def header_annotations(
    schema: Any, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any, Mapping[str, Any]]]:
    """Each `x-mcp-header` reached from the root through `properties` keys: (property path, its value, the
    property's schema)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return
    for key, sub in properties.items():
        if isinstance(sub, Mapping):
            if ANNOTATION in sub:
                yield (*path, str(key)), sub[ANNOTATION], sub
            yield from header_annotations(sub, (*path, str(key)))


def broken_constraints(schema: Any) -> set[str]:
    """The suite ids of the x-mcp-header constraints `schema` breaks (empty: a valid tool)."""
    broken: set[str] = set()
    seen: set[str] = set()
    for _path, name, prop in header_annotations(schema):
        if not isinstance(name, str) or name == "":
            broken.add(NOT_EMPTY)
            continue
        if not _TOKEN.fullmatch(name) or _CONTROL.search(name):
            broken.add(CHARSET)
        if prop.get("type") not in PRIMITIVE:
            broken.add(PRIMITIVE_ONLY)
        if name.lower() in seen:
            broken.add(UNIQUE)
        seen.add(name.lower())
    return broken


def value_at(arguments: Any, path: tuple[str, ...]) -> Any:
    value = arguments
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return ABSENT
        value = value[key]
    return value


@dataclass(frozen=True)
class Mirrored:
    """One annotated parameter of one call: which check judges it, and what is wrong (None: nothing)."""

    check: str
    header: str
    problem: str | None


def expected_text(value: Any) -> str | None:
    """The header text the spec asks for a value (None: not a primitive the rule covers)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return value if isinstance(value, str) else None


def mirrored(schema: Any, arguments: Any, headers: Mapping[str, str]) -> Iterator[Mirrored]:
    """Every annotated parameter with a value in `arguments`, judged against the headers sent (lower-case names)."""
    for path, name, _prop in header_annotations(schema):
        value = value_at(arguments, path)
        text = expected_text(value)
        if not isinstance(name, str) or text is None:
            continue
        unsafe = isinstance(value, str) and value != "" and not plain_safe(value)
        check = BASE64 if unsafe else ENCODE if not isinstance(value, str) else MIRRORS
        header = f"Mcp-Param-{name}"
        raw = headers.get(PARAM_PREFIX + name.lower())
        if raw is None:
            yield Mirrored(check, header, f"{header} missing for {'.'.join(path)}={text[:40]!r}")
        elif unsafe and not raw.startswith("=?base64?"):
            yield Mirrored(check, header, f"{header} {raw[:40]!r} sent plain: {text[:40]!r} needs the Base64 sentinel")
        elif header_form(raw) != text:
            yield Mirrored(check, header, f"{header} {raw[:40]!r} does not stand for {text[:40]!r}")
        else:
            yield Mirrored(check, header, None)


def unannotated_headers(schema: Any, headers: Mapping[str, str]) -> list[str]:
    """The Mcp-Param-* headers sent that no annotation of the tool names."""
    names = {str(name).lower() for _p, name, _s in header_annotations(schema)}
    return sorted(k for k in headers if k.startswith(PARAM_PREFIX) and k[len(PARAM_PREFIX) :] not in names)


def null_or_absent(schema: Any, arguments: Any) -> list[str]:
    """The annotation names whose parameter is null or absent in `arguments`."""
    return [str(name) for path, name, _s in header_annotations(schema) if value_at(arguments, path) in (None, ABSENT)]
