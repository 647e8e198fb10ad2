"""A declared table's rows read into the model's records: each cell by its column's kind (tables.py), then the few
checks and derived fields a table has beyond its cells' kinds.

One generic reader per table, made once from its declaration: a row's cells are read in column order and handed to
the record class by column name (a record's fields are its table's columns). Reading is the reader's hot loop, so
the fast path reads a whole table without tracking anything; only when a row fails is it read again, step by step,
to name the column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from . import cells as c
from .errors import RecordingFormatError
from .guard import lenient_text
from .model import (
    ANSWERS,
    MAX_SCREEN_SIDE,
    MODEL_APIS,
    OPENER_NAME_LIMIT,
    SCREEN_REASONS,
    SCREENSHOT_TYPES,
    WHO,
    Anomaly,
    Attestation,
    Exchange,
    LabFile,
    Message,
    ModelExchange,
    Run,
    ScreenSnapshot,
    SseEvent,
    TerminalChunk,
    UrlHit,
    UrlOpen,
)
from .safe_text import neutralise
from .table_kinds import Cell, Column, Null, Table
from .tables import BY_NAME

Read = Callable[[Any], Any]
Rule = Callable[[dict[str, Any]], None]  # checks or derives fields of a row, its cells read
FAILURES = (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError)


def _flag(value: Any) -> bool:
    return bool(c.integer(value))


def _or_empty(read: Read, empty: str | bytes) -> Read:
    return lambda value: read(value) if value is not None else empty


# each kind's reading: (NULL allowed, NULL refused); None: no column of the kind refuses NULL yet
_CELLS: Mapping[Cell, tuple[Read, Read | None]] = {
    Cell.TEXT: (c.text, c.required_text),
    Cell.INTEGER: (c.integer, c.required_integer),
    Cell.REAL: (c.number, None),
    Cell.BLOB: (c.blob, None),
    Cell.FLAG: (_flag, None),  # a refused NULL: exactly 0 or 1 (_strict_flag)
    Cell.JSON: (c.json_text, None),
    Cell.JSON_ID: (c.rpc_id, None),
    Cell.JSON_OBJECT: (c.json_object, None),
    Cell.JSON_OBJECTS: (c.json_objects, None),
    Cell.HEADERS: (c.headers, None),
    Cell.ARGV: (c.argv, None),  # a refused NULL: partial(c.argv, required=True)
    Cell.DETAIL: (c.detail, None),
}


def one_of(name: str, read: Read, choices: Sequence[object]) -> Read:
    """`read`, then the value must be one of `choices`."""
    said = " nor ".join(map(str, choices)) if len(choices) == 2 else ", ".join(map(str, choices))
    verb = "is neither" if len(choices) == 2 else "is not one of"

    def checked(value: Any) -> Any:
        found = read(value)
        if found not in choices:
            raise ValueError(f"{name} {found!r} {verb} {said}")
        return found

    return checked


def _reading(table: Table, column: Column) -> Read:
    """How one column's cells are read: its kind's reading, with its own checks where a table has them."""
    allowed, refused = _CELLS[column.cell]
    refusing = column.null is Null.REFUSED
    if column.cell is Cell.ARGV:
        read: Read = partial(c.argv, column=column.name, required=refusing)
    elif column.cell is Cell.FLAG and refusing:
        read = _strict_flag(column.name)
    elif refusing:
        if refused is None:
            raise ValueError(f"{table.name}.{column.name}: the reader cannot refuse NULL in a {column.cell} column")
        read = refused
    elif column.null is Null.EMPTY:
        read = _or_empty(allowed, b"" if column.cell is Cell.BLOB else "")
    else:
        read = allowed
    return _CHECKS.get((table.name, column.name), _unchecked)(read)


def _unchecked(read: Read) -> Read:
    return read


def _strict_flag(name: str) -> Read:
    exact = one_of(name, c.required_integer, (0, 1))
    return lambda value: bool(exact(value))


def _side(name: str) -> Callable[[Read], Read]:
    def check(read: Read) -> Read:
        def checked(value: Any) -> int:
            found: int = read(value)
            if not 1 <= found <= MAX_SCREEN_SIDE:
                raise ValueError(f"{name} {found} is outside 1..{MAX_SCREEN_SIDE}")
            return found

        return checked

    return check


_OPENER_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._+-]{{0,{OPENER_NAME_LIMIT - 1}}}")


def _program_name(read: Read) -> Read:
    def checked(value: Any) -> str:
        found: str = read(value)
        if not _OPENER_NAME.fullmatch(found):
            raise ValueError(f"opener {found[:80]!r} is not a program name")
        return found

    return checked


# a column's own checks, beyond its kind
_CHECKS: Mapping[tuple[str, str], Callable[[Read], Read]] = {
    ("messages", "direction"): lambda read: one_of("direction", read, ("to-server", "to-client")),
    ("screens", "reason"): lambda read: one_of("reason", read, SCREEN_REASONS),
    ("screens", "cols"): _side("cols"),
    ("screens", "rows"): _side("rows"),
    ("opens", "opener"): _program_name,
    ("model_exchanges", "api"): lambda read: one_of("api", read, MODEL_APIS),
    ("attestations", "answer"): lambda read: one_of("answer", read, ANSWERS),
    ("attestations", "who"): lambda read: one_of("who", read, WHO),
    ("attestations", "screenshot_type"): lambda read: one_of("screenshot_type", read, (None, *SCREENSHOT_TYPES)),
    # read as stored: a falsy cell means "as the client got them" (rule below), whatever it holds
    ("exchanges", "upstream_response_headers"): lambda read: lambda value: value,
}


def _exchange_sides(row: dict[str, Any]) -> None:
    """Each side's headers and bodies: a column holds a side only where the proxy changed it (rows.py)."""
    upstream = row["upstream_response_headers"]
    row["upstream_response_headers"] = c.headers(upstream) if upstream else row["response_headers"]
    reached, request, sent = row["forwarded"], row["request_body"], row["upstream_request_body"]
    upstream_response, client_response = row["upstream_response_body"], row["response_body"]
    row["upstream_request_body"] = (request if sent is None else sent) if reached else None
    row["upstream_response_body"] = upstream_response if reached else None
    row["response_body"] = upstream_response if client_response is None else client_response


