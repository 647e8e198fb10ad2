from backchannel.proxy.run.discovery import HelpOutput, call_paths, candidates, discover

TOY_HELP = """usage: toy COMMAND
commands:
  mcp call SERVER_URL TOOL [ARGS_JSON]
                  Call a tool on a remote MCP server over Streamable HTTP
  chat [TEXT]     Say something
"""
FASTMCP_HELP = """╭─ Commands ─────────────────────────────────────────╮
│ call       Call a tool, resource, or prompt on an MCP server │
│ list       List tools                                         │
╰────────────────────────────────────────────────────────────────╯"""


def test_a_call_subcommand_about_tools_on_a_server_is_found():
    assert call_paths(HelpOutput(("--help",), 0, TOY_HELP)) == [("mcp", "call")]
    assert call_paths(HelpOutput(("--help",), 0, FASTMCP_HELP)) == [("call",)]


def test_a_subcommand_help_is_prefixed_with_its_subcommand():
    assert call_paths(HelpOutput(("mcp", "--help"), 0, "  call URL TOOL   call a tool")) == [("mcp", "call")]


def test_a_subcommand_probe_that_failed_cannot_invent_a_surface():
    error = HelpOutput(("mcp", "help"), 2, "error: unknown command 'mcp'; try: call URL TOOL")
    assert not error.counts
    assert candidates(["x"], [error], {}) == []


def test_an_advertised_auth_none_choice_is_tried_first():
    found = candidates(["fastmcp"], [HelpOutput(("--help",), 0, FASTMCP_HELP)], {("call",): "--auth [oauth|none]"})
    assert found[0][-2:] == ("--auth", "none")
    assert found[1] == ("fastmcp", "call", "{url}", "get_repo_status")


def test_no_call_surface_means_no_candidates_and_the_ledger_is_never_asked():
    asked = []
    result = discover(
        ["x"], lambda probe: HelpOutput(probe, 0, "  chat  talk\n  version  v"), lambda c: asked.append(c) or True
    )
    assert result.status == "no-mcp-call-surface" and asked == []


def test_the_ledger_disposes_candidates_that_made_no_call():
    result = discover(["toy"], lambda probe: HelpOutput(probe, 0, TOY_HELP), lambda c: False)
    assert result.status == "no-tools-call-reached-the-mock"
    assert result.tried == (("toy", "mcp", "call", "{url}", "get_repo_status"),)


def test_the_first_candidate_the_ledger_confirms_is_the_invocation():
    result = discover(["toy"], lambda probe: HelpOutput(probe, 0, TOY_HELP), lambda c: True)
    assert result.status == "found" and result.invocation == ("toy", "mcp", "call", "{url}", "get_repo_status")
