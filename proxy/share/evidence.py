"""What a finding's evidence points at, cut short: the wire lines and terminal lines a bug report quotes.

Each excerpt has a label naming the reference the way a reader looks it up (`message #14`, `exchange #7`,
`stdout of run X, bytes 73 to 96`, `file P of run X`, `answer #3 of run X`) and the raw text it shows; the report
escapes and fences it. A person's answer may carry a screenshot: the excerpt links it where the bug report writes
it (proxy/share/screenshots.py), or says why it is not shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.oracle.by_hand import SAID
from backchannel.oracle.cited import Cited
from backchannel.oracle.model import Evidence
from backchannel.proxy.share.markdown import Markdown, code, text
from backchannel.proxy.share.screenshots import SCREENSHOTS
from backchannel.recordings.model import Attestation, Recording
from backchannel.recordings.screenshots import Screenshot, screenshot_of

MAX_LINES = 12
MAX_CHARS = 1200
CONTEXT_LINES = 2  # lines shown before the cited bytes in terminal output or a file


@dataclass(frozen=True, slots=True)
class Excerpt:
    label: Markdown  # already escaped: names what is cited
    body: str | None  # raw text from the recording (neutralised and fenced by the template), None for none
    found: bool = True
    screenshot: Screenshot | None = None  # the one a person gave with the cited answer, checked

    @property
    def picture(self) -> Markdown | None:
        """The screenshot as a markdown image of the file the bug report writes, or why it is not shown; None for
        none. The path is made of the answer's number only, and the words are backchannel's."""
        shot = self.screenshot
        if shot is None:
            return None
        if shot.file_name is None:
            return Markdown(f"The screenshot given with this answer is not included: {text(shot.refused)}.")
        return Markdown(f"![the screenshot given with answer #{shot.seq}]({SCREENSHOTS}/{shot.file_name})")


def _cut(raw: str) -> str:
    lines = raw.splitlines()
    kept = "\n".join(lines[:MAX_LINES])
    if len(kept) > MAX_CHARS:
        kept = kept[:MAX_CHARS]
    cut = len(lines) > MAX_LINES or len(kept) < len("\n".join(lines[:MAX_LINES]))
    return kept + ("\n[…]" if cut else "")


def _decode(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def _lines_around(data: bytes, offset: int | None, length: int | None) -> str:
    """The lines holding bytes [offset, offset+length), with a little context before; the start when no offset."""
    if offset is None or offset < 0 or offset > len(data):
        return _cut(_decode(data))
    start = data.rfind(b"\n", 0, offset) + 1  # the start of the line holding `offset`
    for _ in range(CONTEXT_LINES):
        if start == 0:
            break
        start = data.rfind(b"\n", 0, start - 1) + 1
    end = data.find(b"\n", offset + max(length or 0, 0))
    return _cut(_decode(data[start : len(data) if end < 0 else end]))


def _note(evidence: Evidence) -> Markdown:
    return Markdown(f": {text(evidence.note)}") if evidence.note else Markdown("")


def _run_part(evidence: Evidence) -> Markdown:
    return Markdown(f" of run {code(evidence.run)}") if evidence.run else Markdown("")


def excerpt(rec: Recording, evidence: Evidence) -> Excerpt:
    """The excerpt of one evidence item; an item that points at nothing in the recording says so."""
    kind, seq = evidence.kind, evidence.seq
    note = _note(evidence)
    cited = Cited(rec)  # the lookup the matrix shares: only the index of the kind asked for is built
    if kind == "message":
        message = cited.message(seq)
        if message is not None:
            what = text(f"{message.direction}, {message.method or message.kind}")
            label = Markdown(f"message #{seq}{_run_part(evidence)} ({what}){note}")
            return Excerpt(label, _cut(message.text))
    elif kind == "exchange":
        exchange = cited.exchange(seq)
        if exchange is not None:
            line = text(f"{exchange.method or '?'} {exchange.path or '?'} → {exchange.status or exchange.error or '?'}")
            return Excerpt(
                Markdown(f"exchange #{seq}{_run_part(evidence)} ({line}){note}"), _cut(_decode(exchange.response_body))
            )
    elif kind == "sse":
        item = cited.sse(seq)
        if item is not None:
            return Excerpt(Markdown(f"SSE item #{seq}{_run_part(evidence)}{note}"), _cut(_decode(item.client_raw)))
    elif kind == "anomaly":
        anomaly = cited.anomaly(seq)
        if anomaly is not None:
            return Excerpt(Markdown(f"anomaly #{seq} ({text(anomaly.kind)}){note}"), _cut(anomaly.detail))
    elif kind == "terminal":
        stream = cited.terminal(evidence.run, evidence.stream)  # a tty stream as the oracle read it: plain text
        if stream is not None:
            span = _span(evidence)
            label = Markdown(f"{text(stream.name)} of run {code(evidence.run)}{span}{note}")
            return Excerpt(label, _lines_around(stream.data, evidence.offset, evidence.length))
    elif kind == "screen":
        snapshot = cited.screen(seq)
        if snapshot is not None:
            first, end = evidence.rows or (0, snapshot.rows)
            label = Markdown(
                f"screen #{seq} ({text(snapshot.reason)}){_run_part(evidence)}, rows {first}–{end - 1}{note}"
            )
            return Excerpt(label, _cut("\n".join(snapshot.lines[max(0, first - 2) : end + 2])))
    elif kind == "file":
        found = cited.file(evidence.path, evidence.run)
        if found is not None:
            label = Markdown(f"file {code(evidence.path)}{_run_part(evidence)}{_span(evidence)}{note}")
            return Excerpt(label, _lines_around(found.data or b"", evidence.offset, evidence.length))
    elif kind == "model":
        request = cited.model(seq)
        if request is not None:
            where = text(f"{request.api} {request.method} {request.path}")
            label = Markdown(f"model request #{seq}{_run_part(evidence)} ({where}){_span(evidence)}{note}")
            segment = cited.model_text(seq, evidence.path)
            shown = _lines_around(segment.encode("utf-8"), evidence.offset, evidence.length) if segment else None
            return Excerpt(label, shown)
    elif kind == "attestation":
        answer = cited.attestation(seq)
        if answer is not None:
            label = Markdown(f"answer #{seq}{_run_part(evidence)} (a {text(answer.who)}){note}")
            return Excerpt(label, _cut(_asked(answer)), screenshot=screenshot_of(answer))
    elif kind == "run":
        run = cited.run(evidence.run)
        if run is not None:
            code_part = "no exit code" if run.exit_code is None else f"exit code {run.exit_code}"
            ended = text(f"{run.outcome or 'no outcome'}, {code_part}")
            return Excerpt(Markdown(f"run {code(run.name)} ({code(run.id)}): {ended}{note}"), None)
    elif kind == "recording":
        return Excerpt(Markdown(f"the recording as a whole{note}"), None)
    where = text(f"{kind} {seq if seq is not None else evidence.path or ''}".strip())
    return Excerpt(Markdown(f"{where}{_run_part(evidence)} is not in the recording{note}"), None, found=False)


def _asked(answer: Attestation) -> str:
    return f"Question: {answer.question}\nAnswer: {SAID.get(answer.answer, answer.answer)}"


def _span(evidence: Evidence) -> Markdown:
    if evidence.offset is None:
        return Markdown("")
    end = evidence.offset + max(evidence.length or 0, 0)
    return Markdown(f", bytes {evidence.offset} to {end}")
