"""HAR 1.2 from flows, written by mitmproxy's own HAR support; backchannel adds only each entry's `comment`."""

from __future__ import annotations

import base64
import json
import warnings
from collections.abc import Sequence
from typing import Any

from mitmproxy import http

from backchannel.recordings.json_form import escape_surrogates
from backchannel.recordings.safe_text import neutralise_json

CREATOR_COMMENT = "exported by backchannel: each exchange as the client saw it, redacted"


def har_document(flows: Sequence[http.HTTPFlow]) -> dict[str, Any]:
    """The HAR document; an entry of a flow backchannel changed has the mutations as its `comment` and `_marked`."""
    with warnings.catch_warnings():
        # mitmproxy.addons imports ldap3 (for proxyauth), which touches names pyasn1 0.6.2+ deprecates: not ours to fix
        warnings.simplefilter("ignore", DeprecationWarning)
        # imported here, not at the top: mitmproxy.addons loads every addon (about 0.7 s), and every `backchannel`
        # command imports this module through export and bug-report while only these two write a HAR
        from mitmproxy.addons.savehar import SaveHar
    document: dict[str, Any] = SaveHar().make_har(flows)
    document["log"]["comment"] = CREATOR_COMMENT
    for made, entry in zip(flows, document["log"]["entries"], strict=True):
        _binary_as_base64(made, entry)
        if made.comment:
            entry["comment"] = made.comment
        if made.marked:
            entry["_marked"] = made.marked
        if made.error is not None:
            entry["comment"] = "\n".join(filter(None, [entry.get("comment", ""), f"error: {made.error.msg}"]))
    return document


def _binary_as_base64(made: http.HTTPFlow, entry: dict[str, Any]) -> None:
    """A response body that is not UTF-8 goes in base64 with `"encoding": "base64"`, as HAR 1.2 carries binary
    content, whatever its Content-Type claims (a text type with invalid bytes would otherwise be decoded lossily)."""
    raw = made.response.raw_content if made.response is not None else None
    if not raw:
        return
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        content = entry["response"]["content"]
        content["text"] = base64.b64encode(raw).decode("ascii")
        content["encoding"] = "base64"


def har_text(flows: Sequence[http.HTTPFlow]) -> str:
    # bidi and C1 characters escaped, so a viewer or editor opening the file shows them instead of acting on them;
    # a lone surrogate (a hostile recording's header) stays an escape, so the file is always UTF-8 JSON
    text = json.dumps(har_document(flows), indent=2, ensure_ascii=False)
    return neutralise_json(escape_surrogates(text)) + "\n"
