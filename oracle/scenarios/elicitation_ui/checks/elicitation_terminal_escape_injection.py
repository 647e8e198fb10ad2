"""The escape-injection probe of `elicitation-ui` (CWE-150): server text that drives the client's terminal."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from backchannel.oracle.by_hand import unseen_by_lab
from backchannel.oracle.harness import first_problem
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.terminal import TTY, plain, raw_bytes, stream_names
from backchannel.recordings.model import Message, Recording, Run

from .. import SCENARIO
from ..escapes import CLASSES, Detection, detect, marker
from ..facts import tool_of
from ..payloads import ESCAPE_FORM_TOOL, ESCAPE_RESULT_TOOL

SECURITY = "https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#security-considerations"
ESCAPE_TOOLS = (ESCAPE_FORM_TOOL, ESCAPE_RESULT_TOOL)


@dataclass(frozen=True, slots=True)
class _Stream:
    run: Run
    name: str
    detection: Detection
    raw: bytes = b""


def escape_calls(rec: Recording, run: Run) -> tuple[Message, ...]:
    """The run's tools/call requests for show_notice or get_notice (first calls and retries)."""
    return tuple(
        m
        for m in rec.messages_in(run.id)
        if m.direction == "to-server" and m.method == "tools/call" and tool_of(m) in ESCAPE_TOOLS
    )


def _read(rec: Recording, run: Run, nonce: str) -> tuple[_Stream, ...]:
    """Each terminal stream of the run as the client wrote it: raw bytes (never the tty's plain text)."""
    names = stream_names(rec, run.id)
    raws = {name: raw_bytes(rec, run.id, name) for name in names}
    return tuple(_Stream(run, name, detect(raws[name], nonce), raws[name]) for name in names)


def _terminal(stream: _Stream, offset: int | None, length: int | None, note: str) -> Evidence:
    if stream.name == TTY and offset is not None:
        # evidence into a tty stream cites its plain text (oracle/terminal.py), as every excerpt reads it; the
        # sequence itself is only in the raw bytes, so the note gives the raw offset too
        note += f" (raw tty byte {offset})"
        end = offset + (length or 0)
        offset, length = len(plain(stream.raw[:offset])), len(plain(stream.raw[offset:end]))
    return Evidence(kind="terminal", run=stream.run.id, stream=stream.name, offset=offset, length=length, note=note)


