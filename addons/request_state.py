"""Minting and checking the integrity-protected requestState the proxy hands out for injected input requests.

A state is bound to the call it was minted for: its method, tool name and a digest of its arguments (`call_claims`),
besides the run and the recording the Rewriter adds; a retry of any other call presenting it is rejected
(`check_call`), and a valid retry is forwarded as that original call.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

PREFIX = "bc1."
MRTR_FIELDS = ("inputResponses", "requestState")  # what a retry adds to the call it retries


class StateRejected(Exception):
    """A requestState carrying our prefix failed its check; the message says why."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def mint(key: bytes, claims: dict[str, Any]) -> str:
    """An opaque token: the claims and an HMAC-SHA256 over them."""
    body = _b64(json.dumps(claims, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    tag = _b64(hmac.new(key, body.encode("ascii"), hashlib.sha256).digest())
    return f"{PREFIX}{body}.{tag}"


def is_ours(token: object) -> bool:
    return isinstance(token, str) and token.startswith(PREFIX)


def verify(key: bytes, token: str) -> dict[str, Any]:
    """The claims of a token we minted; raises StateRejected if it was altered or is not well formed."""
    parts = token[len(PREFIX) :].split(".")
    if len(parts) != 2:
        raise StateRejected("requestState is malformed (expected two dot-separated parts after the prefix)")
    body, tag = parts
    expected = _b64(hmac.new(key, body.encode("ascii", "replace"), hashlib.sha256).digest())
    if not hmac.compare_digest(expected.encode("ascii"), tag.encode("utf-8", "surrogatepass")):  # any text
        raise StateRejected("requestState was modified: its integrity tag does not match")
    try:
        claims = json.loads(_unb64(body))
    except ValueError as exc:
        raise StateRejected(f"requestState body does not decode: {exc}") from exc
    if not isinstance(claims, dict):
        raise StateRejected("requestState body is not an object")
    return claims


def digest(value: Any) -> str:
    """A short, stable digest of a JSON value (keys sorted), for binding a state to a call's arguments."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    except (RecursionError, ValueError, TypeError):
        text = repr(value)
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:32]


def call_claims(request: dict[str, Any]) -> dict[str, Any]:
    """What a state binds of the call it is minted for: method, tool name and a digest of the arguments."""
    params = request.get("params")
    params = params if isinstance(params, dict) else {}
    name = params.get("name")
    return {
        "method": request.get("method") if isinstance(request.get("method"), str) else None,
        "tool": name if isinstance(name, str) else None,
        "args": digest(params.get("arguments")),
    }


def original_params(request: dict[str, Any]) -> dict[str, Any]:
    """The params a retry of this call is forwarded with: the call's own, without the MRTR fields."""
    params = request.get("params")
    return {k: v for k, v in params.items() if k not in MRTR_FIELDS} if isinstance(params, dict) else {}


def check_call(claims: dict[str, Any], request: dict[str, Any]) -> None:
    """Raise StateRejected naming the first difference between the call a state was minted for and this retry."""
    presented = call_claims(request)
    for key in ("method", "tool"):
        if claims.get(key) != presented[key]:
            minted, retried = claims.get(key), presented[key]
            raise StateRejected(
                f"requestState was minted for another call ({key} {minted!r}, this retry's is {retried!r})"
            )
    if claims.get("args") != presented["args"]:
        raise StateRejected("requestState was minted for a call with other arguments than this retry's")
