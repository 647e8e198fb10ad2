"""The redactions meta entry: names and counts per writing process, read back totally from any recording."""

from backchannel.recordings.redactions import Redactions


def test_an_entry_reads_back_as_it_was_written():
    written = Redactions(source="proxy", counts={"header": {"x-api-key": 2}}, patterns=("pin",))
    key, text = written.meta_entry()
    assert key == "redactions:proxy"
    assert Redactions.read_all({key: text}) == (written,)


def test_every_process_entry_is_read_in_key_order_and_other_keys_are_ignored():
    proxy = Redactions(source="proxy", counts={})
    harness = Redactions(source="harness", counts={"terminal": {"bearer": 1}})
    meta = dict([proxy.meta_entry(), harness.meta_entry(), ("nonce", "abc")])
    assert Redactions.read_all(meta) == (harness, proxy)


def test_damaged_counts_and_patterns_read_as_absent():
    meta = {"redactions:x": '{"counts": {"header": {"a": "2", "b": true, "c": 3}, "bad": 1}, "patterns": [1, "p"]}'}
    assert Redactions.read_all(meta) == (Redactions(source="x", counts={"header": {"c": 3}}, patterns=("p",)),)
    assert Redactions.read_all({"redactions:y": "not json"}) == (Redactions(source="y", counts={}),)


def test_the_show_line_names_kind_name_and_count():
    assert Redactions(source="proxy", counts={"header": {"cookie": 2}}).line() == "redacted by proxy: header cookiex2"
    assert Redactions(source="proxy", counts={}).line() == "redacted by proxy: nothing"
