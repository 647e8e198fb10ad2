"""Redacting secrets at write time: the presence stays, the value goes, and what was redacted is tallied.

Called as rows are serialised (recordings/rows.py), on the writer thread, with that writer's Redactor in force (its
policy and its tally: see `applying`): the proxy hands over raw bytes.

- header values whose name matches the secret-name pattern (protocol headers kept), and bearer-like values anywhere;
- query parameters in a path whose name matches;
- JSON string members whose name matches, at any depth, in JSON text, JSON bodies and SSE data lines: only the
  value's bytes change (it becomes "[redacted]"), the rest of the text stays byte for byte, so it stays valid JSON;
- key-like values (Bearer tokens, sk-..., ghp_..., xox?-..., AKIA..., JWTs, `token=`/`key=` values) in any text;
  in terminal output and lab files they are masked at the same length, so every byte offset stays true.

Never touched: a member the protocol defines (`progressToken`, `requestState`, `cursor`, ids, `method`, `name`,
namespaced `_meta` keys such as `io.modelcontextprotocol/...`), nor any value under one. The same input always
gives the same output, so byte relations between two recorded bodies survive redaction.
"""

from __future__ import annotations

import getpass
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote_plus

from .redactions import Redactions

REDACTED = "[redacted]"
DEFAULT_NAMES = ("auth", "token", "key", "secret", "cookie", "session", "password")
# members the protocol defines (JSON-RPC and MCP): their values are judged and replayed, so never redacted
PROTOCOL_MEMBERS = frozenset(
    {
        "jsonrpc", "id", "method", "name", "params", "result", "error", "progressToken", "requestState", "cursor",
        "nextCursor", "resultType", "maxTokens", "inputRequests", "inputResponses", "elicitationId", "protocolVersion",
        "_meta", "uri", "type", "mode", "url", "action", "stopReason", "model",
    }
)  # fmt: skip
PROTOCOL_HEADERS = frozenset({"mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name", "last-event-id"})
NAME_LIMIT = 100  # a tallied name is cut to this many characters
TALLY_LIMIT = 200  # distinct (kind, name) entries kept; the rest count under "(other)"

_HEADER_BEARER = re.compile(r"(?i)\b(bearer|basic|token)\s+\S+")
_HEADER_WORDS = re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc]|[Tt][Oo][Kk][Ee][Nn]")
_TOKEN_CHARS = r"[A-Za-z0-9._~+/=-]"
_NAME_CHAR = re.compile(r"[\w.-]")


class _ValueKind:
    """One kind of key-like value: its label (what the tally names), the literals one must contain, its pattern.

    The literals are a cheap first test (`in`), so the common text without any of them costs no regex at all."""

    def __init__(self, label: str, anchors: tuple[str, ...], pattern: str, *, lowered: bool = False) -> None:
        self.label, self.anchors, self.pattern, self.lowered = label, anchors, re.compile(pattern), lowered

    def present(self, text: str, low: str) -> bool:
        haystack = low if self.lowered else text
        return any(anchor in haystack for anchor in self.anchors)


