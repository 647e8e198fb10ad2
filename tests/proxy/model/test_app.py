"""Junk never crashes the stand-in: each bad request gets an error in its API's shape and a row that says why."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import orjson

from backchannel.proxy.model.server import ModelStandIn
from backchannel.recordings.rows import ModelExchangeRow
from tests.proxy.model.conftest import RUN, SCRIPT, ModelLab, start_lab

MESSAGES = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}


def test_an_unknown_path_is_a_404_and_an_unknown_row(lab: ModelLab):
    reply = httpx.post(f"{lab.url}/v2/engines/x/complete", json={"prompt": "hi"}, timeout=10)
    assert reply.status_code == 404 and "no API" in reply.json()["error"]["message"]
    (row,) = lab.exchanges()
    assert (row.api, row.status, row.run_id) == ("unknown", 404, RUN)
    assert row.request_body == b'{"prompt":"hi"}' and row.step == {"action": "refused", "reason": "unknown path"}


def test_a_body_that_is_not_json_is_a_400_in_the_apis_own_error_shape(lab: ModelLab):
    anthropic = httpx.post(f"{lab.url}/v1/messages", content=b"{not json", timeout=10)
    gemini = httpx.post(f"{lab.url}/v1beta/models/g:generateContent", content=b"[1, 2]", timeout=10)
    openai = httpx.post(f"{lab.url}/v1/responses", json={"input": 7}, timeout=10)
    assert anthropic.status_code == 400 and anthropic.json()["type"] == "error"
    assert anthropic.json()["error"]["type"] == "invalid_request_error"
    assert gemini.status_code == 400 and gemini.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert openai.status_code == 400 and "'input'" in openai.json()["error"]["message"]
    rows = lab.exchanges()
    assert [(r.api, r.status) for r in rows] == [
        ("anthropic-messages", 400),
        ("gemini-generate", 400),
        ("openai-responses", 400),
    ]
    assert all(r.step and r.step["action"] == "refused" for r in rows)
    assert rows[0].step and "not JSON" in rows[0].step["reason"]


def test_an_oversized_body_is_a_413_and_its_row_keeps_only_the_start_marked_truncated(tmp_path: Path):
    lab = start_lab(tmp_path, body_limit=1000, record_limit=100)
    try:
        reply = httpx.post(f"{lab.url}/v1/chat/completions", content=b"x" * 5000, timeout=10)
        streamed = httpx.post(f"{lab.url}/v1/chat/completions", content=iter([b"y" * 600, b"y" * 600]), timeout=10)
    finally:
        rows = lab.exchanges()
    assert reply.status_code == 413 and streamed.status_code == 413
    assert [(r.status, r.request_truncated, len(r.request_body or b"")) for r in rows] == [
        (413, True, 0),
        (413, True, 100),
    ]
    assert rows[1].step == {"action": "refused", "reason": "request too large"}


def test_a_body_over_the_record_limit_is_answered_whole_and_recorded_truncated(tmp_path: Path):
    lab = start_lab(tmp_path, record_limit=64)
    try:
        padded = {**MESSAGES, "system": "s" * 500}
        reply = httpx.post(f"{lab.url}/v1/messages", json=padded, timeout=10)
    finally:
        (row,) = lab.exchanges()
    assert reply.status_code == 200 and reply.json()["content"][0]["text"] == "All clean."
    assert row.request_truncated and len(row.request_body or b"") == 64 and row.status == 200


def test_a_get_on_an_api_path_is_a_405_and_get_models_lists_models_for_either_client(lab: ModelLab):
    assert httpx.get(f"{lab.url}/v1/messages", timeout=10).status_code == 405
    listed = httpx.get(f"{lab.url}/v1/models", headers={"anthropic-version": "2023-06-01"}, timeout=10)
    assert listed.status_code == 200 and {"id", "type", "object"} <= set(listed.json()["data"][0])
    rows = lab.exchanges()
    assert [(r.api, r.status) for r in rows] == [("anthropic-messages", 405), ("anthropic-messages", 200)]
    assert rows[1].step == {"action": "list-models"}


def test_a_sink_that_fails_does_not_break_the_reply_and_is_counted():
    def broken(row: ModelExchangeRow) -> None:
        raise RuntimeError("recording closed")

    with ModelStandIn(SCRIPT, broken, run_id=RUN) as stand_in:
        reply = httpx.post(f"{stand_in.url}/v1/messages", json=MESSAGES, timeout=10)
        assert reply.status_code == 200 and orjson.loads(reply.content)["stop_reason"] == "end_turn"
    assert stand_in.app.sink_errors == 1


def test_a_gzip_body_is_read_decoded_and_an_unknown_encoding_or_a_bomb_is_refused_with_its_reason(tmp_path: Path):
    lab = start_lab(tmp_path, body_limit=10_000)
    zipped = {"content-encoding": "gzip", "content-type": "application/json"}
    try:
        plain = httpx.post(f"{lab.url}/v1/messages", content=gzip.compress(orjson.dumps(MESSAGES)), headers=zipped)
        zstd = httpx.post(f"{lab.url}/v1/messages", content=b"\x28\xb5\x2f\xfd", headers={"content-encoding": "zstd"})
        bomb = httpx.post(f"{lab.url}/v1/messages", content=gzip.compress(b" " * 100_000), headers=zipped)
    finally:
        rows = lab.exchanges()
    assert plain.status_code == 200 and plain.json()["content"][0]["text"] == "All clean."
    assert (zstd.status_code, bomb.status_code) == (415, 413)
    assert rows[0].request_body == orjson.dumps(MESSAGES)
    assert rows[1].step and "'zstd' is not supported" in rows[1].step["reason"]


# ------------------------------------------------------------------------------------------------ on_final

TOOL = "mcp__backchannel__get_repo_status"
OFFERED = [{"name": TOOL, "description": "the repo's status", "input_schema": {"type": "object"}}]
CALLED = [
    *MESSAGES["messages"],
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": TOOL, "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "clean"}]},
]


def _finals(tmp_path: Path, *bodies: dict[str, object]) -> tuple[int, list[str]]:
    """Post each Messages body in turn; how often on_final was called once the stand-in stopped, and each step."""
    finals: list[int] = []
    lab = start_lab(tmp_path, on_final=lambda: finals.append(1))
    try:
        for body in bodies:
            assert httpx.post(f"{lab.url}/v1/messages", json=body, timeout=10).status_code == 200
    finally:
        rows = lab.exchanges()  # each row is written after its reply and its on_final: every call is counted
    return len(finals), [f"{r.step['action']}/{r.step.get('after', '')}" for r in rows if r.step]


def test_on_final_is_called_once_after_the_answer_that_follows_a_tool_result_and_not_for_the_tool_call(tmp_path):
    finals, steps = _finals(
        tmp_path, {**MESSAGES, "tools": OFFERED}, {**MESSAGES, "messages": CALLED, "tools": OFFERED}
    )
    assert steps == ["call-tool/", "answer/tool-result"]
    assert finals == 1


def test_on_final_is_called_when_the_scripted_tool_is_not_offered(tmp_path):
    other = [{"name": "Write", "description": "write a file", "input_schema": {"type": "object"}}]
    finals, steps = _finals(tmp_path, {**MESSAGES, "tools": other})
    assert steps == ["tool-not-offered/"] and finals == 1


def test_on_final_is_not_called_for_a_side_request_offering_no_tools(tmp_path):
    finals, steps = _finals(tmp_path, MESSAGES, MESSAGES)
    assert steps == ["answer/no-tools-offered"] * 2 and finals == 0
