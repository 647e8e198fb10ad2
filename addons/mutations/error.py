"""error: answer at once with a JSON-RPC error and an HTTP status, without contacting the upstream.

With `echoRequested` the error's `data.requested` is the protocol version the request declared in its `_meta` (the
`UnsupportedProtocolVersionError` shape: `{supported, requested}`), so a forced -32022 names what the client sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from ..transforms import error_body
from .base import Answer, MutationKind, PlanError, require


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorRecord(MutationRecord):
    """The proxy answered with a JSON-RPC error and this HTTP status, without contacting the upstream."""

    KIND: ClassVar[str] = "error"
    ROLE: ClassVar[Role] = "answer"
    index: int
    status: int
    code: int


@dataclass(frozen=True, slots=True)
class Error(MutationKind):
    NAME: ClassVar[str] = "error"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (ErrorRecord,)
    code: int
    message: str
    data: Any = None  # absent when None
    status: int = 400
    echo_requested: bool = False  # data.requested := the request's _meta protocolVersion ("" when it has none)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        error = raw.get("error")
        if not (
            isinstance(error, dict)
            and isinstance(error.get("code"), int)
            and not isinstance(error.get("code"), bool)
            and isinstance(error.get("message"), str)
        ):
            raise PlanError("error must be an object with an integer code and a string message")
        status = raw.get("status", 400)
        require(
            isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599,
            "status must be an HTTP status number",
        )
        echo = raw.get("echoRequested", False)
        require(isinstance(echo, bool), "echoRequested must be true or false")
        data = error.get("data")
        require(not echo or data is None or isinstance(data, dict), "echoRequested needs error.data to be an object")
        return cls(code=error["code"], message=error["message"], data=data, status=status, echo_requested=echo)

    def describe(self) -> str:
        data = "" if self.data is None else f" data {json.dumps(self.data, separators=(',', ':'))[:80]}"
        echo = " (data.requested: the version the request declared)" if self.echo_requested else ""
        return (
            f"answer HTTP {self.status} with JSON-RPC error {self.code} {self.message!r}{data}{echo}, "
            "upstream not contacted"
        )

    def answer(self, index: int, request: dict[str, Any]) -> Answer | None:
        data = {**(self.data or {}), "requested": requested_version(request)} if self.echo_requested else self.data
        body = error_body(request.get("id"), self.code, self.message, data)
        return Answer(self.status, body, ErrorRecord(index=index, status=self.status, code=self.code))


def requested_version(request: dict[str, Any]) -> str:
    """The protocol version a request declared in its `_meta`, as text ("" when it declared none)."""
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
    return "" if version is None else str(version)


KIND = Error
