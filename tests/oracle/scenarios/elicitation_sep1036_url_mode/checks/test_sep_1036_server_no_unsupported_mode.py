from tests.oracle.reference import evidence_payloads, recording, results, server

CHECK = "sep-1036-server-no-unsupported-mode"


def test_it_passes_a_server_that_refuses_form_only_clients_and_gates_its_form_tool():
    result = results(server("bundled"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message.startswith("2 form-only call(s) got no URL request; the URL-only client got no form request")


def test_it_fails_a_form_request_sent_to_a_client_that_declared_url_mode_only():
    result = results(server("broken-unsupported-mode"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == (
        '1 request(s) in an undeclared mode: url-only-form-tool (declared {"elicitation":{"url":{}}}): a form-mode'
        " request in inputRequests.confirm"
    )
    [payload] = evidence_payloads(recording(server("broken-unsupported-mode")), result)
    assert payload["result"]["inputRequests"]["confirm"]["params"]["mode"] == "form"


def test_the_calls_declaring_both_modes_come_before_the_form_only_ones():
    names = [run.name for run in recording(server("bundled")).runs]
    assert names == [
        "discovery",
        "both-modes-accept",
        "both-modes-decline",
        "both-modes-cancel",
        "elicitation-empty",
        "form-only",
        "url-only-form-tool",
    ]
