"""Every new input request is answered anew, round after round."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, SPEC, action_of, exercised, message_of

TOOL = "url_rounds"


@check(
    "sep-2322-client-constructs-inputs",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic/patterns/mrtr#client-requirements",
    title="Each round's new input requests are answered by asking the handler again",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Three URL rounds, each a new key and state; round 3 reuses round 1's URL but its message starts with
    DECLINE:. A retry must answer the round's new key (not resend old answers), round 3 must be declined (not
    answered from round 1's accept), and the client must not give up before the last round."""
    found = exercised(rec, TOOL)
    if isinstance(found, Finding):
        yield found
        return
    run, calls = found
    for number, (current, retry) in enumerate(zip(calls, [*calls[1:], None], strict=True), start=1):
        requests = current.input_requests
        if not requests:
            continue
        if retry is None:
            yield Finding.failed(
                f"the client gave up after round {number}: no retry answered {sorted(requests)}",
                current.evidence("last input_required"),
                run=run.id,
            )
            return
        missing = sorted(set(requests) - set(retry.input_responses))
        if missing:
            yield Finding.failed(
                f"round {number}'s retry left {missing} unanswered; it answered {sorted(retry.input_responses)} "
                "(previous answers resent instead of constructing new ones)",
                retry.evidence("retry"),
                run=run.id,
            )
            return
        for key, request in requests.items():
            wanted = "decline" if message_of(request).startswith("DECLINE:") else "accept"
            got = action_of(retry.input_responses.get(key))
            if got != wanted:
                yield Finding.failed(
                    f"round {number} asked {key!r} with message {message_of(request)[:60]!r}: expected {wanted}, got "
                    f"{got} (an earlier answer reused instead of asking the handler)",
                    retry.evidence("retry"),
                    run=run.id,
                )
                return
    asked = sum(1 for c in calls if c.input_requests)
    if asked < 3 or calls[-1].result.get("resultType") != "complete":
        yield Finding.failed(
            f"the flow stopped after {asked} round(s) without a complete result",
            calls[-1].evidence("last call"),
            run=run.id,
        )
        return
    yield Finding.passed(
        f"all {asked} rounds answered anew, round 3 declined", *(c.evidence("retry") for c in calls[1:]), run=run.id
    )
