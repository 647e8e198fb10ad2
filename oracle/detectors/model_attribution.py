"""The attribution rule for the model context (stated in model_context.py's docstring), applied to one occurrence
of the run's nonce-tagged marker in one segment; decided by structure alone."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from backchannel.recordings.model import ModelExchange, Run

from .model_segments import ModelContext, Segment

SERVER_NAME_FACT = "agent_server_name"  # the run fact an agent runner records: the name the agent's config gives it
SELF_KINDS = frozenset({"assistant", "tool-call"})  # the model's own words sent back to it: not server text
_UNTRUSTED_OPEN = re.compile(r"<(untrusted[\w-]*)(\s[^<>]*)?>", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_DELIMITER = re.compile(r"-{3,}\[(start|end) of ([^\]\n]{1,80})\]-{3,}", re.IGNORECASE)
_MCP_TOOL = re.compile(r"^mcp__?.")
_MAX_STEP = 64 * 1024
WINDOW = 512  # characters before an occurrence in which a name the server goes by labels it (as attribution.py)


@dataclass(frozen=True, slots=True)
class ServerNames:
    """The names the agent knows the run's server by. `known` is False when the run recorded no configured name:
    then any MCP-shaped tool name counts as the server's, and whether a label names the server is unknown."""

    names: tuple[str, ...]
    known: bool

    def in_text(self, text: str) -> bool:
        """A name appears as a whole word (not inside a longer name: `lab` is not in `label`)."""
        return any(
            name and re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", text) for name in self.names
        )

    def owns_tool(self, tool: str | None, namespace: str | None) -> bool:
        """The tool (or its namespace) carries the server's name: mcp__NAME__TOOL, mcp_NAME_TOOL, mcp__NAME."""
        if not self.known:
            return any(value is not None and _MCP_TOOL.match(value) for value in (tool, namespace))
        for name in self.names:
            if namespace in (f"mcp__{name}", name):
                return True
            if tool is not None and tool.startswith((f"mcp__{name}__", f"mcp_{name}_")):
                return True
        return False


def server_names(run: Run, exchanges: tuple[ModelExchange, ...], nonce_name: str) -> ServerNames:
    """The configured name from the run's facts or the model script's record of it (each exchange's `step.server`),
    plus the nonce-tagged name the server reports in serverInfo."""
    found: list[str] = []
    fact = run.detail.facts.get(SERVER_NAME_FACT)
    if isinstance(fact, str) and fact:
        found.append(fact)
    for exchange in exchanges:
        named = step_of(exchange).get("server")
        if isinstance(named, str) and named and named not in found:
            found.append(named)
    return ServerNames((*found, nonce_name), known=bool(found))


def step_of(exchange: ModelExchange) -> Mapping[str, object]:
    """The model script's record of what it did; the column is declared TEXT (m006), so it may read back as the JSON
    text of the object rather than the object: both are accepted, anything else reads as empty."""
    step: object = exchange.step
    if isinstance(step, str) and len(step) <= _MAX_STEP:
        try:
            step = json.loads(step)
        except (ValueError, RecursionError):
            return {}
    return step if isinstance(step, Mapping) else {}


@dataclass(frozen=True, slots=True)
class ModelOccurrence:
    """One occurrence of a marker in a model request, judged. `offset` counts bytes of the segment's UTF-8 text.
    `names_server` is None when the run did not record the server's name and no structure settled it: then an
    occurrence that is not attributed is undecided (a label with the configured name cannot be ruled out)."""

    seq: int
    segment: Segment
    offset: int
    attributed: bool
    anchor: str | None  # "tool:<name>", "wrapper:<tag>", "heading:<title>", "delimiters:<label>", "tool-output"
    names_server: bool | None


def occurrences_in(context: ModelContext, token: str, names: ServerNames) -> Iterator[ModelOccurrence]:
    """Every judged occurrence of `token` in the request (none in the model's own words)."""
    for segment in context.segments:
        if segment.kind in SELF_KINDS:
            continue
        at = segment.text.find(token)
        while at >= 0:
            offset = len(segment.text[:at].encode("utf-8", "surrogatepass"))
            yield ModelOccurrence(context.seq, segment, offset, *judge(segment, at, names))
            at = segment.text.find(token, at + 1)


def judge(segment: Segment, at: int, names: ServerNames) -> tuple[bool, str | None, bool | None]:
    """(attributed, anchor, names_server) for the occurrence at character `at` of the segment's text."""
    if segment.kind in ("tool-result", "tool-description") and names.owns_tool(segment.tool, segment.namespace):
        return True, "tool:" + "/".join(part for part in (segment.namespace, segment.tool) if part), True
    before, after = segment.text[:at], segment.text[at:]
    # a name the run knows the server by, just before the occurrence in the same segment, labels it; when the run
    # did not record the configured name, its absence proves nothing (None: undecided, never a finding)
    named: bool | None = True if names.in_text(before[-WINDOW:]) else (False if names.known else None)
    wrapper = _open_wrapper(before, after)
    if wrapper is not None:
        tag, attributes = wrapper
        return True, f"wrapper:{tag}", True if names.in_text(attributes) else named
    heading = _instructions_heading(before)
    if heading is not None:
        return True, f"heading:{heading}", True if names.in_text(heading) else named
    delimited = _open_delimiters(before, after)
    if delimited is not None:
        label, introduction = delimited
        return True, f"delimiters:{label}", True if names.in_text(introduction + label) else named
    if named:
        return True, "name", True
    if segment.kind in ("tool-result", "tool-description"):
        return True, "tool-output", named
    return False, None, named


def _open_wrapper(before: str, after: str) -> tuple[str, str] | None:
    """The innermost `<untrusted...>` element that encloses the occurrence: opened before it and not closed since,
    and closed after it before it opens again (so a system prompt that only mentions the tag encloses nothing)."""
    for match in reversed(list(_UNTRUSTED_OPEN.finditer(before))):
        tag = match.group(1).lower()
        if f"</{tag}>" in before[match.end() :].lower():
            continue
        rest = after.lower()
        closed, reopened = rest.find(f"</{tag}>"), rest.find(f"<{tag}")
        if closed >= 0 and (reopened < 0 or closed < reopened):
            return match.group(1), match.group(2) or ""
        return None
    return None


def _instructions_heading(before: str) -> str | None:
    """The title of the nearest heading before the occurrence when that heading sits under a heading of lower level
    titled "MCP Server Instructions" (the parent being the nearest heading of a lower level before it)."""
    headings = [(len(m.group(1)), m.group(2)) for m in _HEADING.finditer(before)]
    if not headings:
        return None
    level, title = headings[-1]
    for parent_level, parent in reversed(headings[:-1]):
        if parent_level < level:
            return title if "mcp server instructions" in parent.lower() else None
    return None


def _open_delimiters(before: str, after: str) -> tuple[str, str] | None:
    """A `---[start of LABEL]---` delimiter whose label speaks of a server, enclosing the occurrence (its `end of`
    comes after it, before another start): the label and the line that introduces it (where an agent names the
    server)."""
    marks = list(_DELIMITER.finditer(before))
    if not marks or marks[-1].group(1).lower() != "start" or "server" not in marks[-1].group(2).lower():
        return None
    following = next(_DELIMITER.finditer(after), None)
    if following is None or following.group(1).lower() != "end":
        return None
    start = marks[-1].start()
    line_start = before.rfind("\n", 0, max(before.rfind("\n", 0, start), 0)) + 1
    return marks[-1].group(2), before[line_start:start]
