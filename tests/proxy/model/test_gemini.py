"""The stand-in speaks Gemini generateContent / streamGenerateContent well enough for the official `google-genai`
SDK, including a structured-output request like Gemini CLI's router."""

from __future__ import annotations

import json

import jsonschema
import pytest
from google import genai
from google.genai import types

from backchannel.proxy.model import gemini
from backchannel.proxy.model.turn import RequestError
from tests.proxy.model.conftest import API_KEY, ModelLab, assert_key_redacted, opened

DECLARATION = types.FunctionDeclaration(
    name="mcp_backchannel_get_repo_status",
    description="the repo's status",
    parameters_json_schema={"type": "object", "properties": {"repo": {"type": "string"}}},
)
CONFIG = types.GenerateContentConfig(
    tools=[types.Tool(function_declarations=[DECLARATION])],
    automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
)
PROMPT = types.Content(role="user", parts=[types.Part(text="Status?")])
# Gemini CLI 0.61's router asks for this shape (seen in its request), and rejects a score below 1
ROUTER_SCHEMA = {
    "type": "OBJECT",
    "properties": {
        "complexity_reasoning": {"type": "STRING", "description": "Brief explanation for the score."},
        "complexity_score": {"type": "INTEGER", "description": "Complexity score from 1-100."},
    },
    "required": ["complexity_reasoning", "complexity_score"],
}


def _client(lab: ModelLab) -> genai.Client:
    return opened(genai.Client(api_key=API_KEY, http_options=types.HttpOptions(base_url=lab.url, timeout=10_000)))


def _after(call: types.FunctionCall) -> list[types.Content]:
    response = types.FunctionResponse(name=call.name, id=call.id, response={"output": "repo demo: clean"})
    return [
        PROMPT,
        types.Content(role="model", parts=[types.Part(function_call=call)]),
        types.Content(role="user", parts=[types.Part(function_response=response)]),
    ]


def test_the_sdk_gets_a_function_call_then_the_answer_and_the_exchanges_are_recorded(lab: ModelLab):
    client = _client(lab)
    first = client.models.generate_content(model="gemini-x", contents=[PROMPT], config=CONFIG)
    assert first.function_calls and first.function_calls[0].name == "mcp_backchannel_get_repo_status"
    call = first.function_calls[0]
    assert call.args == {"repo": "demo"}
    second = client.models.generate_content(model="gemini-x", contents=_after(call), config=CONFIG)
    assert second.text == "All clean." and second.usage_metadata and second.usage_metadata.prompt_token_count

    rows = lab.exchanges()
    assert [(r.api, r.status, r.streamed) for r in rows] == [("gemini-generate", 200, False)] * 2
    assert rows[0].path == "/v1beta/models/gemini-x:generateContent"
    assert [r.step and r.step["action"] for r in rows] == ["call-tool", "answer"]
    assert_key_redacted(rows)


def test_the_sdk_stream_gets_the_call_and_then_the_answer_in_chunks(lab: ModelLab):
    client = _client(lab)
    chunks = list(client.models.generate_content_stream(model="gemini-x", contents=[PROMPT], config=CONFIG))
    calls = [call for chunk in chunks for call in chunk.function_calls or []]
    assert [call.name for call in calls] == ["mcp_backchannel_get_repo_status"]
    answer = client.models.generate_content_stream(model="gemini-x", contents=_after(calls[0]), config=CONFIG)
    assert "".join(chunk.text or "" for chunk in answer) == "All clean."

    rows = lab.exchanges()
    assert [(r.api, r.streamed) for r in rows] == [("gemini-stream", True)] * 2
    assert rows[0].path == "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"


def test_a_structured_output_request_gets_json_that_its_schema_accepts(lab: ModelLab):
    config = types.GenerateContentConfig(response_mime_type="application/json", response_json_schema=ROUTER_SCHEMA)
    client = _client(lab)  # held: the SDK closes its HTTP client when the Client object goes away
    reply = client.models.generate_content(model="gemini-lite", contents="Route this.", config=config)
    value = json.loads(reply.text or "")
    lowered = json.loads(json.dumps(ROUTER_SCHEMA).replace('"OBJECT"', '"object"').replace('"STRING"', '"string"'))
    jsonschema.validate(value, json.loads(json.dumps(lowered).replace('"INTEGER"', '"integer"')))
    assert value["complexity_score"] >= 1

    rows = lab.exchanges()
    assert rows[0].step and rows[0].step["action"] == "schema-answer"


def test_contents_that_are_not_a_list_are_a_request_error():
    with pytest.raises(RequestError, match="contents"):
        gemini.read({"contents": {}}, b"{}", model="m", streamed=False)
