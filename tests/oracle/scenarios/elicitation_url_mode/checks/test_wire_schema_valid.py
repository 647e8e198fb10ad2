from tests.oracle.reference import contract, recording, results

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
