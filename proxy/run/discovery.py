"""Discovering how a CLI calls a tool on a remote MCP server, from its own help output.

The regex only proposes candidate invocations; each is run against the scripted endpoint and the proxy's
ledger disposes: the first candidate that really makes a `tools/call` is the target's invocation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

HELP_PROBES: tuple[tuple[str, ...], ...] = (("--help",), ("-h",), ("help",), ("mcp", "--help"), ("mcp", "help"))
FLAG_PROBES = {("--help",), ("-h",)}
TOOL = "get_repo_status"
_BOX = re.compile(r"[│┃║|╭╮╰╯─━┌┐└┘]")
_CALL = re.compile(r"^\s*((?:[a-z][\w-]* ){0,2}?call)\b(?:\s+(.*))?$")
_ABOUT = re.compile(r"\b(url|server|tool|target|mcp)\b", re.IGNORECASE)


@dataclass(frozen=True)
class HelpOutput:
    probe: tuple[str, ...]
    exit_code: int | None
    text: str

    @property
    def counts(self) -> bool:
        """A subcommand probe counts only when it exits 0, so an error message cannot invent a surface."""
        return self.exit_code == 0 or (self.probe in FLAG_PROBES and bool(self.text.strip()))


@dataclass(frozen=True)
class Discovery:
    status: str  # "found" | "no-mcp-call-surface" | "no-tools-call-reached-the-mock"
    invocation: tuple[str, ...] | None = None
    candidates: tuple[tuple[str, ...], ...] = ()
    tried: tuple[tuple[str, ...], ...] = field(default_factory=tuple)


def call_paths(output: HelpOutput) -> list[tuple[str, ...]]:
    """Subcommand paths ending in `call` that a help text advertises for tools on a server."""
    prefix = output.probe[:-1] if output.probe[-1] in ("--help", "help") and len(output.probe) > 1 else ()
    found: list[tuple[str, ...]] = []
    lines = [_BOX.sub(" ", line) for line in output.text.splitlines()]
    for index, line in enumerate(lines):
        match = _CALL.match(line)
        if not match:
            continue
        words = tuple(match.group(1).lower().split())
        rest = " ".join([match.group(2) or "", lines[index + 1] if index + 1 < len(lines) else ""])
        if not _ABOUT.search(rest):
            continue
        path = words if words[: len(prefix)] == prefix else prefix + words
        if any(word.startswith("-") for word in path) or path in found:
            continue
        found.append(path)
    return found


def candidates(
    base: Sequence[str], outputs: Sequence[HelpOutput], sub_help: dict[tuple[str, ...], str]
) -> list[tuple[str, ...]]:
    """Candidate invocations with {url}, most specific first."""
    out: list[tuple[str, ...]] = []
    for output in outputs:
        if not output.counts:
            continue
        for path in call_paths(output):
            plain = (*base, *path, "{url}", TOOL)
            if re.search(r"--auth\b.*\bnone\b", sub_help.get(path, ""), re.IGNORECASE | re.DOTALL):
                auth = (*base, *path, "{url}", TOOL, "--auth", "none")
                if auth not in out:
                    out.append(auth)
            if plain not in out:
                out.append(plain)
    return out


def discover(
    base: Sequence[str],
    run_help: Callable[[tuple[str, ...]], HelpOutput],
    try_candidate: Callable[[tuple[str, ...]], bool],
) -> Discovery:
    """Probe the help surfaces, then try each candidate until the ledger sees a tools/call."""
    outputs = [run_help(probe) for probe in HELP_PROBES]
    paths = {path for output in outputs if output.counts for path in call_paths(output)}
    sub_help: dict[tuple[str, ...], str] = {}
    for path in sorted(paths):
        output = run_help((*path, "--help"))
        if output.counts:
            sub_help[path] = output.text
    found = candidates(base, outputs, sub_help)
    if not found:
        return Discovery("no-mcp-call-surface")
    tried: list[tuple[str, ...]] = []
    for candidate in found:
        tried.append(candidate)
        if try_candidate(candidate):
            return Discovery("found", candidate, tuple(found), tuple(tried))
    return Discovery("no-tools-call-reached-the-mock", None, tuple(found), tuple(tried))
