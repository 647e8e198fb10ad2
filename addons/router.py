"""The first addon in line: finds each request's run from its /r/<run-id>/ prefix and strips the prefix."""

from __future__ import annotations

from mitmproxy import http

from .hold import HoldServer, SinkTicket
from .session import FlowState, RunInfo, Session, split_run_path
from .transforms import INTERNAL_ERROR, error_body, proxy_error
from .unread_body import streamed_unread, take_over


class Router:
    def __init__(self, session: Session, holds: HoldServer | None = None) -> None:
        self.session = session
        self.holds = holds  # its sink answers a request never forwarded whose body is too large to hold

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        run_id, rest = split_run_path(flow.request.path)
        state = self.session.flows[flow.id] = FlowState(run_id=run_id, client_path=flow.request.path)
        flow.request.path = rest
        if flow.request.stream:  # mitmproxy streams a body whose Content-Length is past the bound: it passes unread
            state.unread_request = take_over(flow.request, self.session.limits.max_body)
        # the SSE tee must see plain bytes, never gzip; a request that already asks for exactly that (http.client's
        # default) is left as it is, which is what anticomp would make of it, without rebuilding its headers
        fields = flow.request.headers.fields
        if [value for name, value in fields if name.lower() == b"accept-encoding"] != [b"identity"]:
            flow.request.anticomp()
        if run_id is None:
            return
        run = self.session.run_for(run_id)
        if run is None or run.plan is None:  # the proxy answers it itself: the `request` hook need not look again
            state.refused = "unknown-run" if run is None else "invalid-plan"
            self._to_sink(flow, state, run_id, run)
            return
        # one proxy serves every run; each run names its own upstream. Chosen now, not once the body is read: a
        # body too large to hold streams upstream before the `request` hook runs (unread_body.py)
        scheme, host, port = run.target
        # mitmproxy's setters rewrite headers and authority: only pay for them when the run goes elsewhere (the
        # raw fields compare without the getters' conversions)
        data = flow.request.data
        if (data.scheme, data.host, data.port) != (run.scheme_bytes, host, port):
            flow.request.scheme, flow.request.host, flow.request.port = scheme, host, port

    def _to_sink(self, flow: http.HTTPFlow, state: FlowState, run_id: str, run: RunInfo | None) -> None:
        """A request the proxy answers itself (an unknown run, a plan that does not parse) is never forwarded. A body
        the proxy holds is answered from the `request` hook; one too large to hold goes on before that hook runs, so
        the flow points at the hold server's sink, which reads the body, drops it and gives the same answer."""
        if self.holds is None or not self.holds.port:
            return
        status, body = refusal(run_id, run, None)
        state.sink = self.holds.issue(SinkTicket(status, body))
        flow.request.scheme, flow.request.host, flow.request.port = "http", "127.0.0.1", self.holds.port
        flow.request.path = state.sink

    def request(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id)
        if state is None:  # the upstream answered before a streamed body ended, and the flow is done
            return
        state.client_request = flow.request.raw_content or b""
        if state.run_id is None:
            self.session.anomaly(
                flow.id,
                None,
                "no-run-prefix",
                f"path {state.client_path!r} has no /r/<run-id>/ prefix; forwarded without a plan",
                flow.request.timestamp_start,
            )
            return
        if state.refused is None:
            return
        if streamed_unread(flow.request):  # the sink drained it and answers (_to_sink)
            state.answered_by_proxy = state.refused
            if state.refused == "unknown-run":
                detail = unknown_run(state.run_id) + " its body"
                self.session.anomaly(flow.id, state.run_id, "unknown-run", detail, flow.request.timestamp_start)
            return
        if state.refused == "invalid-plan":
            return  # the Rewriter refuses the request (its error names the request's id); the unused sink goes with
            # the flow (Backchannel._forget)
        detail = unknown_run(state.run_id)
        self.session.anomaly(flow.id, state.run_id, "unknown-run", detail, flow.request.timestamp_start)
        state.answered_by_proxy = "unknown-run"
        flow.response = http.Response.make(404, error_body(None, -32600, detail), {"Content-Type": "application/json"})


def unknown_run(run_id: str) -> str:
    return f"run {run_id!r} is not in the recording; answered 404 without forwarding"


def refusal(run_id: str, run: RunInfo | None, request: object) -> tuple[int, bytes]:
    """The proxy's answer to a request it does not forward: (HTTP status, JSON-RPC error body)."""
    if run is None:
        return 404, error_body(None, -32600, unknown_run(run_id))
    message = f"backchannel cannot apply run {run.run_id}'s plan, so it did not forward this request: {run.plan_error}"
    return proxy_error(request, INTERNAL_ERROR, message)
