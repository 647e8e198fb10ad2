"""Discovery's parsers, pure: each call-surface shape found from a realistic help text, prose that mentions "call" or
"url" inventing nothing, the bound on candidates, the reasons kept for rejected ones, and the record's rendering."""

import pytest

from backchannel.proxy.run.discovery import (
    MAX_CANDIDATES,
    MAX_LISTINGS,
    MAX_URL_PREFIXES,
    NO_CALL,
    HelpOutput,
    call_paths,
    candidates,
    describe,
    discover,
    rejection,
    tool_template,
    transport_http,
    url_flag,
    url_prefixes,
)
from backchannel.proxy.run.steps import MODULE, steps_argv
from backchannel.recordings.json_form import json_text, parse_json
from backchannel.recordings.shapes import Discovery as DiscoveryRecord

TOOL = "get_repo_status"
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
METHOD_VERB_HELP = """usage: rpc-cli [-v] METHOD SERVER_URL [NAME] [PARAMS_JSON]

Send one MCP request to a remote server and print the answer.

methods:
  tools/list SERVER_URL                    List the tools a server offers
  tools/call SERVER_URL NAME [ARGS_JSON]   Call the tool NAME with ARGS_JSON (a JSON object)
"""
REQUEST_HELP = """Usage: mcp-curl [OPTIONS] COMMAND [ARGS]...

Options:
  --help  Show this message and exit.

Commands:
  ping URL                     Check that a server answers
  request METHOD URL [PARAMS]  Send one JSON-RPC request (tools/list, tools/call, ...) to an MCP server
"""
INSPECTOR_HELP = """Usage: inspector-cli [options] [target...]

Arguments:
  target                  Command and arguments or URL of the MCP server

Options:
  -e <env>                environment variables in KEY=VALUE format (default: {})
  --config <path>         config file path
  --server <name>         server name from the config file
  --transport <type>      transport type (stdio, sse, http)
  --header <headers...>   HTTP headers as "HeaderName: Value" pairs
  --method <method>       Method to invoke
  --tool-name <toolName>  Tool name (for tools/call method)
  --tool-arg <pairs...>   Tool argument as key=value pair
  -h, --help              display help for command
"""
CLICK_TOOLS_HELP = """Usage: repo-tools [OPTIONS] COMMAND [ARGS]...

  A CLI generated from the repo-status MCP server: one command per tool.

Options:
  --url TEXT  Streamable HTTP URL of the MCP server  [required]
  --help      Show this message and exit.

Commands:
  get_repo_status  Show the branch and sync state of a repository.
  list_branches    List the branches of a repository.
"""
KEBAB_TOOLS_HELP = """usage: repo [-h] COMMAND ...

tool commands:
  get-repo-status SERVER_URL [--repo NAME]
                        Show the branch and sync state of a repository
  list-branches SERVER_URL
                        List the branches of a repository
"""
TOOL_OPTION_TOP = """Usage: mcpx [OPTIONS] COMMAND [ARGS]...

Commands:
  cmd    Run one tool on an MCP server, non-interactively
  chat   Start an interactive chat
"""
TOOL_OPTION_CMD = """Usage: mcpx cmd [OPTIONS]

  Run one tool on an MCP server, non-interactively.

Options:
  -s, --server-url string   Streamable HTTP URL of the MCP server
  --tool TEXT               Tool to call
  --tool-args TEXT          JSON arguments for the tool
  --help                    Show this message and exit.
"""
SERVER_FLAG_CALL = """usage: toy mcp call --server URL TOOL [ARGS_JSON]

options:
  --server URL    The MCP server's URL (http:// or https://); required
  -h, --help      Show this help
"""
PROSE = """MyTool 2.0 - a build helper.

To call a tool from a script, first add a server URL to ~/.config/mytool.toml.
  then call it by name: the server is remembered
  you can call any tool on the server once connected
  see tools/call in the MCP specification for details
  --url is read from the config file; set it with the config command

Options:
  --server NAME   Name of a server in your config file
  --tool NAME     Compiler tool to use (gcc, clang)
  -h, --help      Show this help
"""


def out(text: str, *probe: str, code: int = 0) -> HelpOutput:
    return HelpOutput(probe or ("--help",), code, text)


