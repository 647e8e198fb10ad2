"""sep-2243-client-omit-null on the committed references: a null parameter without a header, and with `null`."""

from tests.oracle.reference import results

CHECK = "sep-2243-client-omit-null"


def test_it_passes_a_null_parameter_left_without_a_header():
    assert results("conformance-toy")[CHECK].status == "PASS"


def test_it_fails_a_null_sent_as_text():
    result = results("conformance-toy-flawed")[CHECK]
    assert result.status == "FAIL" and "got a header anyway" in result.message
