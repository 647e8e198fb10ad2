"""Gemini generateContent and streamGenerateContent requests read into segments."""

import pytest

from tests.oracle.detectors.model_requests import read, rows, unread

BODY = {
    "systemInstruction": {"role": "user", "parts": [{"text": "sys"}]},
    "contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {
            "role": "model",
            "parts": [
                {"text": "thinking", "thought": True},
                {"functionCall": {"name": "mcp_lab_s", "args": {"wait_for_previous": True}}, "thoughtSignature": "x"},
            ],
        },
        {"role": "user", "parts": [{"functionResponse": {"name": "mcp_lab_s", "response": {"output": "out"}}}]},
    ],
    "tools": [{"functionDeclarations": [{"name": "mcp_lab_s", "description": "d", "parametersJsonSchema": {}}]}],
}


@pytest.mark.parametrize("api", ["gemini-generate", "gemini-stream"])
def test_system_instruction_contents_and_function_responses_tied_by_name(api):
    assert rows(read(api, BODY)) == [
        ("system", "system", None, "sys", "$.systemInstruction.parts[0].text"),
        ("user", "user", None, "go", "$.contents[0].parts[0].text"),
        ("tool-result", "user", "mcp_lab_s", "out", "$.contents[2].parts[0].functionResponse.response.output"),
        ("tool-description", "tool", "mcp_lab_s", "d", "$.tools[0].functionDeclarations[0].description"),
    ]


def test_a_function_response_with_an_id_is_tied_to_the_call_of_that_id():
    body = {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"id": "1", "name": "mcp_lab_s", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "1", "name": "other", "response": {"o": "x"}}}]},
        ]
    }
    assert rows(read("gemini-stream", body))[-1][2] == "mcp_lab_s"


def test_an_unknown_part_or_missing_contents_is_unread():
    assert "['mystery']" in unread("gemini-stream", {"contents": [{"role": "user", "parts": [{"mystery": 1}]}]}).reason
    assert "$.contents is missing" in unread("gemini-generate", {"systemInstruction": "s"}).reason
