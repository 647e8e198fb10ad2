"""The toy agent's shape builds (toy_agent_shapes.py): each build's help shows its shape, and only the right
invocation calls."""

from __future__ import annotations

from typing import Any

import pytest

from tests.proxy.clients.conftest import CONTENT, Lab, Ledger, run_agent

SHAPE_CALLS = {
    # variant: (help asked, what it shows, the right invocation, a wrong one); "URL" is the endpoint's URL
    "method-verb": (["--help"], "tools/call SERVER_URL NAME [ARGS_JSON]", ["tools/call", "URL", "status"],
                    ["call", "URL", "status"]),
    "method-flags": (["--help"], "--tool-name <name>", ["URL", "--method", "tools/call", "--tool-name", "status",
                     "--transport", "http"], ["URL", "--method", "tools/list"]),
    "tool-subcommands": (["--help"], "get-repo-status     Show the branch", ["get-repo-status", "--endpoint", "URL"],
                         ["get-repo-status", "URL"]),
    "tool-option": (["invoke", "--help"], "--tool NAME", ["invoke", "--url", "URL", "--tool", "status"],
                    ["invoke", "URL", "--tool", "status"]),
    "server-flag": (["mcp", "call", "--help"], "--server URL", ["mcp", "call", "--server", "URL", "status"],
                    ["mcp", "call", "URL", "status"]),
    "long-help": (["invoke", "--help"], "--tool NAME", ["invoke", "--url", "URL", "--tool", "status"],
                  ["invoke", "-h"]),
    "short-help": (["invoke", "-h"], "--tool NAME", ["invoke", "--url", "URL", "--tool", "status"],
                   ["invoke", "--help"]),
}  # fmt: skip


@pytest.mark.parametrize("variant", sorted(SHAPE_CALLS))
def test_each_shape_build_shows_its_shape_calls_the_tool_the_right_way_and_refuses_the_wrong_way(
    lab: Lab, endpoint: Any, ledger: Ledger, variant: str
) -> None:
    ask, shows, right, wrong = SHAPE_CALLS[variant]
    shown = run_agent(lab, "--variant", variant, *ask)
    assert shown.returncode == 0 and shows in shown.stdout, shown.stderr
    fill = [endpoint.url if part == "URL" else part for part in right]
    done = run_agent(lab, "--variant", variant, "--fix", "result-type", *fill)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"result: {CONTENT}")
    assert len(ledger.calls) == 1
    refused = run_agent(lab, "--variant", variant, *[endpoint.url if part == "URL" else part for part in wrong])
    assert refused.returncode == 2 and "usage: backchannel-toy-agent" in refused.stderr
    assert len(ledger.calls) == 1


def test_the_inspector_shaped_build_defaults_to_sse_and_fails_without_a_call(lab: Lab, endpoint: Any) -> None:
    done = run_agent(lab, "--variant", "method-flags", endpoint.url, "--method", "tools/call", "--tool-name", "status")
    assert done.returncode == 1 and "over SSE" in done.stderr


def test_the_per_tool_build_calls_the_tool_its_command_is_named_after(lab: Lab, endpoint: Any, ledger: Ledger) -> None:
    done = run_agent(lab, "--variant", "tool-subcommands", "get-repo-status", "--endpoint", endpoint.url, "--repo", "x")
    assert done.returncode == 0, done.stderr
    [seen] = ledger.calls
    assert seen.arguments == {"repo": "x"}


@pytest.mark.parametrize(
    ("variant", "refused", "answers"), [("long-help", "-h", "--help"), ("short-help", "--help", "-h")]
)
def test_the_help_twins_refuse_one_help_flag_and_answer_the_other(
    lab: Lab, variant: str, refused: str, answers: str
) -> None:
    bad = run_agent(lab, "--variant", variant, refused)
    assert bad.returncode == 2 and f"unknown option {refused!r}" in bad.stderr
    good = run_agent(lab, "--variant", variant, answers)
    assert good.returncode == 0 and "invoke          Invoke a tool on a remote MCP server" in good.stdout
