"""One run's model carrier, read from model_exchanges rows: the requests read, the ones not, the server's names."""

import json

from backchannel.oracle.detectors.model_carrier import ModelCarrier, model_evidence
from backchannel.recordings import load
from tests.factories import new_recording

USER = json.dumps({"messages": [{"role": "user", "content": "hello BCKCH-BODY-test-nonce"}]}).encode()


def _row(body: bytes, **kw: object) -> dict[str, object]:
    return {
        "run_id": "p",
        "api": "anthropic-messages",
        "method": "POST",
        "path": "/v1/messages",
        "request_body": body,
        **kw,
    }


def test_rows_of_the_run_are_read_and_the_unread_ones_are_named_with_why(tmp_path):
    rows = [
        _row(USER, step={"server": "lab"}),
        _row(USER[:20], request_truncated=True),
        {**_row(USER), "run_id": "other"},
    ]
    rec = load(new_recording(tmp_path / "r.sqlite", [{"id": "p"}, {"id": "other"}], model_exchanges=rows))
    carrier = ModelCarrier.of(rec, rec.runs[0], "backchannel-probe-test-nonce")
    assert carrier.exchanged and len(carrier.contexts) == 1 and len(carrier.unread) == 1
    assert carrier.names.names == ("lab", "backchannel-probe-test-nonce") and carrier.names.known
    seq = carrier.unread[0].seq
    assert carrier.unread_observation() == (
        f"model-context-unread: 1 of 2 model request(s): model request #{seq} (the request body was truncated when it "
        "was recorded)"
    )
    assert [(e.kind, e.seq) for e in carrier.unread_evidence()] == [("model", seq)]


def test_a_found_marker_is_cited_by_the_exchange_seq_its_json_path_and_its_byte_offset(tmp_path):
    rec = load(new_recording(tmp_path / "r.sqlite", [{"id": "p"}], model_exchanges=[_row(USER)]))
    carrier = ModelCarrier.of(rec, rec.runs[0], "n")
    [found] = carrier.occurrences("BCKCH-BODY-test-nonce")
    evidence = model_evidence("p", found, 21, "bare")
    assert evidence.as_dict() == {
        "kind": "model",
        "run": "p",
        "seq": rec.model_exchanges[0].seq,
        "offset": 6,
        "length": 21,
        "path": "$.messages[0].content",
        "note": "user at $.messages[0].content: bare",
    }


def test_a_run_that_never_talked_to_a_model_has_an_empty_carrier(tmp_path):
    rec = load(new_recording(tmp_path / "r.sqlite", [{"id": "p"}]))
    carrier = ModelCarrier.of(rec, rec.runs[0], "n")
    assert not carrier.exchanged and carrier.occurrences("x") == [] and not carrier.names.known
