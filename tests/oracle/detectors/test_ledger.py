import json

from backchannel.oracle.detectors.ledger import Ledger
from backchannel.recordings import load
from tests.factories import new_recording

MODERN = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}


def _msg(seq, method, params, direction="to-server", kind="request"):
    text = json.dumps({"jsonrpc": "2.0", "id": seq, "method": method, "params": params})
    return {"run_id": "r", "direction": direction, "kind": kind, "method": method, "text": text}  # seq: in order


def test_a_client_that_probed_discover_then_initialized_is_legacy(tmp_path):
    rec = load(
        new_recording(
            tmp_path / "a.sqlite",
            runs=[{"id": "r"}],
            messages=[_msg(1, "server/discover", MODERN), _msg(2, "initialize", {"protocolVersion": "2025-11-25"})],
        )
    )
    ledger = Ledger.of(rec, "r")
    assert ledger.era() == "legacy" and ledger.legacy_version() == "2025-11-25"


def test_retries_with_input_responses_are_counted_apart_from_plain_calls(tmp_path):
    rec = load(
        new_recording(
            tmp_path / "a.sqlite",
            runs=[{"id": "r"}],
            messages=[
                _msg(1, "tools/call", {"name": "t", **MODERN}),
                _msg(2, "tools/call", {"name": "t", "inputResponses": {"k": {"action": "accept"}}, **MODERN}),
            ],
        )
    )
    ledger = Ledger.of(rec, "r")
    assert ledger.era() == "modern"
    assert len(ledger.tool_calls()) == 2 and [m.seq for m in ledger.retries_with_input_responses()] == [2]
