"""`--shard K/N`: a deterministic 1/N of the inputs, the same on every machine and in every checkout.

An input belongs to shard 1 + (sha256 of its path relative to its argument) mod N: stable across machines, across
argument order and as recordings are added (one new recording moves no other between shards)."""

from __future__ import annotations

import hashlib
import re

from .inputs import Input

_SPEC = re.compile(r"^([0-9]{1,6})/([0-9]{1,6})$")


class ShardError(ValueError):
    """A --shard value that is not K/N with 1 <= K <= N."""


def parse_shard(text: str) -> tuple[int, int]:
    """`K/N` as (K, N)."""
    match = _SPEC.match(text.strip())
    if match is None:
        raise ShardError(f"--shard {text!r} is not K/N (e.g. 2/4)")
    k, n = int(match.group(1)), int(match.group(2))
    if not 1 <= k <= n:
        raise ShardError(f"--shard {text!r}: K must be between 1 and N")
    return k, n


def shard_of(relative: str, count: int) -> int:
    """Which shard (1..count) an input with this relative path belongs to."""
    digest = hashlib.sha256(relative.encode("utf-8", "surrogateescape")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def select(inputs: list[Input], k: int, n: int) -> list[Input]:
    """The inputs of shard K of N, in their original order."""
    return [item for item in inputs if shard_of(item.relative, n) == k]
