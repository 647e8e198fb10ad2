import json
import sqlite3
from pathlib import Path

import pytest

from backchannel.addons.mutations.drop_result_type import DropResultType
from backchannel.addons.mutations.hold import Hold
from backchannel.addons.plan import KINDS, Match, PlanError, describe_plan, parse_plan
from tests.addons.conftest import CALL, RESULT, Rig, wire

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
README_PLAN = {
    "mutations": [
        {"kind": "drop-result-type", "match": {"method": "tools/call", "name": "get_repo_status"}, "times": 1},
        {
            "kind": "inject-input-requests",
            "match": {"method": "tools/call"},
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {"mode": "form"}}},
        },
        {"kind": "hold", "ms": 5000, "as": "sse", "keepaliveMs": 500, "progress": True},
        {"kind": "json-to-sse"},
        {"kind": "error", "status": 400, "error": {"code": -32021, "message": "Missing required client capability"}},
    ]
}


def test_an_empty_plan_has_no_mutations():
    assert parse_plan({}).mutations == ()
    assert parse_plan(None).mutations == ()


def test_mutations_match_by_method_and_tool_name():
    plan = parse_plan({"mutations": [{"kind": "drop-result-type", "match": {"method": "tools/call", "name": "a"}}]})
    call_a = {"method": "tools/call", "params": {"name": "a"}}
    call_b = {"method": "tools/call", "params": {"name": "b"}}
    assert len(plan.for_request(call_a)) == 1
    assert plan.for_request(call_b) == ()
    assert plan.for_request({"method": "tools/list"}) == ()


def test_a_plan_is_parsed_once_into_typed_mutations():
    plan = parse_plan(README_PLAN)
    drop, inject, hold, to_sse, error = plan.mutations
    assert drop.params == DropResultType() and drop.times == 1 and drop.kind == "drop-result-type"
    assert drop.match == Match("tools/call", "get_repo_status")
    assert hold.params == Hold(ms=5000, as_="sse", keepalive_ms=500, progress=True)
    assert [m.index for m in plan.mutations] == [0, 1, 2, 3, 4]
    assert [m.kind for m in (inject, to_sse, error)] == ["inject-input-requests", "json-to-sse", "error"]


def test_the_registry_finds_every_kind_module():
    assert set(KINDS) == {
        "delay",
        "disconnect",
        "drop-result-type",
        "error",
        "hold",
        "inject-input-requests",
        "json-to-sse",
        "malformed",
        "truncate-sse",
    }


def test_every_plan_stored_in_the_committed_recordings_still_parses():
    plans = 0
    for path in sorted(REFERENCE.glob("*.sqlite")):
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            for (stored,) in conn.execute("SELECT plan FROM runs"):
                parse_plan(json.loads(stored) if stored else {})
                plans += 1
        finally:
            conn.close()
    assert plans > 0


