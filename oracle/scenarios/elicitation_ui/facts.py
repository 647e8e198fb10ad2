"""What an `elicitation-ui` recording shows, shared by its checks: the client run, each tool's elicitation (what
the server asked, what the client answered and when), and what the user saw, and when, at the terminal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from backchannel.oracle import harness
from backchannel.oracle.by_hand import is_by_hand, skipped_by_hand
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.session.facts import session_of
from backchannel.oracle.terminal import (
    TTY,
    Sighting,
    chunks,
    first_sighting,
    is_tty,
    plain,
    screen_text_until,
    screens_in,
    sighting_in,
    stream_names,
)
from backchannel.recordings.model import Message, Recording, Run
from backchannel.recordings.shapes import ProbeOptions

from . import SCENARIO as SCENARIO  # re-exported: checks import the name with the facts

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation"
RUN = "contract"
MISSING_CAPABILITY = -32021
# a terminal read is a little after the write, a proxy's message time a little after the send: a sighting this much
# after the answer left is not called "after" (WARN for a person), only one later than that is
AMBIGUOUS_S = 0.25


@dataclass(frozen=True)
class Elicitation:
    """One tool's first elicitation: what the server sent and the client's answer to it (if any).

    In 2026-07-28 (MRTR) `asked` is the answer holding the InputRequiredResult, `key` its inputRequests key and
    `retry` the tools/call retry carrying inputResponses for it. In the 2025 eras `asked` is the server-initiated
    `elicitation/create` request on the call's stream, `key` its JSON-RPC id and `retry` the client's POSTed
    response to it (`server_request` says which)."""

    tool: str
    asked: Message
    key: str
    params: dict[str, Any]
    retry: Message | None
    server_request: bool = False

    @property
    def answer(self) -> dict[str, Any]:
        payload = self.retry.payload if self.retry else None
        if self.server_request:
            result = payload.get("result") if isinstance(payload, dict) else None
            return result if isinstance(result, dict) else {}
        params = payload.get("params") if isinstance(payload, dict) else None
        answers = params.get("inputResponses") if isinstance(params, dict) else None
        found = answers.get(self.key) if isinstance(answers, dict) else None
        return found if isinstance(found, dict) else {}

    @property
    def action(self) -> str | None:
        action = self.answer.get("action")
        return action if isinstance(action, str) else None

    @property
    def url(self) -> str | None:
        url = self.params.get("url")
        return url if isinstance(url, str) else None

    @property
    def host(self) -> str | None:
        return urlsplit(self.url).hostname if self.url else None

    def evidence(self, note: str, *, retry: bool = False) -> Evidence:
        message = self.retry if retry and self.retry is not None else self.asked
        return Evidence(kind="message", run=message.run_id, seq=message.seq, note=note)


def client_runs(rec: Recording) -> list[Run]:
    """The client's runs: one, or one per tool when its command line took `{tool}`."""
    return [run for run in rec.runs if run.name == RUN]


def client_run(rec: Recording) -> Run | None:
    runs = client_runs(rec)
    return runs[-1] if runs else None


