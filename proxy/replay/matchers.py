"""Whether a live request is a recorded one, vcrpy-style: small matcher functions, each naming what differs.

A request matches a recorded one on the HTTP method, the JSON-RPC method and the params. Three things are left out
because a live client legitimately chooses them anew: the JSON-RPC id (the reply carries the live one), the
`_meta` request metadata (client info, progress tokens, per-request capabilities), and the client's own
`inputResponses` values (compared by `reported_differences`, never required equal).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

IGNORED_PARAMS = ("_meta", "inputResponses")
MAX_DIFFERENCES = 8  # a hostile recording could differ everywhere; naming the first few is enough to act on
MAX_DEPTH = 32


@dataclass(frozen=True, slots=True)
class RequestView:
    """One HTTP request as the matchers see it: the method, the body parsed (None if not JSON) and its bytes."""

    http_method: str
    body: Any
    raw: bytes

    @classmethod
    def parse(cls, http_method: str, raw: bytes | None) -> RequestView:
        raw = raw or b""
        try:
            body = json.loads(raw) if raw.strip() else None
        except (ValueError, RecursionError):
            body = None
        return cls(http_method.upper(), body, raw)

    @property
    def messages(self) -> tuple[dict[str, Any], ...]:
        """The JSON-RPC messages in the body (one, or each of a batch); non-objects are left out."""
        items = self.body if isinstance(self.body, list) else [self.body]
        return tuple(m for m in items if isinstance(m, dict))

    @property
    def rpc_ids(self) -> tuple[Any, ...]:
        return tuple(m.get("id") for m in self.messages)

    def describe(self) -> str:
        methods = ",".join(str(m.get("method")) for m in self.messages) or "(no JSON-RPC body)"
        return f"{self.http_method} {methods}"


Matcher = Callable[[RequestView, RequestView], list[str]]  # (live, recorded) -> the fields that differ


def http_method(live: RequestView, recorded: RequestView) -> list[str]:
    return [] if live.http_method == recorded.http_method else ["http method"]


def rpc_method(live: RequestView, recorded: RequestView) -> list[str]:
    same = [m.get("method") for m in live.messages] == [m.get("method") for m in recorded.messages]
    return [] if same else ["method"]


def params(live: RequestView, recorded: RequestView) -> list[str]:
    """The dotted paths where the params differ, `_meta` and `inputResponses` left out."""
    if live.body is None and recorded.body is None:
        return [] if live.raw == recorded.raw else ["body"]
    if len(live.messages) != len(recorded.messages):
        return ["batch size"]
    found: list[str] = []
    for ours, theirs in zip(live.messages, recorded.messages, strict=True):
        found.extend(_diff(_matched_params(ours), _matched_params(theirs), "params", 0))
    return found[:MAX_DIFFERENCES]


def input_responses(live: RequestView, recorded: RequestView) -> list[str]:
    """Where the client's inputResponses differ from the recorded client's: reported, not required equal."""
    found: list[str] = []
    for ours, theirs in zip(live.messages, recorded.messages, strict=False):
        found.extend(
            _diff(
                _params(ours).get("inputResponses"), _params(theirs).get("inputResponses"), "params.inputResponses", 0
            )
        )
    return found[:MAX_DIFFERENCES]


MATCHERS: tuple[Matcher, ...] = (http_method, rpc_method, params)
REPORTERS: tuple[Matcher, ...] = (input_responses,)


def differences(live: RequestView, recorded: RequestView) -> list[str]:
    """Every field the matchers find different; empty means the live request is the recorded one."""
    return [field for matcher in MATCHERS for field in matcher(live, recorded)]


def reported_differences(live: RequestView, recorded: RequestView) -> list[str]:
    return [field for reporter in REPORTERS for field in reporter(live, recorded)]


def _params(message: dict[str, Any]) -> dict[str, Any]:
    value = message.get("params")
    return value if isinstance(value, dict) else {}


def _matched_params(message: dict[str, Any]) -> Any:
    value = message.get("params")
    if not isinstance(value, dict):
        return value
    return {k: v for k, v in value.items() if k not in IGNORED_PARAMS}


def _diff(ours: Any, theirs: Any, path: str, depth: int) -> Iterator[str]:
    if ours == theirs:
        return
    if depth < MAX_DEPTH and isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs), key=str):
            yield from _diff(ours.get(key, _ABSENT), theirs.get(key, _ABSENT), f"{path}.{key}", depth + 1)
        return
    if depth < MAX_DEPTH and isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            yield from _diff(a, b, f"{path}[{i}]", depth + 1)
        return
    yield path


class _Absent:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Absent)

    def __hash__(self) -> int:
        return 0


_ABSENT = _Absent()
