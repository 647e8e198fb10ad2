from tests.oracle.reference import results

CHECK = "elicitation-names-requesting-server"


def test_it_passes_a_client_that_names_the_server_and_its_origin():
    assert results("mrtr-provenance-toy-fixed")[CHECK].status == "PASS"


def test_it_fails_a_client_that_shows_the_message_without_naming_any_server():
    result = results("mrtr-provenance-toy-flawed")[CHECK]
    assert result.status == "FAIL"
    assert all(e.kind in ("terminal", "file") for e in result.evidence)


def test_it_skips_when_no_elicitation_was_sent():
    assert results("mrtr-provenance-toy-no-input-capability")[CHECK].reason == "no-elicitation-sent"


def test_a_2025_elicitation_sent_on_the_calls_stream_is_judged_as_the_injected_one_is():
    for driver in ("py-sdk", "ts-sdk"):
        legacy = results(f"mrtr-provenance-{driver}-2025-11-25")[CHECK]
        assert legacy.status == results(f"mrtr-provenance-{driver}")[CHECK].status, driver
        assert legacy.reason != "no-elicitation-sent", driver
