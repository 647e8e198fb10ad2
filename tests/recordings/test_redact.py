from backchannel.recordings.redact import REDACTED, redact_headers


def test_secret_headers_keep_their_presence_but_lose_their_value():
    out = redact_headers([("Authorization", "Bearer abc"), ("Cookie", "a=b"), ("Accept", "text/html")])
    assert out == [("Authorization", REDACTED), ("Cookie", REDACTED), ("Accept", "text/html")]


def test_bearer_like_values_in_other_headers_are_redacted():
    assert redact_headers([("X-Forward", "token s3cret")]) == [("X-Forward", f"token {REDACTED}")]
