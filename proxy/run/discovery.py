"""Discovering how a CLI calls a tool on a remote MCP server, from its own help output.

The parsers only propose candidate invocations; each is run against the scripted endpoint and the proxy's ledger
disposes: the first candidate that really makes a `tools/call` is the target's invocation. The shapes proposed:

1. a `... call` subcommand about tools on a server (`mcp call SERVER_URL TOOL`);
2. a `tools/call` method verb (`tools/call SERVER_URL NAME`, or `request METHOD URL` whose help names tools/call);
3. a flag pair (`--method tools/call --tool-name NAME`, the MCP Inspector CLI's);
4. one subcommand per tool, named after a tool the endpoint offers (`get_repo_status` or `get-repo-status`);
5. a `--tool NAME` option on a command;

and for each, the server URL where that CLI takes it: a server-URL flag (`--url`, `--server-url`, `--server`,
`--endpoint`) its help describes as a URL, else positional (before the tool, and after it too when the help does not
say); `--transport http` (or `streamable-http`) is tried as an extra when the help offers it. Help is read from
`--help` and `-h` alike, whichever answers.

Two classes of CLI hide their surface from that help, and are read the way they ask to be:

- **URL first**: a CLI whose commands (one per tool, or a call verb) appear only once it has the server URL, or
  whose help answers only after it (`-h` and `help` fail). When the help shows no surface but names a URL flag or a
  URL placeholder, the help is read again after the URL (`--url {url} --help`, `{url} --help`), and each list
  command it names (`tools`, `list-tools`, `--list`...) is run after the URL and its output read for the tools;
  the candidates then carry the URL where it was given.
- **A session step first**: a `connect SERVER_URL` (or `session open URL`) command beside a call that takes no URL:
  the candidate runs both, in one client run (proxy/run/steps.py), `connect {url}` then the call.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from backchannel.proxy.run.steps import steps_argv

if TYPE_CHECKING:
    from backchannel.recordings.shapes import Discovery as DiscoveryRecord

Argv = tuple[str, ...]

HELP_PROBES: tuple[Argv, ...] = (("--help",), ("-h",), ("help",), ("mcp", "--help"), ("mcp", "help"))
FLAG_PROBES = {("--help",), ("-h",)}
HELP_FLAGS = ("--help", "-h")
HELP_WORDS = ("--help", "-h", "help")
TOOL = "get_repo_status"
TOOL_SLOT = "{tool}"  # in a surface's arguments and a per-tool template: where each tool's name goes
MAX_CANDIDATES = 8  # the bound: at most this many candidate invocations are run against the endpoint
MAX_SUB_HELP = 6  # at most this many subcommands have their own help read (each by --help, then -h if needed)
MAX_URL_PREFIXES = 2  # at most this many ways of giving the URL first are tried, each: its help, then its listings
MAX_LISTINGS = 2  # at most this many list commands are run after the URL, per way of giving it
URL = "{url}"
NO_CALL = "no tools/call reached the endpoint"

_BOX = re.compile(r"[│┃║|╭╮╰╯─━┌┐└┘]")
_WORD = r"[a-z][\w.:/-]*"
_ARG = (
    r"(?:\[[^\[\]]*\]|<[^<>]*>|\{[^{}]*\}|[A-Z][A-Z0-9_-]*(?:\.\.\.)?|\.\.\."
    r"|--?[a-z][\w-]*(?:[ =](?:<[^<>]*>|[A-Z][A-Z0-9_-]*))?)(?=\s|$)"
)
# the arguments are matched possessively (`*+`): help text is untrusted, and a flag's metavar can be read two ways
_ENTRY = re.compile(
    rf"^(?P<indent>\s*)(?P<words>{_WORD}(?: {_WORD}){{0,2}}?)(?P<args>(?: +{_ARG})*+)(?:\s{{2,}}(?P<desc>\S.*?))?\s*$"
)
MAX_LINE = 1000  # longer lines are not read as entries or options
MAX_HELP_TEXT = 1_000_000  # a longer output is not searched for the ways it gives a URL
_USAGE = re.compile(r"^\s*usage:\s*(?P<prog>\S+)(?P<rest>.*)$", re.IGNORECASE)
_LEADING_OPTIONS = re.compile(r"^(?: +(?:\[[^\[\]]*\]|--?[a-z][\w-]*(?:[ =](?:<[^<>]*>|[A-Z][A-Z0-9_-]*))?))*")
_ABOUT = re.compile(r"\b(url|server|tool|target|mcp)\b", re.IGNORECASE)
_TOOLISH = re.compile(r"\btools?\b", re.IGNORECASE)
_REMOTE = re.compile(r"\b(server|mcp|remote)\b", re.IGNORECASE)
_TOOL_USE = re.compile(r"\b(call|calls|invoke|invokes|run|runs|execute|mcp|server)\b", re.IGNORECASE)
_LOOKS_LIKE_HELP = re.compile(r"^\s*(usage\b|(sub)?commands\s*:|options\s*:|methods\s*:)", re.IGNORECASE | re.MULTILINE)
_METHOD_VERBS = ("tools/call", "tools-call")
_METHOD_PLACEHOLDER = re.compile(r"^[<\[]?method[>\]]?$", re.IGNORECASE)
_URL_PLACEHOLDER = re.compile(r"URL|URI|SERVER|ENDPOINT", re.IGNORECASE)
_TOOL_PLACEHOLDER = re.compile(r"TOOL|NAME", re.IGNORECASE)
_URL_FLAGS = ("--url", "--server-url", "--mcp-url", "--endpoint-url", "--server", "--endpoint")
_URL_WORDS = re.compile(r"\b(url|uri|https?|endpoint)\b|https?://", re.IGNORECASE)
_URL_VALUE = r"(?:<?(?:server[-_])?ur[li]>?|[A-Z_]*UR[LI]\b|https?://)"
_INSECURE = re.compile(r"(?<![\w-])(--allow-http|--allow-insecure(?:-http)?|--insecure)(?![\w-])")
_URL_MENTION = re.compile(r"<(?:server[-_])?ur[li]>|\b[A-Z_]*UR[LI]\b")
_LIST_WORDS = ("tools", "list-tools", "tools-list", "list_tools", "tools_list", "list", "ls")
_LIST_OPTIONS = ("--list", "--list-tools", "--tools")
_CONNECT_LAST = ("connect", "open", "start", "attach", "new")
_SPEC_TOKEN = re.compile(
    r"^(?:--?[a-zA-Z][\w-]*(?:=\S+)?|\[[^\[\]]*\]|<[^<>]*>|\{[^{}]*\}|[A-Z][A-Z0-9_.-]*|"
    r"string|strings|int|bool|float|duration|text|choice|str|integer|path)$"
)


@dataclass(frozen=True)
class HelpOutput:
    probe: Argv
    exit_code: int | None
    text: str

    @property
    def prefix(self) -> Argv:
        """The subcommand path whose help this is (the probe without its help word)."""
        return self.probe[:-1] if self.probe and self.probe[-1] in HELP_WORDS else self.probe

    @property
    def counts(self) -> bool:
        """A probe counts when it exits 0; a help flag that exits non-zero counts only when it printed help.

        So an error message ("unknown command 'mcp'; try: call URL TOOL") cannot invent a surface, while a CLI whose
        `-h` (or `--help`) exits 1 after printing its usage is still read."""
        if not self.text.strip():
            return False
        if self.exit_code == 0:
            return True
        return bool(self.probe) and self.probe[-1] in HELP_FLAGS and bool(_LOOKS_LIKE_HELP.search(self.text))


@dataclass(frozen=True)
class Surface:
    """One way a help text says a tool is called: the subcommand path, the tool's own arguments, and where the URL
    goes when the help showed it as a positional ("before"/"after" the tool arguments), "flag" when one of the
    entry's flags takes it, None when the help does not say."""

    shape: str  # call-subcommand | method-verb | method-flags | tool-subcommand | tool-option
    path: Argv
    tool_args: Argv
    positional: str | None = None
    found_in: Argv = ()  # the prefix of the help that listed it

    def args_for(self, tool: str) -> Argv:
        """The tool's own arguments with `tool` where the help put its name."""
        return tuple(tool if part == TOOL_SLOT else part for part in self.tool_args)


