"""A result without resultType is complete: the client does not answer it as a round."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import cite
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import NOT_EXERCISED, SPEC, result_of, runs_requests


@check(
    "sep-2322-default-result-type-complete",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic/index",
    title="A result without resultType is treated as complete (no retry carrying inputResponses or requestState)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "For backward compatibility with servers implementing earlier protocol versions, which do not include
    `resultType`, clients MUST treat an absent `resultType` as "complete"." For each tools/call, prompts/get or
    resources/read the client got a result without `resultType` for (the run's plan cut it out): a later request of
    the same method and name carrying `inputResponses` or `requestState` treats it as a round: FAIL, as the suite
    decides. None: PASS. A client that refuses the result instead also breaks the sentence, but the wire alone
    cannot show a refusal; `mrtr-provenance-result-type-default` judges that from the client's output (the suite's
    SUCCESS covers it too). No such result: SKIP (the suite backfills FAILURE)."""
    judged, broken, kept = 0, [], []
    for requests in runs_requests(rec):
        for index, request in enumerate(requests):
            method = request.message.method
            result = result_of(request)
            if (
                method not in ("tools/call", "prompts/get", "resources/read")
                or result is None
                or "resultType" in result
            ):
                continue
            judged += 1
            name = request.params.get("name", request.params.get("uri"))
            after = [r for r in requests[index + 1 :] if r.message.method == method
                     and r.params.get("name", r.params.get("uri")) == name]  # fmt: skip
            answered = next((r for r in after if "inputResponses" in r.params or "requestState" in r.params), None)
            if answered is not None:
                note = f"{name}: answered as input_required"
                broken.append((cite(request.message, "got a result without resultType"), cite(answered.message, note)))
            else:
                kept.append(cite(request.message, f"{name}: result without resultType, not answered as a round"))
    if broken:
        yield Finding.failed(
            f"{len(broken)} of {judged} result(s) without resultType were answered as input_required",
            *(e for pair in broken[:5] for e in pair),
        )
    elif judged == 0:
        yield Finding.skipped(NOT_EXERCISED, "the client got no result without resultType")
    else:
        yield Finding.passed(f"{judged} result(s) without resultType: none answered as a round", *kept[:3])