def test_a_call_subcommand_about_tools_on_a_server_is_found():
    assert call_paths(out(TOY_HELP)) == [("mcp", "call")]
    assert call_paths(out(FASTMCP_HELP)) == [("call",)]
    assert candidates(["toy"], [out(TOY_HELP)], {}) == [("toy", "mcp", "call", "{url}", TOOL)]


def test_a_subcommand_help_is_prefixed_with_its_subcommand_and_its_own_usage_is_not_doubled():
    assert call_paths(out("  call URL TOOL   call a tool", "mcp", "--help")) == [("mcp", "call")]
    usage = "usage: toy mcp call SERVER_URL TOOL   call a tool on a server"
    assert call_paths(out(usage, "mcp", "call", "--help")) == [("mcp", "call")]


def test_a_tools_call_method_verb_is_found_with_the_url_where_its_usage_puts_it():
    assert candidates(["rpc-cli"], [out(METHOD_VERB_HELP)], {}) == [("rpc-cli", "tools/call", "{url}", TOOL)]
    tool_first = "methods:\n  tools/call NAME SERVER_URL   Call the tool NAME on the server\n"
    assert candidates(["r"], [out(tool_first)], {}) == [("r", "tools/call", TOOL, "{url}")]


def test_a_request_command_whose_method_may_be_tools_call_is_found():
    assert candidates(["mcp-curl"], [out(REQUEST_HELP)], {}) == [("mcp-curl", "request", "tools/call", "{url}", TOOL)]


def test_the_inspector_flag_pair_is_found_and_http_transport_is_tried_as_an_extra():
    assert candidates(["inspector-cli"], [out(INSPECTOR_HELP)], {}) == [
        ("inspector-cli", "{url}", "--method", "tools/call", "--tool-name", TOOL),
        ("inspector-cli", "{url}", "--method", "tools/call", "--tool-name", TOOL, "--transport", "http"),
    ]


def test_one_subcommand_per_tool_is_found_when_one_is_named_after_the_endpoints_tool():
    # click: the group's --url goes before the subcommand
    assert candidates(["repo-tools"], [out(CLICK_TOOLS_HELP)], {}) == [("repo-tools", "--url", "{url}", TOOL)]
    # kebab case, the URL positional after the tool's command
    assert candidates(["repo"], [out(KEBAB_TOOLS_HELP)], {}) == [("repo", "get-repo-status", "{url}")]
    # a per-tool CLI without the endpoint's tool offers nothing to call
    assert candidates(["repo"], [out(KEBAB_TOOLS_HELP)], {}, tools=("delete_repo",)) == []


def test_a_tool_option_on_a_command_is_found_from_that_commands_own_help():
    found = candidates(["mcpx"], [out(TOOL_OPTION_TOP)], {("cmd",): TOOL_OPTION_CMD})
    assert found == [("mcpx", "cmd", "--server-url", "{url}", "--tool", TOOL)]


def test_a_server_url_flag_puts_the_url_after_the_flag_and_only_a_url_flag_counts():
    assert candidates(["toy"], [out(TOY_HELP.replace("SERVER_URL", "--server URL"))], {}) == [
        ("toy", "mcp", "call", "{url}", TOOL)  # no help of `mcp call` read: positional, as before
    ]
    help_ = TOY_HELP.replace("SERVER_URL", "--server URL")
    found = candidates(["toy"], [out(help_)], {("mcp", "call"): SERVER_FLAG_CALL})
    assert found == [("toy", "mcp", "call", "--server", "{url}", TOOL)]
    assert url_flag("  --endpoint URL   the MCP endpoint\n") == "--endpoint"
    assert url_flag("  -u, --url string   MCP server URL (http://...)\n") == "--url"
    assert url_flag("  --server NAME   Name of a server in your config file\n") is None
    assert transport_http("  --transport -t CHOICE   Force transport type (http or sse)\n") == "http"
    assert transport_http("  --transport <t>   one of: stdio, sse, streamable-http\n") == "streamable-http"
    assert transport_http("  --transport <t>   stdio only\n") is None


def test_an_advertised_auth_none_choice_is_tried_first():
    found = candidates(["fastmcp"], [out(FASTMCP_HELP)], {("call",): "--auth [oauth|none]"})
    assert found[0][-2:] == ("--auth", "none")
    assert found[1] == ("fastmcp", "call", "{url}", TOOL)


