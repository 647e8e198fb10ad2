"""Benchmark: rewrite 10,000 SSE events of about 200 B through SseRewriter with a JSON transform."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from backchannel.addons.sse import SseItem, SseRewriter

EVENTS = 10_000
HELD, KEPT = 16 * 1024 * 1024, 1024 * 1024  # the default --max-body and --max-sse-event
CHUNK = 4096  # a typical read size; boundaries fall anywhere, including inside \r\n


def make_stream() -> bytes:
    parts = []
    for i in range(EVENTS):
        msg = {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": f"tok-{i}", "progress": i, "total": EVENTS, "message": "x" * 20},
        }
        parts.append(b"event: message\r\nid: %d\r\ndata: %s\r\n\r\n" % (i, json.dumps(msg).encode()))
    return b"".join(parts)


def rewrite(d: str) -> str | None:
    msg = json.loads(d)
    msg["params"]["rewritten"] = True
    return json.dumps(msg)


def run(stream: bytes, transform: Callable[[str], str | None] | None) -> tuple[float, int, int]:
    items: list[SseItem] = []
    rw = SseRewriter(transform, items.append, max_held=HELD, keep=KEPT)  # as the proxy makes it (addons/rewriter.py)
    out = 0
    start = time.perf_counter()
    for off in range(0, len(stream), CHUNK):
        out += sum(map(len, rw(stream[off : off + CHUNK])))
    out += sum(map(len, rw(b"")))
    return time.perf_counter() - start, out, len(items)


def main() -> None:
    stream = make_stream()
    print(f"{EVENTS} events, {len(stream) / EVENTS:.0f} B/event, {CHUNK} B chunks")
    for label, transform in (("passthrough", None), ("json rewrite", rewrite)):
        best = min(run(stream, transform)[0] for _ in range(5))
        _, out, items = run(stream, transform)
        assert items == EVENTS
        print(f"{label:>13}: {best * 1e3:7.1f} ms total, {best / EVENTS * 1e6:6.2f} us/event, {out} B out")


if __name__ == "__main__":
    main()
