from dataclasses import replace

from backchannel.oracle.scenarios.sdk_regressions.checks.elicitation_declined_content_not_reused import _leaks, judge
from backchannel.oracle.scenarios.sdk_regressions.facts import Asked
from tests.oracle.reference import recording, results

CHECK = "elicitation-declined-content-not-reused"
ERAS = ("", "-2025-11-25", "-2025-06-18")


def test_it_passes_the_careful_toy_in_every_era_and_both_sdk_drivers():
    for name in [f"toy-careful{era}" for era in ERAS] + ["py-sdk", "py-sdk-2025-11-25", "ts-sdk", "ts-sdk-2025-11-25"]:
        result = results(f"sdk-regressions-{name}")[CHECK]
        assert result.status == "PASS", (name, result.message)
        assert "no value minted for it" in result.message


def test_the_declined_forms_key_and_minted_values_in_a_later_accept_fail_in_every_era():
    for era in ERAS:
        result = results(f"sdk-regressions-toy-reuse-declined{era}")[CHECK]
        assert result.status == "FAIL", (era, result.message)
        assert 'key "declined_field"' in result.message and "minted for the declined request" in result.message
        assert [e.note for e in result.evidence][-1] == "the later accept, carrying it"


def _asked(params: dict, result: dict) -> Asked:
    message = recording("sdk-regressions-toy-careful").messages[0]
    return Asked("r", "2026-07-28", "t", "ask", params, message, message, result, None)


def _form(**values: str) -> dict:
    return {"message": "m", "requestedSchema": {"properties": {k: {"enum": [v]} for k, v in values.items()}}}


def test_a_value_only_overlapping_a_declined_minted_value_is_unsure_never_sure():
    declined = _asked(_form(a="declined-NONCE-1"), {"action": "decline"})
    accepted = _asked(_form(b="accepted-NONCE-2"), {"action": "accept", "content": {"b": "x declined-NONCE-1 y"}})
    assert _leaks(declined, accepted, "NONCE") == ([], ['value "x declined-NONCE-1 y" overlaps a value minted for '
                                                        "the declined request"])  # fmt: skip
    own = _asked(_form(b="accepted-NONCE-2"), {"action": "accept", "content": {"b": "accepted-NONCE-2"}})
    assert _leaks(declined, own, "NONCE") == ([], [])


def test_a_key_both_schemas_share_is_not_foreign():
    declined = _asked(_form(shared="declined-NONCE-1"), {"action": "decline"})
    accepted = _asked(_form(shared="accepted-NONCE-2"), {"action": "accept", "content": {"shared": "accepted-NONCE-2"}})
    assert _leaks(declined, accepted, "NONCE") == ([], [])


def test_a_recording_without_a_decline_is_skipped():
    [finding] = judge(recording("roots-toy-careful"))
    assert finding.status == "SKIP" and finding.reason == "not-exercised"


def test_many_declines_and_accepts_in_one_run_are_compared_in_linear_work_not_pair_by_pair(monkeypatch):
    from backchannel.oracle.scenarios.sdk_regressions.checks import elicitation_declined_content_not_reused as module
    from backchannel.oracle.scenarios.sdk_regressions.facts import marked

    n = 100
    asked = []
    for i in range(n):
        asked.append(_asked(_form(a=f"declined-NONCE-{i}"), {"action": "decline"}))
        asked.append(
            _asked(_form(b=f"accepted-NONCE-{i}"), {"action": "accept", "content": {"b": f"accepted-NONCE-{i}"}})
        )
    calls = []
    monkeypatch.setattr(module, "marked", lambda value, nonce: calls.append(1) or marked(value, nonce))
    monkeypatch.setattr(module, "elicitations", lambda _rec: asked)
    rec = recording("sdk-regressions-toy-careful")
    [found] = judge(replace(rec, meta={**rec.meta, "nonce": "NONCE"}))
    assert found.status == "PASS" and found.message.startswith(f"{n * (n + 1) // 2} (decline, later accept) pair(s)")
    assert len(calls) <= 4 * n
