from tests.oracle.reference import results, server

CHECK = "sep-2575-missing-capability-http-400"


def test_it_passes_minus_32021_under_400_naming_elicitation_url():
    result = results(server("bundled"))[CHECK]
    assert result.status == "PASS", result.message
    assert 'elicitation-empty: HTTP 400, requiredCapabilities {"elicitation":{"url":{}}}' in result.message


def test_it_fails_minus_32021_under_http_200():
    result = results(server("broken-http-200"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("elicitation-empty: HTTP 200, not 400; form-only: HTTP 200, not 400")


def test_it_fails_a_bare_elicitation_in_required_capabilities():
    result = results(server("broken-bare-elicitation"))[CHECK]
    assert result.status == "FAIL"
    assert 'requiredCapabilities {"elicitation":{}} does not name elicitation.url' in result.message


def test_the_real_typescript_server_names_the_url_mode_under_400():
    assert results(server("ts-sdk"))[CHECK].status == "PASS"