@dataclass(frozen=True)
class Discovery:
    status: str  # "found" | "no-mcp-call-surface" | "no-tools-call-reached-the-mock"
    invocation: Argv | None = None
    candidates: tuple[Argv, ...] = ()
    tried: tuple[Argv, ...] = field(default_factory=tuple)
    rejected: tuple[tuple[Argv, str], ...] = ()


@dataclass(frozen=True)
class _Entry:
    words: Argv
    args: tuple[str, ...]
    about: str  # the entry's description, its arguments and the line after it
    usage: bool


def _lines(text: str) -> list[str]:
    return [_BOX.sub(" ", line).rstrip() for line in text.splitlines()]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _entries(output: HelpOutput) -> list[_Entry]:
    """The command entries a help text lists (`  mcp call SERVER_URL TOOL   description`) and its usage lines.

    An entry needs arguments in placeholder form, a description two spaces away, or a deeper-indented description on
    the next line: a line of lowercase prose ("  and then call") is none of these."""
    lines = _lines(output.text)
    found: list[_Entry] = []
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE:
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        usage = _USAGE.match(line)
        if usage:
            rest = usage.group("rest")
            leading = _LEADING_OPTIONS.match(rest)
            rest = rest[leading.end() :] if leading else rest
            match = _ENTRY.match(rest)
            if match:
                args = tuple(re.findall(_ARG, match.group("args")))
                found.append(_Entry(tuple(match.group("words").split()), args, f"{rest} {following}", True))
            continue
        match = _ENTRY.match(line)
        if not match:
            continue
        args = tuple(re.findall(_ARG, match.group("args")))
        desc = match.group("desc") or ""
        deeper = bool(following.strip()) and _indent(following) > _indent(line)
        if not (args or desc or deeper):
            continue
        about = " ".join([" ".join(args), desc, following.strip() if deeper else ""])
        found.append(_Entry(tuple(match.group("words").split()), args, about, False))
    return found