def tool_of(message: Message) -> str | None:
    """The tool a tools/call request names, if it names one."""
    payload = message.payload
    params = payload.get("params") if isinstance(payload, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def elicitation(rec: Recording, run: Run, tool: str) -> Elicitation | None:
    """The tool's first elicitation in the run, and the first retry that answered its key."""
    messages = list(rec.messages_in(run.id))
    calls = {(m.flow_id, m.jsonrpc_id): m for m in messages if m.direction == "to-server" and m.method == "tools/call"}
    call_flows = {m.flow_id: m for m in calls.values()}
    session = session_of(rec, run.id)
    answers = {r.message.seq: r.answer for r in session.server} if session is not None else {}
    for m in messages:
        if m.direction == "to-client" and m.kind == "request" and m.method == "elicitation/create":
            found = _server_request(answers, call_flows.get(m.flow_id), m, tool)
            if found is not None:
                return found
        if m.direction != "to-client" or m.kind != "response":
            continue
        call = calls.get((m.flow_id, m.jsonrpc_id))
        if call is None or tool_of(call) != tool:
            continue
        result = m.payload.get("result") if isinstance(m.payload, dict) else None
        requests = result.get("inputRequests") if isinstance(result, dict) else None
        for key, request in requests.items() if isinstance(requests, dict) else ():
            params = request.get("params") if isinstance(request, dict) else None
            if not isinstance(params, dict):
                continue
            retry = next(
                (
                    c
                    for c in calls.values()
                    if tool_of(c) == tool
                    and c.seq > call.seq
                    and isinstance(c.payload.get("params"), dict)
                    and key in (c.payload["params"].get("inputResponses") or {})
                ),
                None,
            )
            return Elicitation(tool, m, key, params, retry)
    return None


def _server_request(
    answers: dict[int, Message | None], call: Message | None, asked: Message, tool: str
) -> Elicitation | None:
    """A 2025 server-initiated elicitation on the stream of `tool`'s call, with the client's answer as the session
    facts paired it (`answers`: each server request's by its seq)."""
    if call is None or tool_of(call) != tool or asked.jsonrpc_id is None:
        return None
    params = asked.payload.get("params") if isinstance(asked.payload, dict) else None
    if not isinstance(params, dict):
        return None
    return Elicitation(tool, asked, asked.jsonrpc_id, params, answers.get(asked.seq), server_request=True)


def judged_runs(rec: Recording, *, by_hand: bool = False) -> list[Run] | Finding:
    """The client runs to judge, or the ERROR or SKIP that says why none can be: a harness that did not see them (its
    own finding, never a SKIP), no client run at all, or runs a person drove (SKIP by-hand: the lab saw no screen)
    unless the caller reads only the wire (`by_hand=True`)."""
    problem = harness.first_problem(rec)
    if problem is not None:
        return problem
    runs = client_runs(rec)
    if not by_hand and runs and all(is_by_hand(run) for run in runs):  # nothing the host showed was recorded
        return skipped_by_hand(runs[-1])
    return runs or Finding.errored("incomplete-recording", "the recording has no client run")


def exercised(rec: Recording, tool: str) -> tuple[Run, Elicitation] | Finding:
    """The client run and the tool's elicitation, or the ERROR/SKIP that says why the tool cannot be judged."""
    runs = judged_runs(rec)
    if isinstance(runs, Finding):
        return runs
    for run in runs:
        found = elicitation(rec, run, tool)
        if found is not None:
            return run, found
    run = runs[-1]
    if any(_refused(rec, each, tool) for each in runs):
        return Finding.skipped("mode-not-declared", f"{tool} needs a mode the client did not declare", run=run.id)
    return Finding.skipped("tool-not-called", f"the client never got {tool}'s elicitation", run=run.id)


def _refused(rec: Recording, run: Run, tool: str) -> bool:
    for m in rec.messages_in(run.id):
        error = m.payload.get("error") if m.direction == "to-client" and isinstance(m.payload, dict) else None
        if isinstance(error, dict) and error.get("code") == MISSING_CAPABILITY:
            return True
    return False


def sighting_evidence(sighting: Sighting, run: Run, note: str) -> Evidence:
    return sighting.evidence(run.id, note)


def no_user_step(rec: Recording, run: Run) -> bool:
    """True when the recording shows the run had no way to hear from a user: nothing typed at a prompt (no
    `answered` screen, under --tty or piped --answer) and nothing given on stdin. Then any answer the client sent
    was its own, so there is no consent to order an open against: the open-without-consent band (AMBIGUOUS_S) is
    for a real user step that lies close to another event, never for the absence of one. (A sighting is ordered
    against the answer message, which exists either way: seen_before_answer.) False when it cannot be told (a
    recording that does not say how its check was run)."""
    options = ProbeOptions.read(rec.meta)
    if options is None:
        return False
    if options.stdin:
        return False
    return not any(s.reason == "answered" for s in screens_in(rec, run.id))


NO_USER_STEP = "no user step at all (nothing typed at a prompt, nothing on stdin): the answer was the client's own"


def seen_before_answer(rec: Recording, run: Run, found: Elicitation, text: str, what: str) -> Finding:
    """PASS when `text` reached the terminal before the answer left; FAIL when never, or provably after; WARN when
    the two are too close to order (a person judges, with both pieces of evidence).

    The times compared are the harness's read of a terminal chunk and the proxy's sight of the answer: each a little
    after the event it stands for, by an amount load can stretch. So a sighting read within AMBIGUOUS_S after the
    answer is WARN, with or without a user step, unless the client's own output orders it: the tool's final result,
    which the client can only have had after its answer left, shown earlier in the same stream (byte order, no
    clock) proves the text came after the answer: FAIL however small the gap."""
    sighting = first_sighting(rec, run.id, text)
    if found.retry is None:  # no answer, so no consent was given: nothing to be shown "before"
        if sighting is None:
            return Finding.warned(
                f"{what} was never shown ({text!r}) and the client never answered: it stalled (a person judges)",
                found.evidence(what),
                run=run.id,
            )
        return Finding.skipped("not-answered", f"{what} was shown but the client never answered", run=run.id)
    answer_t = found.retry.t
    answered = found.evidence(f"answer {found.action or '?'} left", retry=True)
    if sighting is None and found.action in ("decline", "cancel"):
        # "before consent": a client that declined or cancelled gave none, so nothing had to precede it (whether its
        # user had a say is elicitation-decline-cancel-offered's question, not this one)
        return Finding.skipped(
            "no-consent-given",
            f"{what} ({text!r}) never reached the terminal, and the client answered {found.action}: no consent was "
            "given for it to precede",
            answered,
            run=run.id,
        )
    if sighting is None:
        return Finding.failed(
            f"{what} ({text!r}) never reached the terminal; the client answered {found.action or '?'}",
            answered,
            run=run.id,
        )
    shown = sighting_evidence(sighting, run, what)
    if sighting.t is None or answer_t is None or sighting.t <= answer_t:
        return Finding.passed(f"{what} was shown before the answer ({found.action}) left", shown, answered, run=run.id)
    outcome = outcome_shown_before(rec, run, found, sighting)
    if outcome is not None:
        return Finding.failed(
            f"{what} was shown after the client had already shown the tool's result, which it could only have once its "
            f"answer ({found.action}) left (byte {outcome.offset}, then {sighting.offset} of {sighting.stream}): not "
            "before consent",
            shown,
            sighting_evidence(outcome, run, "the tool's result, shown first"),
            answered,
            run=run.id,
        )
    late = sighting.t - answer_t
    if late <= AMBIGUOUS_S:
        alone = " (no user step either: the client answered by itself)" if no_user_step(rec, run) else ""
        return Finding.warned(
            f"{what} was read from the terminal {late * 1000:.0f} ms after the answer left: closer than the harness's "
            f"read and the proxy's sight can order{alone} (a person judges)",
            shown,
            answered,
            run=run.id,
        )
    return Finding.failed(
        f"{what} was first shown {late:.2f} s after the answer ({found.action}) left: not before consent",
        shown,
        answered,
        run=run.id,
    )


MIN_OUTCOME_CHARS = 12  # a shorter result text ("ok") could be shown for another reason: it orders nothing


def outcome_shown_before(rec: Recording, run: Run, found: Elicitation, sighting: Sighting) -> Sighting | None:
    """Where the client showed the tool's final result (the first content text the server sent after the answer)
    before `sighting` in the same stream, or None when it did not (or the result is too short to be told apart)."""
    after = found.retry.seq if found.retry is not None else None
    texts = [
        t
        for m in rec.messages_in(run.id)
        if after is not None and m.seq > after and m.direction == "to-client" and m.kind == "response"
        for t in _content_texts(m.payload)
    ]
    if not texts or len(texts[0].strip()) < MIN_OUTCOME_CHARS:
        return None
    outcome = sighting_in(rec, run.id, sighting.stream, texts[0].strip())
    return outcome if outcome is not None and outcome.offset < sighting.offset else None


def _content_texts(payload: Any) -> list[str]:
    result = payload.get("result") if isinstance(payload, dict) else None
    content = result.get("content") if isinstance(result, dict) else None
    items = content if isinstance(content, list) else []
    return [
        i["text"] for i in items if isinstance(i, dict) and i.get("type") == "text" and isinstance(i.get("text"), str)
    ]


def text_until(rec: Recording, run: Run, until: float | None) -> str:
    """What the client showed up to a moment (its chunks read by then, with the ordering slack), as plain text;
    under a terminal, then the screens taken by then (a full-screen UI's stream holds no sentence whole)."""
    parts = []
    for name in stream_names(rec, run.id):
        read = chunks(rec, run.id, name)
        raw = b"".join(c.data for c in read if until is None or c.t is None or c.t <= until + AMBIGUOUS_S)
        parts.append(plain(raw) if name == TTY else raw)
    text = b"".join(parts).decode("utf-8", "replace")
    if is_tty(rec, run.id):
        text += "\n" + screen_text_until(rec, run.id, until)
    return text


def last_screen_before(rec: Recording, run: Run, until: float | None) -> Evidence | None:
    """The last screen snapshot taken before a moment (a tty run's evidence for a person), if any."""
    screens = [s for s in screens_in(rec, run.id) if until is None or s.t is None or s.t <= until]
    if not screens:
        return None
    screen = screens[-1]
    return Evidence(kind="screen", run=run.id, seq=screen.seq, rows=(0, screen.rows), note=screen.reason)
