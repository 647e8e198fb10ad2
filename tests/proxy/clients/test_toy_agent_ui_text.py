"""How the toy agent's `ui` builds render server text and read form answers (toy_agent_ui_text.py), in process."""

from __future__ import annotations

from backchannel.proxy.clients.toy_agent_ui_text import (
    field_hint,
    host_of,
    is_punycode,
    neutralise,
    osc8,
    parse_field,
    review,
)


def test_control_characters_and_bidi_controls_are_spelled_out_and_a_tab_is_kept():
    assert neutralise("a\x1b[31mb\tc\x07\u202ed\x9b") == "a\\x1b[31mb\tc\\x07\\u202ed\\x9b"
    assert neutralise("line\nnext") == "line\\x0anext"


def test_a_url_standing_alone_becomes_an_osc8_link_without_its_trailing_punctuation():
    url = "https://help.example.com/x"
    assert osc8(f"see {url}.") == f"see \x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\."
    assert osc8(f"glued\\x1b{url}") == f"glued\\x1b{url}"  # next to an escaped control character: never linked


def test_the_host_is_read_from_the_url_and_a_punycode_label_anywhere_is_seen():
    assert host_of("https://login.xn--80ak6aa92e.com/verify") == "login.xn--80ak6aa92e.com"
    assert host_of("https://[broken/") == "" and host_of("no url") == ""
    assert is_punycode("login.XN--80ak6aa92e.com") and not is_punycode("accounts.example.com")


def test_a_field_hint_names_its_choices_or_its_type():
    assert field_hint({"enum": ["a", "b"]}) == "a/b"
    assert field_hint({"oneOf": [{"const": 1}, {"title": "no const"}]}) == "1"
    assert field_hint({"type": "boolean"}) == "true/false"
    assert field_hint({"type": "array"}) == "comma-separated"
    assert field_hint({"type": ["string", "null"]}) == "text"


def test_an_answer_is_taken_only_in_the_form_its_field_asks_for():
    assert parse_field({"type": "boolean"}, " Yes ") == (True, True)
    assert parse_field({"type": "boolean"}, "maybe") == (False, None)
    assert parse_field({"type": "integer"}, "7") == (True, 7)
    assert parse_field({"type": "number"}, "x") == (False, None)
    assert parse_field({"enum": ["a", "b"]}, "b") == (True, "b")
    assert parse_field({"enum": ["a", "b"]}, "c") == (False, None)
    assert parse_field({"type": "array"}, "x, ,y") == (True, ["x", "y"])
    assert parse_field({}, "free text") == (True, "free text")


def test_the_review_escapes_names_and_values_and_says_when_nothing_was_given():
    assert review({"na\x1bme": "v\x07", "n": 1}) == 'na\\x1bme="v\\u0007", n=1'
    assert review({}) == "(no values)"
