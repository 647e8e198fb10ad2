import json

from hypothesis import given
from hypothesis import strategies as st

from backchannel.addons.json_edit import remove_member

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@given(
    other=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "resultType"), values, max_size=4),
    position=st.integers(min_value=0, max_value=4),
    indent=st.sampled_from([None, 1, 2]),
    separators=st.sampled_from([(",", ":"), (", ", ": ")]),
)
def test_removing_result_type_changes_nothing_but_that_member(other, position, indent, separators):
    items = list(other.items())
    items.insert(min(position, len(items)), ("resultType", "complete"))
    original = json.dumps({"jsonrpc": "2.0", "id": 1, "result": dict(items)}, indent=indent,
                          separators=separators if indent is None else None)  # fmt: skip
    removal = remove_member(original, ("result", "resultType"))
    assert removal is not None
    assert original[: removal.start] + original[removal.end :] == removal.text
    after = json.loads(removal.text)
    assert after["result"] == other
    assert '"resultType"' in removal.removed(original)


def test_an_absent_member_is_reported_as_nothing_to_remove():
    assert remove_member('{"result":{"content":[]}}', ("result", "resultType")) is None


def test_a_nested_result_type_elsewhere_is_left_alone():
    text = '{"result":{"content":[{"resultType":"x"}],"resultType":"complete"}}'
    removal = remove_member(text, ("result", "resultType"))
    assert removal is not None
    assert removal.text == '{"result":{"content":[{"resultType":"x"}]}}'


def test_malformed_json_is_never_edited():
    assert remove_member('{"result":{"resultType":"complete"', ("result", "resultType")) is None
    assert remove_member("not json", ("result", "resultType")) is None
