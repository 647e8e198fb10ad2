from backchannel.oracle.scenarios.roots.facts import answers, is_file_uri
from tests.oracle.reference import evidence_payloads, recording, results, session_results

CHECK = "roots-file-uri"


def test_it_passes_the_careful_toy_and_both_sdks_in_every_era():
    for name in ("toy-careful", "toy-careful-2025-11-25", "py-sdk", "py-sdk-2025-06-18", "ts-sdk-2025-11-25"):
        result = results(f"roots-{name}")[CHECK]
        assert result.status == "PASS", (name, result.message)
        assert "each a file:// URI" in result.message


def test_it_fails_a_non_file_root_in_2026_and_in_2025_quoting_it():
    for name in ("roots-toy-non-file-uri", "roots-toy-non-file-uri-2025-11-25"):
        result = results(name)[CHECK]
        assert result.status == "FAIL"
        assert '"vscode-vfs://github/backchannel-toy/project"' in result.message
        cited = evidence_payloads(recording(name), result)
        assert any("vscode-vfs://" in str(payload) for payload in cited)


def test_the_2025_answers_are_found_on_the_calls_stream_and_on_the_get_stream():
    vias = {a.via for a in answers(recording("roots-py-sdk-2025-11-25"))}
    assert vias == {"the call's stream", "the GET stream"}
    assert {a.via for a in answers(recording("roots-py-sdk"))} == {"MRTR input request"}


def test_a_client_that_gives_no_roots_list_is_skipped():
    result = results("roots-ts-sdk-no-roots")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "not-exercised")


def test_the_scheme_is_case_insensitive_and_needs_the_slashes():
    assert is_file_uri("FILE:///tmp/x") and is_file_uri("file:///tmp/x")
    assert not is_file_uri("file:/tmp/x") and not is_file_uri("/tmp/x") and not is_file_uri(None)


def test_the_flawed_toy_breaks_only_this_check_and_no_session_rule():
    assert [r for r, v in results("roots-toy-non-file-uri").items() if v.status in ("FAIL", "WARN")] == [CHECK]
    assert not [r for r, v in session_results("roots-toy-non-file-uri").items() if v.status in ("FAIL", "WARN")]