def test_prose_that_mentions_call_url_server_or_tools_call_invents_no_surface():
    assert candidates(["mytool"], [out(PROSE), out(PROSE, "-h")], {}) == []
    assert url_flag(PROSE) is None
    result = discover(["mytool"], lambda probe: out(PROSE, *probe), lambda c: None)
    assert result.status == "no-mcp-call-surface"


def test_a_subcommand_probe_that_failed_cannot_invent_a_surface():
    error = HelpOutput(("mcp", "help"), 2, "error: unknown command 'mcp'; try: call URL TOOL")
    assert not error.counts
    assert candidates(["x"], [error], {}) == []
    assert not HelpOutput(("-h",), 2, "error: unknown shorthand flag: 'h' in -h\n").counts


@pytest.mark.parametrize(("good", "bad"), [("--help", "-h"), ("-h", "--help")])
def test_help_is_read_from_whichever_flag_answers_at_the_top_and_for_a_subcommand(good, bad):
    sub = {good: TOOL_OPTION_CMD, bad: f"error: unknown option '{bad}'\nusage: mcpx cmd [OPTIONS]\n"}
    asked = []

    def run_help(probe):
        asked.append(probe)
        if probe[-1] == bad:
            return HelpOutput(probe, 2, sub[bad] if probe[0] == "cmd" else f"error: unknown option '{bad}'")
        return HelpOutput(probe, 0, TOOL_OPTION_CMD if probe[0] == "cmd" else TOOL_OPTION_TOP)

    result = discover(["mcpx"], run_help, lambda c: None)
    assert result.invocation == ("mcpx", "cmd", "--server-url", "{url}", "--tool", TOOL)
    assert ("cmd", good) in asked
    # help printed with a non-zero exit still counts when it is help
    assert HelpOutput(("--help",), 1, "Usage: x [OPTIONS]\n  call URL TOOL  call a tool\n").counts


def test_a_cli_that_answers_an_unknown_subcommand_with_its_top_help_is_not_read_twice():
    found = candidates(["i"], [out(INSPECTOR_HELP), out(INSPECTOR_HELP, "mcp", "--help")], {})
    assert len(found) == 2 and all(c[1] == "{url}" for c in found)


def test_no_call_surface_means_no_candidates_and_the_ledger_is_never_asked():
    asked = []
    result = discover(
        ["x"], lambda probe: HelpOutput(probe, 0, "  chat  talk\n  version  v"), lambda c: asked.append(c)
    )
    assert result.status == "no-mcp-call-surface" and asked == []


def test_the_ledger_disposes_candidates_that_made_no_call_and_each_rejection_keeps_its_reason():
    result = discover(["toy"], lambda probe: HelpOutput(probe, 0, TOY_HELP), lambda c: rejection("exited", 2))
    assert result.status == "no-tools-call-reached-the-mock"
    assert result.tried == (("toy", "mcp", "call", "{url}", TOOL),)
    assert result.rejected == ((result.tried[0], f"exit 2, {NO_CALL}"),)


def test_the_first_candidate_the_ledger_confirms_is_the_invocation():
    result = discover(["toy"], lambda probe: HelpOutput(probe, 0, TOY_HELP), lambda c: None)
    assert result.status == "found" and result.invocation == ("toy", "mcp", "call", "{url}", TOOL)
    assert result.rejected == ()


def test_discovery_is_bounded_and_tries_at_most_the_cap():
    many = "commands:\n" + "".join(f"  group{n} call URL TOOL   call a tool on a server\n" for n in range(12))
    result = discover(["x"], lambda probe: HelpOutput(probe, 0, many), lambda c: rejection("timeout", None))
    assert len(result.candidates) == 12 and len(result.tried) == MAX_CANDIDATES == len(result.rejected)
    assert {reason for _, reason in result.rejected} == {f"timeout, {NO_CALL}"}


