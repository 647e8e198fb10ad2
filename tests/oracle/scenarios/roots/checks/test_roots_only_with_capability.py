from tests.oracle.reference import results, session_results

CHECK = "roots-only-with-capability"


def test_it_passes_clients_that_declare_no_roots_and_refuse_in_every_era():
    for name in ("toy-no-roots", "toy-no-roots-2025-11-25", "py-sdk-no-roots", "ts-sdk-no-roots-2025-11-25"):
        result = results(f"roots-{name}")[CHECK]
        assert result.status == "PASS", (name, result.message)
        assert result.message.startswith("declared no roots capability;")


def test_it_fails_a_client_that_answers_roots_it_never_declared():
    for name in ("roots-toy-answer-undeclared", "roots-toy-answer-undeclared-2025-11-25"):
        result = results(name)[CHECK]
        assert result.status == "FAIL"
        assert result.message.startswith("declared no roots capability, yet answered roots/list with [")


def test_a_client_that_declared_roots_is_skipped():
    result = results("roots-toy-careful-2025-11-25")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "capability-declared")


def test_backchannels_own_out_of_turn_request_is_no_server_finding():
    """The dedicated run's roots/list to a client without the capability is backchannel's (the scenario's STAGED
    side): the session rule that judges servers does not report it."""
    for name in ("roots-py-sdk-no-roots-2025-11-25", "roots-toy-no-roots-2025-11-25", "roots-ts-sdk-no-roots"):
        rules = session_results(name)
        assert rules["session-server-requests-declared-capability"].status == "SKIP"
        assert not [r for r, v in rules.items() if v.status in ("FAIL", "WARN")], name
