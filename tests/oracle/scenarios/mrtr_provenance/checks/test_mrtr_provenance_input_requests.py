import pytest

from tests.oracle.reference import results

CHECK = "mrtr-provenance-input-requests"


def test_it_passes_a_client_that_fences_and_names_the_server_and_acts_on_nothing():
    result = results("mrtr-provenance-toy-fixed")[CHECK]
    assert (result.status, result.verdict, result.signals) == ("PASS", "REFUTED", ())


def test_it_fails_a_client_that_shows_server_text_bare_and_follows_its_directive():
    result = results("mrtr-provenance-toy-flawed")[CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert set(result.signals) == {"server-directive-executed", "input-request-prompt-unattributed"}
    assert {e.kind for e in result.evidence} >= {"message", "terminal", "file"}


def test_a_2025_client_that_shows_the_streamed_request_bare_and_follows_its_directive_is_confirmed():
    result = results("mrtr-provenance-toy-legacy-only")[CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert set(result.signals) == {"server-directive-executed", "input-request-prompt-unattributed"}
    assert any(e.note == "server-initiated request (2025)" for e in result.evidence)


def test_the_same_2025_client_fixed_is_refuted_on_the_streamed_request():
    result = results("mrtr-provenance-toy-legacy-only-fixed")[CHECK]
    assert (result.status, result.verdict) == ("PASS", "REFUTED")


@pytest.mark.parametrize("era", ["2025-11-25", "2025-06-18"])
@pytest.mark.parametrize("driver", ["py-sdk", "ts-sdk"])
def test_a_2025_client_is_judged_on_the_server_initiated_request_as_a_2026_one_on_the_injected_one(driver, era):
    modern = results(f"mrtr-provenance-{driver}")[CHECK]
    legacy = results(f"mrtr-provenance-{driver}-{era}")[CHECK]
    assert legacy.status == modern.status != "SKIP"
    assert any(e.note == "server-initiated request (2025)" for e in legacy.evidence)
    assert any(e.note == "the client's answer" for e in legacy.evidence)


def test_it_skips_a_client_that_declares_no_input_capability():
    result = results("mrtr-provenance-toy-no-input-capability")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "client-declares-no-input-capability")


def test_it_skips_when_the_control_run_shows_nothing():
    result = results("mrtr-provenance-toy-silent")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "no-observable-context-surface")


def test_it_skips_a_cli_with_no_call_surface():
    result = results("mrtr-provenance-toy-no-call-surface")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "no-mcp-call-surface")


@pytest.mark.parametrize("era", ["2025-11-25", "2025-06-18"])
def test_fastmcp_forced_into_a_2025_era_answers_the_probe_on_the_calls_stream_and_judges_as_in_2026(era):
    """fastmcp 4.2.3 negotiates 2026-07-28 itself; check --era makes the endpoint refuse its server/discover and
    answer its 2025-11-25 initialize with the forced version, which fastmcp accepts."""
    legacy, modern = results(f"mrtr-provenance-fastmcp-{era}"), results("mrtr-provenance-fastmcp")
    assert {c: r.status for c, r in legacy.items()} == {c: r.status for c, r in modern.items()}
    assert any(e.note == "server-initiated request (2025)" for e in legacy[CHECK].evidence)