def test_describe_renders_the_outcome_each_candidate_tried_and_why_each_was_rejected():
    plain = ("i", "{url}", "--method", "tools/call", "--tool-name", TOOL)
    http = (*plain, "--transport", "http")
    record = DiscoveryRecord(
        status="found", invocation=http, candidates=(plain, http), tried=(plain, http),
        rejected=((plain, f"exit 1, {NO_CALL}"),),
    )  # fmt: skip
    assert describe(record) == [
        "discovery: found the call surface",
        f"  invocation: i '{{url}}' --method tools/call --tool-name {TOOL} --transport http",
        f"  tried 2 of 2 candidates (at most {MAX_CANDIDATES})",
        f"    rejected   i '{{url}}' --method tools/call --tool-name {TOOL}  (exit 1, {NO_CALL})",
        f"    confirmed  i '{{url}}' --method tools/call --tool-name {TOOL} --transport http  (the ledger saw its "
        "tools/call)",
    ]
    assert describe(DiscoveryRecord(status="no-mcp-call-surface")) == [
        "discovery: no-mcp-call-surface (the help shows no way to call a tool on a server)"
    ]
    skipped = DiscoveryRecord(status="no-tools-call-reached-the-mock", candidates=(plain, http), tried=(plain,))
    assert describe(skipped)[-2:] == [
        f"    rejected   i '{{url}}' --method tools/call --tool-name {TOOL}  ({NO_CALL})",
        f"    not tried  i '{{url}}' --method tools/call --tool-name {TOOL} --transport http  (past the bound)",
    ]


def test_the_discovery_record_keeps_rejections_and_reads_records_written_before_them():
    record = DiscoveryRecord(status="found", invocation=("c", "{url}"), tried=(("b",), ("c", "{url}")),
                             rejected=((("b",), "exit 2, no tools/call reached the endpoint"),))  # fmt: skip
    assert DiscoveryRecord.from_json(parse_json(json_text(record.to_json()))) == record
    older = '{"status":"found","invocation":["c","{url}"],"candidates":[["c","{url}"]],"tried":[["c","{url}"]]}'
    read = DiscoveryRecord.from_json(parse_json(older))
    assert read is not None and read.rejected == () and "rejected" not in read.to_json()
    assert json_text(read.to_json()) == older
    damaged = DiscoveryRecord.from_json({"status": "found", "rejected": [[["a"], "r"], [["b"]], ["c", "r"], 3, {}]})
    assert damaged is not None and damaged.rejected == ((("a",), "r"),)


def test_hostile_help_text_is_read_in_linear_time():
    # a flag's metavar can be read two ways; a line of forty such flags ending in prose must not backtrack 2**40 ways
    hostile = "\n".join(["  call " + " ".join(["--x A"] * 40) + " then prose", "  usage: x " + "[--a B] " * 3000] * 50)
    assert candidates(["x"], [out(hostile)], {}) == []


UI_TOOLS = ("connect_account", "open_dashboard", "confirm_change", "show_notice", "get_notice")


def test_a_confirmed_invocation_naming_a_tool_as_given_becomes_a_template_for_every_tool():
    template = tool_template(("toy", "mcp", "call", "{url}", "connect_account", "--auth", "none"), UI_TOOLS)
    assert template is not None and not template.dashed
    assert template.argv == ("toy", "mcp", "call", "{url}", "{tool}", "--auth", "none")
    assert template.argv_for("show_notice") == ("toy", "mcp", "call", "{url}", "show_notice", "--auth", "none")


def test_a_per_tool_subcommand_listed_dashed_keeps_the_dashed_form_for_every_tool():
    help_text = "usage: ui [-h] COMMAND ...\n\ntool commands:\n  open-dashboard SERVER_URL\n      Open the dashboard\n"
    [found] = candidates(["ui"], [out(help_text)], {}, tools=UI_TOOLS)
    assert found == ("ui", "open-dashboard", "{url}")
    template = tool_template(found, UI_TOOLS)
    assert template is not None and template.dashed and template.argv == ("ui", "{tool}", "{url}")
    assert [template.argv_for(tool)[1] for tool in UI_TOOLS] == [
        "connect-account",
        "open-dashboard",
        "confirm-change",
        "show-notice",
        "get-notice",
    ]


