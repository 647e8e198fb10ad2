import json
import time

import pytest

from backchannel.recordings import redact
from backchannel.recordings.redact import (
    REDACTED,
    redact_headers,
    redact_json_bytes,
    redact_json_text,
    redact_output,
    redact_path,
)
from backchannel.recordings.redactions import Redactions


@pytest.fixture(autouse=True)
def redactor():
    with redact.applying(redact.Redactor()) as fresh:  # each test its own policy and tally, as each recording
        yield fresh


def test_secret_headers_keep_their_presence_but_lose_their_value():
    out = redact_headers([("Authorization", "Bearer abc"), ("Cookie", "a=b"), ("Accept", "text/html")])
    assert out == [("Authorization", REDACTED), ("Cookie", REDACTED), ("Accept", "text/html")]


def test_bearer_like_values_in_other_headers_are_redacted():
    assert redact_headers([("X-Forward", "token s3cret")]) == [("X-Forward", f"token {REDACTED}")]


@pytest.mark.parametrize(
    "name",
    ["X-Auth-Token", "x-goog-api-key", "X-Secret", "Set-Cookie", "X-Session", "X-Password", "Proxy-Authorization"],
)
def test_any_header_whose_name_matches_a_secret_pattern_is_redacted(name):
    assert redact_headers([(name, "v4lue")]) == [(name, REDACTED)]


def test_the_headers_the_protocol_defines_are_kept():
    headers = [("Mcp-Session-Id", "abc"), ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")]
    assert redact_headers(headers) == headers


def test_secret_query_parameters_lose_their_value_and_the_rest_of_the_path_is_kept():
    path = "/r/run1/mcp?access_token=abc&page=2&API_KEY=zz#frag"
    assert redact_path(path) == f"/r/run1/mcp?access_token={REDACTED}&page=2&API_KEY={REDACTED}#frag"
    assert redact_path("/r/run1/mcp?page=2") == "/r/run1/mcp?page=2"
    assert redact_path("/mcp") == "/mcp"


def test_secret_json_members_lose_their_value_at_any_depth_and_only_those_bytes_change():
    text = '{"a": {"b": [{"apiKey" : "s3cr3t", "x": 1}]}, "password":"hunter2", "note": "k"}'
    out = redact_json_text(text)
    assert out == f'{{"a": {{"b": [{{"apiKey" : "{REDACTED}", "x": 1}}]}}, "password":"{REDACTED}", "note": "k"}}'
    assert json.loads(out)["password"] == REDACTED


def test_members_the_protocol_defines_are_never_rewritten():
    text = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": "token-1",
            "method": "tools/call",
            "params": {
                "name": "get_api_key",
                "cursor": "sk-abcdefghijklmnopqrstuvwxyz",
                "requestState": "Bearer abcdefghijklmnop",
                "_meta": {"progressToken": "tok-123", "io.modelcontextprotocol/sessionKey": "x"},
                "inputResponses": {"api_key": {"action": "accept", "content": {"confirmed": True}}},
            },
        }
    )
    assert redact_json_text(text) is text


def test_key_like_values_inside_json_strings_are_redacted_and_the_json_stays_valid():
    text = '{"content":[{"type":"text","text":"use sk-abcdefghijklmnopqrstuv now"}]}'
    out = redact_json_text(text)
    assert "sk-abc" not in out
    assert json.loads(out)["content"][0]["text"] == f"use {REDACTED} now"


@pytest.mark.parametrize("cut", ["hunter2-corr", "hunter2-correct\\", ""])
def test_a_body_stored_up_to_a_limit_that_ends_inside_a_secrets_value_loses_what_it_kept_of_it(cut):
    whole = '{"params":{"arguments":{"note":"plain","password":"hunter2-correct-horse"}}}'
    prefix = whole[: whole.index("hunter2")] + cut
    out = redact_json_text(prefix)
    assert "hunter2" not in out and out.endswith(f'"password":"{REDACTED}"') and '"note":"plain"' in out
    assert redact_json_bytes(prefix.encode()).decode() == out


def test_json_text_with_escaped_quotes_keeps_its_structure():
    text = r'{"note":"say \"apiKey\": \"abc\" ok","token":"t\"q"}'
    out = redact_json_text(text)
    assert json.loads(out) == {"note": 'say "apiKey": "abc" ok', "token": REDACTED}


def test_sse_data_lines_are_redacted_inside_each_event():
    raw = b'event: message\ndata: {"result":{"secret":"xyz"}}\n\n'
    assert redact_json_bytes(raw) == b'event: message\ndata: {"result":{"secret":"[redacted]"}}\n\n'


