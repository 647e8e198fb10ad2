from backchannel.recordings.formats import predates
from backchannel.recordings.migrations import known_migrations


def test_an_older_format_predates_a_later_migration_and_not_the_reverse():
    formats = known_migrations()
    assert predates(formats[0], "m005_opens")
    assert not predates("m005_opens", "m005_opens")
    assert not predates(formats[-1], formats[0])


def test_a_format_this_tool_does_not_know_predates_nothing():
    assert not predates("m999_from_the_future", "m005_opens")
    assert not predates(known_migrations()[0], "m999_from_the_future")