def test_a_tool_named_in_a_flag_value_is_templated_in_that_flag_value():
    separate = tool_template(("mcpx", "invoke", "--url", "{url}", "--tool", "confirm_change"), UI_TOOLS)
    assert separate is not None and separate.argv == ("mcpx", "invoke", "--url", "{url}", "--tool", "{tool}")
    joined = tool_template(("mcpx", "invoke", "--url={url}", "--tool=confirm_change"), UI_TOOLS)
    assert joined is not None and joined.argv_for("get_notice") == (
        "mcpx",
        "invoke",
        "--url={url}",
        "--tool=get_notice",
    )


def test_an_invocation_naming_none_of_the_tools_has_no_template():
    assert tool_template(("toy", "mcp", "call", "{url}", "get_repo_status"), UI_TOOLS) is None
    assert tool_template(("toy", "mcp", "call", "{url}", "connect_accounts", "--x=connect_account_"), UI_TOOLS) is None
    assert tool_template((), UI_TOOLS) is None


def test_only_the_last_naming_of_a_tool_is_templated_so_a_base_command_of_the_same_name_stays():
    template = tool_template(("get_notice", "call", "{url}", "get_notice"), UI_TOOLS)
    assert template is not None and template.argv == ("get_notice", "call", "{url}", "{tool}")


# ---------------------------------------------------------------------------------------------- URL first, steps

GENERATED_TOP = """usage: gen [--url URL] COMMAND [OPTIONS]

A client generated from a remote MCP server: its commands are the server's tools.

options:
  --url URL   The MCP server's Streamable HTTP URL
commands:
  tools       List the server's tools as commands (needs --url)
"""
GENERATED_AFTER_URL = """tool commands of this server:
  get-repo-status   Show the branch and sync state of a repository.
  list-branches     List the branches.
"""
LIST_OPTION_TOP = """usage: lst --server-url URL [--list] [COMMAND [ARGS_JSON]]

options:
  --server-url URL  The MCP server's URL (required)
  --list            List the server's tools and exit
"""
LISTED = "tools:\n  get_repo_status   Show the branch.\n  other_tool        Something else.\n"
SESSION_HELP = """usage: sess COMMAND ...

commands:
  connect SERVER_URL      Open a session with a remote MCP server
  call TOOL [ARGS_JSON]   Call a tool on the connected server
"""


def scripted(answers: dict[tuple[str, ...], HelpOutput], default: HelpOutput) -> tuple[list[tuple[str, ...]], object]:
    """A run_help that answers some probes and fails the rest, remembering what it was asked."""
    asked: list[tuple[str, ...]] = []

    def run_help(probe: tuple[str, ...]) -> HelpOutput:
        asked.append(probe)
        answer = answers.get(probe, default)
        return HelpOutput(probe, answer.exit_code, answer.text)

    return asked, run_help


def test_a_cli_whose_tool_commands_show_only_after_the_url_flag_is_read_again_after_it():
    failing = HelpOutput((), 2, "gen: unknown command")
    asked, run_help = scripted(
        {("--help",): out(GENERATED_TOP), ("--url", "{url}", "--help"): out(GENERATED_AFTER_URL)}, failing
    )
    result = discover(["gen"], run_help, lambda c: None)  # type: ignore[arg-type]
    assert result.status == "found" and result.invocation == ("gen", "--url", "{url}", "get-repo-status")
    assert ("--url", "{url}", "--help") in asked


def test_a_list_option_is_run_after_the_url_and_its_output_read_for_the_tools():
    failing = HelpOutput((), 2, "lst: --server-url is required")
    answers = {
        ("--help",): out(LIST_OPTION_TOP),
        ("--server-url", "{url}", "--help"): out(LIST_OPTION_TOP),
        ("--server-url", "{url}", "--list"): HelpOutput((), 0, LISTED),
    }
    asked, run_help = scripted(answers, failing)
    result = discover(["lst"], run_help, lambda c: None)  # type: ignore[arg-type]
    assert result.invocation == ("lst", "--server-url", "{url}", TOOL)
    assert asked.count(("--server-url", "{url}", "--list")) == 1


def test_a_cli_whose_every_help_fails_until_the_url_is_given_is_read_after_a_positional_url():
    refusal = HelpOutput((), 2, "cli: the server URL comes first; try: cli <server-url> --help")
    after = "usage: cli <server-url> COMMAND\n  tools-call NAME [ARGS_JSON]   Call a tool of this server\n"
    asked, run_help = scripted({("{url}", "--help"): out(after)}, refusal)
    result = discover(["cli"], run_help, lambda c: None)  # type: ignore[arg-type]
    assert result.invocation == ("cli", "{url}", "tools-call", TOOL)


