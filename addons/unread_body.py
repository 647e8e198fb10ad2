"""A body too large to hold: it goes on as it comes, unread, and the recording keeps its first bytes.

mitmproxy buffers a whole request or response body before the hooks see it, so that a mutation can rewrite it. An
untrusted peer could make the proxy hold as much as it liked that way. The addon therefore sets mitmproxy's own
`stream_large_bodies` option to `Limits.max_held` (the larger of `--max-body` and `--max-sse-event`): a body past
it is streamed by mitmproxy instead of buffered.

mitmproxy decides that in one of two places:
- before the head's hook, from a Content-Length past the bound: the hook sees `stream is True` and swaps in an
  `UnreadBody`, which passes every chunk on and keeps the first bytes and the count for the recording;
- while it reads a body of unknown length (chunked, or framed by the close), once what it read passes the bound: no
  hook runs then, so the bytes pass with `stream is True` and the recording keeps none of them.

Either way no mutation reads or rewrites the body, no message row is made of it, and the Recorder writes a
`body-unread` anomaly, which `judge` reports as ERROR: a check cannot judge a message it never saw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # backchannel's own process imports this module (a mutation's BodyCut) and never mitmproxy
    from mitmproxy import http


class UnreadBody:
    """A stream callable: every chunk goes on unchanged; the first `keep` bytes and the total are kept."""

    __slots__ = ("kept", "keep", "size", "ended")

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.kept = bytearray()
        self.size = 0
        self.ended = False

    def __call__(self, data: bytes) -> bytes:
        if not data:  # mitmproxy's end-of-body call
            self.ended = True
            return b""
        self.size += len(data)
        keep_first(self.kept, data, self.keep)
        return data


def keep_first(into: bytearray, chunk: bytes, limit: int) -> None:
    """Add to `into` what of `chunk` fits under `limit` bytes: a recording keeps a body's first bytes, not all."""
    room = limit - len(into)
    if room > 0:
        into += chunk[:room]


def streamed_unread(message: http.Message) -> bool:
    """The body passed unread: mitmproxy streamed it past the bound (`True`), or an `UnreadBody` took it over.

    The proxy's own stream callables (the SSE rewriter, a disconnect's cut) are not this: they read what they pass.
    """
    return message.stream is True or isinstance(message.stream, UnreadBody)


def take_over(message: http.Message, keep: int) -> UnreadBody | None:
    """Put an `UnreadBody` in place of mitmproxy's plain streaming (decided from a Content-Length past the bound), so
    the recording keeps the body's first bytes and its size; None if mitmproxy did not decide to stream it."""
    if message.stream is not True:
        return None
    body = UnreadBody(keep)
    message.stream = body
    return body


def bound_words(bound: int) -> str:
    """The bound as an anomaly names it."""
    return f"{bound} bytes (the larger of --max-body and --max-sse-event, the most the proxy holds of one body)"


def unread_detail(what: str, body: UnreadBody | None, bound: int, *, declared: str | None = None) -> str:
    """The anomaly's words: what passed, how large it was, and what the recording kept of it. `declared`: the body's
    Content-Length, said when the anomaly is written at the head, before any of the body went by."""
    if body is None:  # mitmproxy switched to streaming mid-body: no hook saw the bytes
        return (
            f"{what} of unknown length passed {bound_words(bound)}: it went on as it came, unread; none of it is stored"
        )
    if declared is not None and not body.size:
        return (
            f"{what} of {declared} bytes (its Content-Length) is past {bound_words(bound)}: it went on as it came,"
            " unread; its first bytes that had passed when the exchange was written, up to --max-body, stored"
        )
    ended = "" if body.ended else " (it did not end)"
    return (
        f"{what} of {body.size} bytes{ended} is past {bound_words(bound)}: it went on as it came, unread; its first"
        f" {len(body.kept)} bytes stored"
    )
