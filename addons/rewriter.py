"""The Rewriter addon: applies the run's typed mutation plan to requests and responses, JSON and SSE alike.

It never asks which kind a mutation is: at each step of a flow it calls that step's method on every active
mutation, in plan order (addons/mutations/base.py), and carries out what they asked for.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from collections.abc import Callable
from typing import Any

from mitmproxy import http

from backchannel.recordings.json_form import escape_surrogates

from . import request_state
from .header_value import header_value
from .hold import HoldServer, HoldTicket
from .jsonrpc import PARSE_LIMIT, deep_stand_in, is_json, is_sse, loads, too_deep
from .mutations.base import DeliveryStep, EndStep, HeadersStep, Relay, RequestStep
from .mutations.disconnect import BodyCut
from .mutations.hold import HoldRecord
from .mutations.inject_input_requests import AnswerInputRequiredRecord, RejectRequestStateRecord
from .router import refusal
from .session import FlowState, RunInfo, Session, header_pairs, origin_of
from .sse import SseItem, SseRewriter, StreamCut
from .transforms import INVALID_PARAMS, progress_token, proxy_error, rewrite_response, sse_event
from .unread_body import streamed_unread, take_over

JSON = {"Content-Type": "application/json"}


def _decode_request(body: bytes) -> dict[str, Any] | None:
    """The client's single JSON-RPC request, or None (too large to decode on the hot path, not JSON, a batch...)."""
    if len(body) > PARSE_LIMIT:
        return None  # kept raw and flagged by the Recorder
    try:
        request = loads(body.decode("utf-8"))  # decoding bytes would also take UTF-16/32; the wire is UTF-8
    except (ValueError, RecursionError):  # UnicodeDecodeError included; too deep: the Recorder flags it
        return None
    return request if isinstance(request, dict) and isinstance(request.get("method"), str) else None