@check(
    "elicitation-terminal-escape-injection",
    scenario=SCENARIO,
    level="MUST",
    spec=SECURITY,
    title="Server text (an elicitation message, a tool result) cannot drive the terminal with escape sequences",
    cwe=("CWE-150",),
    probe=True,
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """The 2026-07-28 elicitation Security Considerations: "Clients MUST provide clear indication of which server is
    requesting information", "Clients SHOULD present elicitation requests in a way that makes it clear what
    information is being requested and why", and, for URLs, clients "MUST show the full URL to the user for
    examination before consent" and "MUST handle URLs carefully to prevent users from unknowingly clicking malicious
    links". The spec names no escape rule of its own; those MUSTs are what a terminal client breaks when it writes
    a server's text to its terminal unneutralised (CWE-150, improper neutralisation of escape sequences): the server
    then owns the screen, and can erase or overwrite the lines the user relies on (the server's name, the URL),
    show a link whose target is not its text, write the clipboard, retitle the window, or reverse and reorder text.

    Method: `show_notice` sends a form-mode elicitation and `get_notice` a complete result, both with the same text
    (`escapes.payload(nonce)`): eight classes of control sequence (cursor up and line erase, an OSC 8 link whose
    target is not its text, an OSC 52 clipboard write, a window title, a bidi override RLO/LRO, a bidi embedding
    RLE/LRE, a bidi isolate LRI/RLI/FSI, and the 8-bit C1 CSI U+009B / OSC U+009D), each directly against a token
    carrying this recording's nonce, and the marker `BCKCH-ESC-<nonce>` at the end. Every client run that called
    either tool is read as raw terminal bytes (stdout and stderr piped, the `tty` stream as written, chunks
    concatenated by offset). CONFIRMED when any class's control bytes reached a stream against the nonce token (one
    signal per class; evidence: stream, byte offset and length in the raw stream). REFUTED when the marker was shown
    and no class reached the terminal raw: printed in caret notation (`^[`, `M-^[`), as
    `\\x1b`/`\\e`/`\\u001b`/`\\x9b`/`\\u009b`/`\\u202e`/`\\u2066`, `<ESC>`, `<U+202D>`, U+241B or stripped all
    count as neutralised. SKIP `escape-text-not-shown` when the marker never reached the terminal, `tool-not-called`
    when no client run called either tool, `by-hand` for a host a person drove (its terminal is not recorded); ERROR
    when the harness did not see every run. A client's own escape codes
    (colours, spinners, line erasures, an isolate around text of its own) never count: they carry no nonce, and a
    lone pop (PDF, PDI) closes nothing. Signals: `escape-cursor-erase`, `escape-osc8-mismatch`,
    `escape-osc52-clipboard`, `escape-window-title`, `escape-bidi-override`, `escape-bidi-embedding`,
    `escape-bidi-isolate`, `escape-c1-control`."""
    problem = first_problem(rec)
    if problem is not None:
        yield problem  # the harness's own ERROR: a run it did not see is never judged
        return
    driven = unseen_by_lab(rec)  # a host a person drove: its terminal is not recorded
    if driven is not None:
        yield driven
        return
    nonce = rec.info.nonce
    if not nonce:
        yield Finding.errored("incomplete-recording", "the recording has no nonce, so no payload can be told apart")
        return
    runs = [(run, calls) for run in rec.runs if run.client_argv is not None if (calls := escape_calls(rec, run))]
    if not runs:
        yield Finding.skipped("tool-not-called", f"no client run called {ESCAPE_FORM_TOOL} or {ESCAPE_RESULT_TOOL}")
        return
    streams = [stream for run, _ in runs for stream in _read(rec, run, nonce)]
    called = [
        Evidence(kind="message", run=run.id, seq=m.seq, note=f"tools/call {tool_of(m)}")
        for run, calls in runs
        for m in calls
    ]
    observations = [
        f"neutralised: {n.form} in {s.run.name} {s.name} at byte {n.offset}"
        for s in streams
        for n in s.detection.neutralised
    ]
    hits = [(s, h) for s in streams for h in s.detection.hits]
    if hits:
        signals = tuple(c.signal for c in CLASSES if any(h.cls is c for _, h in hits))
        evidence = [
            _terminal(s, h.offset, h.length, f"{h.cls.name}: {h.cls.description}, raw with this server's nonce")
            for s, h in hits
        ]
        first = hits[0][0].run
        yield Finding.failed(
            "the server's escape sequences reached the terminal unneutralised: "
            + ", ".join(c.description for c in CLASSES if c.signal in signals),
            *evidence,
            *called,
            run=first.id,
            signals=signals,
            observations=tuple(observations),
        )
        return
    shown = [s for s in streams if s.detection.shown]
    if not shown:
        yield Finding.skipped(
            "escape-text-not-shown",
            f"the client called the escape tools but never showed their text (no {marker(nonce)} at the terminal)",
            *called,
            run=runs[0][0].id,
            observations=tuple(observations),
        )
        return
    seen = [
        _terminal(s, offset, len(marker(nonce)), "the payload's marker, raw stream")
        for s in shown
        for offset in s.detection.marker_offsets
    ] or [_terminal(s, None, None, "the payload's marker, in the plain text only") for s in shown]
    forms = sorted({n.form for s in streams for n in s.detection.neutralised})
    how = f"neutralised ({', '.join(forms)})" if forms else "with every sequence stripped or neutralised"
    yield Finding.passed(
        f"the escape payload was shown {how}; none of its control sequences reached the terminal raw",
        *seen,
        *called,
        run=shown[0].run.id,
        observations=tuple(observations),
    )
