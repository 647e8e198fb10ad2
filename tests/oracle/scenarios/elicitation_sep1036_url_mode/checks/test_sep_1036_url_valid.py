from backchannel.oracle.uri import is_uri
from backchannel.oracle.wire_schema import response_problems
from tests.oracle.reference import evidence_payloads, recording, results, server

CHECK = "sep-1036-url-valid"


def test_it_passes_absolute_urls():
    result = results(server("bundled"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "all 3 url(s) are absolute RFC 3986 URIs"


def test_it_fails_a_relative_url_and_quotes_it():
    result = results(server("broken-url-valid"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("3 url(s) are not absolute RFC 3986 URIs")
    assert "'/connect?session=relative'" in result.message


def test_the_schema_check_rejects_the_very_answer_this_check_fails():
    """The same rule as wire-schema-valid's `format: uri`: the recorded answer fails the schema too, and the
    conformant one does not."""
    rec = recording(server("broken-url-valid"))
    [first, *_] = evidence_payloads(rec, results(server("broken-url-valid"))[CHECK])
    assert response_problems(first, "tools/call")
    [good, *_] = evidence_payloads(recording(server("bundled")), results(server("bundled"))[CHECK])
    assert response_problems(good, "tools/call") == []


def test_without_the_tool_it_fails_as_untestable_never_passing_by_default():
    result = results(server("broken-no-tool"))[CHECK]
    assert result.status == "FAIL" and result.message.startswith("Not testable:")


def test_it_judges_with_the_shared_uri_rule():
    assert is_uri("https://mcp.example.com/connect") and not is_uri("/connect")