_VALUES = (
    _ValueKind("bearer", ("bearer",), rf"(?<=[Bb][Ee][Aa][Rr][Ee][Rr]\s){_TOKEN_CHARS}{{8,}}", lowered=True),
    _ValueKind("sk-key", ("sk-",), r"\bsk-[A-Za-z0-9_-]{16,}"),
    _ValueKind(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
    ),
    _ValueKind("slack-token", ("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    _ValueKind("aws-key", ("AKIA", "ASIA"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    _ValueKind("google-key", ("AIza",), r"\bAIza[0-9A-Za-z_-]{30,}"),
    _ValueKind("gitlab-token", ("glpat-",), r"\bglpat-[A-Za-z0-9_-]{16,}"),
    _ValueKind("jwt", ("eyJ",), r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
# a JSON string token, and when it is a key, its string value (strings never span lines, so SSE text works too)
_STRING = r'"(?:[^"\\\n]|\\.)*"'
# a query parameter wherever a URL appears (free text, a JSON string, a header's value): its value, any length, goes
# when its name is secret, as in a request's path
_QUERY_PAIR = re.compile(r"(?<=[?&;])([A-Za-z0-9_.~%+-]{1,100})=([^&#;\s\"'<>\\]+)")
# a value may run to the end of the text unclosed: a body stored up to a limit can end inside a secret's value
_VALUE = r'"(?:[^"\\\n]|\\.)*(?:"|\\?\Z)'
_MEMBER = re.compile(rf"({_STRING})(?:(\s*:\s*)({_VALUE}))?")


@dataclass(frozen=True, slots=True)
class HostNames:
    """Who ran the recording on which machine, as free text shows it: the home folder (in PATH, in a command's
    path, in a client's error) and the user name. An export masks both, at their own length, wherever terminal
    output, a lab file or a command line names them; and any `/home/NAME`, `/Users/NAME` the same way, for a
    recording made on another machine than the one exporting it."""

    home: str
    user: str

    @classmethod
    def here(cls) -> HostNames | None:
        """This machine's, as the exporting user's environment says (None when it cannot say)."""
        try:
            return cls(home=str(Path.home()), user=getpass.getuser())
        except (KeyError, OSError, RuntimeError):  # no passwd entry, no HOME
            return None

    def patterns(self) -> tuple[tuple[str, re.Pattern[bytes]], ...]:
        """(what, pattern) over bytes; a match is masked at its own length."""
        found: list[tuple[str, re.Pattern[bytes]]] = []
        home = self.home.rstrip("/").encode("utf-8", "surrogateescape")
        if len(home) > 1:  # not "/" (a home at the root names nobody)
            found.append(("home folder", re.compile(rb"(?<![\w./-])" + re.escape(home) + rb"(?![\w.-])")))
        found.append(("user name", re.compile(rb"(?<=/home/)[^/\s:'\"=]+|(?<=/Users/)[^/\s:'\"=]+")))
        user = self.user.encode("utf-8", "surrogateescape")
        if len(user) >= 2:
            named = re.escape(user)
            found.append(
                (
                    "user name",
                    re.compile(rb"(?:(?<=/)|(?<=\bUSER=)|(?<=\bLOGNAME=)|(?<=\bUSERNAME=))" + named + rb"(?![\w.-])"),
                )
            )
        return tuple(found)


class Policy:
    """Which names are secret: the defaults plus any `--redact PATTERN` (regular expressions over names).

    A value, built once per command (ValueError names a pattern that is not a regular expression) and handed to
    what redacts: a recording's writer, mitmdump (as its `backchannel_redact` option), an export."""

    def __init__(self, extra: Sequence[str] = (), host: HostNames | None = None) -> None:
        self.extra = tuple(check_patterns(extra))
        self.host = host  # an export's: the machine's home folder and user name, masked in free text and commands
        alternatives = [re.escape(n) for n in DEFAULT_NAMES] + [f"(?:{p})" for p in self.extra]
        self.names = re.compile("(?i)" + "|".join(alternatives))
        self._extra = re.compile("(?i)" + "|".join(f"(?:{p})" for p in self.extra)) if self.extra else None
        names = self.names.pattern[4:]
        # `name=value` / `name: value` in free text, e.g. access_token=..., API_KEY: ...; the name's start is found
        # by walking back (a leading [\w.-]* would make the search quadratic), both sides bounded by NAME_LIMIT
        self.assignment = re.compile(
            rf"""(?i)(?:{names})[\w.-]{{0,{NAME_LIMIT}}}(["']?[ \t]*[:=][ \t]*["']?)({_TOKEN_CHARS}{{8,}})"""
        )
        # one search that fails on text holding neither a secret name nor any key-like value's literal: the common
        # case (a method name, an id, most header values) costs one regex instead of a test per name and kind
        literals = "|".join(re.escape(a) for kind in _VALUES if not kind.lowered for a in kind.anchors)
        lowered = "|".join(re.escape(a) for kind in _VALUES if kind.lowered for a in kind.anchors)
        self.suspect = re.compile(f"(?i:{names}|{lowered})|{literals}")
        self.secret_name = lru_cache(maxsize=4096)(self._secret_name)
        self.secret_header = lru_cache(maxsize=4096)(self._secret_header)

    def _secret_header(self, lower: str) -> bool:
        """A header name (lowered) whose value is a secret; the protocol's own headers never are."""
        return lower not in PROTOCOL_HEADERS and self.names.search(lower) is not None

    def has_name(self, low: str) -> bool:
        """Whether lowered text holds any secret name (a substring test for the defaults: no regex)."""
        if any(name in low for name in DEFAULT_NAMES):
            return True
        return self._extra is not None and self._extra.search(low) is not None

    def _secret_name(self, name: str) -> bool:
        if name in PROTOCOL_MEMBERS or "/" in name:  # a namespaced _meta key is the spec's or a vendor's
            return False
        return self.names.search(name) is not None


def check_patterns(patterns: Iterable[str]) -> list[str]:
    """The patterns, each compiled once to prove it is a regular expression; ValueError names a bad one."""
    out = []
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"--redact {pattern!r} is not a regular expression: {exc}") from exc
        out.append(pattern)
    return out


DEFAULT_POLICY = Policy()  # the defaults alone: what a recording gets unless its command says more
CLEAN_CACHE = 16  # texts just found free of secrets: a body's text comes again as its message's text
CLEAN_WORDS = 4096  # short free texts (ids, methods, kinds) found free of secrets, kept up to this many
CLEAN_WORD_LENGTH = 200


class Redactor:
    """One recording's (or one export's) redaction: its policy, and what it redacted so far (names and counts).

    The writer of a recording owns one (recordings/store.py) and applies it on its own thread; an export or a trim
    applies its own for its length. Two recordings written or exported in one process never share either."""

    def __init__(self, policy: Policy = DEFAULT_POLICY) -> None:
        self.policy = policy
        self._tally: dict[tuple[str, str], int] = {}
        self.clean: set[str] = set()  # texts found free of secrets under this policy (CLEAN_CACHE of them)
        self.clean_words: set[str] = set()  # short free texts found free of secrets (CLEAN_WORDS of them)
        # header lists found free of secrets, each with its stored form (cell_rules: CLEAN_HEADER_LISTS of them)
        self.clean_headers: dict[tuple[tuple[str, str], ...], str] = {}

    def count(self, kind: str, name: str) -> None:
        key = (kind, name[:NAME_LIMIT])
        if key not in self._tally and len(self._tally) >= TALLY_LIMIT:
            key = (kind, "(other)")
        self._tally[key] = self._tally.get(key, 0) + 1

    def tally(self) -> dict[str, dict[str, int]]:
        """What this redactor redacted so far: kind -> name -> count (names only, never values)."""
        out: dict[str, dict[str, int]] = {}
        for (kind, name), count in sorted(self._tally.items()):
            out.setdefault(kind, {})[name] = count
        return out

    def summary(self, source: str) -> Redactions:
        """The tally since the last summary, as a meta value, and a fresh tally after it.

        Called on the writer thread after every row queued before it (writer.later), so the counts are final."""
        counts = self.tally()
        self._tally.clear()
        return Redactions(source=source, counts=counts, patterns=self.policy.extra)


# The redactor the functions below apply: the row records and meta shapes redact as they serialise themselves
# (`values()`, `to_json()`), so rather than thread it through each of them, whoever serialises binds its own here
# for its own thread and call (`applying`). Unbound, the defaults apply and nothing is counted anywhere.
_IN_FORCE: ContextVar[Redactor | None] = ContextVar("backchannel_redactor", default=None)


@contextmanager
def applying(redactor: Redactor) -> Iterator[Redactor]:
    """Apply `redactor` to every redaction made in this thread (and context) inside the block."""
    token = _IN_FORCE.set(redactor)
    try:
        yield redactor
    finally:
        _IN_FORCE.reset(token)


def _in_force() -> Redactor:
    return _IN_FORCE.get() or Redactor()


# ---------------------------------------------------------------------------------------------- headers and paths


def clean_header_lists() -> dict[tuple[tuple[str, str], ...], str]:
    """The redactor in force's header lists found free of secrets, each with its stored form (see cell_rules)."""
    return _in_force().clean_headers


def redact_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The headers with secret values replaced, names and order kept."""
    redactor = _in_force()
    secret_header = redactor.policy.secret_header
    out = []
    for name, value in headers:
        lower = name.lower()
        if secret_header(lower):
            if value != REDACTED:
                redactor.count("header", lower)
            out.append((name, REDACTED))
        elif lower in PROTOCOL_HEADERS:  # the protocol's own (a session id may look like a token): judged, replayed
            out.append((name, value))
        elif redactor.policy.suspect.search(value) is None and _HEADER_WORDS.search(value) is None:  # nothing to do
            out.append((name, value))
        else:
            new = value
            if _HEADER_WORDS.search(value) is not None:  # a bearer/basic/token word: its credential goes
                new = _HEADER_BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", value)
                if new != value:
                    redactor.count("header", lower)
            # a key-like value in any other header, too, and a secret-named query parameter of a URL in it
            new = _mask_values(new, "header", redactor, same_length=False)
            out.append((name, new))
    return out


def redact_path(path: str | None) -> str | None:
    """A request path with the values of secret-named query parameters replaced (and key-like values anywhere)."""
    if path is None or "?" not in path:
        return path
    redactor = _in_force()
    head, _, query = path.partition("?")
    query, _, fragment = query.partition("#")
    parts = []
    changed = False
    for part in query.split("&"):
        name, eq, value = part.partition("=")
        if eq and value and value != REDACTED and redactor.policy.secret_name(_unquote(name)):
            redactor.count("query", _unquote(name))
            parts.append(f"{name}={REDACTED}")
            changed = True
        else:
            new = _mask_values(part, "query", redactor, same_length=False)
            changed = changed or new != part
            parts.append(new)
    if not changed:
        return path
    return head + "?" + "&".join(parts) + (f"#{fragment}" if fragment else "")


def redact_url(url: str | None) -> str | None:
    """A whole URL (a run's upstream, say) redacted as a request path is: its query's secret-named parameters and
    key-like values anywhere; and a password in its userinfo (`http://user:PASSWORD@host/`). Scheme, host, port and
    path stay, so the recording still says which server it forwarded to."""
    if url is None:
        return None
    scheme, sep, rest = url.partition("://")
    if not sep:
        return redact_path(url)
    authority, slash, tail = rest.partition("/")
    if slash:
        tail = "/" + tail
    else:  # no path: the query (if any) follows the authority at once
        authority, qmark, query = authority.partition("?")
        tail = f"?{query}" if qmark else ""
    userinfo, at, host = authority.rpartition("@")
    if at and ":" in userinfo:
        user, _, password = userinfo.partition(":")
        if password and password != REDACTED:
            _in_force().count("url", "password")
            authority = f"{user}:{REDACTED}@{host}"
    return f"{scheme}://{authority}{redact_path(tail) or ''}"


def _unquote(name: str) -> str:
    return unquote_plus(name)


# ---------------------------------------------------------------------------------------------- JSON and text


def redact_json_text(text: str) -> str:
    """JSON text (or SSE text holding JSON) with secret members' string values replaced; other bytes kept."""
    redactor = _in_force()
    clean = redactor.clean
    if text in clean:  # the body's text, met again as its message's text
        return text
    low = text.lower()
    if any(kind.present(text, low) for kind in _VALUES):  # rare: lex every string, to scan values outside keys
        new = _lexed(text, _member, redactor)
    elif redactor.policy.has_name(low):  # only members by name: lex the strings (linear), test each key's on its own
        new = _lexed(text, _named_member, redactor)
    else:  # the common case: nothing that could be a secret
        if len(clean) >= CLEAN_CACHE:
            clean.clear()
        clean.add(text)
        return text
    return text if new == text else new  # unchanged: the very object, so callers can tell by identity


def _lexed(text: str, member: Callable[[re.Match[str], Redactor], str], redactor: Redactor) -> str:
    """Each JSON string (and member) through `member`; the text between them scanned as free text: in JSON it is
    punctuation, numbers and literals, but a body that is not JSON (a server's plain-text error, an SSE field) holds
    words, and a key-like value or `token=...` there is as secret as in a string."""
    out: list[str] = []
    last = 0
    for match in _MEMBER.finditer(text):
        out.append(_between(text[last : match.start()], redactor))
        out.append(member(match, redactor))
        last = match.end()
    out.append(_between(text[last:], redactor))
    return "".join(out)


def _between(gap: str, redactor: Redactor) -> str:
    if len(gap) < _SHORTEST_SECRET:
        return gap
    return _mask_values(gap, "body-text", redactor, same_length=False)


def _member(match: re.Match[str], redactor: Redactor) -> str:
    first, colon, value = match.group(1), match.group(2), match.group(3)
    if colon is None:  # a string that is not a key (or a key whose value is not a string): scan it for values
        return _mask_values(first, "json-member", redactor, same_length=False)
    name = first[1:-1]
    if name in PROTOCOL_MEMBERS or "/" in name:
        return match.group(0)  # a protocol-defined member: its value is never touched
    if redactor.policy.secret_name(name):
        if value == f'"{REDACTED}"':
            return match.group(0)
        redactor.count("json-member", name)
        return f'{first}{colon}"{REDACTED}"'
    return first + colon + _mask_values(value, "json-member", redactor, same_length=False)


def _named_member(match: re.Match[str], redactor: Redactor) -> str:
    """A key whose name holds a secret word and whose value is a string gets REDACTED; every other string is kept."""
    first, colon, value = match.group(1), match.group(2), match.group(3)
    if colon is None:  # a string that is not a key: a URL in it may carry a secret-named query parameter
        return _mask_values(first, "json-member", redactor, same_length=False) if "=" in first else first
    if value == f'"{REDACTED}"':
        return match.group(0)
    name = first[1:-1]
    if name in PROTOCOL_MEMBERS or "/" in name:  # a protocol-defined member: its value is never touched
        return match.group(0)
    if not redactor.policy.secret_name(name):
        if "=" in value:
            return first + colon + _mask_values(value, "json-member", redactor, same_length=False)
        return match.group(0)
    redactor.count("json-member", name)
    return f'{first}{colon}"{REDACTED}"'


def redact_argv(argv: Iterable[str]) -> list[str]:
    """A command line with its secrets hidden: the value after a secret-named flag (`--api-key VALUE`), after `=`
    (`--password=VALUE`), and key-like values anywhere. Everything else (the `{url}` placeholder, paths) is kept."""
    redactor = _in_force()
    out: list[str] = []
    hiding: str | None = None  # the flag whose value comes next
    for word in argv:
        if hiding is not None and not word.startswith("-"):
            if word != REDACTED:  # already hidden (a shape redacts its own command line before its cell's rule)
                redactor.count("argv", hiding)
            out.append(REDACTED)
            hiding = None
            continue
        hiding = None
        name, eq, value = word.partition("=")
        if word.startswith("-") and redactor.policy.secret_name(name.lstrip("-")):
            if not eq:
                hiding = name.lstrip("-")
            elif value and value != REDACTED:
                redactor.count("argv", name.lstrip("-"))
                out.append(f"{name}={REDACTED}")
                continue
        out.append(_mask_values(word, "argv", redactor, same_length=False))
    return out


def redact_json_bytes(data: bytes | None) -> bytes | None:
    """A body or SSE item: the same as redact_json_text, over bytes (invalid UTF-8 kept as it was)."""
    if not data:
        return data
    text = data.decode("utf-8", "surrogateescape")
    new = redact_json_text(text)
    return data if new is text else new.encode("utf-8", "surrogateescape")


def redact_output(data: bytes, kind: str) -> bytes:
    """Terminal output or a lab file: key-like values masked at the same length, so byte offsets stay true."""
    if not data:
        return data
    text = data.decode("utf-8", "surrogateescape")
    new = _mask_values(text, kind, _in_force(), same_length=True)
    return data if new is text else new.encode("utf-8", "surrogateescape")


def redact_key_like(text: str, kind: str) -> str:
    """Text of backchannel's own (a run's detail, a plan: its member names are ours, so none is a secret by name)
    with key-like values anywhere replaced (a token a client's environment or a scenario fact carried), and the
    value of a secret-named query parameter of any URL in it; the exporting machine's names masked (mask_host)."""
    redactor = _in_force()
    if len(text) < _SHORTEST_SECRET or (redactor.policy.suspect.search(text) is None and redactor.policy.host is None):
        return text
    new = mask_host_text(_mask_values(text, kind, redactor, same_length=False, by_name=False), kind)
    return text if new == text else new


def redact_text(text: str, kind: str, *, same_length: bool = False) -> str:
    """Free text (a method name, an anomaly's sentence, a file's path, terminal output): key-like values,
    `name=value` and `name: value` pairs of a secret name, and secret-named query parameters, each replaced (masked
    at their own length with `same_length`, so byte offsets into terminal output stay true); the exporting
    machine's names masked (mask_host)."""
    if len(text) < _SHORTEST_SECRET:
        return text
    redactor = _in_force()
    words = redactor.clean_words
    if text in words:  # a run id, a flow id, a method: the same few texts come in every row
        return text
    new = mask_host_text(_mask_values(text, kind, redactor, same_length=same_length), kind)
    if new is text and len(text) <= CLEAN_WORD_LENGTH:
        if len(words) >= CLEAN_WORDS:
            words.clear()
        words.add(text)
    return new


_SHORTEST_SECRET = 6  # `?key=` and one character (`key=` needs eight more; a value of any key-like kind is longer)


def _mask_values(text: str, kind: str, redactor: Redactor, *, same_length: bool, by_name: bool = True) -> str:
    """Key-like values, secret-named query parameters and (`by_name`) `name=value` / `name: value` pairs of a
    secret name, each masked (at their own length with `same_length`)."""
    policy = redactor.policy
    if policy.suspect.search(text) is None:
        return text
    low = text.lower()
    named = policy.has_name(low)
    kinds = [value_kind for value_kind in _VALUES if value_kind.present(text, low)]
    if not named and not kinds:
        return text
    changed = False

    def mask(value: str) -> str:
        if not same_length:
            return REDACTED
        n = len(value)
        return (REDACTED + "*" * n)[:n] if n >= len(REDACTED) else "*" * n

    def assignment(m: re.Match[str]) -> str:
        nonlocal changed
        start = m.start()
        while start > 0 and m.start() - start < NAME_LIMIT and _NAME_CHAR.match(m.string, start - 1):
            start -= 1
        name = m.string[start : m.start(1)].strip("\"'")
        if not policy.secret_name(name) or m.group(2).startswith(REDACTED):
            return m.group(0)
        changed = True
        redactor.count(kind, name)
        return m.string[m.start() : m.start(2)] + mask(m.group(2))

    def value_of(label: str) -> Callable[[re.Match[str]], str]:
        def value(m: re.Match[str]) -> str:
            nonlocal changed
            found = m.group(0)
            if found.startswith(REDACTED) or set(found) <= {"*"}:
                return found
            changed = True
            redactor.count(kind, label)
            return mask(found)

        return value

    new = policy.assignment.sub(assignment, text) if named and by_name else text
    for value_kind in kinds:
        new = value_kind.pattern.sub(value_of(value_kind.label), new)
    if named and "=" in new:
        queried = _mask_queries(new, kind, redactor, same_length=same_length)
        changed = changed or queried != new
        new = queried
    return new if changed else text


def _mask_queries(text: str, kind: str, redactor: Redactor, *, same_length: bool) -> str:
    """Every secret-named query parameter's value (`?token=...`, `&api_key=...`) of any URL in the text replaced."""
    secret_name = redactor.policy.secret_name

    def pair(m: re.Match[str]) -> str:
        value = m.group(2)
        if value.startswith(REDACTED) or set(value) <= {"*"}:
            return m.group(0)
        name = _unquote(m.group(1))
        if not secret_name(name):
            return m.group(0)
        redactor.count(kind, name)
        n = len(value)
        masked = ((REDACTED + "*" * n)[:n] if n >= len(REDACTED) else "*" * n) if same_length else REDACTED
        return f"{m.group(1)}={masked}"

    return _QUERY_PAIR.sub(pair, text)


# ---------------------------------------------------------------------------------------------- the host's names


def _host_mask(n: int, label: bytes) -> bytes:
    return (label + b"*" * n)[:n] if n >= len(label) else b"*" * n


def mask_host_text(text: str, kind: str) -> str:
    """mask_host over text (through its UTF-8, invalid bytes kept); at write time the policy names no host: no
    change, and no encoding either."""
    if _in_force().policy.host is None:
        return text
    data = text.encode("utf-8", "surrogateescape")
    new = mask_host(data, kind)
    return text if new == data else new.decode("utf-8", "surrogateescape")


def mask_host(data: bytes, kind: str) -> bytes:
    """Free text (terminal output, a lab file, a command line) with the policy's host names (HostNames) masked at
    the same byte length, so every offset stays true; unchanged when the policy names no host (write time)."""
    redactor = _in_force()
    host = redactor.policy.host
    if host is None or not data:
        return data
    new = data
    for what, pattern in _host_patterns(host):
        label = b"[home]" if what == "home folder" else b"[user]"

        def masked(found: re.Match[bytes], what: str = what, label: bytes = label) -> bytes:
            value = found.group(0)
            if value == _host_mask(len(value), label):  # already masked (a second export of a shared copy)
                return value
            redactor.count(kind, what)
            return _host_mask(len(value), label)

        new = pattern.sub(masked, new)
    return new


@lru_cache(maxsize=8)
def _host_patterns(host: HostNames) -> tuple[tuple[str, re.Pattern[bytes]], ...]:
    return host.patterns()