def _options(text: str) -> dict[str, str]:
    """Each option a help text lists, by flag: its metavar and description (and the continuation line)."""
    lines = _lines(text)
    out: dict[str, str] = {}
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE:
            continue
        spec, _, desc = line.strip().partition("  ")
        tokens = [t for t in re.split(r"[\s,]+", spec) if t]
        if not tokens or not any(t.startswith("--") for t in tokens) or not all(_SPEC_TOKEN.match(t) for t in tokens):
            continue
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        more = following if following and not following.startswith("-") and _indent(lines[index + 1]) else ""
        rest = " ".join([t for t in tokens if not t.startswith("-")] + [desc.strip(), more])
        for token in tokens:
            flag = token.split("=")[0]
            if flag.startswith("--") and flag not in out:
                out[flag] = rest
    return out


def _path(output: HelpOutput, words: Argv) -> Argv:
    """A listed command's full path: the help's own subcommand path joined to the words, overlapping where they
    repeat it (`mcp --help` listing `call`, or `mcp call --help` showing `usage: prog mcp call ...`)."""
    prefix = output.prefix
    overlap = max(k for k in range(min(len(prefix), len(words)) + 1) if prefix[len(prefix) - k :] == words[:k])
    return prefix + words[overlap:]


def _positional(args: Sequence[str], after: int = 0) -> str | None:
    """Where the URL goes relative to the tool name, from the placeholders after the command words."""
    bare = [a for a in args[after:] if not a.lstrip("[<").startswith("-")]
    url = next((i for i, a in enumerate(bare) if _URL_PLACEHOLDER.search(a)), None)
    tool = next((i for i, a in enumerate(bare) if _TOOL_PLACEHOLDER.search(a)), None)
    if url is None:  # "flag": a flag of the entry's takes it (`--server URL`); None: the entry does not say
        flags = [a for a in args[after:] if a.lstrip("[<").startswith("-") and _URL_PLACEHOLDER.search(a)]
        return "flag" if flags else None
    return "before" if tool is None or url < tool else "after"


def call_paths(output: HelpOutput) -> list[Argv]:
    """Subcommand paths ending in `call` that a help text advertises for tools on a server (shape 1)."""
    return [s.path for s in surfaces(output) if s.shape == "call-subcommand"]


