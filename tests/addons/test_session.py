from backchannel.addons.session import Limits, origin_of, split_run_path


def test_the_run_prefix_is_split_from_the_path():
    assert split_run_path("/r/abc123/mcp") == ("abc123", "/mcp")
    assert split_run_path("/r/abc123") == ("abc123", "/")
    assert split_run_path("/mcp") == (None, "/mcp")
    assert split_run_path("/r/../etc") == (None, "/r/../etc")


def test_the_origin_of_an_upstream_url_keeps_scheme_host_and_port():
    assert origin_of("http://127.0.0.1:8000/mcp") == "http://127.0.0.1:8000"
    assert origin_of("https://example.test/mcp") == "https://example.test:443"


def test_the_proxy_holds_of_one_sse_event_at_most_the_larger_storage_limit() -> None:
    assert Limits().max_held == 16 * 1024 * 1024
    assert Limits(max_body=1000, max_sse_event=4096).max_held == 4096  # a small --max-body never starves reading
    assert Limits(max_body=64 << 20, max_sse_event=4096).max_held == 64 << 20
