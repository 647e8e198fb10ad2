from backchannel.addons.session import origin_of, split_run_path


def test_the_run_prefix_is_split_from_the_path():
    assert split_run_path("/r/abc123/mcp") == ("abc123", "/mcp")
    assert split_run_path("/r/abc123") == ("abc123", "/")
    assert split_run_path("/mcp") == (None, "/mcp")
    assert split_run_path("/r/../etc") == (None, "/r/../etc")


def test_the_origin_of_an_upstream_url_keeps_scheme_host_and_port():
    assert origin_of("http://127.0.0.1:8000/mcp") == "http://127.0.0.1:8000"
    assert origin_of("https://example.test/mcp") == "https://example.test:443"