class Rewriter:
    def __init__(self, session: Session, holds: HoldServer, on_sse_item: Any) -> None:
        self.session = session
        self.holds = holds
        self.on_sse_item = on_sse_item  # Recorder.sse_item(flow, state, item)

    # ------------------------------------------------------------------------------------------ request

    def request(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None or flow.response is not None or state.run_id is None or streamed_unread(flow.request):
            return  # a body too large to hold went upstream as it came: nothing read, nothing to rewrite
        run = self.session.run_for(state.run_id)
        if run is None:
            return
        request = _decode_request(state.client_request)
        if request is not None:
            state.request = request
        if run.plan is None:
            self._refuse(flow, state, run)
            return
        if request is None or self._answer_retry(flow, state, request):
            return
        chosen = [m for m in run.plan.for_request(request) if self.session.take(state.run_id, m)]
        for mutation in chosen:
            answer = mutation.params.answer(mutation.index, request)
            if answer is not None:
                state.applied.append(answer.record)
                state.answered_by_proxy = mutation.kind
                flow.response = http.Response.make(answer.status, answer.body, JSON)
                return
        step = RequestStep(request=request, records=state.applied)
        state.active = tuple(m for m in chosen if m.params.on_request(m.index, step))
        state.injections = step.injections
        if step.relay is not None:
            self._relay(flow, state, step.relay, run.upstream)

    def _refuse(self, flow: http.HTTPFlow, state: FlowState, run: RunInfo) -> None:
        """A run whose stored plan does not parse: answer every request with an error instead of forwarding it.

        HTTP 500 with JSON-RPC -32603 (internal error), not 400: the fault is the recording's, not the client's
        request, and a 400 would tell the client under test that it sent something wrong.
        """
        flow.response = http.Response.make(*refusal(run.run_id, run, state.request), JSON)
        state.answered_by_proxy = "invalid-plan"

    def _answer_retry(self, flow: http.HTTPFlow, state: FlowState, request: dict[str, Any]) -> bool:
        """A retry carrying our requestState: check it is for this very call, then forward the call it was minted for.

        What goes upstream is the original call's params (without the MRTR fields), never the retry's own: a state
        is bound to the call (method, tool, arguments digest), the run and the recording it was minted for.
        """
        params = request.get("params")
        token = params.get("requestState") if isinstance(params, dict) else None
        if not request_state.is_ours(token):
            return False
        assert isinstance(params, dict) and isinstance(token, str)
        try:
            claims = request_state.verify(self.session.key, token)
            if claims.get("run") != state.run_id:
                raise request_state.StateRejected("requestState was minted for another run")
            if claims.get("rec") != self.session.recording_id:
                raise request_state.StateRejected("requestState was minted for another recording")
            request_state.check_call(claims, request)
            original = self.session.minted.get(token)
            if original is None:
                raise request_state.StateRejected("requestState was not minted by this proxy for any call")
            if token in self.session.used_states:
                raise request_state.StateRejected("requestState is stale: it was already used by an earlier retry")
        except request_state.StateRejected as exc:
            state.applied.append(RejectRequestStateRecord(reason=str(exc)))
            state.answered_by_proxy = RejectRequestStateRecord.KIND
            flow.response = http.Response.make(*proxy_error(request, INVALID_PARAMS, f"Invalid params: {exc}"), JSON)
            return True
        self.session.used_states.add(token)
        flow.request.content = json.dumps({**request, "params": original}, separators=(",", ":")).encode()
        responses = params.get("inputResponses")
        if too_deep(json.dumps(responses)):  # loaded, so it dumps; a reader refuses it this deep
            responses = json.loads(deep_stand_in("inputResponses", len(json.dumps(responses))))
        state.applied.append(AnswerInputRequiredRecord(input_responses=responses, request_state=token))
        return True

    def _relay(self, flow: http.HTTPFlow, state: FlowState, relay: Relay, upstream: str) -> None:
        """Point the flow at the loopback relay, which fetches the real upstream on the mutation's clock."""
        ticket = HoldTicket(
            upstream=origin_of(upstream),
            path=flow.request.path,
            headers=header_pairs(flow.request.headers),
            body=flow.request.raw_content or b"",
            hold_ms=relay.hold_ms or 0,
            keepalive_ms=relay.keepalive_ms,
            progress_token=progress_token(state.request) if relay.progress else None,
            request_id=state.request.get("id") if state.request else None,
            hold=relay.hold_ms is not None,
            delay_ms=relay.delay_ms,
            between_events_ms=relay.between_events_ms,
            max_held=self.session.limits.max_held,
        )
        state.hold_ticket = ticket
        flow.request.scheme, flow.request.host, flow.request.port = "http", "127.0.0.1", self.holds.port
        flow.request.path = self.holds.issue(ticket)

    def _mint(self, state: FlowState) -> Callable[[int], str]:
        def mint(index: int) -> str:
            request = state.request or {}
            claims = {
                "run": state.run_id,
                "rec": self.session.recording_id,
                "id": request.get("id") if isinstance(request.get("id"), str | int) else None,
                "mutation": index,
                "n": secrets.token_hex(6),
                **request_state.call_claims(request),
            }
            token = request_state.mint(self.session.key, claims)
            self.session.minted[token] = request_state.original_params(request)
            return token

        return mint

    # ------------------------------------------------------------------------------------------ response

    def transform_text(self, state: FlowState, text: str, sse_idx: int | None = None) -> str | StreamCut | None:
        """What the client gets for one JSON-RPC message from upstream: new text, a cut, or None (unchanged)."""
        new = rewrite_response(
            text, state.request, state.active, self._mint(state), state.applied, state.injections, sse_idx=sse_idx
        )
        # a mutation's output re-serialises what the upstream sent: a lone surrogate it held (a "\\ud800", decoded)
        # goes back as its escape, the same JSON, so the text encodes to the wire and is recorded as sent
        return escape_surrogates(new) if isinstance(new, str) else new

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None or flow.response is None:
            return
        ticket = state.hold_ticket
        if ticket is not None and not ticket.hold:  # the relay passes the upstream's head on: keep it as it was
            state.upstream_response_headers = list(ticket.upstream_headers)
        else:
            state.upstream_response_headers = flow.response.headers.fields
        sse = is_sse(header_value(flow.response.headers, b"content-type"))
        step = HeadersStep(sse=sse, records=state.applied)
        for mutation in state.active:
            mutation.params.on_headers(mutation.index, step)
        if step.kill:
            # before the status line: mitmproxy closes the client's connection, then calls `error`
            flow.kill()  # type: ignore[no-untyped-call]
            return
        headers = flow.response.headers
        if step.cut_after is not None and "content-length" not in headers and "transfer-encoding" not in headers:
            headers["transfer-encoding"] = "chunked"  # a body framed by the close would seem to end cleanly at the cut
        if sse:
            if "content-length" in flow.response.headers:
                # a rewrite may change the length; chunked framing lets the client find the end anyway
                del flow.response.headers["content-length"]
                flow.response.headers["transfer-encoding"] = "chunked"
            transform = (lambda text: self._transform_event(state, text)) if state.active else None
            flow.response.stream = SseRewriter(
                transform=transform,
                on_item=lambda item: self._sse_item(flow, state, item),
                hold_fields=step.hold_events,
                limit=step.cut_after,
                # an upstream's event is held whole to be read and rewritten, up to a bound: past it, it passes unread
                max_held=self.session.limits.max_held,
                keep=self.session.limits.max_sse_event,
            )
        elif step.cut_after is not None:
            cut = BodyCut(step.cut_after, state.upstream_sse, state.client_sse, keep=self.session.limits.max_body)
            flow.response.stream = state.body_cut = cut
        elif flow.response.stream:  # mitmproxy streams it: its Content-Length is past the bound (unread_body.py)
            state.unread_response = take_over(flow.response, self.session.limits.max_body)

    def _transform_event(self, state: FlowState, text: str) -> str | StreamCut | None:
        return self.transform_text(state, text, sse_idx=state.sse_items)

    def _sse_item(self, flow: http.HTTPFlow, state: FlowState, item: SseItem) -> None:
        ticket = state.hold_ticket
        if ticket is not None and state.sse_items < ticket.made:
            item = dataclasses.replace(item, made_by=HoldRecord.KIND)  # the relay's own keep-alive or progress
        cap = self.session.limits.max_body  # the stream's bodies are stored up to it (the Recorder flags the cut)
        whole = item.oversize or len(item.upstream_raw)  # a too-large item keeps only its first bytes
        if item.oversize:
            given = item.client_size
        else:
            given = whole if item.client_raw is item.upstream_raw else len(item.client_raw)
        # the stored stream stays the wire's first bytes: once an item was kept only in part, nothing more is added
        if len(state.upstream_sse) == state.upstream_sse_bytes:
            state.upstream_sse += item.upstream_raw[: cap - len(state.upstream_sse)]
        if len(state.client_sse) == state.client_sse_bytes:
            state.client_sse += item.client_raw[: cap - len(state.client_sse)]
        state.client_sse_bytes += given
        state.upstream_sse_bytes += whole
        self.on_sse_item(flow, state, item)

    def last_event(self, flow: http.HTTPFlow, state: FlowState, text: str, made_by: str) -> bytes:
        """End a response stream with one event the proxy made (its upstream went silent): an event the upstream left
        open is abandoned, the new one is recorded as the proxy's; returns the bytes the client gets."""
        assert flow.response is not None
        if isinstance(flow.response.stream, SseRewriter):
            flow.response.stream.abandon()
        raw = b"\r\n" + sse_event(text)  # the blank line first ends field lines the client got of an abandoned event
        self._sse_item(flow, state, SseItem("event", b"", raw, text, "message", None, False, made_by=made_by))
        return raw

    def response(self, flow: http.HTTPFlow) -> float:
        """Rewrite a buffered (JSON) response, or end a streamed one; returns how many seconds to hold it."""
        state = self.session.flows.get(flow.id)
        if state is None or flow.response is None or streamed_unread(flow.response):
            return 0.0  # a body too large to hold went to the client as it came: no mutation read it
        if flow.response.stream:
            self._end_stream(flow, state)
            return 0.0
        state.upstream_response_body = flow.response.raw_content
        if state.upstream_response_headers is None:
            state.upstream_response_headers = flow.response.headers.fields
        if not state.active or not is_json(header_value(flow.response.headers, b"content-type")):
            return 0.0
        text = flow.response.get_text(strict=False) or ""
        new = self.transform_text(state, text)
        rewritten = new if isinstance(new, str) else None
        step = DeliveryStep(records=state.applied)
        for mutation in state.active:
            mutation.params.on_delivery(mutation.index, step)
        if step.to_sse:
            flow.response.headers["content-type"] = "text/event-stream"
            flow.response.headers["cache-control"] = "no-cache"
            flow.response.content = sse_event(rewritten if rewritten is not None else text)
        elif rewritten is not None:
            flow.response.text = rewritten
        return step.wait_s  # the caller sends no bytes until it is over

    def _end_stream(self, flow: http.HTTPFlow, state: FlowState) -> None:
        if not state.active:
            return
        sent = state.body_cut.client_size if state.body_cut is not None else state.client_sse_bytes
        step = EndStep(records=state.applied, sent=max(sent, len(state.client_sse)))
        for mutation in state.active:
            mutation.params.on_end(mutation.index, step)
        if step.kill and flow.killable:
            # after the response hook mitmproxy closes the connection instead of ending the response
            flow.kill()  # type: ignore[no-untyped-call]