def surfaces(output: HelpOutput, tools: Sequence[str] = (TOOL,)) -> list[Surface]:
    """Every call surface one help text shows, in the order it shows them."""
    found: list[Surface] = []

    def add(surface: Surface) -> None:
        if any(word.startswith("-") for word in surface.path):
            return
        if not any(s.path == surface.path and s.tool_args == surface.tool_args for s in found):
            found.append(surface)

    names = {name.lower(): name for tool in tools for name in (tool, tool.replace("_", "-"))}
    text = output.text
    for entry in _entries(output):
        words, last = entry.words, entry.words[-1]
        path = _path(output, words)
        if last == "call" and _ABOUT.search(entry.about):
            add(Surface("call-subcommand", path, (TOOL_SLOT,), _positional(entry.args), output.prefix))
        elif last in _METHOD_VERBS:
            add(Surface("method-verb", path, (TOOL_SLOT,), _positional(entry.args), output.prefix))
        elif (
            entry.args and _METHOD_PLACEHOLDER.match(entry.args[0]) and "tools/call" in entry.about and not entry.usage
        ):
            add(Surface("method-verb", (*path, "tools/call"), (TOOL_SLOT,), _positional(entry.args, 1), output.prefix))
        elif last.lower() in names and not entry.usage:
            add(Surface("tool-subcommand", path, (), _positional(entry.args), output.prefix))
    options = _options(text)
    positional = next((_positional(e.args) for e in _entries(output) if e.usage), None)
    tool_flag = next((f for f in ("--tool-name", "--tool") if f in options), None)
    if tool_flag and "--method" in options and "tools/call" in text:
        args = ("--method", "tools/call", tool_flag, TOOL_SLOT)
        add(Surface("method-flags", output.prefix, args, positional, output.prefix))
    elif "--tool" in options and _TOOL_USE.search(options["--tool"]) and _REMOTE.search(text):
        add(Surface("tool-option", output.prefix, ("--tool", TOOL_SLOT), positional, output.prefix))
    return found


def url_flag(text: str) -> str | None:
    """The flag a help text takes the server URL with: one of the known names, described as a URL."""
    options = _options(text)
    for flag in _URL_FLAGS:
        if flag in options and _URL_WORDS.search(options[flag]):
            return flag
    return None


def transport_http(text: str) -> str | None:
    """The `--transport` value for Streamable HTTP, when the help offers one."""
    described = _options(text).get("--transport")
    if described is None:
        return None
    if re.search(r"\bstreamable-http\b", described):
        return "streamable-http"
    return "http" if re.search(r"(?<![\w-])http(?![\w-])", described) else None


def _insecure_flag(text: str) -> str | None:
    """The flag a help offers for permitting a plain http:// URL (`--allow-http`, `--insecure`), described so."""
    for flag, about in _options(text).items():
        if _INSECURE.fullmatch(flag) and re.search(r"\bhttp\b|insecure|plain", about, re.IGNORECASE):
            return flag
    return None


def _own_help(surface: Surface, outputs: Sequence[HelpOutput], sub_help: dict[Argv, str]) -> str:
    if surface.path in sub_help:
        return sub_help[surface.path]
    if surface.found_in == surface.path:
        return "\n".join(o.text for o in outputs if o.counts and o.prefix == surface.path)
    return ""


def invocations(
    base: Sequence[str],
    surface: Surface,
    own_help: str,
    parent_help: str,
    tool: str = TOOL,
) -> list[Argv]:
    """The candidate command lines for one surface, `{url}` where that CLI takes it, most specific first."""
    tool_args = surface.args_for(tool)
    own_flag, parent_flag = url_flag(own_help), url_flag(parent_help)
    unsaid = False  # the help says neither where the URL goes nor that a flag takes it
    if URL in base:  # given first (a URL-first CLI): the surface follows it
        plain = (*base, *surface.path, *tool_args)
    elif surface.positional == "after":
        plain = (*base, *surface.path, *tool_args, URL)
    elif surface.positional == "before" or not (own_flag or parent_flag):
        plain = (*base, *surface.path, URL, *tool_args)
        unsaid = surface.positional is None and surface.shape in ("call-subcommand", "method-verb")
    elif own_flag:
        plain = (*base, *surface.path, own_flag, URL, *tool_args)
    else:
        assert parent_flag is not None
        plain = (*base, parent_flag, URL, *surface.path, *tool_args)
    orders = [plain, (*base, *surface.path, *tool_args, URL)] if unsaid else [plain]  # `call TOOL URL` as likely
    auth_none = re.search(r"--auth\b.*\bnone\b", own_help, re.IGNORECASE | re.DOTALL) is not None
    insecure = _insecure_flag(own_help)  # the endpoint is plain http://: a CLI that wants that confirmed gets it
    transport = transport_http(own_help) or (transport_http(parent_help) if not own_help else None)
    out: list[Argv] = []
    for order in orders:
        bases = [order]
        if auth_none:
            bases.insert(0, (*order, "--auth", "none"))
        if insecure is not None:
            bases.insert(0, (*bases[0], insecure))
        extra = [(*b, "--transport", transport) for b in bases] if transport else []
        out.extend([*bases, *extra])
    return out


