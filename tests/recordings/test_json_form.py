"""The JSON form: one compact text for everything written, and a parse that never raises on what is read back."""

import json

from backchannel.recordings.json_form import json_text, parse_json


def test_json_text_is_compact_and_keeps_non_ascii_characters():
    assert json_text({"a": [1, "é"], "b": None}) == '{"a":[1,"é"],"b":null}'
    assert json.loads(json_text({"x": "\u2028"})) == {"x": "\u2028"}


def test_parse_json_gives_none_for_text_that_is_not_json():
    assert parse_json("[" * 100_000) is None and parse_json("1" * 5_000) is None
    assert parse_json(b"\xff") is None and parse_json(3) is None and parse_json("{") is None
    assert parse_json('{"a": [1]}') == {"a": [1]}


def test_what_json_text_writes_parse_json_reads_back():
    value = {"nested": {"list": [1, 2.5, True, None]}, "text": "ü"}
    assert parse_json(json_text(value)) == value
