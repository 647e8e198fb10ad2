"""Typed cells: every column value is checked for type and range, never coerced."""

import math

import pytest

from backchannel.recordings import cells


@pytest.mark.parametrize("value", [1.5, "7", b"\x00", True, 2**64])
def test_an_integer_column_takes_only_a_64_bit_integer(value: object) -> None:
    with pytest.raises(TypeError, match="expected an integer"):
        cells.integer(value)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, "soon", b"1"])
def test_a_time_column_takes_only_a_finite_number(value: object) -> None:
    with pytest.raises(TypeError, match="expected a finite number"):
        cells.number(value)


def test_text_reads_blobs_leniently_and_refuses_numbers() -> None:
    assert cells.text(b"caf\xc3\xa9 \xff") == "café \ufffd"
    with pytest.raises(TypeError, match="expected text, found int"):
        cells.text(5)


@pytest.mark.parametrize("raw", ['{"a": "b"}', '[["a"]]', '[["a", 1]]', '"x"'])
def test_headers_must_be_a_list_of_string_pairs(raw: str) -> None:
    with pytest.raises(ValueError, match="headers must be"):
        cells.headers(raw)


def test_json_past_the_depth_limit_is_a_value_error_not_a_recursion_error() -> None:
    with pytest.raises(ValueError, match="nested deeper"):
        cells.json_value("[" * 5000 + "]" * 5000, None)
