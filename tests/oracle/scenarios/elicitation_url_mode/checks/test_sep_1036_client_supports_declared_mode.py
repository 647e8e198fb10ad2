from tests.oracle.reference import contract, evidence_payloads, legacy_contract, recording, results

CHECK = "sep-1036-client-supports-declared-mode"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"


def test_it_passes_a_client_that_declares_form_and_url_on_every_request():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message


def test_it_passes_a_form_only_declaration():
    result = results(contract("form-only"))[CHECK]
    assert result.status == "PASS", result.message


def test_it_fails_the_one_request_that_declares_neither_mode():
    result = results(contract("supports-declared-mode"))[CHECK]
    assert result.status == "FAIL"
    assert result.message.startswith("1 request(s)")
    [payload] = evidence_payloads(recording(contract("supports-declared-mode")), result)
    assert payload["method"] == "tools/list"
    assert payload["params"]["_meta"][META_CAPS] == {"elicitation": {"foo": {}}}


def test_in_2025_it_reads_the_declaration_of_initialize():
    result = results(legacy_contract("correct"))[CHECK]
    assert (result.status, result.message) == ("PASS", "all 1 declarations name a mode (or are empty: form)")


def test_in_2025_it_fails_an_initialize_that_names_neither_mode():
    result = results(legacy_contract("supports-declared-mode"))[CHECK]
    assert (result.status, result.message) == ("FAIL", "1 request(s) declared elicitation with neither form nor url")
    assert [e.note for e in result.evidence] == ["elicitation: {'foo': {}}"]
