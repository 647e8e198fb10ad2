"""The bounded walk under the model-context readers: JSON paths, strings inside values, shape errors."""

import pytest

from backchannel.oracle.detectors.model_segments import ShapeError, child, expect_list, strings


def test_paths_name_members_as_identifiers_or_quoted_and_items_by_index():
    assert child(child(child("$", "messages"), 3), "content") == "$.messages[3].content"
    assert child("$", "x-goog key") == '$["x-goog key"]'


def test_every_string_inside_a_value_is_found_with_its_path_and_nothing_else_is():
    value = {"a": ["x", 1, None, {"b": "y"}], "c": True}
    assert list(strings(value, "$.v")) == [("$.v.a[0]", "x"), ("$.v.a[3].b", "y")]


def test_a_shape_error_says_where_and_what_was_seen():
    with pytest.raises(ShapeError, match=r"\$\.messages is an object, not an array"):
        expect_list({}, "$.messages")
