"""The words a table is declared in (tables.py): what a column holds, how NULL reads, how it is redacted.

Plain data, importing nothing of recordings/: the guard, the descriptions, the writers, the reader and trim all read
the declarations, so the declarations depend on none of them. Each of those holds the code a kind stands for.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class Cell(StrEnum):
    """What a column's cells hold, and so how the reader reads them (table_rows.py holds each kind's reading)."""

    TEXT = "text"
    INTEGER = "integer"
    REAL = "real"  # a finite number
    BLOB = "blob"  # bytes (text read as its UTF-8)
    FLAG = "flag"  # an integer read as a bool
    JSON = "json"  # JSON text, kept as text (its depth checked)
    JSON_ID = "json-id"  # a JSON-RPC id as JSON text (it must parse)
    JSON_OBJECT = "json-object"  # a JSON object
    JSON_OBJECTS = "json-objects"  # a JSON list of objects
    HEADERS = "headers"  # a JSON list of [name, value] string pairs
    ARGV = "argv"  # a JSON list of strings (a command line)
    DETAIL = "detail"  # a run's detail (shapes.RunDetail)

    @property
    def sql_type(self) -> str:
        """The column type the migrations give a column of this kind."""
        return _SQL_TYPES.get(self, "TEXT")


_SQL_TYPES = {Cell.INTEGER: "INTEGER", Cell.FLAG: "INTEGER", Cell.REAL: "REAL", Cell.BLOB: "BLOB"}


class Null(StrEnum):
    """How the reader reads NULL in a column."""

    ALLOWED = "allowed"  # as the kind's absent value: None; False for a flag; {}, () or an empty detail for JSON
    REFUSED = "refused"  # the row is malformed (a flag must then be 0 or 1 exactly)
    EMPTY = "empty"  # as empty text or bytes


@dataclass(frozen=True, slots=True)
class Redaction:
    """How a column's cells are redacted: by the writer as a row is written, and again by trim before a recording
    is shared, with the same code (cell_rules.py holds each one's)."""

    how: Literal[
        "path", "url", "headers", "body", "json", "key-like", "command-line", "output", "text", "number",
        "flow-state", "image", "dropped",
    ]  # fmt: skip
    kind: str = ""  # for output, text and key-like: the kind the tally names (terminal, file...); else the column

    @staticmethod
    def output(kind: str) -> Redaction:
        """Free text (terminal output, a lab file...): key-like values masked at their own length."""
        return Redaction("output", kind)


PATH = Redaction("path")  # a path and query: secret-named parameters
URL = Redaction("url")  # a whole URL: its query as a path's, and a password in its userinfo
HEADERS = Redaction("headers")  # a header list: secret-named headers, bearer-like values
BODY = Redaction("body")  # JSON bytes or text: secret-named members, key-like values
JSON = Redaction("json")  # JSON text: likewise
# backchannel's own JSON (a run's detail, a plan, mutation records): key-like values and `name=value` pairs of a
# secret name (a URL's query), no member by name (the names are backchannel's)
KEY_LIKE = Redaction("key-like")
COMMAND_LINE = Redaction("command-line")  # a JSON command line (or a meta shape holding some): values of secret flags
FREE_TEXT = Redaction("text")  # free text: key-like values and `name=value` / `name: value` pairs of a secret name
NUMBER = Redaction("number")  # a number is kept; anything else in the cell (a damaged file's text) is free text
FLOW_STATE = Redaction("flow-state")  # mitmproxy's flow state (msgpack): its headers and path, like their columns
# an image (a person's screenshot): redaction cannot read one and must not alter one, so it is kept whole when its
# bytes hold nothing redaction would change and left out (NULL) when they do (e.g. a file path in a PNG text chunk)
IMAGE = Redaction("image")
DROPPED = Redaction("dropped")  # left out of a shared copy altogether

# what a column's kind is redacted as, when its declaration says nothing more: no column is kept as it is
_BY_CELL = {
    Cell.TEXT: FREE_TEXT,
    Cell.INTEGER: NUMBER,
    Cell.REAL: NUMBER,
    Cell.FLAG: NUMBER,
    Cell.BLOB: FREE_TEXT,
    Cell.JSON: JSON,
    Cell.JSON_ID: KEY_LIKE,
    Cell.JSON_OBJECT: KEY_LIKE,
    Cell.JSON_OBJECTS: KEY_LIKE,
    Cell.HEADERS: HEADERS,
    Cell.ARGV: COMMAND_LINE,
    Cell.DETAIL: KEY_LIKE,
}


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its name, its cells' kind, what it holds in words (every recording carries these words)."""

    name: str
    cell: Cell
    description: str
    null: Null = Null.ALLOWED
    redacted: Redaction | None = None  # how it is redacted, written and shared; None: as its cell kind says
    shared: Redaction | None = None  # how trim redacts it for sharing, where that differs; None: as written
    read: bool = True  # False: sqlite-utils' own bookkeeping, neither read nor described

    @property
    def written_as(self) -> Redaction:
        """How the writer redacts its cells: as declared, or as its kind's default (every column is redacted)."""
        return self.redacted or _BY_CELL[self.cell]

    @property
    def shared_as(self) -> Redaction:
        """How trim redacts its cells for sharing: the same as written unless declared otherwise."""
        return self.shared or self.written_as


@dataclass(frozen=True, slots=True)
class Table:
    """One table: its columns in the order the migrations made them, and how its rows are keyed, ordered, shared."""

    name: str
    description: str
    columns: tuple[Column, ...]
    created_by: str  # the migration that made it (migrations.READ_AS_IS: the reader reads it absent as empty)
    key: str = "seq"  # the column that names a row (a malformed row's error names it)
    order: str | None = "seq"  # the reader reads rows in this column's order
    run_column: str | None = "run_id"  # the run a row belongs to: trim keeps the chosen runs' rows by it

    @property
    def read_columns(self) -> tuple[str, ...]:
        """The columns the reader reads (and the guard measures), in order."""
        return tuple(c.name for c in self.columns if c.read)

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"table {self.name} declares no column {name}")

    def pick(self, *names: str) -> tuple[str, ...]:
        """Some of the columns, by name, as a writer lists them: a name not declared is a KeyError at import."""
        for name in names:
            self.column(name)
        return names

    def written(self) -> tuple[str, ...]:
        """Every column a writer inserts: all those read but the key SQLite numbers itself (`seq`)."""
        return tuple(name for name in self.read_columns if name != "seq")
