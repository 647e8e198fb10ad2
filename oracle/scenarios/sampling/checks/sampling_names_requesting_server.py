"""Where a client shows a sampling request, it names the server that sent it."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.scenarios.elicitation_ui.facts import judged_runs
from backchannel.oracle.scenarios.elicitation_ui.naming import WINDOW, server_names
from backchannel.oracle.terminal import streams
from backchannel.recordings.model import Recording, Run

from ..facts import SCENARIO, SPEC, asked_in
from ..payloads import ALL_KINDS_TOOL, SAMPLING_TOOLS

NEEDLE = 40  # the first characters of a request's first text, looked for at the terminal


@check(
    "sampling-names-requesting-server",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}#user-interaction-model",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="A sampling request shown to the user names the requesting server",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Applications SHOULD "provide UI that makes it easy and intuitive to review sampling requests"; a review that
    cannot say who asks is no review (the elicitation rule, "make it clear which server is requesting", is a MUST;
    for sampling it is judged as the SHOULD it is). Every era: each showing of a sampling request's text at the
    terminal must have the server's name (its serverInfo) or origin in the 512 bytes before it; WARN for each that
    names neither. No request shown: SKIP."""
    runs = judged_runs(rec)
    if isinstance(runs, Finding):
        yield runs
        return
    named: list[Evidence] = []
    unnamed: list[Evidence] = []
    for run in runs:
        _judge_run(rec, run, named, unnamed)
    run = runs[-1]
    if not (named or unnamed):
        yield Finding.skipped("not-shown", "no sampling request's text was shown at the terminal", run=run.id)
    elif unnamed:
        total = len(named) + len(unnamed)
        yield Finding.warned(
            f"{len(unnamed)} of {total} showing(s) of a sampling request name no server (neither name nor origin)",
            *unnamed[:10],
            run=unnamed[0].run,
        )
    else:
        yield Finding.passed(f"each of {len(named)} showing(s) names the requesting server", *named[:10], run=run.id)


def _judge_run(rec: Recording, run: Run, named: list[Evidence], unnamed: list[Evidence]) -> None:
    needles = []
    for tool in (*SAMPLING_TOOLS, ALL_KINDS_TOOL):
        for asked in asked_in(rec, run, tool):
            if asked.texts and asked.texts[0]:
                needles.append(asked.texts[0][:NEEDLE].encode("utf-8", "surrogatepass"))
    needles = list(dict.fromkeys(needles))  # a text asked twice is one text to look for
    names = [name.encode("utf-8", "surrogatepass") for name in server_names(rec, run)]
    for stream in streams(rec, run.id):
        for needle in needles:
            at = stream.data.find(needle)
            while at >= 0:
                ok = any(name in stream.data[max(0, at - WINDOW) : at] for name in names)
                note = "server named" if ok else "no server name or origin before it"
                cited = Evidence(
                    kind="terminal", run=run.id, stream=stream.name, offset=at, length=len(needle), note=note
                )
                (named if ok else unnamed).append(cited)
                at = stream.data.find(needle, at + 1)
