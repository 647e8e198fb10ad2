"""Typed cells of an untrusted recording: each column's value checked for type, range and JSON depth on read.

A value of the wrong type is a ValueError or TypeError here; the table's reader (table_rows.py) turns it into a
RecordingFormatError naming the row, the table and the column.
"""

from __future__ import annotations

import json
import math
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from .guard import DEFAULT_LIMITS, json_depth_over
from .model import Headers
from .shapes import RunDetail

# The depth bound of the load under way: its ReadLimits' (reader.load binds it for its thread and call, so two loads
# in one process, each with its own limits, never see each other's); the cell readers below take values only.
JSON_DEPTH: ContextVar[int] = ContextVar("backchannel_json_depth", default=DEFAULT_LIMITS.max_json_depth)
_INT_RANGE = (-(2**63), 2**63 - 1)
CACHED_HEADERS = 16 * 1024  # longer header lists are parsed every time, so the cache's memory stays bounded


def text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    raise TypeError(f"expected text, found {type(value).__name__}")


def required_text(value: Any) -> str:
    found = text(value)
    if found is None:
        raise TypeError("expected text, found NULL")
    return found


def blob(value: Any) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"expected bytes, found {type(value).__name__}")


def integer(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        raise TypeError(f"expected an integer, found {type(value).__name__} {value!r:.40}")
    return value


def required_integer(value: Any) -> int:
    found = integer(value)
    if found is None:
        raise TypeError("expected an integer, found NULL")
    return found


def number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"expected a finite number, found {type(value).__name__} {value!r:.40}")
    return float(value)


def json_text(value: Any) -> str | None:
    found = text(value)
    depth = JSON_DEPTH.get()
    if found is not None and json_depth_over(found, depth):
        raise ValueError(f"JSON nested deeper than the reader's limit of {depth}")
    return found


def json_value(value: Any, default: Any) -> Any:
    text = json_text(value)
    if text is None:
        return default
    return json.loads(text)


def json_object(value: Any) -> dict[str, Any]:
    """A JSON column that must hold an object (a run's plan)."""
    found = json_value(value, {})
    if not isinstance(found, dict):
        raise ValueError(f"expected a JSON object, found {type(found).__name__}")
    return found


def detail(value: Any) -> RunDetail:
    """A run's detail: an object, its members read by the shape both sides share (wrongly typed ones as absent)."""
    found = RunDetail.from_json(json_value(value, {}))
    if found is None:
        raise ValueError("detail must be a JSON object")
    return found


def json_objects(value: Any) -> tuple[dict[str, Any], ...]:
    """A JSON column that must hold a list of objects (an exchange's mutation records)."""
    found = json_value(value, [])
    if not isinstance(found, list) or not all(isinstance(item, dict) for item in found):
        raise ValueError("expected a JSON list of objects")
    return tuple(found)


def argv(value: Any, column: str = "client_argv", *, required: bool = False) -> tuple[str, ...] | None:
    """A JSON command line (a list of strings); NULL reads as None unless `required`."""
    found = json_value(value, None)
    if found is None and not required:
        return None
    if not isinstance(found, list) or not all(isinstance(part, str) for part in found):
        raise ValueError(f"{column} must be a JSON list of strings")
    return tuple(found)


def rpc_id(value: Any) -> str | None:
    text = json_text(value)
    if text is not None:
        json.loads(text)  # an id the oracle cannot decode is a damaged row, named as such
    return text


def headers(value: Any) -> Headers:
    if isinstance(value, str) and len(value) <= CACHED_HEADERS:
        return _headers_of_text(value, JSON_DEPTH.get())
    return _headers(value)


@lru_cache(maxsize=4096)
def _headers_of_text(value: str, depth: int) -> Headers:
    # exchanges repeat the same header lists: parse and check each distinct text once (the result is immutable,
    # and a malformed one raises every time: exceptions are not remembered)
    return _headers(value)


def _headers(value: Any) -> Headers:
    pairs = json_value(value, [])
    # exact types: JSON decodes to plain lists and strings (and this way is half the time of isinstance per part)
    if type(pairs) is list and all(type(pair) is list and len(pair) == 2 for pair in pairs):
        found = tuple([(k, v) for k, v in pairs])
        if all(type(k) is str and type(v) is str for k, v in found):
            return found
    raise ValueError("headers must be a JSON list of [name, value] string pairs")
