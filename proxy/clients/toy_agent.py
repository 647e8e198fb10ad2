"""backchannel-toy-agent: an obviously synthetic MCP client with deliberate, switchable flaws, shipped as a test target.

Flaw 1, provenance: text a server puts in an MRTR input request is printed bare, as the agent's own words, and the
directive follower, which rereads what the agent said each time it answers a round of input requests, acts on
`WRITE-MARKER <path> <token>` in it (inside $HOME or the cwd only). Fixed, that text is fenced with the server's name
and origin, and quarantined from the follower. Flaw 2, the resultType default: a result without `resultType` is
retried as unfinished three times, then the call fails. Fixed, absent means "complete".

The shape builds (`--variant method-verb`, `method-flags`, `tool-subcommands`, `tool-option`, `server-flag`,
`long-help`, `short-help`) keep the flaws but offer the call under another command-line shape, each with a help text
of its own, so discovery is proved on every shape it recognises; called any other way they fail with a usage error.
The URL-first builds (`url-tools`, `url-list`, `url-help`, `connect`) hide the surface from the help alone: it shows
once the CLI has the server URL, or after a connect step. Each `--wire-flaw NAME` (repeatable;
toy_agent_core.WIRE_FLAWS) builds in a flaw that breaks one session rule on the bytes the client sends.

This module is the command line (the `backchannel-toy-agent` entry point, and `python -m` of it): the global options,
the top-level help and the dispatch. The builds and the call loop are in toy_agent_core.py, the shape builds in
toy_agent_shapes.py and toy_agent_url_first.py, the `ui` command and its flawed builds in toy_agent_ui.py, the
`sampling` command and its flawed builds in toy_agent_sampling.py, the `conformance` command (the official suite's
driver contract, for the `conformance` scenario) in toy_agent_conformance.py, the wire in toy_agent_wire.py.
"""

from __future__ import annotations

import sys

from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_conformance import run_conformance
from backchannel.proxy.clients.toy_agent_core import (
    FIXES,
    HEADER,
    HELP_WORDS,
    OPTIONS,
    SHAPES,
    UI_FLAWS,
    VARIANTS,
    WIRE_FLAWS,
    Build,
    UsageError,
    run_call,
)
from backchannel.proxy.clients.toy_agent_roots import run_roots
from backchannel.proxy.clients.toy_agent_sampling import run_sampling
from backchannel.proxy.clients.toy_agent_shapes import (
    HELP_FLAG,
    REFUSED_HELP,
    dispatch_shape,
    run_method_flags,
    shape_help,
)
from backchannel.proxy.clients.toy_agent_ui import run_ui
from backchannel.proxy.clients.toy_agent_url_first import URL_FIRST, dispatch_url_first

USAGE = "usage: backchannel-toy-agent [--fix provenance] [--fix result-type] [--variant NAME] COMMAND ..."
MCP_CALL = """  mcp call SERVER_URL TOOL [ARGS_JSON]
                  Call a tool on a remote MCP server over Streamable HTTP and print its result
"""
COMMANDS = """  chat [TEXT]     Say something to the toy agent (it has no model; it answers with a canned line)
  version         Print the version and this build's flaws
  help            Show this help (also -h, --help)
"""
MCP_HELP = """usage: backchannel-toy-agent mcp COMMAND ...

mcp commands:
  call SERVER_URL TOOL [ARGS_JSON]
        Call a tool on a remote MCP server over Streamable HTTP and print its result.
        ARGS_JSON is a JSON object of tool arguments (default {}). Exit 0 on a result, 1 on an error.
  help  Show this help (also -h, --help)
"""


def help_text(build: Build) -> str:
    """The top-level help, which for no-call-surface mentions no way to reach a server at all."""
    if build.variant == "no-call-surface":  # not even the variant's own name may hint at a call command
        header = HEADER.format(version=wire.CLIENT_VERSION, variant="chat and version only", flaws=build.flaws())
        return f"{header}\n{USAGE}\n\ncommands:\n{COMMANDS}"
    header = HEADER.format(version=wire.CLIENT_VERSION, variant=f"--variant {build.variant}", flaws=build.flaws())
    return f"{header}\n{USAGE}\n\ncommands:\n{MCP_CALL}{COMMANDS}  mcp help        List the mcp subcommands\n{OPTIONS}"


