from tests.oracle.reference import evidence_payloads, recording, results, server

CHECK = "sep-1036-url-request-params"


def test_it_passes_a_server_whose_url_requests_say_mode_url_with_a_message_and_a_url():
    result = results(server("bundled"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "all 3 URL request(s) say mode url with a string message and url"
    for payload in evidence_payloads(recording(server("bundled")), result):
        [request] = payload["result"]["inputRequests"].values()
        assert request["params"]["mode"] == "url"


def test_it_fails_a_url_request_that_forgot_its_mode_since_clients_take_that_as_form_mode():
    result = results(server("broken-url-request-params"))[CHECK]
    assert result.status == "FAIL"
    assert "has a url but no mode (clients MUST treat it as form mode)" in result.message
    payloads = evidence_payloads(recording(server("broken-url-request-params")), result)
    assert payloads and all("mode" not in p["result"]["inputRequests"]["authorize"]["params"] for p in payloads)


def test_a_server_that_answers_the_both_modes_calls_with_errors_never_asked_in_url_mode():
    # the form-only rejection leaves this check alone; a missing capability error to a both-modes client would not
    result = results(server("broken-rejects-undeclared"))[CHECK]
    assert result.status == "PASS"
