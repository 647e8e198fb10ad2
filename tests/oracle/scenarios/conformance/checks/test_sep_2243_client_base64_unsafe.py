"""sep-2243-client-base64-unsafe on the committed references: unsafe values Base64-encoded, and sanitised instead."""

from tests.oracle.reference import results

CHECK = "sep-2243-client-base64-unsafe"


def test_it_passes_every_unsafe_value_sent_as_the_sentinel():
    result = results("conformance-toy")[CHECK]
    assert result.status == "PASS" and result.message.startswith("7 annotated parameter(s) needing Base64")


def test_it_fails_values_sanitised_and_sent_plain():
    result = results("conformance-toy-flawed")[CHECK]
    assert result.status == "FAIL" and "sent plain" in result.message and "needs the Base64 sentinel" in result.message
