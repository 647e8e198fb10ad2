from tests.clients.recordings import recording, results

CHECK = "sep-1036-client-held-json-retry-complete"
TOOL = "held_json"


def test_it_passes_a_client_that_waits_for_the_held_retry(tmp_path_factory):
    result = results("correct", tmp_path_factory)[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == "the client waited for the held JSON retry and got its result"


def test_it_fails_a_client_that_closes_the_held_retry_early(tmp_path_factory):
    result = results("held-json", tmp_path_factory)[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("the client closed the held JSON retry before the answer arrived")
    [exchange] = [e for e in result.evidence if e.kind == "exchange"]
    closed = next(x for x in recording("held-json", tmp_path_factory).exchanges if x.seq == exchange.seq)
    assert closed.error


def test_it_fails_the_early_closer_that_closes_both_held_retries(tmp_path_factory):
    assert results("held-both", tmp_path_factory)[CHECK].status == "FAIL"


def test_it_skips_a_form_only_client(tmp_path_factory):
    result = results("form-only", tmp_path_factory)[CHECK]
    assert (result.status, result.reason) == ("SKIP", "mode-not-declared")
    assert TOOL in result.message
