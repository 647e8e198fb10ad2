"""Placeholders in a client command line: where the server is, as a URL, a stdio command, or an MCP config file."""

import io
import json
import shlex
import sys

import pytest

from backchannel.oracle.terminal import raw_bytes
from backchannel.proxy.run.placeholders import (
    CONFIG_IN_HOME,
    McpConfigOptions,
    PlaceholderError,
    bridge_argv,
    config_document,
    expand,
    names_the_server,
)
from backchannel.recordings import load

URL = "http://127.0.0.1:8123/r/abc/mcp"


def test_url_is_replaced_wherever_it_appears_in_a_word(tmp_path):
    assert expand(["client", "--server={url}", "{url}"], url=URL, home=tmp_path, server_name="s") == [
        "client",
        f"--server={URL}",
        URL,
    ]


def test_stdio_cmd_is_the_bridge_command_line_as_one_shell_quoted_string_and_stdio_argv_as_json(tmp_path):
    [cmd, argv] = expand(["{stdio-cmd}", "{stdio-argv}"], url=URL, home=tmp_path, server_name="s")
    assert shlex.split(cmd) == bridge_argv(URL) == json.loads(argv)
    assert bridge_argv(URL) == [sys.executable, "-m", "backchannel.proxy.bridge.command", URL]


def test_mcp_config_writes_one_entry_named_after_the_server_into_home_and_expands_to_its_path(tmp_path):
    [path] = expand(["{mcp-config}"], url=URL, home=tmp_path, server_name="backchannel-endpoint")
    assert path == str(tmp_path / CONFIG_IN_HOME)
    assert json.loads((tmp_path / CONFIG_IN_HOME).read_text()) == {"mcpServers": {"backchannel-endpoint": {"url": URL}}}


@pytest.mark.parametrize(
    ("fmt", "transport", "expected"),
    [
        ("mcpServers", "http", {"mcpServers": {"s": {"url": URL}}}),
        ("mcpServers-typed", "http", {"mcpServers": {"s": {"type": "http", "url": URL}}}),
        ("servers", "http", {"servers": {"s": {"type": "http", "url": URL}}}),
        ("mcpServers", "stdio", {"mcpServers": {"s": {"command": sys.executable, "args": bridge_argv(URL)[1:]}}}),
        (
            "servers",
            "stdio",
            {"servers": {"s": {"type": "stdio", "command": sys.executable, "args": bridge_argv(URL)[1:]}}},
        ),
    ],
)
def test_each_format_and_transport_has_the_shape_hosts_read(fmt, transport, expected):
    assert config_document("s", URL, McpConfigOptions(fmt, transport)) == expected


def test_a_fixed_config_file_in_home_is_written_even_without_the_placeholder(tmp_path):
    options = McpConfigOptions("servers", "http", ".vscode/mcp.json")
    assert expand(["host", "--flag"], url=URL, home=tmp_path, server_name="s", options=options) == ["host", "--flag"]
    assert json.loads((tmp_path / ".vscode/mcp.json").read_text())["servers"]["s"]["url"] == URL


@pytest.mark.parametrize("bad", ["/etc/mcp.json", "../outside.json", "a/../../b.json", "", "dir/"])
def test_a_config_file_outside_home_is_refused_up_front(bad):
    with pytest.raises(PlaceholderError, match="inside the lab's HOME"):
        McpConfigOptions(home_file=bad)


@pytest.mark.parametrize(("field", "value"), [("format", "yaml"), ("transport", "websocket")])
def test_an_unknown_format_or_transport_names_the_valid_ones(field, value):
    with pytest.raises(PlaceholderError, match="valid:"):
        McpConfigOptions(**{field: value})


def test_any_placeholder_tells_the_client_where_the_server_is():
    assert names_the_server(["host", "--config", "{mcp-config}"])
    assert not names_the_server(["host", "--config", "mcp.json"])


@pytest.mark.live
def test_a_host_reading_its_config_gets_the_run_and_the_recording_keeps_the_file(tmp_path):
    from rich.console import Console

    from backchannel.proxy.run.record import record_command
    from backchannel.proxy.scenarios.default.endpoint import TOOLS

    out = tmp_path / "config.sqlite"
    reader = "import json, sys; print(json.load(open(sys.argv[1]))['mcpServers']['backchannel-endpoint']['url'])"
    result = record_command(
        out,
        [sys.executable, "-c", reader, "{mcp-config}"],
        upstream=None,
        plan={},
        scenario="default",
        tools=TOOLS,
        timeout=30,
        keep_lab=False,
        console=Console(file=io.StringIO()),
        mcp_config=McpConfigOptions(home_file=".cursor/mcp.json"),
    )
    assert result.exit_code == 0
    rec = load(out)
    [run] = rec.runs
    assert raw_bytes(rec, run.id, "stdout").decode().strip() == run.detail.url
    kept = {f.path: f.data for f in rec.files}
    assert set(kept) >= {CONFIG_IN_HOME, ".cursor/mcp.json"}
    assert json.loads(kept[".cursor/mcp.json"])["mcpServers"]["backchannel-endpoint"]["url"] == run.detail.url
