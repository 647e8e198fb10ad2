from backchannel.oracle.scenarios.elicitation_sep1036_url_mode.checks import (
    sep_1036_server_no_url_elicitation_required_error as rule,
)
from tests.oracle.reference import evidence_payloads, recording, results, server

CHECK = "sep-1036-server-no-url-elicitation-required-error"


def test_it_passes_a_server_that_never_sends_minus_32042():
    result = results(server("bundled"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message.startswith("none of the server's ") and result.message.endswith("carries -32042")


def test_it_fails_minus_32042_anywhere_and_points_at_it():
    result = results(server("broken-url-elicitation-required-error"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == "-32042 in 1 response(s): both-modes-accept: -32042"
    [payload] = evidence_payloads(recording(server("broken-url-elicitation-required-error")), result)
    assert payload["error"]["code"] == -32042


def test_a_minus_32042_in_a_2025_11_25_session_is_legitimate_and_never_counted():
    legacy = recording("elicitation-url-mode-legacy-contract-correct")  # the endpoint's -32042 to a 2025-11-25 call
    errors = [m for m in legacy.messages if m.kind == "error" and m.payload["error"].get("code") == -32042]
    assert errors and not any(rule.counts(m, rule.spoken_in_2025(legacy)) for m in errors)
    modern = recording(server("broken-url-elicitation-required-error"))  # a 2026-07-28 server's -32042
    found = [m for m in modern.messages if m.kind == "error" and m.payload["error"].get("code") == -32042]
    assert found and all(rule.counts(m, rule.spoken_in_2025(modern)) for m in found)
