"""One way to show text that came from a recording: control, escape and bidi characters made visible, never emitted.

A recording may come from anyone, and every renderer (the text report, JSON, JUnit, SARIF, `show`) passes what it
took from one through here, so an ESC sequence cannot drive the reader's terminal and a bidi override cannot make
a line read differently from what it holds.
"""

from __future__ import annotations

import re

# C0 controls but newline, DEL, C1 controls, and the invisible direction marks, embeddings, overrides and isolates
# (plus the Unicode line and paragraph separators, which some viewers treat as line breaks), and lone surrogates: a
# file name's bytes that are not UTF-8 reach Python as those, and written out raw they made a JSON document that
# is not UTF-8 (its `\udcff` escape reads back as the same string).
_ABOVE_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_TEXT = re.compile(f"[\x00-\x09\x0b-\x1f{_ABOVE_C0}]")
# in JSON text every C0 character is escaped already by json.dumps; the rest must be escaped too
_UNSAFE_JSON = re.compile(f"[{_ABOVE_C0}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def neutralise(text: str) -> str:
    """`text` with every control character but newline, and every bidi control, shown as `\\xNN` or `\\uNNNN`."""
    return _UNSAFE_TEXT.sub(_escape, text)


def neutralise_json(dumped: str) -> str:
    """JSON text (from json.dumps) with C1, DEL and bidi characters written as `\\uNNNN` escapes.

    The escapes decode to the same characters, so a JSON reader sees the same values; only the raw bytes that a
    terminal or an editor would act on are gone.
    """
    if dumped.isascii() and "\x7f" not in dumped:  # the rest escaped here is above ASCII: most reports are plain
        return dumped  # (two scans in C, a tenth of the regex's time)
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
