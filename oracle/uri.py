"""What "a valid URL" means to every check: the official schema's `format: uri`, decided by jsonschema's own checker.

jsonschema checks a format only when a package for it is installed (without one, `format: uri` passes anything), so
backchannel depends on `rfc3986-validator` and this module refuses to load without a `uri` checker. `wire_schema`
validates with `URI_FORMAT` and `sep-1036-url-valid` asks `is_uri`: the same function, so they cannot disagree.
An absolute RFC 3986 URI passes; a relative reference or a string with a space fails; no scheme is preferred.
"""

from __future__ import annotations

from jsonschema import FormatChecker

if "uri" not in FormatChecker.checkers:  # a missing dependency must not turn every URL check into a pass
    raise ImportError("jsonschema has no `uri` format checker: install rfc3986-validator (a backchannel dependency)")

URI_FORMAT = FormatChecker(formats=("uri",))


def is_uri(value: object) -> bool:
    """True for a string that is an absolute RFC 3986 URI (exactly the schema's `format: uri`)."""
    return isinstance(value, str) and URI_FORMAT.conforms(value, "uri")