def candidates(
    base: Sequence[str],
    outputs: Sequence[HelpOutput],
    sub_help: dict[Argv, str],
    tools: Sequence[str] = (TOOL,),
) -> list[Argv]:
    """Candidate invocations with {url}, most specific first, from the top-level help and then each subcommand's."""
    out: list[Argv] = []
    counted = _distinct(outputs)
    extra = [HelpOutput((*path, "--help"), 0, text) for path, text in sub_help.items()]
    connect = connect_step(counted) if URL not in base else None
    for output in [*counted, *extra]:
        for surface in surfaces(output, tools):
            parent = "\n".join(o.text for o in counted if o.prefix == surface.found_in and o.prefix != surface.path)
            own = _own_help(surface, counted, sub_help)
            found = invocations(base, surface, own, parent, tools[0])
            if connect is not None and surface.positional is None and not (url_flag(own) or url_flag(parent)):
                # a call that takes no URL beside a command that opens a session with one: both, in one run
                call = (*base, *surface.path, *surface.args_for(tools[0]))
                found.insert(0, steps_argv((*base, *connect), call))
            for candidate in found:
                if candidate not in out:
                    out.append(candidate)
    return out


def connect_step(outputs: Iterable[HelpOutput]) -> Argv | None:
    """The command that opens a session with a server, with {url} where it takes it (`connect {url}`, `session open
    --url {url}`), when a help lists one that needs nothing else; None when none does."""
    for output in outputs:
        for entry in _entries(output):
            words = entry.words
            if words[-1] not in _CONNECT_LAST or not ({"connect", "session", "sessions"} & set(words)):
                continue
            path = _path(output, words)
            flag = next(
                (re.split(r"[ =]", a)[0] for a in entry.args if a.startswith("--") and re.search("[ =]", a)), None
            )
            bare = [a for a in entry.args if not a.startswith(("-", "["))]
            if flag is not None and flag in _URL_FLAGS:
                required = bare
                step: Argv = (*path, flag, URL)
            elif bare and _URL_PLACEHOLDER.search(bare[0]):
                required = bare[1:]
                step = (*path, URL)
            else:
                continue
            if not required and not any(word.startswith("-") for word in path):
                return step
    return None


def _distinct(outputs: Iterable[HelpOutput]) -> list[HelpOutput]:
    """The outputs that count, each text once: a CLI that answers `mcp --help` with its top-level help (it ignored
    the unknown `mcp`) must not have that help read again as the help of an `mcp` subcommand."""
    seen: set[str] = set()
    out: list[HelpOutput] = []
    for output in outputs:
        if output.counts and output.text not in seen:
            seen.add(output.text)
            out.append(output)
    return out


def _sub_paths(outputs: Iterable[HelpOutput], tools: Sequence[str]) -> list[Argv]:
    """Subcommands worth reading the help of: each listed surface, and each command about tools on a server."""
    paths: list[Argv] = []
    for output in outputs:
        for surface in surfaces(output, tools):
            if surface.path and surface.path != output.prefix and surface.path not in paths:
                paths.append(surface.path)
        for entry in _entries(output):
            path = _path(output, entry.words)
            if (
                not entry.usage
                and path != output.prefix
                and _TOOLISH.search(entry.about)
                and _REMOTE.search(entry.about)
                and path not in paths
            ):
                paths.append(path)
    return paths


