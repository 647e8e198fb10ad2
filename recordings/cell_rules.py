"""How each column's cells are redacted, from its declaration (tables.py): by the writer as a row is written
(store.py) and by trim as a copy is shared (trim.py), with the same code, so a rule changes in one place.

A rule takes a cell as it comes: as a row record hands it to the writer (text, bytes, a number, a header list of
pairs, a command line as a list) or as the file holds it (text, bytes or a number: whatever a damaged or hostile
recording put there, in any column), and gives back the cell to store. No column is kept as it is: one whose
declaration names no rule is redacted as its kind says (table_kinds.py), so a column added later is covered from its
first row. The policy (secret names, the exporting machine's names) is the one in force when a rule runs
(redact.applying): the recording's on its writer thread, the export's in trim.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import msgpack

from . import redact
from .json_form import json_text, parse_json
from .shapes import argv_of
from .table_kinds import Column, Redaction, Table
from .tables import TABLES

Rule = Callable[[object], object]
CLEAN_HEADER_LISTS = 256  # header lists found free of secrets kept per redactor, with their stored form


def _over_text(fn: Callable[[str], str]) -> Rule:
    """A rule over text, for text and for bytes through their UTF-8 (bytes that are not UTF-8 kept as they were);
    a number or NULL is kept."""

    def apply(value: object) -> object:
        if isinstance(value, str):
            return fn(value)
        if isinstance(value, bytes):
            text = value.decode("utf-8", "surrogateescape")
            new = fn(text)
            return value if new is text else new.encode("utf-8", "surrogateescape")
        return value

    return apply


def _text(kind: str, *, same_length: bool) -> Rule:
    return _over_text(partial(redact.redact_text, kind=kind, same_length=same_length))


def _key_like(kind: str) -> Rule:
    return _over_text(lambda text: redact.redact_key_like(text, kind))


def _headers(value: object) -> object:
    """A header list (pairs from a row, or its JSON text from the file) redacted, as JSON text; a damaged list is
    stored as an empty one rather than shared unread."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "surrogateescape")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return "[]"
    try:
        pairs = [(str(name), str(val)) for name, val in value]  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return "[]"
    # the same few header lists come with every exchange: one found free of secrets is not looked at again (nothing
    # in it was redacted, so nothing is left uncounted), under the redactor in force, whose policy found it clean
    clean = redact.clean_header_lists()
    key = tuple(pairs)
    stored = clean.get(key)
    if stored is not None:
        return stored
    redacted = redact.redact_headers(pairs)
    stored = json_text(redacted)
    if redacted == pairs:
        if len(clean) >= CLEAN_HEADER_LISTS:
            clean.clear()
        clean[key] = stored
    return stored


def _argv(argv: Sequence[str]) -> list[str]:
    """A command line's secrets hidden (redact_argv), then the exporting machine's home and user name masked."""
    return [redact.mask_host_text(word, "argv") for word in redact.redact_argv(argv)]


_ARGV_MEMBERS = ("target", "client", "invocation")  # meta shapes holding a command line (shapes.py)
_ARGV_LISTS = ("candidates", "tried")


def _command_line_text(text: str) -> str:
    """A JSON command line (or a meta shape holding some) with the value after a secret-named flag hidden too."""
    parsed = parse_json(text)
    if (argv := argv_of(parsed)) is not None:
        return json_text(_argv(argv))
    if isinstance(parsed, dict) and any(k in parsed for k in (*_ARGV_MEMBERS, *_ARGV_LISTS)):
        for key in _ARGV_MEMBERS:
            if (argv := argv_of(parsed.get(key))) is not None:
                parsed[key] = _argv(argv)
        for key in _ARGV_LISTS:
            entries = parsed.get(key)
            argvs = [argv_of(entry) for entry in entries] if isinstance(entries, list) else [None]
            if all(argv is not None for argv in argvs):
                parsed[key] = [_argv(argv) for argv in argvs if argv is not None]
        return redact.mask_host_text(redact.redact_json_text(json_text(parsed)), "argv")
    return redact.mask_host_text(redact.redact_json_text(text), "argv")


_COMMAND_LINE_TEXT = _over_text(_command_line_text)


def _command_line(value: object) -> object:
    """A command line from a row (a list of words), stored as JSON text; or any text the file holds."""
    if isinstance(value, list | tuple) and all(isinstance(word, str) for word in value):
        return json_text(_argv(value))
    return _COMMAND_LINE_TEXT(value)


