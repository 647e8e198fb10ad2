"""The one neutraliser every renderer uses for text from a recording."""

import json

import pytest

from backchannel.recordings.safe_text import neutralise, neutralise_json


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("bell\x07", "bell\\x07"),
        ("\x9b2J c1 csi", "\\x9b2J c1 csi"),
        ("tab\tcr\r", "tab\\x09cr\\x0d"),
        ("\x7f", "\\x7f"),
        ("\u202eevil\u202c", "\\u202eevil\\u202c"),
        ("\u2066iso\u2069 \u200e\u200f\u061c", "\\u2066iso\\u2069 \\u200e\\u200f\\u061c"),
        ("line\u2028sep", "line\\u2028sep"),
    ],
)
def test_controls_escapes_and_bidi_marks_are_shown_escaped(raw: str, shown: str) -> None:
    assert neutralise(raw) == shown


def test_newlines_and_printable_unicode_pass_unchanged() -> None:
    assert neutralise("a\nb ✓ é 日本 עברית") == "a\nb ✓ é 日本 עברית"


def test_neutralising_twice_changes_nothing_more() -> None:
    once = neutralise("\x1b\u202e\x85")
    assert neutralise(once) == once


def test_json_keeps_its_values_and_loses_the_raw_characters() -> None:
    value = {"m": "\x1b[1m\x85\u202eevil\u2066\x7f"}
    out = neutralise_json(json.dumps(value, ensure_ascii=False))
    assert json.loads(out) == value
    assert not any(c in out for c in "\x1b\x85\u202e\u2066\x7f")


def test_json_escapes_each_unsafe_character_even_in_otherwise_plain_ascii_text() -> None:
    for char in "\x7f\x80\x9f\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069":
        out = neutralise_json(json.dumps({"m": f"plain {char} text"}, ensure_ascii=False))
        assert char not in out and json.loads(out) == {"m": f"plain {char} text"}, repr(char)
    plain = json.dumps({"m": "only ascii ~ here"})
    assert neutralise_json(plain) is plain


def test_a_lone_surrogate_from_a_file_name_not_in_utf_8_is_shown_escaped_and_json_stays_utf_8() -> None:
    name = b"/fixtures/bad\xff.sqlite".decode("utf-8", "surrogateescape")  # how Python hands such a name over
    assert neutralise(name) == "/fixtures/bad\\udcff.sqlite"
    out = neutralise_json(json.dumps({"name": name}, ensure_ascii=False))
    out.encode("utf-8")  # a lone surrogate written raw was a document that is not UTF-8
    assert json.loads(out) == {"name": name}
