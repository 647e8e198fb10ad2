"""A header's value read from the raw fields is what mitmproxy's own `Headers.get` gives, for any header list: mixed
case, repeated names, values that are not UTF-8, empty values."""

from __future__ import annotations

import random

from mitmproxy import http

from backchannel.addons.header_value import header_value

NAMES = [b"content-type", b"Content-Type", b"CONTENT-TYPE", b"content-length", b"x-other", b"content-typ", b"accept"]
VALUES = [b"application/json", b"text/event-stream; charset=utf-8", b"", b"\xff\xfe not utf-8", b"a, b", b"\xc3\xa9"]


def test_the_value_is_mitmproxys_own_for_random_header_lists() -> None:
    rng = random.Random(26)
    for _ in range(500):
        fields = tuple((rng.choice(NAMES), rng.choice(VALUES)) for _ in range(rng.randrange(0, 7)))
        headers = http.Headers(fields)
        for name in (b"content-type", b"content-length", b"x-other", b"missing"):
            assert header_value(headers, name) == headers.get(name.decode()), fields


def test_a_repeated_header_is_folded_as_mitmproxy_folds_it() -> None:
    headers = http.Headers([(b"Content-Type", b"text/event-stream"), (b"content-type", b"application/json")])
    assert header_value(headers, b"content-type") == "text/event-stream, application/json"
