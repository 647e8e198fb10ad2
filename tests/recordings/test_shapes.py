"""JSON shapes: what the writer writes the reader reads back, and any JSON (or none) from elsewhere reads totally."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backchannel.recordings.json_form import json_text, parse_json
from backchannel.recordings.shapes import Discovery, Invocation, ProbeOptions, RunDetail, UrlServers

SHAPES = [RunDetail, ProbeOptions, Discovery, UrlServers, Invocation]
META_SHAPES = [ProbeOptions, Discovery, UrlServers, Invocation]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),  # NaN != NaN
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=20,
)
# objects that use the shapes' own member names, so wrongly typed members are exercised, not just unknown ones
MEMBERS = ["url", "planted_id", "note", "status", "invocation", "candidates", "tried", "rejected", "client", "target",
           "stdin", "hold_ms", "ignore_capabilities", "result_type_rule", "declined", "accepted"]  # fmt: skip
member_objects = st.dictionaries(st.sampled_from(MEMBERS), json_values, max_size=8)

HOSTILE_TEXT = [
    None,
    7,
    b"\xff\xfe{",
    "",
    "{",
    "not json",
    "[" * 100_000,  # deeper than the parser recurses
    "1" * 5_000,  # longer than Python converts to an int
    "NaN",
    "null",
    "[1, 2]",
    '"a string"',
    '{"status": 5}',
    '{"url": 1, "planted_id": [], "note": {}}',
    '{"ports": "x", "declined": true, "accepted": 70000}',
    '{"client": [1], "target": "x", "hold_ms": 1.5, "ignore_capabilities": "yes"}',
    '{"candidates": [["a"], 1, [2], null], "status": "found", "tried": {}}',
]

EXAMPLES = [
    RunDetail(
        url="http://127.0.0.1:1/r/a/mcp",
        planted_id="bckch-witness-1",
        note="exited",
        facts={"decoy": "d", "hold_ms": 5000, "ratio": 0.5, "flag": True, "none": None},
    ),  # fmt: skip
    RunDetail(),
    ProbeOptions(
        ignore_capabilities=False,
        result_type_rule="seed",
        target=("cli",),
        client=("c", "{url}"),
        stdin="y\n",
        hold_ms=5000,
    ),  # fmt: skip
    ProbeOptions(),
    Discovery(status="found", invocation=("c", "{url}"), candidates=(("c", "{url}"),), tried=(("c", "{url}"),)),
    Discovery(status="no-mcp-call-surface"),
    UrlServers(ports={"declined": 40001, "accepted": 40002}),
    Invocation(argv=("client", "--url", "{url}")),
]


@pytest.mark.parametrize("shape", EXAMPLES, ids=lambda s: type(s).__name__)
def test_what_is_written_reads_back_equal_through_its_own_text(shape):
    assert type(shape).from_json(parse_json(json_text(shape.to_json()))) == shape


@pytest.mark.parametrize("cls", SHAPES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=range(len(HOSTILE_TEXT)))
def test_hostile_text_reads_as_a_shape_or_none_and_never_raises(cls, text):
    found = cls.from_json(parse_json(text))
    assert found is None or isinstance(found, cls)


@pytest.mark.parametrize("cls", SHAPES, ids=lambda c: c.__name__)
@given(value=json_values | member_objects)
def test_any_json_value_reads_as_a_shape_whose_json_reads_back_the_same(cls, value):
    found = cls.from_json(value)
    if found is not None:
        assert cls.from_json(json.loads(json_text(found.to_json()))) == found


def test_a_run_detail_reads_wrongly_typed_members_as_absent_and_keeps_only_scalar_facts():
    detail = RunDetail.from_json({"url": 1, "planted_id": None, "note": "n", "decoy": "d", "nested": {"x": 1}})
    assert detail == RunDetail(note="n", facts={"decoy": "d"})
    assert RunDetail.from_json([1]) is None


def test_a_run_fact_cannot_take_a_member_name():
    with pytest.raises(ValueError, match="planted_id"):
        RunDetail(facts={"planted_id": "x"})


def test_a_run_detail_writes_url_first_then_facts_then_what_was_learnt_later():
    detail = RunDetail(url="u", planted_id="p", note="n", facts={"decoy": "d"})
    assert list(detail.to_json()) == ["url", "decoy", "planted_id", "note"]


def test_a_discovery_without_a_string_status_is_damaged_and_bad_argvs_are_left_out():
    assert Discovery.from_json({"invocation": ["c"]}) is None
    assert Discovery.from_json({"status": 5}) is None
    found = Discovery.from_json({"status": "found", "invocation": "c", "candidates": [["a"], [1], "b"], "tried": 3})
    assert found == Discovery(status="found", invocation=None, candidates=(("a",),), tried=())


def test_probe_options_write_only_what_was_set_and_read_older_text_with_nulls():
    assert ProbeOptions(client=("c",), hold_ms=5).to_json() == {"client": ["c"], "hold_ms": 5}
    older = '{"ignore_capabilities": false, "result_type_rule": "spec", "target": ["t"], "client": null}'
    assert ProbeOptions.from_json(parse_json(older)) == ProbeOptions(
        ignore_capabilities=False, result_type_rule="spec", target=("t",)
    )
    assert ProbeOptions.from_json({"hold_ms": True, "ignore_capabilities": 1}) == ProbeOptions()


def test_url_servers_keep_only_names_with_tcp_ports():
    found = UrlServers.from_json({"declined": 40001, "accepted": 0, "other": True, "big": 70000, "s": "1"})
    assert found == UrlServers(ports={"declined": 40001})


@pytest.mark.parametrize("cls", META_SHAPES, ids=lambda c: c.__name__)
def test_a_meta_shape_is_read_from_its_own_key_and_absent_or_damaged_reads_as_none(cls):
    example = next(e for e in EXAMPLES if isinstance(e, cls))
    key, text = example.meta_entry()
    assert key == cls.KEY and cls.stored_in({key: text})
    assert cls.read({key: text}) == example
    assert cls.read({}) is None and not cls.stored_in({})
    assert cls.read({key: "{"}) is None and cls.stored_in({key: "{"})
