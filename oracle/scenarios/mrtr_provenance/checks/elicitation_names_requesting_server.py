"""The client shows which server is requesting information when it renders an elicitation."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.judge import scenarios_of
from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.terminal import TTY, draws_at_cursor, screen_names_body
from backchannel.recordings.model import Recording

from ..facts import (
    SCENARIO,
    SPEC,
    anchors_for,
    asked_on_stream,
    first_run,
    gate,
    injection_decision,
    markers_of,
    model_carrier,
    shown_body,
)


@check(
    "elicitation-names-requesting-server",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/client/elicitation",
    title="An elicitation names the server that requests it",
    also=("elicitation-ui",),
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """MCP clients MUST "provide UI that makes it clear which server is requesting information". Every occurrence
    of the PROBE's elicitation text (an injected input request in 2026-07-28, a server-initiated
    `elicitation/create` in the 2025 eras) must have the server's name or origin in the 512 bytes before it, or, in a
    coding agent's model context, a structure naming the server (its tool's name, a heading or label with its
    name: oracle/detectors/model_context.py); a label like "the server asks" that names no server is not enough.
    Not shown at all: SKIP; a model context not read: SKIP `model-context-unread`. On an
    `elicitation-ui` recording the same rule holds for each elicitation message its client showed
    (oracle/scenarios/elicitation_ui/naming.py)."""
    if "elicitation-ui" in scenarios_of(rec):
        from backchannel.oracle.scenarios.elicitation_ui.naming import names_requesting_server

        yield names_requesting_server(rec)
        return
    stop = gate(rec)
    if stop is not None:
        yield stop
        return
    probe = first_run(rec, "probe")
    decision = injection_decision(rec, probe) if probe else None
    streamed = asked_on_stream(rec, probe) if probe else []  # the 2025 form: a server-initiated request
    elicited = any(m.method == "elicitation/create" for m in streamed)
    if probe is None or decision is None or (decision.chosen != "elicitation" and not elicited):
        yield Finding.skipped("no-elicitation-sent", "no elicitation reached the client in the PROBE run")
        return
    model = model_carrier(rec, probe)
    unread = (model.unread_observation(),) if model.unread else ()
    shown = shown_body(rec, probe)
    if not shown:
        yield Finding.skipped(
            "elicitation-not-shown",
            "the client never showed the elicitation message",
            run=probe.id,
            observations=unread,
        )
        return
    body = len(markers_of(rec).body)
    unnamed = [s for s in shown if s.names_server is False]
    if unnamed and all(s.carrier == TTY for s in unnamed) and draws_at_cursor(rec, probe.id):
        # a terminal UI that draws at cursor positions writes its stream in another order than its screen shows
        # it: a name above the message on the screen may come after it in the stream. The screens decide.
        named_on_screen = screen_names_body(rec, probe.id, markers_of(rec).body, anchors_for(rec, probe))
        if named_on_screen is not None:
            unnamed = []
        else:
            yield Finding.warned(
                f"{len(unnamed)} of {len(shown)} showing(s) of the elicitation have no server name or origin before "
                "them in the terminal's stream, and no screen snapshot shows one above the message; a terminal UI's "
                "stream is not its screen's order, so a person should look",
                *[s.evidence(probe, body, "no server name or origin before it in the stream") for s in unnamed],
                run=probe.id,
                observations=unread,
            )
            return
    if unnamed:
        yield Finding.failed(
            f"{len(unnamed)} of {len(shown)} showing(s) of the elicitation name no server (neither name nor origin)",
            *[s.evidence(probe, body, "no server name or origin before it") for s in unnamed],
            run=probe.id,
            observations=unread,
        )
        return
    if model.unread:  # a showing in what was not read could name no server: never judged clean
        yield Finding.skipped(
            "model-context-unread",
            f"each of {len(shown)} showing(s) the oracle read names the server, but the agent's model context was "
            f"not read: {model.unread_summary()}",
            *model.unread_evidence(),
            run=probe.id,
        )
        return
    undecided = [s for s in shown if s.names_server is None]
    if undecided:
        yield Finding.skipped(
            "server-name-not-recorded",
            f"{len(undecided)} showing(s) in the agent's model context carry no name the oracle knows, but the run "
            "did not record the name the agent knows the server by, so whether they name it cannot be decided",
            *[s.evidence(probe, body, "undecided: the server's configured name is unknown") for s in undecided],
            run=probe.id,
        )
        return
    yield Finding.passed(
        f"each of {len(shown)} showing(s) names the requesting server",
        *[s.evidence(probe, body, "server named") for s in shown],
        run=probe.id,
    )
