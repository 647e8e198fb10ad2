"""A long run is read in work linear in its requests: no check looks through the rest of the run for each request
(a recording from elsewhere may hold a million of them)."""

from dataclasses import replace
from typing import Any

import pytest

from backchannel.oracle.scenarios.conformance import facts
from backchannel.oracle.scenarios.conformance.checks import (
    sep_2322_default_result_type_complete as result_type,
)
from backchannel.oracle.scenarios.conformance.checks import (
    sep_2575_client_retry_supported_version as retry_version,
)
from backchannel.oracle.scenarios.conformance.mirroring import judge_mirrored
from backchannel.oracle.scenarios.conformance.param_headers import MIRRORS
from backchannel.recordings import load
from tests.factories import new_recording
from tests.oracle.scenarios.conformance.hand import conformance_wire

N = 150
SCHEMA = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}


class Counted(dict[str, Any]):
    """A request's params, counting every read."""

    reads = 0

    def get(self, *args: Any) -> Any:
        Counted.reads += 1
        return super().get(*args)

    def __contains__(self, key: object) -> bool:
        Counted.reads += 1
        return super().__contains__(key)


def _requests(tmp_path, wire) -> list[Any]:
    path = new_recording(tmp_path / "long.sqlite", runs=[{"id": wire.run, "name": "hand", "scenario": "conformance"}],
                         exchanges=wire.exchanges, messages=wire.messages)  # fmt: skip
    [requests] = facts.runs_requests(load(path))
    return [replace(r, params=Counted(r.params)) for r in requests]


@pytest.mark.parametrize(
    ("module", "answer"),
    [
        (result_type, {"result": {"content": []}}),  # each a result without resultType
        (retry_version, {"error": {"code": -32022, "message": "no", "data": {"supported": ["2026-07-28"]}}}),
    ],
)
def test_a_check_reads_each_request_of_a_long_run_a_bounded_number_of_times(tmp_path, monkeypatch, module, answer):
    wire = conformance_wire()
    for i in range(N):
        wire.call("tools/call", {"name": f"tool-{i}", "arguments": {}}, **answer)
    requests = _requests(tmp_path, wire)
    monkeypatch.setattr(module, "runs_requests", lambda _rec: iter([requests]))
    Counted.reads = 0
    list(module.judge(None))
    assert Counted.reads <= 10 * N


def test_the_listing_in_force_is_read_once_per_run_not_once_per_call(tmp_path, monkeypatch):
    wire = conformance_wire()
    for i in range(N):
        wire.call("tools/list", result={"resultType": "complete", "tools": [{"name": "t", "inputSchema": SCHEMA}]})
        wire.call("tools/call", {"name": "t", "arguments": {"region": f"r{i}"}}, result={"resultType": "complete"})
    requests = _requests(tmp_path, wire)
    reads = []
    monkeypatch.setattr(facts, "result_of", lambda request: reads.append(1) or request.got["result"])
    assert len(list(facts.tool_calls(requests))) == N
    assert len(reads) <= 2 * N
    monkeypatch.setattr("backchannel.oracle.scenarios.conformance.mirroring.runs_requests", lambda _r: iter([requests]))
    reads.clear()
    assert judge_mirrored(None, MIRRORS, "x").status == "FAIL"  # no Mcp-Param-Region sent: every call broke it
    assert len(reads) <= 2 * N
