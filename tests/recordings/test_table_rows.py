"""The generic row readers: each cell read by its declared kind, a malformed row named by its row and column."""

import pytest

from backchannel.recordings.errors import RecordingFormatError
from backchannel.recordings.model import Anomaly, Exchange
from backchannel.recordings.table_rows import READERS, RECORDS, one_of


def _exchange_row(**cells):
    reader = READERS["exchanges"]
    row = dict.fromkeys(reader.columns)
    row.update({"seq": 1, "flow_id": "f", "streamed": 0, "forwarded": 1, **cells})
    return tuple(row[c] for c in reader.columns)


def test_every_table_with_a_record_has_a_reader():
    assert set(READERS) == set(RECORDS)


def test_a_row_reads_into_its_record_field_by_field():
    row = (3, "r1", None, "body-over-limit", "cut at 1 MiB", 1.5)
    assert READERS["anomalies"].record(row) == Anomaly(
        seq=3, run_id="r1", flow_id=None, kind="body-over-limit", detail="cut at 1 MiB", t=1.5
    )


def test_a_malformed_row_is_named_by_its_key_its_table_and_its_column():
    rows = [(1, "r1", None, "k", "d", None), (2, "r1", None, "k", None, None)]
    with pytest.raises(RecordingFormatError, match="row 2 of table anomalies, column detail, is malformed: expected"):
        READERS["anomalies"].records(rows)


def test_a_side_the_proxy_left_alone_reads_as_the_other_sides_copy():
    found = READERS["exchanges"].record(
        _exchange_row(request_body=b"q", upstream_response_body=b"a", response_headers='[["a","b"]]')
    )
    assert isinstance(found, Exchange)
    assert found.upstream_request_body == b"q" and found.response_body == b"a"
    assert found.upstream_response_headers == (("a", "b"),)
    empty = READERS["exchanges"].record(_exchange_row(upstream_response_headers="", response_headers="[]"))
    assert empty.upstream_response_headers == ()


def test_an_answer_the_proxy_made_itself_has_no_upstream_side():
    found = READERS["exchanges"].record(_exchange_row(request_body=b"q", upstream_response_body=b"a", forwarded=0))
    assert found.upstream_request_body is None and found.upstream_response_body is None
    assert found.response_body == b"a" and found.forwarded is False


def test_a_choice_outside_the_allowed_ones_says_what_they_are():
    with pytest.raises(ValueError, match="^direction 'up' is neither to-server nor to-client$"):
        one_of("direction", str, ("to-server", "to-client"))("up")
    with pytest.raises(ValueError, match="^reason 'x' is not one of a, b, c$"):
        one_of("reason", str, ("a", "b", "c"))("x")
