"""The json-schema-ref-no-deref tool: the suite's schema, its network $ref pointing at the run's canary."""

from backchannel.proxy.scenarios.conformance.ref_tools import CANARY_PATH, ref_tools


def test_the_tool_refers_to_its_own_defs_and_to_the_canary():
    [tool] = ref_tools(f"http://127.0.0.1:9{CANARY_PATH}")
    properties = tool.input_schema["properties"]
    assert properties["id"] == {"$ref": "#/$defs/userId"}
    assert properties["profile"] == {"$ref": "http://127.0.0.1:9/canary/profile-schema.json"}
    assert tool.name == "lookup_user" and tool.input_schema["required"] == ["id"]
