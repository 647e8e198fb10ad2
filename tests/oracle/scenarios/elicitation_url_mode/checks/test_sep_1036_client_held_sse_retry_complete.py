import shutil
import sqlite3
from contextlib import closing

from backchannel.oracle import judge
from backchannel.recordings import Recording, load
from tests.oracle.reference import contract, legacy_contract, path, recording, results

CHECK = "sep-1036-client-held-sse-retry-complete"
TOOL = "held_sse"


def test_it_passes_a_client_that_waits_for_the_held_retry():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "the client waited for the held SSE retry and got its result"


def test_it_fails_a_client_that_closes_the_held_retry_early():
    result = results(contract("held-sse"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("the client closed the held SSE retry before the answer arrived")
    [exchange] = [e for e in result.evidence if e.kind == "exchange"]
    closed = next(x for x in recording(contract("held-sse")).exchanges if x.seq == exchange.seq)
    assert closed.error


def test_it_fails_the_early_closer_that_closes_both_held_retries():
    assert results(contract("held-both"))[CHECK].status == "FAIL"


def test_it_skips_a_form_only_client():
    result = results(contract("form-only"))[CHECK]
    assert (result.status, result.reason) == ("SKIP", "mode-not-declared")
    assert TOOL in result.message


def _with_disconnect_after_answer(tmp_path, delay_s: float) -> Recording:
    """The correct client's recording, but the proxy saw the client leave `delay_s` after the answer passed.

    A client that stops reading an SSE stream once its response arrived (without draining the stream's end) races
    the proxy, which then records "Client disconnected." on an exchange whose answer was already delivered.
    """
    source = recording(contract("correct"))
    [retry] = [
        m
        for m in source.messages
        if m.direction == "to-client" and m.kind == "response" and m.text and "authorized after" in m.text
        if any(x.flow_id == m.flow_id and x.streamed for x in source.exchanges)
    ]
    copy = tmp_path / "raced.sqlite"
    shutil.copyfile(path(contract("correct")), copy)  # the committed file stays untouched
    with closing(sqlite3.connect(copy)) as db, db:
        db.execute("UPDATE exchanges SET error = 'Client disconnected.' WHERE flow_id = ?", (retry.flow_id,))
        db.execute(
            "INSERT INTO anomalies (run_id, flow_id, kind, detail, t) VALUES (?, ?, ?, ?, ?)",
            (retry.run_id, retry.flow_id, "client-disconnected", "Client disconnected.", retry.t + delay_s),
        )
    return load(copy)


def test_closing_the_stream_after_the_answer_arrived_is_not_closing_it_early(tmp_path):
    [result] = [r for r in judge(_with_disconnect_after_answer(tmp_path, 0.001)).results if r.id == CHECK]
    assert result.status == "PASS", result.message


def test_a_disconnect_recorded_before_the_answer_passed_still_fails(tmp_path):
    [result] = [r for r in judge(_with_disconnect_after_answer(tmp_path, -0.5)).results if r.id == CHECK]
    assert result.status == "FAIL"


def test_in_2025_it_skips_there_is_no_retry_to_hold():
    for name in (legacy_contract("correct-2025-06-18"), "elicitation-url-mode-py-sdk-2025-06-18"):
        result = results(name)[CHECK]
        assert (result.status, result.reason) == ("SKIP", "mrtr-only"), name
