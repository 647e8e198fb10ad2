"""The declarations are the schema: what the frozen migrations make is exactly what tables.py declares."""

import dataclasses

from sqlite_utils import Database

from backchannel.recordings import migrations, rows
from backchannel.recordings.descriptions import rows as description_rows
from backchannel.recordings.guard import KNOWN_COLUMNS
from backchannel.recordings.table_rows import RECORDS
from backchannel.recordings.tables import BY_NAME, TABLES


def _migrated() -> Database:
    db = Database(memory=True)
    migrations.apply(db)
    return db


def test_a_fresh_recording_has_exactly_the_declared_tables():
    db = _migrated()
    made = {str(name) for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}
    assert made == set(BY_NAME)


def test_every_table_the_migrations_make_has_the_declared_columns_in_order_with_their_types():
    db = _migrated()
    for table in TABLES:
        made = [(str(col[1]), str(col[2])) for col in db.execute(f"PRAGMA table_xinfo({table.name})").fetchall()]
        declared = [(column.name, column.cell.sql_type) for column in table.columns]
        assert made == declared, table.name


def test_the_key_the_order_and_the_run_column_of_every_table_are_declared_columns():
    for table in TABLES:
        named = [table.key, table.order, table.run_column]
        assert all(name is None or name in table.read_columns for name in named), table.name


def test_the_migrations_that_made_each_table_are_known():
    assert {table.created_by for table in TABLES} <= set(migrations.known_migrations())


def test_the_guard_and_the_descriptions_are_the_declarations():
    assert KNOWN_COLUMNS == {table.name: table.read_columns for table in TABLES}
    described = {(table, column) for table, column, _ in description_rows()}
    declared = {(t.name, "") for t in TABLES} | {(t.name, c.name) for t in TABLES for c in t.columns if c.read}
    assert described == declared


def test_every_writer_writes_declared_columns_of_its_table():
    records = [getattr(rows, name) for name in dir(rows) if hasattr(getattr(rows, name), "COLUMNS")]
    assert len(records) >= 17
    for record in records:
        assert set(record.COLUMNS) <= set(BY_NAME[record.TABLE].read_columns), record.__name__


def test_every_record_the_reader_makes_has_its_tables_read_columns_as_fields():
    for name, make in RECORDS.items():
        if dataclasses.is_dataclass(make):
            fields = {field.name for field in dataclasses.fields(make) if field.init}
            assert fields == set(BY_NAME[name].read_columns), name
