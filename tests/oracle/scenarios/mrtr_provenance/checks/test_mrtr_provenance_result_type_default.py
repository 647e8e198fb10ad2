import json
import shutil
import sqlite3

from backchannel.oracle import judge
from backchannel.recordings import load
from tests.oracle.reference import REFERENCE, results

CHECK = "mrtr-provenance-result-type-default"


def test_it_passes_a_client_that_treats_an_absent_result_type_as_complete():
    result = results("mrtr-provenance-toy-fixed")[CHECK]
    assert (result.status, result.verdict, result.signals) == ("PASS", "REFUTED", ())


def test_it_fails_a_client_that_retries_a_result_without_result_type():
    result = results("mrtr-provenance-toy-flawed")[CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert result.signals == ("result-type-default-not-complete",)
    assert result.cwe == ("CWE-1289",)


def test_a_strict_client_is_refuted_and_its_modern_rejection_is_only_an_observation():
    result = results("mrtr-provenance-toy-strict")[CHECK]
    assert (result.status, result.verdict) == ("PASS", "REFUTED")
    assert result.observations == ("rejects-missing-result-type-on-modern-connection",)


def test_repairing_the_other_arm_changes_nothing_here():
    result = results("mrtr-provenance-toy-fix-provenance")[CHECK]
    assert (result.verdict, result.signals) == ("CONFIRMED", ("result-type-default-not-complete",))


def _reserialised(tmp_path, run_name: str):
    """A copy of toy-fixed whose run's tools/call answer holds the same JSON with other bytes (keys reordered)."""
    path = tmp_path / "moved.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-fixed.sqlite", path)
    with sqlite3.connect(path) as conn:
        seq, text = conn.execute(
            "SELECT m.seq, m.text FROM messages m JOIN runs r ON r.id = m.run_id WHERE r.name = ? "
            "AND m.direction = 'to-client' AND m.method = 'tools/call' ORDER BY m.seq LIMIT 1",
            [run_name],
        ).fetchone()
        payload = json.loads(text)
        payload["result"] = dict(reversed(list(payload["result"].items())))
        conn.execute("UPDATE messages SET text = ? WHERE seq = ?", [json.dumps(payload), seq])
    conn.close()
    return {r.id: r for r in judge(load(path)).results}[CHECK]


def test_an_absent_run_whose_bytes_moved_beyond_result_type_is_an_error_not_a_verdict(tmp_path):
    result = _reserialised(tmp_path, "absent-legacy")
    assert (result.status, result.reason) == ("ERROR", "differential-moved-more-than-one-key")
    assert "byte for byte" in result.message


def _never_ending_control(tmp_path, reference: str):
    """A copy of `reference` whose CONTROL ran into the timeout too, as a client that loops on its own does (a
    menu that comes back after every call, re-answered by --answer, calls the tool until the timeout)."""
    path = tmp_path / "loop.sqlite"
    shutil.copyfile(REFERENCE / f"{reference}.sqlite", path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET outcome = 'timeout' WHERE name = 'control'")
    conn.close()
    return {r.id: r for r in judge(load(path)).results}[CHECK]


def test_more_calls_in_absent_prove_nothing_when_control_never_ended_either_so_a_person_judges(tmp_path):
    result = _never_ending_control(tmp_path, "mrtr-provenance-toy-flawed")
    assert result.status == "WARN" and result.verdict is None and "CONTROL never ended" in result.message
    assert not result.signals  # no CONFIRMED on a loop that is the client's own


def test_an_absent_run_that_ended_with_the_calls_control_made_is_still_judged_when_control_looped(tmp_path):
    result = _never_ending_control(tmp_path, "mrtr-provenance-toy-fixed")
    assert result.status == "PASS"
