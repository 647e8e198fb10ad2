"""sep-2243-client-encode-values on the committed references: true/false and decimal text, and Python's True."""

from tests.oracle.reference import results

CHECK = "sep-2243-client-encode-values"


def test_it_passes_lowercase_booleans_and_decimal_integers():
    assert results("conformance-toy")[CHECK].status == "PASS"


def test_it_fails_booleans_spelled_as_python_prints_them():
    result = results("conformance-toy-flawed")[CHECK]
    assert result.status == "FAIL" and "Mcp-Param-Debug 'True' does not stand for 'true'" in result.message
