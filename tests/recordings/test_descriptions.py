"""Every table and column the reader knows is described, and no description names what the format lacks."""

import sqlite3

from backchannel.recordings import load
from backchannel.recordings.descriptions import COLUMNS, TABLES, rows
from backchannel.recordings.guard import KNOWN_COLUMNS
from tests.factories import new_recording


def test_every_known_table_has_a_description_and_no_unknown_table_does():
    assert set(TABLES) == set(KNOWN_COLUMNS)
    assert all(text.strip() for text in TABLES.values())


def test_every_known_column_has_a_description_and_no_unknown_column_does():
    for table, columns in KNOWN_COLUMNS.items():
        assert set(COLUMNS[table]) == set(columns), table
        assert all(text.strip() for text in COLUMNS[table].values()), table


def test_a_new_recording_carries_a_description_of_every_table_and_column(tmp_path):
    path = new_recording(tmp_path / "rec.sqlite")
    with sqlite3.connect(path) as conn:
        stored = set(conn.execute("SELECT table_name, column_name, description FROM descriptions"))
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert stored == set(rows())
    assert {table for table, _, _ in stored} >= tables - {"sqlite_sequence"}
    load(path)  # and the reader accepts the table
