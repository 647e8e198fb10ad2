"""Minting and checking the integrity-protected requestState the proxy hands out for injected input requests."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

PREFIX = "bc1."


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
    if not hmac.compare_digest(expected, tag):
        raise StateRejected("requestState was modified: its integrity tag does not match")
    try:
        claims = json.loads(_unb64(body))
    except ValueError as exc:
        raise StateRejected(f"requestState body does not decode: {exc}") from exc
    if not isinstance(claims, dict):
        raise StateRejected("requestState body is not an object")
    return claims
