import pytest

from backchannel.addons import request_state

KEY = b"k" * 32


def test_a_minted_state_verifies_and_returns_its_claims():
    token = request_state.mint(KEY, {"run": "a", "id": 3})
    assert request_state.is_ours(token)
    assert request_state.verify(KEY, token) == {"id": 3, "run": "a"}


@pytest.mark.parametrize("position", [5, 10, -3])
def test_a_state_altered_anywhere_is_rejected(position):
    token = request_state.mint(KEY, {"run": "a"})
    flipped = token[:position] + ("A" if token[position] != "A" else "B") + token[position + 1 :]
    with pytest.raises(request_state.StateRejected):
        request_state.verify(KEY, flipped)


def test_a_state_minted_with_another_key_is_rejected():
    token = request_state.mint(b"x" * 32, {"run": "a"})
    with pytest.raises(request_state.StateRejected, match="modified"):
        request_state.verify(KEY, token)


def test_a_state_without_our_prefix_is_not_ours():
    assert not request_state.is_ours("v1.upstream-state")
    assert not request_state.is_ours(None)
    with pytest.raises(request_state.StateRejected, match="malformed"):
        request_state.verify(KEY, "bc1.only-one-part")


@pytest.mark.parametrize("tag", ["\u00e9", "\ud800", "x\u4e2d"])
def test_a_state_whose_tag_is_not_ascii_is_rejected_not_a_crash(tag):
    body = request_state.mint(KEY, {"run": "a"}).rsplit(".", 1)[0]
    with pytest.raises(request_state.StateRejected, match="modified"):
        request_state.verify(KEY, f"{body}.{tag}")