def test_bytes_that_are_not_utf8_are_kept_around_a_redaction():
    raw = b'\xff{"password":"p"}\xfe'
    assert redact_json_bytes(raw) == b'\xff{"password":"[redacted]"}\xfe'


def test_text_without_secrets_is_returned_as_the_same_object():
    body = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}'
    assert redact_json_bytes(body) is body


@pytest.mark.parametrize(
    "secret",
    [
        "Bearer abcdefghijklmnop",
        "sk-abcdefghijklmnopqrstuv",
        "sk-ant-api03-abcdefghijklmnop",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghij",
        "xoxb-1234567890-abcdefghij",
        "AKIAIOSFODNN7EXAMPLE",
        "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "access_token=0123456789abcdef0123",
        "API_KEY: 0123456789abcdef",
    ],
)
def test_key_like_values_in_terminal_output_are_masked_at_the_same_length(secret):
    data = f"before {secret} after\n".encode()
    out = redact_output(data, "terminal")
    assert len(out) == len(data)
    assert out.startswith(b"before ") and out.endswith(b" after\n")
    value = secret.split()[-1].split("=")[-1]
    assert value.encode() not in out


def test_markers_and_ordinary_output_are_not_touched():
    data = b"BCKCH-BODY-0123456789abcdef WRITE-MARKER /tmp/x BCKCH-EXEC-0123456789abcdef progressToken: abcdefgh12\n"
    assert redact_output(data, "file") is data


def test_redact_patterns_add_names():
    with redact.applying(redact.Redactor(redact.Policy([r"^x-tenant$", "pin"]))):
        assert redact_headers([("X-Tenant", "acme")]) == [("X-Tenant", REDACTED)]
        assert json.loads(redact_json_text('{"pinCode":"1234"}')) == {"pinCode": REDACTED}
    assert redact_headers([("X-Tenant", "acme")]) == [("X-Tenant", "acme")]  # outside it, the defaults again


def test_a_redact_pattern_that_is_not_a_regular_expression_is_refused_with_its_text():
    with pytest.raises(ValueError, match=r"\(unclosed"):
        redact.Policy(["(unclosed"])


def test_the_summary_names_kinds_and_counts_never_values(redactor):
    redact_headers([("X-Api-Key", "v4lue-secret")])
    redact_json_text('{"password":"hunter2-secret","password2":"x"}')
    redact_output(b"Bearer abcdefghijklmnop-secret", "terminal")
    summary = redactor.summary("proxy")
    key, text = summary.meta_entry()
    assert key == "redactions:proxy"
    assert "secret" not in text.replace("redactions", "")
    assert summary.counts == {
        "header": {"x-api-key": 1},
        "json-member": {"password": 1, "password2": 1},
        "terminal": {"bearer": 1},
    }
    assert redactor.tally() == {}  # the next summary starts from nothing
    (read,) = Redactions.read_all(dict([summary.meta_entry()]))
    assert read == summary


def test_a_damaged_summary_reads_as_empty_counts():
    (read,) = Redactions.read_all({"redactions:proxy": '{"counts": [1], "patterns": "x"}'})
    assert read == Redactions(source="proxy", counts={})


def test_the_tally_is_bounded_whatever_names_the_wire_brings(redactor):
    redact_headers([(f"x-token-{i}", "v") for i in range(redact.TALLY_LIMIT + 50)])
    counts = redactor.tally()["header"]
    assert len(counts) == redact.TALLY_LIMIT + 1 and counts["(other)"] == 50


def test_a_json_key_made_of_thousands_of_secret_words_is_redacted_without_backtracking():
    # the member search once backtracked over the whole key for every secret word in it: minutes for 150 KB
    text = json.dumps({"token" * 30000: "sk-value-123456789", "n": 1})
    began = time.monotonic()
    out = redact.redact_json_text(text)
    assert time.monotonic() - began < 5.0  # about 0.03 s; a quadratic search takes minutes
    assert json.loads(out)["token" * 30000] == redact.REDACTED