def _cursor_on_screen(row: dict[str, Any]) -> None:
    cursor_row, cursor_col, cols, rows = row["cursor_row"], row["cursor_col"], row["cols"], row["rows"]
    if cursor_row is not None and not 0 <= cursor_row < rows or cursor_col is not None and not 0 <= cursor_col <= cols:
        raise ValueError(f"cursor ({cursor_row}, {cursor_col}) is off a {cols}x{rows} screen")


def _text_fits(row: dict[str, Any]) -> None:
    if row["text"].count("\n") >= row["rows"]:
        raise ValueError(f"text has more than {row['rows']} rows")


# a table's rules over a whole row, each named by the column a failure is reported in
_RULES: Mapping[str, tuple[tuple[str, Rule], ...]] = {
    "exchanges": (("upstream_response_headers", _exchange_sides),),
    "screens": (("cursor_col", _cursor_on_screen), ("text", _text_fits)),
}


def _pair(key: str, value: str) -> tuple[str, str]:
    return key, value


# the record each table's rows become (the meta table's: a key and its value)
RECORDS: Mapping[str, Callable[..., Any]] = {
    "meta": _pair,
    "runs": Run,
    "exchanges": Exchange,
    "messages": Message,
    "sse_events": SseEvent,
    "terminal": TerminalChunk,
    "files": LabFile,
    "anomalies": Anomaly,
    "url_hits": UrlHit,
    "screens": ScreenSnapshot,
    "opens": UrlOpen,
    "model_exchanges": ModelExchange,
    "attestations": Attestation,
}


@dataclass(frozen=True, slots=True)
class TableReader:
    """Rows of one table (its read columns, in order, as tuples) into records."""

    table: Table
    columns: tuple[str, ...]
    reads: tuple[Read, ...]
    rules: tuple[tuple[str, Rule], ...]
    make: Callable[..., Any]
    key: int  # where the row's key is, to name a malformed row
    record: Callable[[Sequence[Any]], Any]  # one row's record; a malformed cell raises one of FAILURES

    def records(self, rows: Iterable[Sequence[Any]]) -> tuple[Any, ...]:
        """Every row's record; a malformed row is a RecordingFormatError naming the row, the table and the column."""
        rows = rows if isinstance(rows, list) else list(rows)
        try:
            return tuple(map(self.record, rows))
        except FAILURES as exc:
            for row in rows:  # the slow path, only now: find the row and the column, and say them
                self._named(row)
            raise RecordingFormatError(f"table {self.table.name} is malformed: {exc}") from exc

    def _named(self, row: Sequence[Any]) -> None:
        values: dict[str, Any] = {}
        step = "?"
        try:
            for step, read, cell in zip(self.columns, self.reads, row, strict=True):
                values[step] = read(cell)
            for column, rule in self.rules:
                step = column
                rule(values)
            step = "?"
            self.make(**values)
        except FAILURES as exc:
            key = row[self.key]
            key_text = lenient_text(key) if isinstance(key, bytes) else str(key)
            raise RecordingFormatError(
                f"row {neutralise(key_text[:80])} of table {self.table.name}, column {step}, is malformed: {exc}"
            ) from exc


def reader_for(name: str) -> TableReader:
    """The reader of the table `name`, made from its declaration."""
    table = BY_NAME[name]
    columns = table.read_columns
    reads = tuple(_reading(table, table.column(column)) for column in columns)
    rules, make = _RULES.get(name, ()), RECORDS[name]
    return TableReader(
        table=table,
        columns=columns,
        reads=reads,
        rules=rules,
        make=make,
        key=columns.index(table.key),
        record=_compiled(columns, reads, tuple(rule for _, rule in rules), make),
    )


def _compiled(
    columns: tuple[str, ...], reads: tuple[Read, ...], rules: tuple[Rule, ...], make: Callable[..., Any]
) -> Callable[[Sequence[Any]], Any]:
    """One row's record, as a function written for the table: `make(seq=read0(row[0]), ...)`.

    Written out the way the hand-written readers were (dataclasses makes its __init__ the same way): a loop over
    the columns building keyword arguments cost a third more per row, and the reader reads every row it loads.
    The names come from the declarations (tables.py), never from a recording."""
    if not all(column.isidentifier() for column in columns):
        raise ValueError(f"column names must be identifiers: {columns}")
    cells = ", ".join(f"{column}=read{i}(row[{i}])" for i, column in enumerate(columns))
    if rules:
        checks = "".join(f"    rule{i}(values)\n" for i in range(len(rules)))
        source = f"def record(row):\n    values = dict({cells})\n{checks}    return make(**values)\n"
    else:
        source = f"def record(row):\n    return make({cells})\n"
    scope: dict[str, Any] = {"make": make, "dict": dict}
    scope.update({f"read{i}": read for i, read in enumerate(reads)})
    scope.update({f"rule{i}": rule for i, rule in enumerate(rules)})
    exec(compile(source, f"<{make.__name__} rows>", "exec"), scope)  # the source is made above, from declarations
    record: Callable[[Sequence[Any]], Any] = scope["record"]
    return record


READERS: Mapping[str, TableReader] = {name: reader_for(name) for name in RECORDS}
