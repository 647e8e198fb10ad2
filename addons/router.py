"""The first addon in line: finds each request's run from its /r/<run-id>/ prefix and strips the prefix."""

from __future__ import annotations

from mitmproxy import http

from .session import FlowState, Session, split_run_path
from .transforms import error_body
from .unread_body import streamed_unread, take_over


class Router:
    def __init__(self, session: Session) -> None:
        self.session = session

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
        run = self.session.run_for(run_id) if run_id is not None else None
        if run is None and run_id is not None and flow.request.stream:
            # the 404 an unknown run gets cannot follow a body already on its way: the client's connection is closed
            detail = f"run {run_id!r} is not in the recording; its request body was too large to hold, so the"
            detail += " client's connection was closed without forwarding"
            self.session.anomaly(flow.id, run_id, "unknown-run", detail, flow.request.timestamp_start)
            state.answered_by_proxy = "unknown-run"
            flow.kill()  # type: ignore[no-untyped-call]
        elif run is not None:
            # one proxy serves every run; each run names its own upstream. Chosen now, not once the body is read: a
            # body too large to hold streams upstream before the `request` hook runs (unread_body.py)
            scheme, host, port = run.target
            # mitmproxy's setters rewrite headers and authority: only pay for them when the run goes elsewhere (the
            # raw fields compare without the getters' conversions)
            data = flow.request.data
            if (data.scheme, data.host, data.port) != (run.scheme_bytes, host, port):
                flow.request.scheme, flow.request.host, flow.request.port = scheme, host, port

    def request(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows[flow.id]
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
        if state.answered_by_proxy is None and self.session.run_for(state.run_id) is None:
            if streamed_unread(flow.request):  # already on its way upstream, unread (unread_body.py): no 404 now
                detail = f"run {state.run_id!r} is not in the recording; its request body, too large to hold, went on"
                self.session.anomaly(flow.id, state.run_id, "unknown-run", detail, flow.request.timestamp_start)
                return
            detail = f"run {state.run_id!r} is not in the recording; answered 404 without forwarding"
            self.session.anomaly(flow.id, state.run_id, "unknown-run", detail, flow.request.timestamp_start)
            state.answered_by_proxy = "unknown-run"
            flow.response = http.Response.make(
                404, error_body(None, -32600, detail), {"Content-Type": "application/json"}
            )
