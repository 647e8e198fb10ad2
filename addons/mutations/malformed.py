"""malformed: the answer to the request is replaced by bytes that are not valid JSON-RPC.

Shapes: "not-json" (the first half of the answer's text: JSON cut short), "no-jsonrpc-field" (the answer without its
`jsonrpc` member, every other byte kept), "wrong-id" (the answer with an id no request of this client carries:
an integer id plus 1000000, a string id with "-wrong" appended, anything else "bckch-wrong-id"), or "body" (the
given text, exactly). Applies to a JSON body and to the response event of an SSE stream alike; the client's
upstream request was still made and answered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from ..json_edit import remove_member
from .base import MutationKind, PlanError, ResultStep, one_of

Shape = Literal["not-json", "no-jsonrpc-field", "wrong-id", "body"]
SHAPES: tuple[Shape, ...] = ("not-json", "no-jsonrpc-field", "wrong-id", "body")


def wrong_id(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 1_000_000
    if isinstance(value, str):
        return f"{value}-wrong"
    return "bckch-wrong-id"


@dataclass(frozen=True, slots=True, kw_only=True)
class MalformedRecord(MutationRecord):
    """The answer's text was replaced by one that is not valid JSON-RPC, of this shape."""

    KIND: ClassVar[str] = "malformed"
    ROLE: ClassVar[Role] = "result"
    index: int
    shape: str  # not-json, no-jsonrpc-field, wrong-id or body (any string reads: a newer proxy may add shapes)


@dataclass(frozen=True, slots=True)
class Malformed(MutationKind):
    NAME: ClassVar[str] = "malformed"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (MalformedRecord,)
    shape: Shape = "not-json"
    body: str | None = None  # the exact text, for shape "body"

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        default: Shape = "body" if "body" in raw else "not-json"
        shape = one_of(raw, "shape", SHAPES, default)
        body = raw.get("body")
        if shape == "body" and not isinstance(body, str):
            raise PlanError("body must be a string (the exact text the client gets)")
        if shape != "body" and "body" in raw:
            raise PlanError(f"body goes only with shape 'body', not {shape!r}")
        return cls(shape=shape, body=body)

    def describe(self) -> str:
        if self.shape == "body":
            return f"replace the answer with the text {json.dumps(self.body)[:80]}"
        what = {
            "not-json": "its first half (JSON cut short)",
            "no-jsonrpc-field": "itself without the jsonrpc member",
            "wrong-id": "itself with an id no request carries",
        }[self.shape]
        return f"replace the answer with {what}"

    def on_result(self, index: int, text: str, step: ResultStep) -> str | None:
        step.records.append(MalformedRecord(index=index, shape=self.shape))
        if self.shape == "body":
            assert self.body is not None
            return self.body
        if self.shape == "not-json":
            return text[: len(text) // 2]  # any proper prefix of a JSON object is not JSON
        if self.shape == "no-jsonrpc-field":
            removal = remove_member(text, ("jsonrpc",))
            return text if removal is None else removal.text
        current = json.loads(text)  # the text as earlier mutations left it
        current["id"] = wrong_id(current.get("id"))
        return json.dumps(current, separators=(",", ":"), ensure_ascii=False)


KIND = Malformed
