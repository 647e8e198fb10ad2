"""disconnect: the client's connection breaks mid-answer: before the response, or after N bytes of its body.

"before-response": once the upstream's head arrives the flow is killed, so the client gets no status line at all
(the upstream did get, and answer, the request). "body": the status line and headers go out, then the first
`afterBytes` bytes of the body (0: none); the rest is withheld and, when the upstream's body has ended, the
connection is closed without finishing the response (no final chunk, or fewer bytes than Content-Length), so the
client sees a broken connection, never a clean end. mitmproxy cannot kill a flow in transit (mitmproxy#4711):
the close comes when the upstream's body ends, and no byte past the cut reaches the client meanwhile.

A JSON body that is cut is cut as the upstream sent it, streamed and never buffered: result rewrites, holds and
json-to-sse do not apply to it. An SSE body is cut after the other mutations have rewritten it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from ..unread_body import keep_first
from .base import EndStep, HeadersStep, MutationKind, PlanError, one_of, whole


@dataclass(frozen=True, slots=True, kw_only=True)
class DisconnectRecord(MutationRecord):
    """The proxy closed the client's connection: before the response ("before-response") or after `sent` body bytes."""

    KIND: ClassVar[str] = "disconnect"
    ROLE: ClassVar[Role] = "fault"
    index: int
    where: Literal["body", "before-response"]
    after_bytes: int | None  # as the plan asked (None: before the response)
    sent: int  # response body bytes the client got before the close


@dataclass(frozen=True, slots=True)
class Disconnect(MutationKind):
    NAME: ClassVar[str] = "disconnect"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (DisconnectRecord,)
    where: Literal["body", "before-response"] = "body"
    after_bytes: int = 0

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        where: Literal["body", "before-response"] = one_of(raw, "where", ("body", "before-response"), "body")
        if where == "before-response" and "afterBytes" in raw:
            raise PlanError("afterBytes applies only to where 'body'")
        return cls(where=where, after_bytes=whole(raw, "afterBytes", 0, minimum=0))

    def describe(self) -> str:
        if self.where == "before-response":
            return "close the client's connection before the response: no status line at all"
        if self.after_bytes == 0:
            return "close the client's connection right after the response headers, before any body byte"
        return f"close the client's connection after {self.after_bytes} bytes of the response body"

    def on_headers(self, index: int, step: HeadersStep) -> None:
        if self.where == "before-response":
            step.kill = True
            step.records.append(DisconnectRecord(index=index, where="before-response", after_bytes=None, sent=0))
        elif step.cut_after is None or self.after_bytes < step.cut_after:
            step.cut_after = self.after_bytes

    def on_end(self, index: int, step: EndStep) -> None:
        if self.where == "body":
            step.kill = True
            step.records.append(
                DisconnectRecord(index=index, where="body", after_bytes=self.after_bytes, sent=step.sent)
            )


KIND = Disconnect


class BodyCut:
    """A stream callable that passes the first `limit` bytes of a (non-SSE) body and withholds the rest.

    Both byte truths are kept for the Recorder, each up to `keep` bytes (the rest counted, not held: an upstream's
    body may be larger than the proxy should hold): what the upstream sent, and what the client got.
    """

    __slots__ = ("limit", "upstream", "client", "keep", "upstream_size", "client_size")

    def __init__(self, limit: int, upstream: bytearray, client: bytearray, keep: int) -> None:
        self.limit = limit
        self.upstream = upstream
        self.client = client
        self.keep = keep
        self.upstream_size = 0  # every byte the upstream sent, kept or not
        self.client_size = 0  # every byte the client got, kept or not

    def __call__(self, chunk: bytes) -> list[bytes]:
        self.upstream_size += len(chunk)
        keep_first(self.upstream, chunk, self.keep)
        room = self.limit - self.client_size
        if room <= 0 or not chunk:
            return []
        passed = chunk[:room]
        self.client_size += len(passed)
        keep_first(self.client, passed, self.keep)
        return [passed]
