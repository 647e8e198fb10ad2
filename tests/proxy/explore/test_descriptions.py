"""Every table and column the reader knows is described, and no description names what the format lacks."""

from backchannel.proxy.explore.descriptions import COLUMNS, TABLES
from backchannel.recordings.guard import KNOWN_COLUMNS


def test_every_known_table_has_a_description_and_no_unknown_table_does():
    assert set(TABLES) == set(KNOWN_COLUMNS)
    assert all(text.strip() for text in TABLES.values())


def test_every_known_column_has_a_description_and_no_unknown_column_does():
    for table, columns in KNOWN_COLUMNS.items():
        assert set(COLUMNS[table]) == set(columns), table
        assert all(text.strip() for text in COLUMNS[table].values()), table
