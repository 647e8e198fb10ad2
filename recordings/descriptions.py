"""What each table and column of a recording holds, in words: the words declared with each table (tables.py).

Every recording carries them (the `descriptions` table, written by migration m003 with the words of the tool
that wrote it; m004 and m005 add the words for the `screens` and `opens` tables to a file they upgrade), so the
file explains itself to any SQLite browser. `backchannel explore` hands these words, the tool's own, to Datasette
rather than the file's: a recording from a stranger cannot show misleading ones there.
"""

from __future__ import annotations

from collections.abc import Mapping

from .tables import TABLES as DECLARED

TABLES: Mapping[str, str] = {table.name: table.description for table in DECLARED}

COLUMNS: Mapping[str, Mapping[str, str]] = {
    table.name: {column.name: column.description for column in table.columns if column.read} for table in DECLARED
}


def rows() -> list[tuple[str, str, str]]:
    """(table, column or "", description) for every table and column, tables first: the `descriptions` rows.

    In the order they have always been written, the `descriptions` table's own columns last, so every recording
    made from now on carries the same rows as before."""
    found = [(table, "", text) for table, text in TABLES.items()]
    tables = sorted(COLUMNS, key=lambda name: name == "descriptions")  # stable: the rest keep their order
    found += [(table, column, text) for table in tables for column, text in COLUMNS[table].items()]
    return found
