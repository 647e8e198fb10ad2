"""The first addon in line: finds each request's run from its /r/<run-id>/ prefix and strips the prefix."""

from __future__ import annotations

from mitmproxy import http

from .session import FlowState, Session, split_run_path
from .transforms import error_body


class Router:
    def __init__(self, session: Session) -> None:
        self.session = session

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        run_id, rest = split_run_path(flow.request.path)
        self.session.flows[flow.id] = FlowState(run_id=run_id, client_path=flow.request.path)
        flow.request.path = rest
        # the SSE tee must see plain bytes, never gzip; a request that already asks for exactly that (http.client's
        # default) is left as it is, which is what anticomp would make of it, without rebuilding its headers
        fields = flow.request.headers.fields
        if [value for name, value in fields if name.lower() == b"accept-encoding"] != [b"identity"]:
            flow.request.anticomp()

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
        run = self.session.run_for(state.run_id)
        if run is not None:
            # one proxy serves every run; each run names its own upstream
            scheme, host, port = run.target
            # mitmproxy's setters rewrite headers and authority: only pay for them when the run goes elsewhere (the
            # raw fields compare without the getters' conversions)
            data = flow.request.data
            if (data.scheme, data.host, data.port) != (run.scheme_bytes, host, port):
                flow.request.scheme, flow.request.host, flow.request.port = scheme, host, port
            return
        if run is None:
            detail = f"run {state.run_id!r} is not in the recording; answered 404 without forwarding"
            self.session.anomaly(flow.id, state.run_id, "unknown-run", detail, flow.request.timestamp_start)
            state.answered_by_proxy = "unknown-run"
            flow.response = http.Response.make(
                404, error_body(None, -32600, detail), {"Content-Type": "application/json"}
            )