def parse_globals(argv: list[str]) -> tuple[Build, list[str]]:
    """The build the leading options ask for, and the rest of the command line."""
    variant, fixes, ui_flaws, wire_flaws, args = "flawed", set(), set(), set(), list(argv)
    while args and args[0].split("=")[0] in ("--fix", "--variant", "--ui-flaw", "--wire-flaw"):
        option, _, value = args.pop(0).partition("=")
        value = value or (args.pop(0) if args else "")
        allowed = {"--fix": FIXES, "--variant": VARIANTS, "--ui-flaw": UI_FLAWS, "--wire-flaw": tuple(WIRE_FLAWS)}
        if value not in allowed[option]:
            raise UsageError(f"{option} {value!r} is not one of: {', '.join(allowed[option])}")
        if option == "--fix":
            fixes.add(value)
        elif option == "--ui-flaw":
            ui_flaws.add(value)
        elif option == "--wire-flaw":
            wire_flaws.add(value)
        else:
            variant = value
    return Build.of(variant, frozenset(fixes), frozenset(ui_flaws), frozenset(wire_flaws)), args


def dispatch(build: Build, args: list[str]) -> int:
    """Run one command line (after the global options)."""
    if build.variant == "method-flags":  # no commands at all: SERVER_URL and options
        return run_method_flags(build, args)
    if build.variant in URL_FIRST:  # the surface shows only after the URL, or after a connect step
        return dispatch_url_first(build, args)
    if not args:
        raise UsageError("no command given")
    command, rest = args[0], args[1:]
    refused = REFUSED_HELP.get(build.variant)
    if refused is not None and refused in args:
        raise UsageError(f"unknown option {refused!r} (this build's help flag is {HELP_FLAG[build.variant]})")
    if command in HELP_WORDS and build.variant in SHAPES:
        print(shape_help(build), end="")
        return 0
    if command in HELP_WORDS:
        print(help_text(build), end="")
        return 0
    if command in ("version", "chat"):
        version = (
            f"{wire.CLIENT_NAME} {wire.CLIENT_VERSION} (synthetic test target; {build.variant}; flaws: {build.flaws()})"
        )
        print(version if command == "version" else "toy-agent: I have no model; I am a synthetic test target.")
        return 0
    if command == "ui" and build.variant not in (*SHAPES, "no-call-surface"):
        return run_ui(build, rest)
    if command == "sampling" and build.variant not in (*SHAPES, "no-call-surface"):
        return run_sampling(build, rest)
    if command == "roots" and build.variant not in (*SHAPES, "no-call-surface"):  # toy_agent_roots.py
        return run_roots(build, rest)
    if command == "conformance" and build.variant not in (*SHAPES, "no-call-surface"):  # toy_agent_conformance.py
        return run_conformance(build, rest)
    if build.variant in SHAPES:
        return dispatch_shape(build, command, rest)
    if command != "mcp" or build.variant == "no-call-surface":
        raise UsageError(f"unknown command {command!r}")
    if not rest:
        raise UsageError("mcp needs a subcommand; try 'mcp help'")
    if rest[0] in HELP_WORDS or (rest[0] == "call" and any(a in HELP_WORDS for a in rest[1:])):
        print(MCP_HELP, end="")
        return 0
    if rest[0] != "call":
        raise UsageError(f"unknown mcp subcommand {rest[0]!r}; try 'mcp help'")
    if not 2 <= len(rest) - 1 <= 3:
        raise UsageError("usage: backchannel-toy-agent mcp call SERVER_URL TOOL [ARGS_JSON]")
    return run_call(build, rest[1], rest[2], rest[3] if len(rest) > 3 else None)


def main(argv: list[str] | None = None) -> int:
    """Run the toy agent; returns 0 on success, 1 when a call failed, 2 on a usage error."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    flag = "--help"
    build: Build | None = None
    try:
        build, args = parse_globals(sys.argv[1:] if argv is None else argv)
        flag = HELP_FLAG.get(build.variant, flag)
        return dispatch(build, args)
    except UsageError as exc:
        if build is not None and build.variant in URL_FIRST:  # its own words only: no generic usage to read as help
            print(f"{wire.CLIENT_NAME}: {exc}", file=sys.stderr)
            return 2
        print(f"{wire.CLIENT_NAME}: {exc}\n{USAGE}\nRun '{wire.CLIENT_NAME} {flag}' for the commands.", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
