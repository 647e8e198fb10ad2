"""Which API a request is, by its method and path."""

from __future__ import annotations

import pytest

from backchannel.proxy.model.routes import route


@pytest.mark.parametrize(
    ("method", "path", "api"),
    [
        ("POST", "/v1/messages", "anthropic-messages"),
        ("POST", "/v1/chat/completions", "openai-chat"),
        ("POST", "/v1/responses/", "openai-responses"),
        ("POST", "/v1beta/models/gemini-3.8-flash:generateContent", "gemini-generate"),
        ("POST", "/v1beta/models/gemini-3.8-flash:streamGenerateContent", "gemini-stream"),
        ("GET", "/v1/models", "openai-responses"),
    ],
)
def test_each_provider_path_is_its_api(method: str, path: str, api: str):
    found = route(method, path, {})
    assert found is not None and found.api == api


@pytest.mark.parametrize(
    "path", ["/", "/v1/complete", "/v1beta/models/a/b:generateContent", "/v1beta/models/m:countTokens", "/mcp"]
)
def test_other_paths_have_no_route(path: str):
    assert route("POST", path, {}) is None


def test_the_model_list_is_anthropic_s_when_the_client_sends_its_version_header():
    found = route("GET", "/v1/models", {"anthropic-version": "2023-06-01"})
    assert found is not None and found.api == "anthropic-messages" and found.read is None