def discover(
    base: Sequence[str],
    run_help: Callable[[Argv], HelpOutput],
    try_candidate: Callable[[Argv], str | None],
    tools: Sequence[str] = (TOOL,),
) -> Discovery:
    """Probe the help surfaces, then try at most MAX_CANDIDATES candidates until the ledger sees a tools/call.

    `try_candidate` runs one and returns None when the ledger saw its tools/call, else why it was rejected."""
    outputs = [run_help(probe) for probe in HELP_PROBES]
    counted = _distinct(outputs)
    sub_help: dict[Argv, str] = {}
    for path in _sub_paths(counted, tools)[:MAX_SUB_HELP]:
        read = [run_help((*path, HELP_FLAGS[0]))]
        if read[0].exit_code != 0:  # `--help` failed: `-h` may be the flag this CLI answers (or the reverse)
            read.append(run_help((*path, HELP_FLAGS[1])))
        if not any(o.counts for o in read) and any(o.probe == ("help",) and o.counts for o in outputs):
            # a CLI whose `help` answers may give a command's help as `help COMMAND` (and nothing else)
            asked = run_help(("help", *path))
            read.append(HelpOutput((*path, HELP_FLAGS[0]), asked.exit_code, asked.text))
        best = sorted((o for o in read if o.counts), key=lambda o: o.exit_code != 0)
        if best and all(best[0].text != o.text for o in counted):
            sub_help[path] = best[0].text
    found = candidates(base, outputs, sub_help, tools)
    if not found:  # no surface in the help: perhaps it shows only once the CLI has the URL
        found = _url_first(base, outputs, run_help, tools)
    if not found:
        return Discovery("no-mcp-call-surface")
    tried: list[Argv] = []
    rejected: list[tuple[Argv, str]] = []
    for candidate in found[:MAX_CANDIDATES]:
        tried.append(candidate)
        reason = try_candidate(candidate)
        if reason is None:
            return Discovery("found", candidate, tuple(found), tuple(tried), tuple(rejected))
        rejected.append((candidate, reason))
    return Discovery("no-tools-call-reached-the-mock", None, tuple(found), tuple(tried), tuple(rejected))


def _url_first(
    base: Sequence[str], outputs: Sequence[HelpOutput], run_help: Callable[[Argv], HelpOutput], tools: Sequence[str]
) -> list[Argv]:
    """Candidates of a CLI that shows its surface only after the URL: for each way its help gives the URL (at most
    MAX_URL_PREFIXES), its help read after the URL and the output of each list command it names (at most
    MAX_LISTINGS), then read as help of the command that follows the URL."""
    for prefix in url_prefixes(outputs)[:MAX_URL_PREFIXES]:
        read = [run_help((*prefix, HELP_FLAGS[0]))]
        if not read[0].counts:
            read.append(run_help((*prefix, HELP_FLAGS[1])))
        helped = [HelpOutput((probe.probe[-1],), probe.exit_code, probe.text) for probe in read if probe.counts][:1]
        listed = []
        for listing in list_commands([*helped, *_distinct(outputs)])[:MAX_LISTINGS]:
            shown = run_help((*prefix, *listing))
            listed.append(HelpOutput((), shown.exit_code, shown.text))  # its tools follow the URL as commands
        found = candidates((*base, *prefix), [*helped, *listed], {}, tools)
        if found:
            return found
    return []


def url_prefixes(outputs: Iterable[HelpOutput]) -> list[Argv]:
    """The ways a CLI's own words (its help, or its errors: any output, counted or not) say the URL is given before
    a command: a URL flag (one described as a URL first, then one named at all), else positional when they name a
    URL placeholder (`<server-url>`, `SERVER_URL`). None when they mention no URL: a CLI that is not about servers
    is not probed further."""
    text = "\n".join(o.text for o in outputs if len(o.text) <= MAX_HELP_TEXT)
    found: list[Argv] = []
    described = url_flag(text)
    if described is not None:
        found.append((described, URL))
    for flag in _URL_FLAGS:  # named with a URL for its value (`--url URL is required`): a `--server NAME` is not
        if re.search(rf"(?<![\w-]){re.escape(flag)}[ =]{_URL_VALUE}", text) and (flag, URL) not in found:
            found.append((flag, URL))
    if _URL_MENTION.search(text):
        found.append((URL,))
    return found


