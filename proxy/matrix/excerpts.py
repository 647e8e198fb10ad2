"""What a piece of evidence points at, cut out of the recording: the wire message, the terminal bytes, the file.

Every string leaves here neutralised (control, escape and bidi characters made visible); HTML escaping is the
template's job. Excerpts are bounded, so a recording of any size makes pages of a readable size. A person's answer
(`check --by-hand`) is shown as what they were asked and said, with its screenshot checked (the site writes the
image file beside the case page: render.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from backchannel.oracle.by_hand import SAID
from backchannel.oracle.cited import Cited
from backchannel.oracle.model import Evidence
from backchannel.oracle.render.text import evidence_line
from backchannel.recordings import redact
from backchannel.recordings.model import Anomaly, Attestation, Exchange, Message, Recording, SseEvent
from backchannel.recordings.safe_text import neutralise
from backchannel.recordings.screenshots import Screenshot, screenshot_of

WIRE_CHARS = 4000  # of one message or body
CONTEXT_BYTES = 240  # shown either side of cited terminal or file bytes
CITED_BYTES = 2000  # of the cited bytes themselves


@dataclass(frozen=True, slots=True)
class Excerpt:
    """One evidence item: its one-line description and the text around it; `cited` is the part it points at. A
    person's answer has `question`, `answer` and `who` instead, and maybe a `screenshot`."""

    label: str
    before: str = ""
    cited: str = ""
    after: str = ""
    question: str = ""
    answer: str = ""
    who: str = ""
    screenshot: Screenshot | None = None

    @property
    def empty(self) -> bool:
        return not (self.before or self.cited or self.after or self.question)


def _bounded(text: str, limit: int = WIRE_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n… ({len(text) - limit} more characters)"


def _decoded(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", errors="replace")


def _pretty(text: str) -> str:
    """JSON indented for reading (keys in their recorded order), secrets redacted again (the site is published, and
    the file may come from a recorder that missed one); anything else as it is, redacted."""
    text = redact.redact_json_text(text)
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


def _message(m: Message) -> str:
    return f"{m.direction} {m.kind} {m.method or ''}\n{_pretty(m.text)}"


def _exchange(x: Exchange) -> str:
    head = f"{x.method or '?'} {x.path or '?'} → {x.status if x.status is not None else x.error or 'no response'}"
    request = _bounded(_pretty(_decoded(x.request_body)))
    response = _bounded(_pretty(_decoded(x.response_body)))
    return f"{head}\n\nrequest body:\n{request}\n\nresponse body (as the client saw it):\n{response}"


def _sse(e: SseEvent) -> str:
    return f"{e.kind} ({e.origin})\n{_decoded(redact.redact_json_bytes(e.client_raw))}"


def _anomaly(a: Anomaly) -> str:
    return f"{a.kind}: {a.detail}"


def _answered(label: str, answer: Attestation) -> Excerpt:
    """The question as the person read it (redacted again: the site is published) and what they said."""
    return Excerpt(
        label,
        question=neutralise(_bounded(redact.redact_text(answer.question, "matrix"))),
        answer=SAID.get(answer.answer, neutralise(answer.answer)),
        who=neutralise(answer.who),
        screenshot=screenshot_of(answer),
    )


def _wire(seq: int | None, shown: str | None) -> str:
    if seq is None:
        return ""
    return _bounded(f"(#{seq} is not in the recording)" if shown is None else shown)


class Excerpter:
    """Cuts evidence out of one recording; the lookup (oracle/cited.py, shared with the bug report) indexes each
    kind once: a page cites many items of the same recording."""

    def __init__(self, rec: Recording) -> None:
        self.rec = rec
        self.cited = Cited(rec)

    def _wire_text(self, ev: Evidence) -> str:
        seq, cited = ev.seq, self.cited
        if ev.kind == "message":
            return _wire(seq, None if (m := cited.message(seq)) is None else _message(m))
        if ev.kind == "exchange":
            return _wire(seq, None if (x := cited.exchange(seq)) is None else _exchange(x))
        if ev.kind == "sse":
            return _wire(seq, None if (e := cited.sse(seq)) is None else _sse(e))
        return _wire(seq, None if (a := cited.anomaly(seq)) is None else _anomaly(a))

    def _terminal(self, ev: Evidence, run: str | None) -> bytes:
        stream = self.cited.terminal(run, ev.stream)  # none named: the one with bytes
        return b"" if stream is None else stream.data

    def _file(self, ev: Evidence, run: str | None) -> bytes:
        found = self.cited.file(ev.path, run)
        return b"" if found is None or found.data is None else found.data

    def _bytes_excerpt(self, label: str, data: bytes, ev: Evidence) -> Excerpt:
        data = redact.redact_output(data, "matrix")  # masked at the same length: the cited offsets stay true
        if ev.offset is None:  # the whole stream or file is the evidence: its start
            return Excerpt(label, cited=neutralise(_bounded(_decoded(data[:CITED_BYTES]), CITED_BYTES)))
        start = max(ev.offset, 0)
        end = start + min(ev.length if ev.length is not None else 0, CITED_BYTES)
        return Excerpt(
            label,
            before=neutralise(_decoded(data[max(start - CONTEXT_BYTES, 0) : start])),
            cited=neutralise(_decoded(data[start:end])),
            after=neutralise(_decoded(data[end : end + CONTEXT_BYTES])),
        )

    def excerpt(self, ev: Evidence, result_run: str | None) -> Excerpt:
        """The evidence's description and what it cites; an item citing nothing readable has a label only."""
        label = evidence_line(ev)
        run = ev.run or result_run
        if ev.kind in ("message", "exchange", "sse", "anomaly"):
            return Excerpt(label, cited=neutralise(self._wire_text(ev)))
        if ev.kind == "terminal":
            return self._bytes_excerpt(label, self._terminal(ev, run), ev)
        if ev.kind == "file":
            return self._bytes_excerpt(label, self._file(ev, run), ev)
        if ev.kind == "model":  # the cited segment's text (offsets count its bytes); a request unread cites nothing
            text = self.cited.model_text(ev.seq, ev.path)
            return Excerpt(label) if text is None else self._bytes_excerpt(label, text.encode("utf-8"), ev)
        if ev.kind == "attestation":
            answer = self.cited.attestation(ev.seq)
            return Excerpt(label) if answer is None else _answered(label, answer)
        return Excerpt(label)
