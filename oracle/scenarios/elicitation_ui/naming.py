"""`elicitation-names-requesting-server` on an `elicitation-ui` recording: each elicitation message the client
showed has the requesting server's name or origin close before it (the same rule as on the mrtr-provenance probe)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from backchannel.oracle.detectors.model_attribution import SERVER_NAME_FACT
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.terminal import is_tty, screen_evidence, screens_in, streams
from backchannel.recordings.model import Recording, Run

from .facts import elicitation, judged_runs
from .payloads import FORM_TOOL, PUNYCODE_TOOL, URL_TOOL

WINDOW = 512  # bytes before a message in which the server's name or origin must appear
# read here, not through oracle/parties.py (on purpose): this check looks each name up again in the terminal, so it
# needs the name whole as the results' `_meta` carried it, where parties cuts long names for a page and also counts
# a discover result's own serverInfo; a different name list would change verdicts
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def server_names(rec: Recording, run: Run) -> tuple[str, ...]:
    """What names the server: the name its results report (in `_meta`, or a 2025 initialize's serverInfo), the name
    a coding agent's configuration gave it (the name its user knows it by), and the run URL's origin (with and
    without scheme)."""
    names: list[str] = []
    configured = run.detail.facts.get(SERVER_NAME_FACT)
    if isinstance(configured, str) and configured:
        names.append(configured)
    for message in rec.messages_in(run.id):
        result = message.payload.get("result") if isinstance(message.payload, dict) else None
        meta: Any = result.get("_meta") if isinstance(result, dict) else None
        info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
        if message.method == "initialize" and isinstance(result, dict):  # a 2025 session names it at initialize
            info = result.get("serverInfo")
        if isinstance(info, dict) and isinstance(info.get("name"), str) and info["name"] not in names:
            names.append(info["name"])
    parts = urlsplit(run.detail.url or "")
    if parts.hostname:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        names += [f"{parts.scheme}://{parts.hostname}:{port}", f"{parts.hostname}:{port}"]
    return tuple(name for name in names if name)


def names_requesting_server(rec: Recording) -> Finding:
    runs = judged_runs(rec)
    if isinstance(runs, Finding):
        return runs
    named: list[Evidence] = []
    unnamed: list[Evidence] = []
    messages: list[bytes] = []
    on_screens: list[tuple[Evidence, bool]] = []
    for run in runs:
        _judge_run(rec, run, messages, named, unnamed)
        on_screens += _screen_showings(rec, run)
    run = runs[-1]
    if not (named or unnamed) and on_screens:
        return _judge_screens(on_screens)
    if not messages or not (named or unnamed):
        return Finding.skipped("elicitation-not-shown", "the client never showed an elicitation message", run=run.id)
    if unnamed:
        total = len(named) + len(unnamed)
        return Finding.failed(
            f"{len(unnamed)} of {total} showing(s) of an elicitation name no server (neither name nor origin)",
            *unnamed,
            run=unnamed[0].run,
        )
    return Finding.passed(f"each of {len(named)} showing(s) names the requesting server", *named, run=run.id)


def _judge_run(rec: Recording, run: Run, messages: list[bytes], named: list[Evidence], unnamed: list[Evidence]) -> None:
    """Each showing, in this run, of an elicitation message this run received: named or not."""
    mine = []
    for tool in (URL_TOOL, PUNYCODE_TOOL, FORM_TOOL):
        found = elicitation(rec, run, tool)
        message = found.params.get("message") if found else None
        if isinstance(message, str) and message:
            mine.append(message[:40].encode("utf-8", "surrogatepass"))
    messages += mine
    names = [name.encode("utf-8", "surrogatepass") for name in server_names(rec, run)]
    for stream in streams(rec, run.id):
        for needle in mine:
            at = stream.data.find(needle)
            while at >= 0:
                window = stream.data[max(0, at - WINDOW) : at]
                ok = any(name in window for name in names)
                note = "server named" if ok else "no server name or origin before it"
                cited = Evidence(
                    kind="terminal", run=run.id, stream=stream.name, offset=at, length=len(needle), note=note
                )
                (named if ok else unnamed).append(cited)
                at = stream.data.find(needle, at + 1)


def _screen_showings(rec: Recording, run: Run) -> list[tuple[Evidence, bool]]:
    """A full-screen UI's showings (its stream holds no sentence whole): each rendered screen holding one of this
    run's elicitation messages, and whether the server's name or origin is on it within WINDOW characters before."""
    if not is_tty(rec, run.id):
        return []
    mine = []
    for tool in (URL_TOOL, PUNYCODE_TOOL, FORM_TOOL):
        found = elicitation(rec, run, tool)
        message = found.params.get("message") if found else None
        if isinstance(message, str) and message:
            mine.append(message[:40])
    names = server_names(rec, run)
    out: list[tuple[Evidence, bool]] = []
    for needle in mine:
        for screen in screens_in(rec, run.id):
            at = screen.text.find(needle)
            if at < 0:
                continue
            ok = any(name in screen.text[max(0, at - WINDOW) : at] for name in names)
            out.append((screen_evidence(screen, at, len(needle), "server named" if ok else "no name before it"), ok))
            break  # its first screen: later ones redraw the same dialog
    return out


def _judge_screens(showings: list[tuple[Evidence, bool]]) -> Finding:
    """Named on every first screen: PASS. Not named on one: WARN, never FAIL, because a rendered screen may have
    scrolled the name (a dialog's title) off its top, which a stream could not."""
    unnamed = [evidence for evidence, ok in showings if not ok]
    run = showings[-1][0].run
    if unnamed:
        return Finding.warned(
            f"{len(unnamed)} of {len(showings)} screen(s) showing an elicitation show no server name or origin above"
            " it (a screen may have scrolled it off: a person should look)",
            *unnamed,
            run=unnamed[0].run,
        )
    return Finding.passed(
        f"each of {len(showings)} screen(s) showing an elicitation names the requesting server",
        *(evidence for evidence, _ in showings),
        run=run,
    )
