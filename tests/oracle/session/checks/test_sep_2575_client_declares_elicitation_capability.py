"""sep-2575-client-declares-elicitation-capability: elicitation, when declared, is an object."""

from tests.oracle.session.wire import CAPS, Wire, complete, modern_meta

RULE = "sep-2575-client-declares-elicitation-capability"


def _declaring(value: object) -> Wire:
    wire = Wire()
    wire.call(
        "tools/call",
        {"name": "t"},
        result=complete(),
        meta=modern_meta(clientCapabilities={**CAPS, "elicitation": value}),
    )
    return wire


def test_an_object_passes_and_anything_else_fails(tmp_path):
    assert _declaring({}).judged(tmp_path, RULE).status == "PASS"
    for value in (True, "yes", None, []):
        found = _declaring(value).judged(tmp_path, RULE)
        assert found.status == "FAIL" and "not an object" in found.evidence[0].note


def test_never_declared_is_not_exercised(tmp_path):
    wire = Wire()
    caps = {k: v for k, v in CAPS.items() if k != "elicitation"}
    wire.call("tools/call", {"name": "t"}, result=complete(), meta=modern_meta(clientCapabilities=caps))
    assert wire.judged(tmp_path, RULE).reason == "not-exercised"
