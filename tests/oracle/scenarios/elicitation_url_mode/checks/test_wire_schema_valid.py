from tests.oracle.reference import contract, legacy_contract, recording, results

CHECK = "wire-schema-valid"


def _requests(variant):
    rec = recording(contract(variant))
    return [m for m in rec.messages if m.direction == "to-server" and m.kind == "request"]


def test_it_passes_a_client_whose_every_request_validates():
    result = results(contract("correct"))[CHECK]
    assert result.status == "PASS", result.message
    assert result.message == f"all {len(_requests('correct'))} client requests validate"


def test_it_fails_a_client_that_sends_client_info_without_its_version():
    result = results(contract("wire-schema-valid"))[CHECK]
    assert result.status == "FAIL"
    sent = len(_requests("wire-schema-valid"))
    assert result.message == f"{sent} of {sent} client request(s) do not validate"
    assert all("'version' is a required property" in e.note for e in result.evidence)


def test_in_2025_it_validates_both_sides_against_the_eras_own_schema():
    for variant, era in (("correct", "2025-11-25"), ("correct-2025-06-18", "2025-06-18")):
        result = results(legacy_contract(variant))[CHECK]
        assert result.status == "PASS", result.message
        assert result.message.endswith(f"client messages validate against the {era} schema")


def test_in_2025_11_25_it_fails_client_info_without_its_version():
    result = results(legacy_contract("wire-schema-valid"))[CHECK]
    assert (result.status, result.message) == ("FAIL", "1 of 18 client message(s) do not validate against 2025-11-25")
    assert "version" in result.evidence[0].note
