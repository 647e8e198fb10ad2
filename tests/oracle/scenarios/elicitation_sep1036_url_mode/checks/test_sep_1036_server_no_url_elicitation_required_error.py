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
