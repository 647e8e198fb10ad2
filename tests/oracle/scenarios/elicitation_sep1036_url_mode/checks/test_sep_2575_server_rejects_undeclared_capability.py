from tests.oracle.reference import evidence_payloads, recording, results, server

CHECK = "sep-2575-server-rejects-undeclared-capability"


def test_it_passes_minus_32021_for_both_form_only_declarations():
    result = results(server("bundled"))[CHECK]
    assert result.status == "PASS", result.message
    payloads = evidence_payloads(recording(server("bundled")), result)
    assert [p["error"]["code"] for p in payloads] == [-32021, -32021]


def test_it_fails_a_tool_result_where_minus_32021_belongs():
    result = results(server("broken-rejects-undeclared"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == (
        'expected -32021 for an undeclared URL mode; elicitation-empty (declared {"elicitation":{}}): a result'
        " (complete isError) under HTTP 200"
    )


def test_a_minus_32021_under_the_wrong_status_still_rejects_the_call():
    assert results(server("broken-http-200"))[CHECK].status == "PASS"