def test_a_plan_describes_itself_one_line_per_mutation():
    lines = parse_plan(README_PLAN).describe()
    assert lines[0] == (
        "#0 drop-result-type on tools/call get_repo_status, 1 time: "
        "remove the result's resultType member, every other byte as the server sent it"
    )
    assert lines[2].startswith("#2 hold on every request: hold the response 5000 ms as SSE")
    assert len(lines) == 5
    assert describe_plan({}) == ["(no mutations)"]
    assert describe_plan({"mutations": [{"kind": "nope"}]})[0].startswith("(plan does not parse: plan mutation 0")


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"mutations": [{"kind": "explode"}]}, "kind 'explode' is not one of"),
        ({"mutations": [{"kind": "hold", "ms": -1}]}, "ms must be"),
        ({"mutations": [{"kind": "hold", "ms": True}]}, "ms must be"),
        ({"mutations": [{"kind": "hold", "as": "xml"}]}, "as must be"),
        ({"mutations": [{"kind": "hold", "keepaliveMs": 0}]}, "keepaliveMs must be"),
        ({"mutations": [{"kind": "error", "error": {"code": "x"}}]}, "integer code"),
        ({"mutations": [{"kind": "error", "status": 7, "error": {"code": 1, "message": "m"}}]}, "status must be"),
        ({"mutations": [{"kind": "inject-input-requests"}]}, "inputRequests must be"),
        ({"mutations": [{"kind": "inject-input-requests", "byCapability": []}]}, "byCapability must be"),
        ({"mutations": [{"kind": "drop-result-type", "match": {"id": 1}}]}, "match may hold only"),
        ({"mutations": [{"kind": "drop-result-type", "match": {"name": 1}}]}, "match may hold only"),
        ({"mutations": [{"kind": "drop-result-type", "times": 0}]}, "times must be"),
        ({"mutations": [{"kind": "delay"}]}, "ms is required"),
        ({"mutations": [{"kind": "delay", "ms": 5, "where": "later"}]}, "where must be"),
        ({"mutations": [{"kind": "disconnect", "afterBytes": -1}]}, "afterBytes must be"),
        ({"mutations": [{"kind": "malformed", "shape": "pretty"}]}, "shape must be"),
        ({"mutations": "all"}, "'mutations' must be a list"),
        ([1], "must be a JSON object"),
    ],
)
def test_an_invalid_plan_names_the_mutation_and_the_field(raw, words):
    with pytest.raises(PlanError, match=words):
        parse_plan(raw)


def test_a_plan_error_says_which_mutation_and_which_kind():
    with pytest.raises(PlanError, match="plan mutation 1"):
        parse_plan({"mutations": [{"kind": "json-to-sse"}, {"kind": "nope"}]})
    with pytest.raises(PlanError, match=r"^plan mutation 0 \(hold\): ms must be a whole number >= 0$"):
        parse_plan({"mutations": [{"kind": "hold", "ms": "soon"}]})


# ---- a stored plan that does not parse -------------------------------------------------------------------------

BROKEN = {"mutations": [{"kind": "drop-result-type"}, {"kind": "hold", "ms": -5}]}


def test_a_run_whose_stored_plan_does_not_parse_is_refused_with_an_anomaly_never_forwarded_unmutated(rig: Rig):
    run_id = rig.runs.add(BROKEN)
    first = rig.exchange(run_id, CALL, RESULT)
    second = rig.exchange(run_id, {**CALL, "id": 2}, RESULT)
    for flow, request_id in ((first, 1), (second, 2)):
        assert flow.response is not None and flow.response.status_code == 500
        error = json.loads(flow.response.content or b"")
        assert error["id"] == request_id and error["error"]["code"] == -32603
        assert run_id in error["error"]["message"] and "ms must be a whole number >= 0" in error["error"]["message"]
    recording = rig.recording()
    [anomaly] = recording.anomalies
    assert (anomaly.kind, anomaly.run_id, anomaly.flow_id) == ("invalid-plan", run_id, None)
    assert run_id in anomaly.detail and "plan mutation 1 (hold): ms must be a whole number >= 0" in anomaly.detail
    assert [x.forwarded for x in recording.exchanges] == [False, False], "nothing went upstream"
    assert [x.status for x in recording.exchanges] == [500, 500]


def test_a_refused_run_answers_even_a_request_that_is_not_json_rpc(rig: Rig):
    run_id = rig.runs.add(BROKEN)
    flow = rig.exchange(run_id, b"not json", RESULT)
    assert flow.response is not None and flow.response.status_code == 500
    assert json.loads(flow.response.content or b"")["id"] is None


def test_a_run_with_a_valid_plan_beside_a_broken_one_is_unaffected(rig: Rig):
    broken, fine = rig.runs.add(BROKEN), rig.runs.add({"mutations": [{"kind": "drop-result-type"}]})
    rig.exchange(broken, CALL, RESULT)
    flow = rig.exchange(fine, CALL, RESULT)
    assert flow.response is not None and flow.response.status_code == 200
    assert "resultType" not in json.loads(flow.response.content or b"")["result"]
    assert wire(RESULT) != flow.response.content
