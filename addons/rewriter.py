"""The Rewriter addon: applies the run's mutation plan to requests and responses, JSON and SSE alike."""

from __future__ import annotations

import json
import secrets
from typing import Any

from mitmproxy import http

from . import request_state
from .hold import HoldServer, HoldTicket
from .jsonrpc import PARSE_LIMIT, is_json, is_sse
from .plan import Mutation
from .session import FlowState, Session, header_pairs, origin_of
from .sse import SseItem, SseRewriter
from .transforms import choose_input_requests, error_body, progress_token, rewrite_response, sse_event

RESPONSE_KINDS = ("drop-result-type", "inject-input-requests", "hold", "json-to-sse")


class Rewriter:
    def __init__(self, session: Session, holds: HoldServer, on_sse_item: Any) -> None:
        self.session = session
        self.holds = holds
        self.on_sse_item = on_sse_item  # Recorder.sse_item(flow, state, item)

    def request(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None or flow.response is not None or state.run_id is None:
            return
        if len(state.client_request) > PARSE_LIMIT:
            return  # kept raw and flagged by the Recorder; never decoded on the proxy's hot path
        try:
            request = json.loads(state.client_request)
        except ValueError:
            return
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            return
        state.request = request
        run = self.session.run_for(state.run_id)
        if run is None:
            return
        if self._answer_retry(flow, state, request):
            return
        chosen = [m for m in run.plan.for_request(request) if self.session.take(state.run_id, m)]
        error = next((m for m in chosen if m.kind == "error"), None)
        if error is not None:
            self._respond_error(flow, state, error, request)
            return
        active = []
        for mutation in chosen:
            if mutation.kind == "inject-input-requests":
                requests, decision = choose_input_requests(mutation, request)
                state.applied.append(decision)
                if requests is None:
                    continue
                state.injections[mutation.index] = requests
            if mutation.kind in RESPONSE_KINDS:
                active.append(mutation)
        state.active = tuple(active)
        hold = state.active_kind("hold")
        if hold is not None and hold.params.get("as") == "sse":
            self._redirect_to_hold(flow, state, hold, run.upstream)

    def _answer_retry(self, flow: http.HTTPFlow, state: FlowState, request: dict[str, Any]) -> bool:
        """A retry carrying our requestState: check it, then forward the original call without the MRTR fields."""
        params = request.get("params")
        token = params.get("requestState") if isinstance(params, dict) else None
        if not request_state.is_ours(token):
            return False
        assert isinstance(params, dict) and isinstance(token, str)
        try:
            claims = request_state.verify(self.session.key, token)
            if claims.get("run") != state.run_id:
                raise request_state.StateRejected("requestState was minted for another run")
            if token in self.session.used_states:
                raise request_state.StateRejected("requestState is stale: it was already used by an earlier retry")
        except request_state.StateRejected as exc:
            state.applied.append({"kind": "reject-request-state", "reason": str(exc)})
            state.answered_by_proxy = "reject-request-state"
            body = error_body(request.get("id"), -32602, f"Invalid params: {exc}")
            flow.response = http.Response.make(200, body, {"Content-Type": "application/json"})
            return True
        self.session.used_states.add(token)
        forwarded = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
        flow.request.content = json.dumps({**request, "params": forwarded}, separators=(",", ":")).encode()
        state.applied.append(
            {"kind": "answer-input-required", "inputResponses": params.get("inputResponses"), "requestState": token}
        )
        return True

    def _respond_error(
        self, flow: http.HTTPFlow, state: FlowState, mutation: Mutation, request: dict[str, Any]
    ) -> None:
        err = mutation.params["error"]
        body = error_body(request.get("id"), err["code"], err["message"], err.get("data"))
        status = int(mutation.params.get("status", 400))
        flow.response = http.Response.make(status, body, {"Content-Type": "application/json"})
        state.applied.append({"kind": "error", "index": mutation.index, "status": status, "code": err["code"]})
        state.answered_by_proxy = "error"

    def _redirect_to_hold(self, flow: http.HTTPFlow, state: FlowState, hold: Mutation, upstream: str) -> None:
        ticket = HoldTicket(
            upstream=origin_of(upstream),
            path=flow.request.path,
            headers=header_pairs(flow.request.headers),
            body=flow.request.raw_content or b"",
            hold_ms=int(hold.params.get("ms", 0)),
            keepalive_ms=int(hold.params.get("keepaliveMs", 500)),
            progress_token=progress_token(state.request) if hold.params.get("progress", True) else None,
            request_id=state.request.get("id") if state.request else None,
        )
        state.hold_ticket = ticket
        state.held_sse = True
        flow.request.scheme, flow.request.host, flow.request.port = "http", "127.0.0.1", self.holds.port
        flow.request.path = self.holds.issue(ticket)
        state.applied.append({"kind": "hold", "index": hold.index, "as": "sse", "ms": ticket.hold_ms})

    def _mint(self, state: FlowState) -> Any:
        def mint(mutation: Mutation) -> str:
            request_id = state.request.get("id") if state.request else None
            claims = {"run": state.run_id, "id": request_id, "mutation": mutation.index, "n": secrets.token_hex(6)}
            return request_state.mint(self.session.key, claims)

        return mint

    def transform_text(self, state: FlowState, text: str) -> str | None:
        """The text the client gets for one JSON-RPC message from upstream (None: unchanged)."""
        new, records = rewrite_response(text, state.request, state.active, self._mint(state), state.injections)
        state.applied.extend(records)
        return new

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None or flow.response is None:
            return
        state.upstream_response_headers = header_pairs(flow.response.headers)
        if is_sse(flow.response.headers.get("content-type")):
            if "content-length" in flow.response.headers:
                # a rewrite may change the length; chunked framing lets the client find the end anyway
                del flow.response.headers["content-length"]
                flow.response.headers["transfer-encoding"] = "chunked"
            flow.response.stream = SseRewriter(
                transform=lambda text: self.transform_text(state, text),
                on_item=lambda item: self._sse_item(flow, state, item),
            )

    def _sse_item(self, flow: http.HTTPFlow, state: FlowState, item: SseItem) -> None:
        state.upstream_sse += item.upstream_raw
        state.client_sse += item.client_raw
        self.on_sse_item(flow, state, item)

    def response(self, flow: http.HTTPFlow) -> float:
        """Rewrite a buffered (JSON) response; returns how many seconds to hold it before it goes out."""
        state = self.session.flows.get(flow.id)
        if state is None or flow.response is None or flow.response.stream:
            return 0.0
        state.upstream_response_body = flow.response.raw_content
        if state.upstream_response_headers is None:
            state.upstream_response_headers = header_pairs(flow.response.headers)
        if not state.active or not is_json(flow.response.headers.get("content-type")):
            return 0.0
        text = flow.response.get_text(strict=False) or ""
        new = self.transform_text(state, text)
        hold = state.active_kind("hold")
        seconds = 0.0
        if hold is not None:
            seconds = int(hold.params.get("ms", 0)) / 1000  # JSON hold: the caller sends no bytes until it is over
            state.applied.append({"kind": "hold", "index": hold.index, "as": "json", "ms": hold.params.get("ms", 0)})
        to_sse = state.active_kind("json-to-sse")
        if to_sse is not None:
            flow.response.headers["content-type"] = "text/event-stream"
            flow.response.headers["cache-control"] = "no-cache"
            flow.response.content = sse_event(new if new is not None else text)
            state.applied.append({"kind": "json-to-sse", "index": to_sse.index})
        elif new is not None:
            flow.response.text = new
        return seconds
