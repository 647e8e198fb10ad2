import pytest

from backchannel.addons.plan import PlanError, parse_plan


def test_an_empty_plan_has_no_mutations():
    assert parse_plan({}).mutations == ()
    assert parse_plan(None).mutations == ()


def test_mutations_match_by_method_and_tool_name():
    plan = parse_plan({"mutations": [{"kind": "drop-result-type", "match": {"method": "tools/call", "name": "a"}}]})
    call_a = {"method": "tools/call", "params": {"name": "a"}}
    call_b = {"method": "tools/call", "params": {"name": "b"}}
    assert len(plan.for_request(call_a)) == 1
    assert plan.for_request(call_b) == ()
    assert plan.for_request({"method": "tools/list"}) == ()


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"mutations": [{"kind": "explode"}]}, "kind 'explode' is not one of"),
        ({"mutations": [{"kind": "hold", "ms": -1}]}, "ms must be"),
        ({"mutations": [{"kind": "hold", "as": "xml"}]}, "as must be"),
        ({"mutations": [{"kind": "error", "error": {"code": "x"}}]}, "integer code"),
        ({"mutations": [{"kind": "inject-input-requests"}]}, "inputRequests must be"),
        ({"mutations": [{"kind": "drop-result-type", "match": {"id": 1}}]}, "match may hold only"),
        ({"mutations": [{"kind": "drop-result-type", "times": 0}]}, "times must be"),
        ({"mutations": "all"}, "'mutations' must be a list"),
        ([1], "must be a JSON object"),
    ],
)
def test_an_invalid_plan_names_the_mutation_and_the_field(raw, words):
    with pytest.raises(PlanError, match=words):
        parse_plan(raw)


def test_a_plan_error_says_which_mutation():
    with pytest.raises(PlanError, match="plan mutation 1"):
        parse_plan({"mutations": [{"kind": "json-to-sse"}, {"kind": "nope"}]})
