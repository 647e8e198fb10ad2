"""The toy agent's command line (toy_agent.py) as a subprocess: its help surfaces and usage errors; and the pure
helpers of its wire half (toy_agent_wire.py)."""

from __future__ import annotations

import pytest

from backchannel.proxy.clients.toy_agent_wire import form_content, header_value, sse_events
from tests.proxy.clients.conftest import Lab, run_agent

# --- help surfaces ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ask", [["--help"], ["-h"], ["help"]])
def test_help_request_lists_the_mcp_call_command_and_exits_0(lab: Lab, ask: list[str]) -> None:
    done = run_agent(lab, *ask)
    assert done.returncode == 0
    assert done.stdout.startswith("backchannel-toy-agent 0.1.0: a synthetic test target shipped with backchannel.")
    assert "deliberate, switchable flaws" in done.stdout
    assert "mcp call SERVER_URL TOOL [ARGS_JSON]" in done.stdout
    assert "Call a tool on a remote MCP server over Streamable HTTP and print its result" in done.stdout


@pytest.mark.parametrize("ask", [["mcp", "--help"], ["mcp", "help"], ["mcp", "call", "--help"]])
def test_mcp_help_request_lists_the_call_subcommand_and_exits_0(lab: Lab, ask: list[str]) -> None:
    done = run_agent(lab, *ask)
    assert done.returncode == 0
    assert "call SERVER_URL TOOL [ARGS_JSON]" in done.stdout


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frob"],
        ["mcp"],
        ["mcp", "frob"],
        ["mcp", "call", "http://127.0.0.1:1/mcp"],
        ["--variant", "nope", "help"],
        ["--fix", "nothing", "help"],
        ["mcp", "call", "ftp://x/", "t"],
        ["mcp", "call", "http://127.0.0.1:1/", "t", "[1]"],
    ],
)
def test_unknown_commands_and_bad_arguments_exit_2_with_a_usage_error(lab: Lab, argv: list[str]) -> None:
    done = run_agent(lab, *argv)
    assert done.returncode == 2
    assert "usage: backchannel-toy-agent" in done.stderr
    assert done.stdout == ""


def test_no_call_surface_variant_offers_only_chat_and_version(lab: Lab) -> None:
    helps = [run_agent(lab, "--variant", "no-call-surface", *ask) for ask in (["--help"], ["-h"], ["help"])]
    assert {h.returncode for h in helps} == {0}
    for word in ("mcp", "call", "tool", "server"):
        assert word not in helps[0].stdout.lower()
    assert "chat [TEXT]" in helps[0].stdout and "version" in helps[0].stdout
    for ask in (["mcp", "--help"], ["mcp", "help"], ["mcp", "call", "http://127.0.0.1:1/mcp", "t"]):
        assert run_agent(lab, "--variant", "no-call-surface", *ask).returncode == 2
    assert run_agent(lab, "--variant", "no-call-surface", "chat", "hi").returncode == 0
    assert "no-call-surface" in run_agent(lab, "--variant=no-call-surface", "version").stdout


# --- pure helpers ----------------------------------------------------------------------------------------------


def test_sse_events_skip_comments_and_join_multiline_data() -> None:
    lines = [b": ping\r\n", b"\r\n", b"event: message\n", b'data: {"a":\n', b"data:1}\n", b"\n", b"data: tail"]
    assert list(sse_events(iter(lines))) == ['{"a":\n1}', "tail"]


def test_header_values_that_are_not_plain_ascii_use_the_base64_sentinel() -> None:
    assert header_value("get_repo_status") == "get_repo_status"
    assert header_value("caf\u00e9") == "=?base64?Y2Fmw6k=?="
    assert header_value("=?base64?eA==?=") == "=?base64?PT9iYXNlNjQ/ZUE9PT89?="


def test_form_content_takes_first_choices_and_skips_unknown_types() -> None:
    schema = {
        "properties": {
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
            "pick": {"oneOf": [{"const": "x", "title": "X"}]},
            "blob": {"type": "object"},
        }
    }
    assert form_content(schema) == {"tags": ["a"], "pick": "x"}
