"""session-server-input-requests-declared: inputRequests only of declared kinds and elicitation modes."""

from tests.oracle.session.wire import Wire, elicit, input_required, modern_meta

RULE = "session-server-input-requests-declared"


def _asking(capabilities: dict[str, object], *asks: dict[str, object]) -> Wire:
    wire = Wire()
    requests = {f"k{i}": ask for i, ask in enumerate(asks)}
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests=requests),
              meta=modern_meta(clientCapabilities=capabilities))  # fmt: skip
    return wire


def test_declared_kinds_and_modes_pass(tmp_path):
    assert _asking({"elicitation": {}}, elicit("form")).judged(tmp_path, RULE).status == "PASS"
    assert _asking({"elicitation": {"url": {}}}, elicit("url")).judged(tmp_path, RULE).status == "PASS"


def test_an_undeclared_kind_or_mode_fails_showing_what_was_declared(tmp_path):
    found = _asking({"elicitation": {}}, {"method": "sampling/createMessage", "params": {}}).judged(tmp_path, RULE)
    assert found.status == "FAIL" and "sampling was not declared" in found.message
    assert "declared: ['elicitation']" in found.evidence[0].note
    found = _asking({"elicitation": {"url": {}}}, elicit("form")).judged(tmp_path, RULE)
    assert "mode 'form' was not declared" in found.message


def test_no_input_requests_is_not_exercised(tmp_path):
    assert _asking({}).judged(tmp_path, RULE).reason == "not-exercised"


def test_a_mode_that_is_not_a_string_is_no_declared_mode_not_a_crash(tmp_path):
    for mode in (["url"], {"url": {}}):
        ask = {"method": "elicitation/create", "params": {"mode": mode, "message": "Confirm?"}}
        found = _asking({"elicitation": {"form": {}, "url": {}}}, ask).judged(tmp_path, RULE)
        assert found.status == "FAIL" and "was not declared" in found.message
