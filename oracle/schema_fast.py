"""A compiled second reading of the official schemas, asked first because it is quick, and trusted only to say yes.

jsonschema walks the MCP schema's `$ref`s and `anyOf` unions in Python: about 0.36 ms a message, and a corpus of
distinct recordings validates a few hundred messages each, which was a quarter of judging one. jsonschema-rs reads
the same definitions in Rust, about 15 µs a message. It only ever answers "valid": a message it refuses, or cannot
take at all (a lone surrogate, a number Rust cannot hold), goes to jsonschema as before, which decides and writes
every complaint a report shows. So a report changes by no byte, and where the two readings ever differed, the cost
would be a finding missed, never one made up; tests/oracle/test_schema_fast.py holds them to the same answers on
every message of the committed recordings and on broken variants of them.

The formats read the same: `format: uri` by oracle/uri.py's `is_uri` (the very function jsonschema's checker is),
and the schema's other formats (`byte`, `uri-template`) are not checked, as jsonschema does not check them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jsonschema_rs

from .uri import is_uri

# the formats jsonschema checks here (only `uri`: oracle/uri.py) and those it passes unread
_FORMATS: dict[str, Callable[[str], bool]] = {
    "uri": is_uri,
    "byte": lambda _: True,
    "uri-template": lambda _: True,
}

Accepts = Callable[[Any], bool]


def compiled(defs_key: str, defs: Mapping[str, Any], name: str) -> Accepts:
    """Whether a value certainly meets definition `name` of a schema's `defs` (draft 2020-12 under `$defs`, draft-07
    under `definitions`, as the official files are); False means "ask jsonschema", not "invalid".

    The value must be what `json.loads` makes (both callers decode the recorded text): jsonschema-rs reads a Python
    tuple as an array, where jsonschema does not. Its nesting is bounded by the reader (64 levels,
    recordings/guard.py), well inside what jsonschema itself can walk, so "valid" never stands in for its crash.
    A validator that cannot be built (a later jsonschema-rs that changed its API) is never asked: every message then
    goes to jsonschema, as before this module."""
    kind = jsonschema_rs.Draft202012Validator if defs_key == "$defs" else jsonschema_rs.Draft7Validator
    root = {"$ref": f"#/{defs_key}/{name}", defs_key: dict(defs)}
    try:
        # offline: a `$ref` to anywhere outside the file is never fetched (the official files have none)
        validator = kind(root, formats=_FORMATS, validate_formats=True, ignore_unknown_formats=True, offline=True)
    except Exception:  # noqa: BLE001 - no quick reading: jsonschema judges every message
        return _never

    def accepts(value: Any) -> bool:
        try:
            return bool(validator.is_valid(value))
        except Exception:  # noqa: BLE001 - a value the Rust side cannot take at all is jsonschema's to judge
            return False

    return accepts


def _never(_: Any) -> bool:
    return False
