from tests.oracle.reference import evidence_payloads, recording, results

CHECK = "roots-list-changed-notified"


def test_it_passes_an_announced_change_in_both_2025_eras():
    for name in ("toy-careful-2025-11-25", "toy-careful-2025-06-18", "py-sdk-2025-11-25", "ts-sdk-2025-06-18"):
        result = results(f"roots-{name}")[CHECK]
        assert result.status == "PASS", (name, result.message)
        cited = evidence_payloads(recording(f"roots-{name}"), result)
        assert cited and all(p.get("method") == "notifications/roots/list_changed" for p in cited)


def test_it_fails_a_change_with_no_notification_between_the_two_lists():
    for name in ("roots-toy-unannounced-change-2025-11-25", "roots-toy-unannounced-change-2025-06-18"):
        result = results(name)[CHECK]
        assert result.status == "FAIL"
        assert "unannounced" in result.message and "with no notifications/roots/list_changed between" in result.message


def test_2026_has_no_list_changed_so_it_is_never_judged():
    for name in ("roots-toy-unannounced-change", "roots-py-sdk", "roots-ts-sdk"):
        result = results(name)[CHECK]
        assert (result.status, result.message) == ("SKIP", "2026-07-28 has no notifications/roots/list_changed")


def test_a_client_that_did_not_declare_list_changed_is_skipped():
    result = results("roots-toy-answer-undeclared-2025-11-25")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "capability-not-declared")


def _session(tmp_path, *, notify: bool):
    """A 2025 roots session built by hand: two roots/list asked, the first answered with the old list, the second
    answered (late) with the old list too, a third with the new list; `notify`: a list_changed after the first."""
    import sqlite3

    from backchannel.oracle import all_checks, judge
    from backchannel.recordings import load
    from tests.factories import new_recording
    from tests.oracle.session.wire import Wire

    wire = Wire(scenario="roots")
    wire.initialize(capabilities={"roots": {"listChanged": True}})
    old, new = [{"uri": "file:///lab/work"}], [{"uri": "file:///lab/work"}, {"uri": "file:///lab/work/added"}]
    for asked in ("a-1", "a-2"):
        wire.server_request("roots/list", {}, asked)
    wire.client_response("a-1", {"roots": old})
    if notify:
        wire.exchanges.append({"flow_id": "fn", "run_id": wire.run, "method": "POST", "path": "/mcp", "status": 202})
        wire._message("to-server", "notification", {"jsonrpc": "2.0", "method": LIST_CHANGED}, "fn", LIST_CHANGED)
    wire.client_response("a-2", {"roots": old})  # a stale answer, sent after the notification (a race)
    wire.server_request("roots/list", {}, "a-3")
    wire.client_response("a-3", {"roots": new})
    path = new_recording(tmp_path / f"roots-{notify}.sqlite", runs=[{"id": wire.run, "name": "contract",
                         "scenario": "roots"}], exchanges=wire.exchanges, messages=wire.messages)  # fmt: skip
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET started_at = 1, ended_at = 2, outcome = 'exited', exit_code = 0")
    conn.close()
    (found,) = judge(load(path), [all_checks()[CHECK]]).results
    return found


LIST_CHANGED = "notifications/roots/list_changed"


def test_a_stale_answer_racing_the_notification_is_no_finding(tmp_path):
    result = _session(tmp_path, notify=True)
    assert result.status == "PASS", result.message


def test_the_same_change_without_the_notification_fails(tmp_path):
    result = _session(tmp_path, notify=False)
    assert result.status == "FAIL" and "1 of 1 roots change(s) unannounced" in result.message
