from backchannel.oracle.scenarios.sdk_regressions.facts import DECLINE_TOOL, elicitations, loop_rounds, marked
from tests.oracle.reference import recording


def test_marked_finds_every_key_and_leaf_carrying_the_nonce_and_nothing_without_one():
    value = {"a-N1": ["x", "y-N1"], "b": {"c": "N1"}, "d": 3}
    assert marked(value, "N1") == {"a-N1", "y-N1", "N1"}
    assert marked(value, "") == set()


def test_elicitations_are_read_from_rounds_in_2026_and_from_server_requests_in_2025():
    for name, keyed in (("sdk-regressions-toy-careful", True), ("sdk-regressions-toy-careful-2025-11-25", False)):
        asked = [a for a in elicitations(recording(name)) if a.tool == DECLINE_TOOL]
        assert [a.action for a in asked] == ["decline", "accept"], name
        assert all((a.key is not None) == keyed for a in asked)
        assert asked[0].schema_keys == {"declined_field", "shared_note"}
        assert asked[1].schema_keys == {"accepted_field", "shared_note"}


def test_the_loop_rounds_of_an_endless_client_reach_the_endpoints_bound():
    [rounds] = loop_rounds(recording("sdk-regressions-toy-endless-retry")).values()
    assert len(rounds) == 16 and all(r.retry is not None for r in rounds)
