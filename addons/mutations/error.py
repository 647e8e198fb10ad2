"""error: answer at once with a JSON-RPC error and an HTTP status, without contacting the upstream."""

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
        return cls(code=error["code"], message=error["message"], data=error.get("data"), status=status)

    def describe(self) -> str:
        data = "" if self.data is None else f" data {json.dumps(self.data, separators=(',', ':'))[:80]}"
        return (
            f"answer HTTP {self.status} with JSON-RPC error {self.code} {self.message!r}{data}, upstream not contacted"
        )

    def answer(self, index: int, request: dict[str, Any]) -> Answer | None:
        body = error_body(request.get("id"), self.code, self.message, self.data)
        return Answer(self.status, body, ErrorRecord(index=index, status=self.status, code=self.code))


KIND = Error