def test_a_command_line_keeps_its_words_but_the_values_of_secret_named_flags():
    argv = ["client", "--api-key", "sk_live_X1", "--password=hunter2hunter2", "--verbose", "{url}", "--token", "-v"]
    assert redact.redact_argv(argv) == [
        "client", "--api-key", redact.REDACTED, f"--password={redact.REDACTED}", "--verbose", "{url}", "--token", "-v",
    ]  # fmt: skip
    plain = ["python", "-m", "toy_agent", "--fix", "provenance", "mcp", "call", "{url}", "get_repo_status"]
    assert redact.redact_argv(plain) == plain


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:5/mcp?api_key=abc123", f"http://127.0.0.1:5/mcp?api_key={REDACTED}"),
        ("http://127.0.0.1:5?token=abc123&x=1", f"http://127.0.0.1:5?token={REDACTED}&x=1"),
        ("https://u:hunter22@example.test/mcp", f"https://u:{REDACTED}@example.test/mcp"),
        ("http://127.0.0.1:5/mcp", "http://127.0.0.1:5/mcp"),
        ("/mcp?secret=x", f"/mcp?secret={REDACTED}"),
    ],
)
def test_a_whole_url_keeps_its_server_and_loses_query_keys_and_its_password(url, expected):
    assert redact.redact_url(url) == expected


def test_a_runs_upstream_query_and_key_like_values_in_its_detail_are_redacted_as_the_run_is_written(tmp_path):
    from backchannel.recordings import load, store
    from backchannel.recordings.meta import RecordingInfo
    from backchannel.recordings.rows import RunRow
    from backchannel.recordings.shapes import RunDetail

    path = tmp_path / "r.sqlite"
    store.create(path, RecordingInfo(nonce="n", tool_version="t"))
    writer = store.RecordingWriter(path)
    key = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2"
    detail = RunDetail(url="/r/r1/mcp", facts={"env": f"OPENAI_API_KEY={key}"})
    writer.insert(
        RunRow(id="r1", ordinal=1, name="live", upstream="http://127.0.0.1:9/mcp?api_key=X1", plan={}, detail=detail)
    )
    writer.close()
    store.finalize(path)
    assert b"api_key=X1" not in path.read_bytes() and key.encode() not in path.read_bytes()
    run = load(path).runs[0]
    assert run.upstream == f"http://127.0.0.1:9/mcp?api_key={REDACTED}"
    assert run.detail.url == "/r/r1/mcp"


def test_a_key_like_value_in_a_header_of_any_name_is_redacted_but_the_protocols_own_headers_are_kept():
    key = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    jwt_like = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2ln"
    got = redact_headers([("x-other", f"v={key}"), ("mcp-session-id", jwt_like), ("accept", "text/event-stream")])
    assert got[0][0] == "x-other" and key not in got[0][1] and REDACTED in got[0][1]
    assert got[1:] == [("mcp-session-id", jwt_like), ("accept", "text/event-stream")]


def test_a_secret_named_query_parameter_of_a_url_inside_a_json_string_is_redacted_whatever_its_length():
    text = json.dumps({"result": {"link": "http://127.0.0.1:9/cb?page=2&token=q1", "n": "keep=me"}})
    assert json.loads(redact_json_text(text)) == {
        "result": {"link": f"http://127.0.0.1:9/cb?page=2&token={REDACTED}", "n": "keep=me"}
    }


def test_a_url_query_in_a_protocol_members_value_is_left_alone():
    text = json.dumps({"requestState": "a?token=q1", "x": "b?token=q1"})
    assert json.loads(redact_json_text(text)) == {"requestState": "a?token=q1", "x": f"b?token={REDACTED}"}


def test_a_body_that_is_not_json_has_its_key_like_values_and_secret_pairs_redacted_too():
    body = b"error: invalid key sk-abcdefghijklmnopqrstuv for access_token=hunter22hunter"
    out = redact_json_bytes(body)
    assert b"sk-abcdef" not in out and b"hunter22" not in out and out.startswith(b"error: invalid key ")


def test_a_url_in_any_header_value_loses_its_secret_named_query_parameters():
    out = redact_headers([("Referer", "http://127.0.0.1:9/back?state=s&api_key=q1"), ("Accept", "text/html")])
    assert out == [("Referer", f"http://127.0.0.1:9/back?state=s&api_key={REDACTED}"), ("Accept", "text/html")]


def test_free_text_loses_key_like_values_secret_pairs_and_url_queries_and_keeps_the_rest():
    text = "GET http://h/x?sig=abc&auth=q1 failed: API_KEY=abcdefgh123 then sk-abcdefghijklmnopqrstuv"
    out = redact.redact_text(text, "anomaly")
    assert "q1" not in out and "abcdefgh123" not in out and "sk-abcdef" not in out
    assert out.startswith("GET http://h/x?sig=abc&auth=") and "failed: API_KEY=" in out
    assert redact.redact_text("tools/call", "method") == "tools/call"


def test_terminal_text_masked_at_its_own_length_keeps_every_offset():
    text = "open http://h/cb?token=q1xyz now"
    out = redact.redact_text(text, "terminal", same_length=True)
    assert len(out) == len(text) and "q1xyz" not in out
