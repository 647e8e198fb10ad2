"""The model stand-in's ASGI app: each request read (bounded), decided by the script, answered in its API's shape,
and recorded as one `ModelExchangeRow`. Junk gets an error reply in the API's shape and a row; nothing raises."""

from __future__ import annotations

import secrets
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any

import orjson
from starlette.types import Receive, Scope, Send

from backchannel.proxy.model.decide import decide
from backchannel.proxy.model.routes import Route, model_list, route, unknown_path
from backchannel.proxy.model.script import ModelScript
from backchannel.proxy.model.turn import Reply, ReplyIds, RequestError
from backchannel.recordings.rows import ModelExchangeRow

DEFAULT_BODY_LIMIT = 8 * 1024 * 1024  # a request larger than this gets 413
DEFAULT_RECORD_LIMIT = 1024 * 1024  # a request or reply body is recorded up to this many bytes
MAX_HEADERS = 200


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# a reply that ends the agent's task: its answer, or saying it cannot do it; not one to a side request (a title)
FINAL_ACTIONS = frozenset({"answer", "tool-not-offered"})
SIDE_REQUEST = "no-tools-offered"


class ModelApp:
    """The ASGI app; `sink` receives every row (a writer's `insert`)."""

    def __init__(
        self,
        script: ModelScript,
        sink: Callable[[ModelExchangeRow], None],
        *,
        run_id: str,
        body_limit: int = DEFAULT_BODY_LIMIT,
        record_limit: int = DEFAULT_RECORD_LIMIT,
        on_final: Callable[[], None] | None = None,
    ) -> None:
        self.script = script
        self.on_final = on_final  # called after each final answer is sent (an interactive agent's UI may end then)
        self.sink = sink
        self.run_id = run_id
        self.body_limit = body_limit
        self.record_limit = record_limit
        self.sink_errors = 0  # rows the sink refused (a closed writer): the reply still goes out
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        started = time.time()
        method = str(scope.get("method", ""))
        path = str(scope.get("path", ""))
        query = bytes(scope.get("query_string", b"")).decode("latin-1")
        full_path = f"{path}?{query}" if query else path
        pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in list(scope.get("headers", []))[:MAX_HEADERS]]
        headers = {k.lower(): v for k, v in pairs}
        found = route(method, path, headers)
        kept = bytearray()  # the request body as far as it is recorded, even when it is refused part way
        step: dict[str, Any]
        streamed = False
        try:
            body = await self._read_body(receive, headers, kept)
            if found is None:
                status, reply, step = 404, unknown_path(path), {"action": "refused", "reason": "unknown path"}
            else:
                plain = self._decoded(body, headers.get("content-encoding", "identity"))
                if plain is not body:  # recorded decoded: the oracle reads the JSON the agent meant
                    kept = bytearray(plain[: self.record_limit + 1])
                status, reply, step, streamed = self._answer(found, method, plain)
        except _Refused as refused:
            error = found.error if found is not None else _plain_error
            status, reply = refused.status, error(refused.status, str(refused))
            step = {"action": "refused", "reason": str(refused)}
        except Exception as exc:  # never crash on junk: the agent gets a 500 and the row says what broke
            error = found.error if found is not None else _plain_error
            status, reply = 500, error(500, f"the model stand-in failed: {type(exc).__name__}")
            step = {"action": "error", "reason": f"{type(exc).__name__}: {exc}"[:500]}
        await _send(send, status, reply)
        if self.on_final is not None and step.get("action") in FINAL_ACTIONS and step.get("after") != SIDE_REQUEST:
            self.on_final()
        self._record(
            ModelExchangeRow(
                run_id=self.run_id,
                api=found.api if found is not None else "unknown",
                method=method[:20],
                path=full_path[:4096],
                request_headers=tuple(pairs),
                request_body=bytes(kept[: self.record_limit]),
                request_truncated=len(kept) > self.record_limit or status == 413,
                streamed=streamed,
                status=status,
                reply_body=reply.body[: self.record_limit],
                reply_truncated=len(reply.body) > self.record_limit,
                step=step,
                t=started,
            )
        )

    def _answer(self, found: Route, method: str, body: bytes) -> tuple[int, Reply, dict[str, Any], bool]:
        if found.read is None:
            return 200, model_list(int(time.time())), {"action": "list-models"}, False
        if method != "POST":
            raise _Refused(405, f"{method} is not allowed here: use POST")
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise _Refused(400, f"the request body is not JSON: {exc}") from None
        if not isinstance(parsed, dict):
            raise _Refused(400, "the request body is not a JSON object")
        try:
            turn = found.read(parsed, body)
        except RequestError as exc:
            raise _Refused(400, f"unreadable {found.api} request: {exc}") from None
        decision = decide(turn, self.script, lambda: found.call_prefix + secrets.token_hex(12))
        ids = ReplyIds(found.id_prefix + secrets.token_hex(12), int(time.time()))
        step = {**decision.step, "model": turn.model[:200], "last": turn.last}
        return 200, found.render(decision.action, turn, ids), step, turn.streamed

    def _decoded(self, body: bytes, encoding: str) -> bytes:
        """The body without its content-encoding (gzip or deflate, bounded by the body limit); 415 for another."""
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            return body
        if encoding not in ("gzip", "deflate"):
            raise _Refused(415, f"content-encoding {encoding[:40]!r} is not supported (gzip, deflate are)")
        inflater = zlib.decompressobj(wbits=31 if encoding == "gzip" else 15)
        try:
            plain = inflater.decompress(body, self.body_limit + 1)
        except zlib.error as exc:
            raise _Refused(400, f"the {encoding} body does not decode: {exc}") from None
        if len(plain) > self.body_limit or inflater.unconsumed_tail:
            raise _Refused(413, "request too large")
        return plain

    async def _read_body(self, receive: Receive, headers: dict[str, str], kept: bytearray) -> bytes:
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.body_limit:
            raise _Refused(413, "request too large")
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Refused(499, "the client left before its request ended")
            chunk = message.get("body", b"")
            size += len(chunk)
            if len(kept) <= self.record_limit:
                kept += chunk[: self.record_limit + 1 - len(kept)]
            if size > self.body_limit:
                raise _Refused(413, "request too large")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _record(self, row: ModelExchangeRow) -> None:
        try:
            self.sink(row)
        except Exception:  # a closed recording must not break the agent's conversation
            with self._lock:
                self.sink_errors += 1


def _plain_error(status: int, message: str) -> Reply:
    return Reply("application/json", (orjson.dumps({"error": {"message": message}}),))


async def _send(send: Send, status: int, reply: Reply) -> None:
    headers = [(b"content-type", reply.content_type.encode())]
    if reply.content_type == "text/event-stream":
        await send(
            {"type": "http.response.start", "status": status, "headers": [*headers, (b"cache-control", b"no-cache")]}
        )
        for chunk in reply.chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    body = reply.body
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
