"""The words of a declaration: columns picked by name are checked, a kind gives its column type."""

import pytest

from backchannel.recordings.table_kinds import Cell, Column, Redaction, Table

TABLE = Table(
    "things",
    "Things.",
    (
        Column("seq", Cell.INTEGER, "Order."),
        Column("name", Cell.TEXT, "Its name."),
        Column("hidden", Cell.TEXT, "", read=False),
        Column("payload", Cell.JSON_OBJECT, "Its payload."),
    ),
    created_by="m001_initial",
)


def test_a_writer_inserts_every_read_column_but_seq():
    assert TABLE.written() == ("name", "payload")
    assert TABLE.read_columns == ("seq", "name", "payload")


def test_picking_a_column_the_table_does_not_declare_is_an_error():
    assert TABLE.pick("payload", "name") == ("payload", "name")
    with pytest.raises(KeyError, match="table things declares no column nmae"):
        TABLE.pick("nmae")


def test_each_kind_has_the_sql_type_the_migrations_give_it():
    assert Cell.FLAG.sql_type == "INTEGER" and Cell.BLOB.sql_type == "BLOB" and Cell.REAL.sql_type == "REAL"
    assert Cell.HEADERS.sql_type == Cell.ARGV.sql_type == Cell.JSON.sql_type == "TEXT"


def test_an_output_redaction_names_its_tally_kind():
    assert Redaction.output("terminal") == Redaction("output", "terminal")