def _latin1(value: object) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


_MSGPACK_ERRORS = (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError)


def _flow_state(packed: object) -> object:
    """mitmproxy's flow state (msgpack): its headers and path redacted like their columns, its bodies (the recorder
    leaves them out: they have their columns) like a body, every other text in it (a comment, an error, metadata)
    as free text; unreadable: dropped."""
    if not isinstance(packed, bytes):
        return None
    try:
        state = msgpack.unpackb(packed, raw=False, strict_map_key=False)
        if not isinstance(state, dict):
            return None
        kept: dict[str, tuple[object, object]] = {}
        for part in ("request", "response"):
            side = state.get(part)
            if not isinstance(side, dict):
                continue
            headers = side.pop("headers", None)
            if isinstance(headers, list | tuple):
                pairs = [(_latin1(n), _latin1(v)) for n, v in headers]
                headers = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in redact.redact_headers(pairs)]
            if isinstance(side.get("path"), bytes):
                side["path"] = (redact.redact_path(side["path"].decode("latin-1")) or "").encode("latin-1")
            kept[part] = (headers, _JSON(side.pop("content", None)))
        state = _leaves(state)
        for part, (headers, content) in kept.items():
            state[part]["headers"], state[part]["content"] = headers, content
        out: bytes = msgpack.packb(state, use_bin_type=True)
        return out
    except (ValueError, TypeError, UnicodeError, RecursionError) + _MSGPACK_ERRORS:
        return None


_FLOW_TEXT = _text("flow-state", same_length=False)


def _leaves(value: Any) -> Any:
    """Every text and bytes leaf of a decoded structure as free text."""
    if isinstance(value, dict):
        return {key: _leaves(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_leaves(item) for item in value]
    return _FLOW_TEXT(value)


def _number(free_text: Rule) -> Rule:
    def apply(value: object) -> object:
        if value is None or isinstance(value, int | float):
            return value
        return free_text(value)  # text in a number's column: a damaged or hostile file's

    return apply


def _image(free_text: Rule) -> Rule:
    """Image bytes kept whole or left out, never changed: a masked byte would corrupt the image and hide nothing a
    viewer could not still see. Anything but bytes in the cell (a hostile file's text) is left out."""

    def apply(value: object) -> object:
        if isinstance(value, bytes) and free_text(value) == value:
            return value
        return None

    return apply


def _path(value: str) -> str:
    return redact.redact_path(value) or ""


def _url(value: str) -> str:
    return redact.redact_url(value) or ""


_JSON = _over_text(redact.redact_json_text)
_BY_HOW: Mapping[str, Callable[[str], Rule]] = {
    "path": lambda kind: _over_text(_path),
    "url": lambda kind: _over_text(_url),
    "headers": lambda kind: _headers,
    "body": lambda kind: _JSON,
    "json": lambda kind: _JSON,
    "key-like": _key_like,
    "command-line": lambda kind: _command_line,
    "output": lambda kind: _text(kind, same_length=True),  # terminal output, a file: byte offsets stay true
    "text": lambda kind: _text(kind, same_length=False),
    "number": lambda kind: _number(_text(kind, same_length=False)),
    "flow-state": lambda kind: _flow_state,
    "image": lambda kind: _image(_text(kind, same_length=False)),
    "dropped": lambda kind: lambda value: None,
}


def rule(redaction: Redaction, table: Table, column: Column) -> Rule:
    """The code of a declared redaction; the tally names it by its kind, or else by its table and column."""
    return _BY_HOW[redaction.how](redaction.kind or f"{table.name}.{column.name}")


WRITTEN: Mapping[str, Mapping[str, Rule]] = {
    table.name: {column.name: rule(column.written_as, table, column) for column in table.columns} for table in TABLES
}
SHARED: Mapping[str, Mapping[str, Rule]] = {
    table.name: {column.name: rule(column.shared_as, table, column) for column in table.columns} for table in TABLES
}


def written(table: str, columns: Sequence[str]) -> tuple[Rule, ...]:
    """The writer's rules for these columns of a table, in their order (KeyError: a column not declared)."""
    rules = WRITTEN[table]
    return tuple(rules[name] for name in columns)


def redacted(rules: Sequence[Rule], values: Sequence[object]) -> tuple[object, ...]:
    """A row's values, each through its column's rule (ValueError: not one value per column)."""
    return tuple([apply(value) for apply, value in zip(rules, values, strict=True)])
