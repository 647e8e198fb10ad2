"""Every new input request is answered anew, round after round."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.parties import agent_of
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording, Run

from ..eras import asked
from ..facts import SCENARIO, SPEC, Round, action_of, exercised, legacy, message_of, own_policy
from ..legacy_rounds import judge_rounds_2025

TOOL = "url_rounds"


@check(
    "sep-2322-client-constructs-inputs",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr#client-requirements-basic-workflow",
    title="Each round's new input requests are answered by asking the handler again",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Three URL rounds, each a new key and state; round 3 reuses round 1's URL but its message starts with
    DECLINE:. A retry must answer the round's new key (not resend old answers), round 3 must be declined (not
    answered from round 1's accept), and the client must not give up before the last round. Eras: 2026-07-28 (the
    retries' inputResponses) and 2025-11-25, where the three rounds are three `elicitation/create` requests on the
    call's stream and each must get its own answer, round 3 declined (a client answering from a cache of earlier
    answers fails the same way); 2025-06-18 has no URL mode (SKIP no-url-mode)."""
    found = exercised(rec, TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, calls = found
    if legacy(rec, run):
        yield judge_rounds_2025(run, asked(rec, run, TOOL), calls[-1])
        return
    yield from _judge_mrtr(run, calls)


def _judge_mrtr(run: Run, calls: list[Round]) -> Iterator[Finding]:
    run_id = run.id
    for number, (current, retry) in enumerate(zip(calls, [*calls[1:], None], strict=True), start=1):
        requests = current.input_requests
        if not requests:
            continue
        if retry is None:
            yield Finding.failed(
                f"the client gave up after round {number}: no retry answered {sorted(requests)}",
                current.evidence("last input_required"),
                run=run_id,
            )
            return
        missing = sorted(set(requests) - set(retry.input_responses))
        if missing:
            yield Finding.failed(
                f"round {number}'s retry left {missing} unanswered; it answered {sorted(retry.input_responses)} "
                "(previous answers resent instead of constructing new ones)",
                retry.evidence("retry"),
                run=run_id,
            )
            return
        for key, request in requests.items():
            wanted = "decline" if message_of(request).startswith("DECLINE:") else "accept"
            got = action_of(retry.input_responses.get(key))
            if got != wanted and agent_of(run) is not None:
                yield own_policy(run, number, wanted, got, retry.evidence("retry"))
                return
            if got != wanted:
                yield Finding.failed(
                    f"round {number} asked {key!r} with message {message_of(request)[:60]!r}: expected {wanted}, got "
                    f"{got} (an earlier answer reused instead of asking the handler)",
                    retry.evidence("retry"),
                    run=run_id,
                )
                return
    count = sum(1 for c in calls if c.input_requests)
    if count < 3 or calls[-1].result.get("resultType") != "complete":
        yield Finding.failed(
            f"the flow stopped after {count} round(s) without a complete result",
            calls[-1].evidence("last call"),
            run=run_id,
        )
        return
    yield Finding.passed(
        f"all {count} rounds answered anew, round 3 declined", *(c.evidence("retry") for c in calls[1:]), run=run_id
    )
