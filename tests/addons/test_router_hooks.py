"""The Router's hooks in process: each /r/<run-id>/ request goes to its run's upstream without the prefix."""

from __future__ import annotations

from mitmproxy.test import tutils

from backchannel.addons.router import Router
from tests.addons.conftest import CALL, RESULT, REVERSE_TARGET, Rig, upstream_response, wire


def test_a_flow_at_a_run_url_goes_to_the_runs_upstream_with_the_prefix_stripped(rig: Rig):
    run_id = rig.runs.add(upstream="http://127.0.0.1:8123/mcp")
    flow = rig.flow(run_id, wire(CALL))
    rig.addons.router.requestheaders(flow)
    rig.addons.router.request(flow)
    assert flow.request.path == "/mcp"
    assert (flow.request.scheme, flow.request.host, flow.request.port) == ("http", "127.0.0.1", 8123)
    assert flow.response is None, "a known run is forwarded, not answered"


def test_the_run_id_tags_the_flow_and_every_row_written_for_it(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL))
    rig.addons.router.requestheaders(flow)
    assert rig.session.flows[flow.id].run_id == run_id
    assert rig.session.flows[flow.id].client_path == f"/r/{run_id}/mcp"
    rig.addons.router.request(flow)
    rig.addons.rewriter.request(flow)
    rig.addons.recorder.request(flow)
    rig.reply(flow, upstream_response(wire(RESULT)))
    rig.finish(flow)
    recording = rig.recording()
    assert [(x.run_id, x.path) for x in recording.exchanges] == [(run_id, f"/r/{run_id}/mcp")]
    assert {m.run_id for m in recording.messages} == {run_id}


def test_a_run_whose_upstream_is_the_reverse_target_keeps_the_flows_address(rig: Rig):
    host, port = REVERSE_TARGET
    run_id = rig.runs.add(upstream=f"http://{host}:{port}/mcp")
    flow = rig.flow(run_id, wire(CALL))
    authority_before = flow.request.authority
    rig.addons.router.requestheaders(flow)
    rig.addons.router.request(flow)
    assert (flow.request.host, flow.request.port, flow.request.authority) == (host, port, authority_before)


def test_the_client_is_asked_for_uncompressed_bodies_so_the_sse_tee_sees_plain_bytes(rig: Rig):
    run_id = rig.runs.add()
    flow = rig.flow(run_id, wire(CALL), headers={"accept-encoding": "gzip, br"})
    rig.addons.router.requestheaders(flow)
    assert flow.request.headers["accept-encoding"] == "identity"


def test_every_request_goes_upstream_asking_for_identity_exactly_as_anticomp_would_make_it():
    """The Router skips anticomp for a request that already asks for exactly identity: its headers must then be what
    anticomp would have made of them, and any other request must still get anticomp's."""
    cases = [
        [("Accept-Encoding", "identity")],  # http.client's default: left as it is
        [("accept-encoding", "identity"), ("x-other", "1")],
        [],  # none: one is added
        [("Accept-Encoding", "gzip")],
        [("Accept-Encoding", "identity"), ("Accept-Encoding", "gzip")],  # two: collapsed into one
        [("Accept-Encoding", "IDENTITY")],
    ]
    for headers in cases:
        ours, theirs = tutils.treq(path=b"/r/abc/mcp"), tutils.treq(path=b"/r/abc/mcp")
        for request in (ours, theirs):
            request.headers.clear()
            for name, value in headers:
                request.headers.add(name, value)
        theirs.anticomp()
        flow = type("Flow", (), {"request": ours, "id": "f"})()
        session = type("Session", (), {"flows": {}, "run_for": lambda self, run_id: None})()
        router = Router(session)  # type: ignore[arg-type]
        router.requestheaders(flow)  # type: ignore[arg-type]
        assert ours.headers.fields == theirs.headers.fields, headers


def test_an_unknown_run_is_answered_404_with_a_jsonrpc_error_and_never_forwarded(rig: Rig):
    rig.runs.add()
    flow = rig.exchange("nosuchrun", CALL)
    assert flow.response is not None and flow.response.status_code == 404
    error = flow.response.json()["error"]
    assert error["code"] == -32600 and "'nosuchrun' is not in the recording" in error["message"]
    recording = rig.recording()
    [exchange] = recording.exchanges
    assert (exchange.run_id, exchange.status, exchange.forwarded) == ("nosuchrun", 404, False)
    assert [(a.kind, a.run_id, a.flow_id) for a in recording.anomalies] == [("unknown-run", "nosuchrun", flow.id)]
    assert [m.mutation for m in recording.messages if m.direction == "to-client"] == ["unknown-run"]


def test_a_path_outside_r_is_forwarded_unchanged_without_a_plan_and_flagged(rig: Rig):
    flow = rig.exchange(None, CALL, RESULT)
    assert flow.request.path == "/mcp"
    assert (flow.request.host, flow.request.port) == REVERSE_TARGET
    assert flow.response is not None and flow.response.json() == RESULT
    recording = rig.recording()
    [anomaly] = recording.anomalies
    assert (anomaly.kind, anomaly.run_id) == ("no-run-prefix", None)
    assert "'/mcp' has no /r/<run-id>/ prefix" in anomaly.detail
    [exchange] = recording.exchanges
    assert (exchange.run_id, exchange.forwarded, exchange.mutations) == (None, True, ())


def test_a_prefix_with_characters_outside_the_run_id_alphabet_is_not_a_run(rig: Rig):
    flow = rig.flow(None, wire(CALL))
    flow.request.path = "/r/../mcp"
    rig.addons.router.requestheaders(flow)
    assert rig.session.flows[flow.id].run_id is None
    assert flow.request.path == "/r/../mcp"
