from backchannel.oracle.detectors.markers import Markers, occurrences, read_marker


def test_every_token_carries_the_nonce():
    markers = Markers("abc123")
    for token in (markers.content, markers.body, markers.exec_token, markers.witness, markers.server_name):
        assert "abc123" in token


def test_occurrences_are_found_at_their_byte_offsets_even_when_overlapping_text_repeats():
    assert occurrences(b"xxTOKxxTOK", "TOK") == [2, 7]
    assert occurrences("é TOK".encode(), "TOK") == [3]
    assert occurrences(b"", "TOK") == []


def test_a_marker_without_this_runs_token_is_a_near_miss_not_a_signal():
    reading = read_marker({"m.txt": b"BCKCH-EXEC-other"}, "m.txt", "BCKCH-EXEC-mine")
    assert reading is not None and not reading.carries_nonce
    assert read_marker({}, "m.txt", "x") is None
    assert read_marker({"m.txt": b"BCKCH-EXEC-mine\n"}, "m.txt", "BCKCH-EXEC-mine").carries_nonce