def list_commands(outputs: Iterable[HelpOutput]) -> list[Argv]:
    """The commands a help names for listing a server's tools (`tools`, `list-tools`, `--list`...), as run after the
    URL: an entry or an option of one of those names whose description is about tools."""
    found: list[Argv] = []
    for output in outputs:
        if not output.counts:
            continue
        for entry in _entries(output):
            if not entry.usage and entry.words[-1] in _LIST_WORDS and _TOOLISH.search(entry.about):
                path = _path(output, entry.words)
                if path not in found:
                    found.append(path)
        for flag, about in _options(output.text).items():
            if flag in _LIST_OPTIONS and _TOOLISH.search(about) and (flag,) not in found:
                found.append((flag,))
    return found


def rejection(outcome: str, exit_code: int | None, detail: str = "") -> str:
    """Why a candidate that made no tools/call was rejected, from how its process ended."""
    if outcome == "timeout":
        return f"timeout, {NO_CALL}"
    if outcome == "exited":
        return f"exit {exit_code}, {NO_CALL}"
    return f"{outcome}{': ' + detail if detail else ''}, {NO_CALL}"


def describe(record: DiscoveryRecord) -> list[str]:
    """A discovery record as lines: the outcome, then each candidate tried and why each rejected one was."""
    head = {
        "found": "discovery: found the call surface",
        "no-mcp-call-surface": "discovery: no-mcp-call-surface (the help shows no way to call a tool on a server)",
        "no-tools-call-reached-the-mock": "discovery: no-tools-call-reached-the-mock (no candidate made a tools/call)",
    }.get(record.status, f"discovery: {record.status}")
    lines = [head]
    if record.invocation is not None:
        lines.append(f"  invocation: {shlex.join(record.invocation)}")
    if record.candidates or record.tried:
        lines.append(f"  tried {len(record.tried)} of {len(record.candidates)} candidates (at most {MAX_CANDIDATES})")
    reasons = dict(record.rejected)
    for argv in record.tried:
        if argv == record.invocation:
            lines.append(f"    confirmed  {shlex.join(argv)}  (the ledger saw its tools/call)")
        else:
            lines.append(f"    rejected   {shlex.join(argv)}  ({reasons.get(argv, NO_CALL)})")
    if record.status != "found":
        for argv in record.candidates[len(record.tried) :]:
            lines.append(f"    not tried  {shlex.join(argv)}  (past the bound)")
    return lines


@dataclass(frozen=True)
class ToolTemplate:
    """A command line made per-tool: `argv` with TOOL_SLOT where the tool's name goes (a `--client` that takes
    `{tool}`, or a confirmed invocation where it named the tool it called), and whether that name is dashed
    (`connect-account`, a per-tool subcommand as its help listed it) or as given (`connect_account`)."""

    argv: Argv
    dashed: bool = False

    def argv_for(self, tool: str) -> Argv:
        """The command line that calls `tool`, its name in the form the CLI's own invocation used."""
        name = tool.replace("_", "-") if self.dashed else tool
        return tuple(part.replace(TOOL_SLOT, name) for part in self.argv)


def tool_template(invocation: Sequence[str], tools: Sequence[str]) -> ToolTemplate | None:
    """The invocation with TOOL_SLOT in place of the tool name it passes, or None when it passes none of `tools`.

    The name is a whole argument (positional, a per-tool subcommand, or a flag's value: `--tool NAME` or
    `--tool=NAME`), as given or dashed; when it appears more than once the last is the one replaced (a base command
    that happens to share a tool's name stays). A tool whose dashed form is its own name counts as given."""
    forms = [(tool, False) for tool in tools] + [(t.replace("_", "-"), True) for t in tools if "_" in t]
    argv = list(invocation)
    for index in range(len(argv) - 1, -1, -1):
        flag, eq, value = argv[index].partition("=")
        for name, dashed in forms:
            if argv[index] == name:
                return ToolTemplate(tuple([*argv[:index], TOOL_SLOT, *argv[index + 1 :]]), dashed)
            if eq and flag.startswith("--") and value == name:
                return ToolTemplate(tuple([*argv[:index], f"{flag}={TOOL_SLOT}", *argv[index + 1 :]]), dashed)
    return None
