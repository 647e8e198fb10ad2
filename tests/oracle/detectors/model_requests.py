"""Model requests for the model-context tests: a recorded exchange from a body, and the probe's tokens."""

from __future__ import annotations

import json

from backchannel.oracle.detectors.markers import Markers
from backchannel.oracle.detectors.model_context import ModelContext, Unread, context_of
from backchannel.recordings.model import ModelExchange

MARKERS = Markers("0123abcd")
BODY = MARKERS.body
PATHS = {
    "anthropic-messages": "/v1/messages",
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "gemini-generate": "/v1beta/models/m:generateContent",
    "gemini-stream": "/v1beta/models/m:streamGenerateContent",
}


def exchange(api: str, body: object, *, seq: int = 7, streamed: bool = False, truncated: bool = False) -> ModelExchange:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return ModelExchange(
        seq=seq,
        run_id="r",
        api=api,
        method="POST",
        path=PATHS.get(api, "/elsewhere"),
        request_body=raw,
        request_truncated=truncated,
        streamed=streamed,
    )


def read(api: str, body: object, **kw: bool) -> ModelContext:
    context = context_of(exchange(api, body, **kw))
    assert isinstance(context, ModelContext), context
    return context


def unread(api: str, body: object, **kw: bool) -> Unread:
    context = context_of(exchange(api, body, **kw))
    assert isinstance(context, Unread), context
    return context


def rows(context: ModelContext) -> list[tuple[str, str, str | None, str, str]]:
    """Each segment as (kind, role, tool, text, path)."""
    return [(s.kind, s.role, s.tool, s.text, s.path) for s in context.segments]
