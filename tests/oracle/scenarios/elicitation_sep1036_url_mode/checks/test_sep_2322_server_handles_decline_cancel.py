from tests.oracle.reference import evidence_payloads, recording, results, server

CHECK = "sep-2322-server-handles-decline-cancel"


def test_it_passes_a_server_that_answers_decline_and_cancel_with_an_is_error_result():
    result = results(server("bundled"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == (
        "handled: decline: a result (complete isError) under HTTP 200; cancel: a result (complete isError) under"
        " HTTP 200"
    )
    payloads = evidence_payloads(recording(server("bundled")), result)
    assert [p["result"]["isError"] for p in payloads] == [True, True]


def test_it_fails_an_internal_error_for_decline_and_for_cancel():
    result = results(server("broken-decline-cancel"))[CHECK]
    assert result.status == "FAIL"
    assert result.message == (
        "not handled: decline: -32603 internal error, the sign of an unhandled decline; cancel: -32603 internal"
        " error, the sign of an unhandled cancel"
    )
    assert {p["error"]["code"] for p in evidence_payloads(recording(server("broken-decline-cancel")), result)} == {
        -32603
    }


def test_the_retry_answers_are_what_the_client_chose():
    rec = recording(server("bundled"))
    retries = [
        m.payload["params"]["inputResponses"]
        for m in rec.messages
        if m.direction == "to-server" and m.method == "tools/call" and "inputResponses" in m.text
    ]
    assert [next(iter(r.values()))["action"] for r in retries] == ["accept", "decline", "cancel"]
