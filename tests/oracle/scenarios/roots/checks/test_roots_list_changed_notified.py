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
