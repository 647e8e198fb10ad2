"""The Recorder addon, last in line: writes every exchange, JSON-RPC message, SSE item, error and anomaly."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

import msgpack
from mitmproxy import http

from backchannel.recordings.model import Direction
from backchannel.recordings.rows import (
    ExchangeFailure,
    ExchangeHead,
    ExchangeOutcome,
    ExchangeRequest,
    ExchangeResponse,
    ExchangeStreamEnd,
    MessageRow,
    SseItemRow,
)

from .header_value import header_value
from .jsonrpc import DEEP_PREFIX, ParsedMessage, classify, deep_stand_in, is_sse, parse_body, parse_text, too_deep
from .session import FlowState, Session
from .sse import LINE_COST, SseItem
from .unread_body import bound_words, streamed_unread, unread_detail


def _flow_state(flow: http.HTTPFlow) -> bytes | None:
    """mitmproxy's own flow state, bodies left out (they live in their own columns), for .mitm export."""
    try:
        state = flow.get_state()
        for part in ("request", "response"):
            if state.get(part):
                state[part]["content"] = None
        state["backup"] = None
        packed: bytes = msgpack.packb(state, use_bin_type=True)
        return packed
    except (TypeError, ValueError):
        return None


class Recorder:
    def __init__(self, session: Session, *, flow_state: bool = False) -> None:
        self.session = session
        self.writer = session.writer
        self.keep_flow_state = flow_state  # mitmproxy's own flow snapshot: costly (a deep copy), off by default

    def request(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None:
            return
        with self.writer.group():
            self._request(flow, state)

    def _request(self, flow: http.HTTPFlow, state: FlowState) -> None:
        if streamed_unread(flow.request):
            self._unread_request(flow, state)
            return
        forwarded = flow.request.raw_content or b""
        # the exchange row is written once, complete, when the flow ends (response or error): one statement, not
        # an insert now and an update later; its messages are written now, so a live view sees them at once
        upstream = None if forwarded == state.client_request else self._cap(state, forwarded, "forwarded request body")
        self._request_row(flow, state, self._cap(state, state.client_request, "request body"), upstream)
        if flow.request.method != "POST":
            return
        # what the messages need, taken now (cheap); the parse and the rows happen on the writer thread
        body, request, t = state.client_request, state.request, time.time()
        run_id, flow_id, ctype = state.run_id, flow.id, header_value(flow.request.headers, b"content-type")
        mutation = next((r.KIND for r in state.applied if r.ROLE == "request"), None)

        def messages() -> None:
            upstream = None if forwarded == body else forwarded.decode("utf-8", "replace")
            if request is not None:  # the Rewriter already decoded this single request: no second parse
                message = classify(request)
                self._message(run_id, flow_id, "to-server", message, body.decode("utf-8"), upstream, mutation, None, t)
                return
            parsed = parse_body(body, ctype)
            for message in parsed.messages:
                self._message(
                    run_id, flow_id, "to-server", message, _single(parsed.text, parsed), upstream, mutation, None, t
                )
            self._anomalies(flow_id, run_id, parsed.anomalies, "request", t)
            if not body:  # a POST without a body carries no message: say so rather than record nothing
                self.session.anomaly(flow_id, run_id, "empty-body", "request: a POST with an empty body", t)

        self.writer.later(messages)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        """A request body mitmproxy streams from the start (its Content-Length is past the bound) is recorded now: the
        upstream may answer, or the flow fail, before the body has gone by and the `request` hook runs."""
        state = self.session.flows.get(flow.id)
        if state is not None and streamed_unread(flow.request):
            self._unread_request(flow, state)

    def _unread_request(self, flow: http.HTTPFlow, state: FlowState) -> None:
        """A request body too large to hold went upstream as it came (unread_body.py): its first bytes are stored (when
        the row is written), it makes no message row, and a `body-unread` anomaly says so. Once per flow."""
        if state.exchange_flow_id:
            return
        self._request_row(flow, state, b"", None)  # the body's first bytes are filled in as the row is written
        declared = flow.request.headers.get("content-length", "?")
        detail = unread_detail("request body", state.unread_request, self.session.limits.max_held, declared=declared)
        self.session.anomaly(flow.id, state.run_id, "body-unread", detail, time.time())

    def _request_row(self, flow: http.HTTPFlow, state: FlowState, body: bytes, upstream: bytes | None) -> None:
        """The exchange's request side, kept until the flow's first outcome writes the row (`_exchange`)."""
        state.exchange_flow_id = flow.id
        state.exchange_row = ExchangeRequest(
            run_id=state.run_id,
            flow_id=flow.id,
            method=flow.request.method,
            path=state.client_path,
            request_headers=flow.request.headers.fields,  # an immutable snapshot, decoded when written
            request_body=body,
            upstream_request_body=upstream,
            t_request=flow.request.timestamp_start,
        )

    def _unread_response(self, flow: http.HTTPFlow, state: FlowState) -> None:
        """A response body too large to hold went to the client as it came (unread_body.py): the head, and the body's
        first bytes when a hook saw them, are stored; it makes no message row, and a `body-unread` anomaly says so."""
        response = flow.response
        assert response is not None
        if state.exchange_row is not None:  # mitmproxy began streaming mid-body, after the head's hook: write the head
            self._head(state, response)
        body = state.unread_response
        kept = bytes(body.kept) if body is not None else b""
        ticket = state.hold_ticket
        if ticket is not None and ticket.upstream_body:  # relayed: the relay kept the upstream's first bytes
            kept = self._cap(state, ticket.upstream_body, "upstream response body")
        self._exchange(
            state,
            ExchangeStreamEnd(
                t_end=response.timestamp_end or time.time(),
                mutations=_records(state),
                upstream_response_headers=state.upstream_response_headers or None,
                upstream_response_body=kept,
                flow_state=_flow_state(flow) if self.keep_flow_state else None,
            ),
        )
        detail = unread_detail("response body", body, self.session.limits.max_held)
        self.session.anomaly(flow.id, state.run_id, "body-unread", detail, time.time())

    def _head(self, state: FlowState, response: http.Response) -> None:
        """A streamed response's head, written as it starts to stream (or once it is known to have streamed)."""
        head = ExchangeHead(
            status=response.status_code, t_response=response.timestamp_start, response_headers=response.headers.fields
        )
        self._exchange(state, head)

    def _message(
        self,
        run_id: str | None,
        flow_id: str,
        direction: Direction,
        message: ParsedMessage,
        text: str | None,
        upstream: str | None,
        mutation: str | None,
        sse_idx: int | None,
        t: float,
        answers: str | None = None,
    ) -> None:
        # the exact text as it crossed when the body held just this message; a batch member is re-serialised
        text = _text_of(message, text)
        kind, jsonrpc_id = message.kind, message.jsonrpc_id
        cap = self.session.limits.max_sse_event if sse_idx is not None else self.session.limits.max_body
        if len(text) > cap or len(upstream or "") > cap:
            # kept up to the limit (so no longer JSON: its payload reads as None); kind, id and method stay
            detail = f"{direction} message of {max(len(text), len(upstream or ''))} characters stored up to {cap}"
            self.session.anomaly(flow_id, run_id, "message-over-limit", detail, t)
            text, upstream = text[:cap], None if upstream is None else upstream[:cap]
        if too_deep(text) or too_deep(upstream) or too_deep(jsonrpc_id):
            # a reader refuses JSON nested this deep: the message stays, as `invalid`, its bytes in the exchange row
            self.session.anomaly(
                flow_id, run_id, "json-too-deep", f"{direction} message nested too deeply; kept raw in the exchange", t
            )
            kind, jsonrpc_id = "invalid", None
            text = deep_stand_in("message", len(text)) if too_deep(text) else text
            upstream = deep_stand_in("message", len(upstream or "")) if too_deep(upstream) else upstream
        self.writer.insert(
            MessageRow(
                run_id=run_id,
                flow_id=flow_id,
                sse_idx=sse_idx,
                direction=direction,
                kind=kind,
                jsonrpc_id=jsonrpc_id,
                # a response carries the method it answers
                method=message.method if message.method is not None or direction == "to-server" else answers,
                text=text,
                upstream_text=upstream,
                mutation=mutation,
                t=t,
            )
        )

    def _unread(self, flow_id: str, run_id: str | None, item: SseItem, idx: int, t: float) -> None:
        """An item too large to hold went to the client as it came: its row keeps its first bytes. A whole event's data
        was never read, so the messages it carried are in no row: `sse-event-unread`, which the harness reports as
        ERROR. A comment line, an event the stream ended inside, or one the client did not get all of, would have
        made no message row either way."""
        what = {"comment": "comment line", "event": "event", "truncated": "unfinished event"}[item.kind]
        detail = (
            f"SSE item {idx}, {what} of {item.oversize} bytes, passed to the client as it came, unread: too large to"
            f" hold (past the {self.session.limits.max_held}-byte bound, the larger of --max-body and"
            f" --max-sse-event, each held line counting {LINE_COST} bytes over its length);"
            f" its first {len(item.upstream_raw)} bytes stored"
        )
        if item.kind == "truncated":
            self.session.anomaly(flow_id, run_id, "truncated-sse", f"stream ended inside an event: {detail}", t)
        elif item.kind == "comment" or item.cut_by is not None:
            self.session.anomaly(flow_id, run_id, "sse-event-over-limit", detail, t)
        else:
            self.session.anomaly(flow_id, run_id, "sse-event-unread", detail, t)

    def _cap(self, state: FlowState, body: bytes, what: str, limit: int | None = None, t: float | None = None) -> bytes:
        """A body as stored: up to the limit, with an anomaly when it was cut (the client got all of it); `t` is when
        the body passed, for a cut found later on the writer thread."""
        cap = self.session.limits.max_body if limit is None else limit
        if len(body) <= cap:
            return body
        detail = f"{what} of {len(body)} bytes stored up to the {cap}-byte limit"
        kind = "sse-event-over-limit" if limit is not None else "body-over-limit"
        when = time.time() if t is None else t
        self.session.anomaly(state.exchange_flow_id or None, state.run_id, kind, detail, when)
        return body[:cap]

    def _exchange(self, state: FlowState, outcome: ExchangeOutcome) -> None:
        """Write the flow's exchange row the first time, complete; later facts (a late error) update it."""
        if state.exchange_row is not None and state.unread_request is not None:  # what passed of it by now
            state.exchange_row = dataclasses.replace(state.exchange_row, request_body=bytes(state.unread_request.kept))
        if state.exchange_row is not None:
            self.writer.insert_exchange(state.exchange_row, outcome)
            state.exchange_row = None
        else:
            self.writer.update_exchange(state.exchange_flow_id, outcome)

    def _anomalies(self, flow_id: str, run_id: str | None, found: Any, where: str, t: float) -> None:
        for kind, detail in found:
            self.session.anomaly(flow_id, run_id, kind, f"{where}: {detail}", t)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is not None and flow.response is not None and flow.response.stream:
            self._head(state, flow.response)

    def sse_item(self, flow: http.HTTPFlow, state: FlowState, item: SseItem) -> None:
        """Called from inside the stream as each SSE item passes, so an abandoned stream is still recorded. Only what
        may change later is read here; the item's rows are made on the writer thread, off the stream's path."""
        idx = state.sse_items
        state.sse_items += 1
        mutation = item.made_by  # e.g. a progress notification the proxy made while holding
        if mutation is None and item.changed:
            mutation = _last_result_mutation(state)
        flow_id, answers, t = flow.id, _method_of(state.request), time.time()
        self.writer.refuse_if_failed()  # as an insert would: traffic recorded nowhere is worse than a visible crash
        self.writer.later(lambda: self._sse_rows(flow_id, state, item, idx, mutation, answers, t))

    def _sse_rows(
        self,
        flow_id: str,
        state: FlowState,
        item: SseItem,
        idx: int,
        mutation: str | None,
        answers: str | None,
        t: float,
    ) -> None:
        """On the writer thread: the item's row, and the messages its data carries (parsed here, issue 26)."""
        run_id = state.run_id
        origin = "proxy" if item.made_by is not None else "upstream"
        cap = self.session.limits.max_sse_event
        upstream_raw = self._cap(state, item.upstream_raw, f"SSE item {idx}", cap, t)
        client_raw = upstream_raw if item.client_raw is item.upstream_raw else item.client_raw[:cap]
        self.writer.insert(
            SseItemRow(
                run_id=run_id,
                flow_id=flow_id,
                idx=idx,
                kind=item.kind,
                origin=origin,
                upstream_raw=upstream_raw,
                client_raw=client_raw,
                t=t,
            )
        )
        if item.oversize:
            self._unread(flow_id, run_id, item, idx, t)
            return
        if item.kind == "truncated":
            detail = f"stream ended inside an event ({len(item.upstream_raw)} bytes held)"
            self.session.anomaly(flow_id, run_id, "truncated-sse", detail, t)
            return
        if item.kind != "event" or item.data is None or item.cut_by is not None:
            return  # a message counts once the client got all of it
        text = item.client_data if item.changed else item.data  # item.data is always the upstream's payload
        upstream_data = item.data if item.changed else None
        parsed, anomalies = parse_text(text or "")
        for message in parsed:
            if message.kind in ("response", "error") and message.jsonrpc_id is not None:
                # read by the idle timer only after a whole quiet spell, which this event's bytes restarted
                state.saw_final_response = True
            self._message(
                run_id,
                flow_id,
                "to-client",
                message,
                None if _is_batch(anomalies) else text,
                upstream_data,
                mutation,
                idx,
                t,
                answers,
            )
        self._anomalies(flow_id, run_id, anomalies, f"SSE event {idx}", t)

    def response(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None or flow.response is None or state.finished:
            return
        with self.writer.group():
            self._response(flow, state)

    def _response(self, flow: http.HTTPFlow, state: FlowState) -> None:
        assert flow.response is not None
        state.finished = True
        if streamed_unread(flow.request):  # the upstream may answer before a streamed body has gone by
            self._unread_request(flow, state)
        if streamed_unread(flow.response):
            self._unread_response(flow, state)
            return
        if flow.response.stream:
            self._finish_stream(flow, state)
            return
        client_body = flow.response.raw_content or b""
        upstream_body = state.upstream_response_body if state.upstream_response_body is not None else client_body
        stored_upstream = self._cap(state, upstream_body, "upstream response body")
        stored_client = (
            stored_upstream if client_body == upstream_body else self._cap(state, client_body, "response body")
        )
        client_headers = flow.response.headers.fields
        upstream_headers = state.upstream_response_headers or None
        self._exchange(
            state,
            ExchangeResponse(
                status=flow.response.status_code,
                t_response=flow.response.timestamp_start,
                t_end=flow.response.timestamp_end,
                mutations=_records(state),
                response_headers=client_headers,
                # stored only when the proxy changed them; the reader falls back to response_headers
                upstream_response_headers=None if upstream_headers == client_headers else upstream_headers,
                upstream_response_body=stored_upstream,
                response_body=None if client_body == upstream_body else stored_client,
                flow_state=_flow_state(flow) if self.keep_flow_state else None,
                forwarded=not state.answered_by_proxy,
            ),
        )
        ctype = header_value(flow.response.headers, b"content-type")
        # the message carries the most telling rewrite: made up by the proxy, its result changed, or only delivered
        # differently (held, reframed as SSE)
        delivery = [r.KIND for r in state.applied if r.ROLE == "delivery"]
        mutation = state.answered_by_proxy or _last_result_mutation(state) or (delivery[-1] if delivery else None)
        run_id, flow_id, answers, t = state.run_id, flow.id, _method_of(state.request), time.time()
        event_cap = self.session.limits.max_sse_event

        def messages() -> None:  # on the writer thread: the body parsed and its rows made off the proxy's path
            if is_sse(ctype):
                # the proxy turned JSON into SSE: the message is the event's data
                parsed = parse_body(upstream_body, None)
                rewritten = _data_of(client_body)
                upstream_text = None if parsed.text == rewritten else parsed.text
                self.writer.insert(
                    SseItemRow(
                        run_id=run_id,
                        flow_id=flow_id,
                        idx=0,
                        kind="event",
                        origin="proxy",
                        upstream_raw=stored_upstream[:event_cap],
                        client_raw=stored_client[:event_cap],
                        t=t,
                    )
                )
                for message in parse_text(rewritten)[0] if rewritten else ():
                    self._message(
                        run_id, flow_id, "to-client", message, rewritten or "", upstream_text, mutation, 0, t, answers
                    )
                return
            parsed = parse_body(client_body, ctype)
            upstream_text = None
            if client_body != upstream_body:
                upstream_text = parse_body(upstream_body, ctype).text
            text = _single(parsed.text, parsed)
            for message in parsed.messages:
                self._message(run_id, flow_id, "to-client", message, text, upstream_text, mutation, None, t, answers)
            self._anomalies(flow_id, run_id, parsed.anomalies, "response", t)

        self.writer.later(messages)

    def _finish_stream(self, flow: http.HTTPFlow, state: FlowState) -> None:
        ticket = state.hold_ticket
        upstream_body = bytes(state.upstream_sse)
        upstream_headers = state.upstream_response_headers
        if ticket is not None:  # held: what the real upstream said is the ticket's, not the hold server's
            upstream_body = self._cap(state, ticket.upstream_body or b"", "upstream response body")
            upstream_headers = ticket.upstream_headers
            if ticket.too_large:  # the hold would have had to hold it whole: the client got the proxy's error instead
                detail = (
                    f"the upstream's response body is past {bound_words(ticket.max_held)}, so the hold did not read it"
                    f" and the client got the proxy's JSON-RPC error event instead; its first {len(upstream_body)}"
                    " bytes stored"
                )
                self.session.anomaly(flow.id, state.run_id, "body-unread", detail, time.time())
        elif state.body_cut is not None and state.body_cut.upstream_size > len(upstream_body):
            detail = (
                f"response body of {state.body_cut.upstream_size} bytes (cut for the client by a disconnect):"
                f" only its first {len(upstream_body)} bytes stored"
            )
            self.session.anomaly(flow.id, state.run_id, "body-over-limit", detail, time.time())
        elif state.upstream_sse_bytes > len(upstream_body):
            detail = f"SSE stream of {state.upstream_sse_bytes} bytes: only its first {len(upstream_body)} bytes stored"
            self.session.anomaly(flow.id, state.run_id, "body-over-limit", detail, time.time())
        client_body = bytes(state.client_sse)
        self._exchange(
            state,
            ExchangeStreamEnd(
                t_end=flow.response.timestamp_end if flow.response else time.time(),
                mutations=_records(state),
                upstream_response_headers=upstream_headers or None,
                upstream_response_body=upstream_body,
                response_body=None if client_body == upstream_body else client_body,
                flow_state=_flow_state(flow) if self.keep_flow_state else None,
            ),
        )
        expects_response = isinstance(state.request, dict) and "id" in state.request
        if expects_response and flow.error is None:
            flow_id, run_id, t = flow.id, state.run_id, time.time()

            def unanswered() -> None:  # on the writer thread, after the events' messages were parsed there
                if not state.saw_final_response:
                    detail = "SSE stream ended without a JSON-RPC response to the request"
                    self.session.anomaly(flow_id, run_id, "sse-without-response", detail, t)

            self.writer.later(unanswered)

    def error(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None:
            return
        if streamed_unread(flow.request):  # the flow may fail before a streamed body has gone by
            self._unread_request(flow, state)
        if flow.response is not None and streamed_unread(flow.response) and state.exchange_row is not None:
            self._head(state, flow.response)  # a body of unknown length that failed: its head still counts
        message = flow.error.msg if flow.error else "unknown error"
        kind = "client-disconnected" if "client disconnected" in message.lower() else "upstream-unreachable"
        if flow.response is not None and kind != "client-disconnected":
            kind = "stream-error"
        self._exchange(state, ExchangeFailure(error=message, t_end=time.time(), mutations=_records(state)))
        self.session.anomaly(flow.id, state.run_id, kind, message, time.time())
        if flow.response is not None and flow.response.stream and not state.finished:
            state.finished = True
            if streamed_unread(flow.response):
                self._unread_response(flow, state)
            else:
                self._finish_stream(flow, state)

    def done(self) -> None:
        self.writer.close()


def _method_of(request: dict[str, Any] | None) -> str | None:
    """The method a response answers: its request's, when the request was one JSON-RPC request."""
    method = request.get("method") if request is not None else None
    return method if isinstance(method, str) else None


def _text_of(message: ParsedMessage, text: str | None) -> str:
    """The message's text: cut when too deep to decode, as it crossed for a single message, else re-serialised."""
    if message.raw is not None:
        return message.raw
    if text:
        return text
    try:
        return json.dumps(message.payload, separators=(",", ":"), ensure_ascii=False)
    except (RecursionError, ValueError, TypeError):
        return repr(message.payload)[:DEEP_PREFIX]


def _is_batch(anomalies: Any) -> bool:
    return any(kind == "jsonrpc-batch" for kind, _ in anomalies)


def _single(text: str | None, parsed: Any) -> str | None:
    """The body's own text when it held exactly one message (kept byte-exact); None for a batch member."""
    return None if _is_batch(parsed.anomalies) else text


def _data_of(raw: bytes) -> str | None:
    lines = raw.decode("utf-8", "replace").splitlines()
    data = [line[5:].removeprefix(" ") for line in lines if line.startswith("data:")]
    return "\n".join(data) if data else None


def _records(state: FlowState) -> tuple[Any, ...]:
    """The exchange's mutation records, turned into the JSON the recording keeps as the row is written."""
    return tuple(state.applied)


def _last_result_mutation(state: FlowState) -> str | None:
    kinds = [r.KIND for r in state.applied if r.ROLE == "result"]
    return kinds[-1] if kinds else None
