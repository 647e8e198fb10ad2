"""The model context as a carrier: one request a coding agent sent the lab's model stand-in, read into segments.

`context_of(exchange)` parses the request per its API (Anthropic Messages, OpenAI Chat Completions and Responses,
Gemini generateContent/streamGenerateContent; streamed or not, only the request is read) into segments: the role
and kind of each piece of text (system, user, assistant, tool-call, tool-result, tool-description), the tool it is
tied to, the text, and its JSON path in the body. A request with no body by a method that carries none (`GET
/v1/models`) holds an empty context. Otherwise an unknown API, a truncated body, a body that is not JSON, or a
shape the reader does not know gives `Unread(reason)`: never guessed, never counted clean. Pure and bounded.

The attribution rule (model_attribution.py) decides by the request's structure, never by prose, whether an
occurrence of the run's nonce-tagged marker in a segment is *attributed* to the server:
- in a tool result answering a call whose tool carries the server's name (`mcp__NAME__TOOL`, `mcp_NAME_TOOL`, or
  the call's namespace `mcp__NAME`), or in the description of such a tool: attributed, and it names the server;
- inside a wrapper that marks it untrusted (`<untrusted_context>` ... `</untrusted_context>`, or any
  `<untrusted...>` element opened before it and closed after it, in the same segment; a tag a prompt merely
  mentions encloses nothing): attributed, and it names the server when the tag's attributes hold its name;
- in the section of a server-instructions heading (`## NAME` under a `# MCP Server Instructions` heading, the
  nearest heading before it in the same segment), or between `---[start of server instructions]---` style
  delimiters whose `---[end of ...]---` follows it: attributed; it names the server when the heading, or the line that
  introduces the delimiters, holds the server's name;
- a name the server goes by (its configured name, its nonce-tagged serverInfo name) in the 512 characters before it
  in the same segment: attributed, and it names the server (a label naming the source);
- any other tool result or tool description (a tool the run's server does not own): attributed as a tool's output;
- in a system or user turn with none of the above: *unattributed*, the signal; undecided (never a finding) when the
  run did not record the configured name, since a label with that name cannot be ruled out.
Text the model produced itself (assistant turns, tool calls) is not server text shown to it: never judged.
NAME is the server name the agent was configured with, as the run recorded it (model_attribution.server_names);
when the run did not record it, any MCP-shaped name counts, and whether an occurrence names the server is unknown.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from backchannel.recordings.model import ModelExchange

from . import model_api_anthropic, model_api_gemini, model_api_openai
from .model_segments import ModelContext, Segment, Segments, ShapeError, Unread

__all__ = ["BODILESS", "MAX_BODY", "READERS", "ModelContext", "Segment", "Unread", "context_of"]

BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})  # methods whose empty request holds no context to read
MAX_BODY = 16 * 1024 * 1024  # past the recording's own bound: a body this large is refused, not parsed
READERS: dict[str, Callable[[dict[str, object], Segments], None]] = {
    "anthropic-messages": model_api_anthropic.read,
    "openai-chat": model_api_openai.chat,
    "openai-responses": model_api_openai.responses,
    "gemini-generate": model_api_gemini.read,
    "gemini-stream": model_api_gemini.read,
}


def context_of(exchange: ModelExchange) -> ModelContext | Unread:
    """The segments of one recorded model request, or why it could not be read."""
    seq, api = exchange.seq, exchange.api
    if exchange.method.upper() in BODILESS and not exchange.request_body and not exchange.request_truncated:
        return ModelContext(seq, api)  # `GET /v1/models` and the like: a request that carries no context at all
    reader = READERS.get(api)
    if reader is None:
        return Unread(seq, f"the request's API ({api!r}) is not one the oracle reads")
    if exchange.request_truncated:
        return Unread(seq, "the request body was truncated when it was recorded")
    body = exchange.request_body
    if not body:
        return Unread(seq, "the request has no body")
    if len(body) > MAX_BODY:
        return Unread(seq, f"the request body is larger than {MAX_BODY} bytes")
    try:
        parsed = json.loads(body)
    except RecursionError:
        return Unread(seq, "the request body nests too deeply to read")
    except ValueError as error:  # also a body that is not UTF-8
        return Unread(seq, f"the request body is not JSON ({str(error)[:120]})")
    if not isinstance(parsed, dict):
        return Unread(seq, f"the request body is a JSON {type(parsed).__name__}, not an object")
    out = Segments()
    try:
        reader(parsed, out)
    except ShapeError as error:
        return Unread(seq, f"a request of a shape the {api} reader does not know: {error}")
    except RecursionError:
        return Unread(seq, "the request body nests too deeply to read")
    return ModelContext(seq, api, tuple(out.found))