def test_a_cli_that_mentions_no_url_is_not_probed_after_one():
    asked, run_help = scripted({}, HelpOutput((), 0, "  chat  talk\n  version  v"))
    assert discover(["x"], run_help, lambda c: None).status == "no-mcp-call-surface"  # type: ignore[arg-type]
    assert all("{url}" not in probe for probe in asked)


def test_url_first_probing_is_bounded_whatever_the_help_names():
    every = "options:\n" + "".join(f"  {flag} URL   the server URL\n" for flag in ("--url", "--server", "--endpoint"))
    every += "  --list   list the tools\ncommands:\n  tools   list the server's tools\n  list-tools  list tools\n"
    asked, run_help = scripted({}, HelpOutput((), 0, every))
    assert discover(["x"], run_help, lambda c: None).status == "no-mcp-call-surface"  # type: ignore[arg-type]
    after_url = [probe for probe in asked if "{url}" in probe]
    assert len(after_url) <= MAX_URL_PREFIXES * (2 + MAX_LISTINGS)


def test_a_call_that_takes_no_url_beside_a_connect_command_is_tried_first_as_two_steps():
    found = candidates(["sess"], [out(SESSION_HELP)], {})
    assert found[0] == steps_argv(("sess", "connect", "{url}"), ("sess", "call", TOOL))
    assert ("sess", "call", "{url}", TOOL) in found[1:]  # the guesses without a session stay, later


def test_a_connect_command_that_needs_more_than_the_url_proposes_no_steps():
    named = SESSION_HELP.replace("connect SERVER_URL   ", "connect SERVER_URL NAME")
    assert all(MODULE not in c for c in candidates(["sess"], [out(named)], {}))
    session_open = SESSION_HELP.replace("connect SERVER_URL   ", "session open --url URL")
    assert candidates(["s"], [out(session_open)], {})[0] == steps_argv(
        ("s", "session", "open", "--url", "{url}"), ("s", "call", TOOL)
    )


def test_a_call_whose_help_does_not_say_where_the_url_goes_is_tried_both_ways():
    assert candidates(["fast"], [out(FASTMCP_HELP)], {}) == [
        ("fast", "call", "{url}", TOOL),
        ("fast", "call", TOOL, "{url}"),
    ]


MCPORTER_CALL = """Usage: porter call [options] <selector|url> [args...]

  https://host/mcp.tool   Call a tool by full HTTP URL

Options:
  --http-url <url>        The server's URL
  --allow-http            Permit plain http:// URLs
  -h, --help              display help for command
"""


def test_a_flag_that_permits_plain_http_is_added_first_when_the_help_offers_it():
    top = "Usage: porter [command]\n\nCommands:\n  call  Call a tool by selector (server.tool) or HTTP URL\n"
    found = candidates(["porter"], [out(top)], {("call",): MCPORTER_CALL})
    assert found[0] == ("porter", "call", "{url}", TOOL, "--allow-http")
    assert ("porter", "call", "{url}", TOOL) in found


def test_a_server_flag_whose_value_is_a_name_is_not_tried_as_a_way_to_give_the_url():
    named = out("Options:\n  --server <name>   Server to connect to, from the config file\n  --url URL   its URL\n")
    assert url_prefixes([named]) == [("--url", "{url}"), ("{url}",)]
    assert url_prefixes([out("error: --server NAME is required")]) == []
    assert url_prefixes([out("error: --url URL is required")]) == [("--url", "{url}"), ("{url}",)]


def test_a_command_whose_help_only_help_command_gives_is_read_that_way():
    top = "usage: m [command]\ncommands:\n  call <server> <tool>   Call a tool on an MCP server\n"
    sub = "usage: m call SERVER_URL TOOL\n"
    answers = {("help",): out(top, "help"), ("--help",): out(top), ("help", "call"): out(sub, "help", "call")}
    asked, run_help = scripted(answers, HelpOutput((), 2, "unknown option"))
    result = discover(["m"], run_help, lambda c: None)  # type: ignore[arg-type]
    assert ("help", "call") in asked and result.invocation == ("m", "call", "{url}", TOOL)
