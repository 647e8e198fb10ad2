"""Each retry echoes the newest requestState, byte for byte."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..eras import run_era
from ..facts import SCENARIO, SPEC, contract_run, legacy, rounds

TOOLS = ("url_rounds", "url_and_form", "missing_mode", "form_only", "held_json", "held_sse")


@check(
    "sep-2322-client-request-state-echoed",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr#client-requirements-basic-workflow",
    title="A retry echoes the newest requestState exactly",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """If an InputRequiredResult carries requestState, the client MUST echo exactly that value on its retry (and
    send none when there was none). A stale state is named by the round it came from. Era: 2026-07-28 only (in a
    2025 era the server keeps the state itself and the client never sees one: SKIP mrtr-only)."""
    run = contract_run(rec)
    if run is None:
        yield Finding.errored("incomplete-recording", "the recording has no contract run")
        return
    if legacy(rec, run):
        yield Finding.skipped(
            "mrtr-only",
            f"the run spoke {run_era(rec, run)}: requestState is 2026-07-28's (MRTR); a 2025 client never sees one",
            run=run.id,
        )
        return
    checked = 0
    for tool in TOOLS:
        calls = rounds(rec, run, tool)
        states: list[str] = []
        for current, retry in zip(calls, calls[1:], strict=False):
            if current.result.get("resultType") != "input_required":
                continue
            sent = current.result.get("requestState")
            echoed = retry.params.get("requestState")
            checked += 1
            if isinstance(sent, str):
                states.append(sent)
            if echoed == sent:
                continue
            if sent is None:
                problem = "sent a requestState although the server sent none"
            elif echoed is None:
                problem = "omitted the requestState"
            elif echoed in states:
                problem = f"echoed the state from round {states.index(echoed) + 1} instead of round {len(states)}"
            else:
                problem = "sent a modified requestState"
            yield Finding.failed(
                f"{tool}: the retry {problem}", retry.evidence("retry"), current.evidence("sent"), run=run.id
            )
            return
    if not checked:
        yield Finding.skipped("no-input-required", "no tool reached an input_required round", run=run.id)
        return
    yield Finding.passed(f"all {checked} retries echoed the newest requestState exactly", run=run.id)
