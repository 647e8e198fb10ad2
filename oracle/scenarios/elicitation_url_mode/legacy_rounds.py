"""The 2025 side of the round checks: the same expectations as under MRTR, read from the `elicitation/create`
requests the server sent on a call's stream and the answers the client POSTed (eras.asked)."""

from __future__ import annotations

from typing import Any

from backchannel.oracle.model import Finding
from backchannel.oracle.parties import agent_of
from backchannel.recordings.model import Run

from .eras import Asked
from .facts import Round, action_of, message_of, own_policy

ROUNDS = 3


def _request_of(ask: Asked) -> dict[str, Any]:
    return {"params": ask.params}


def judge_rounds_2025(run: Run, asks: list[Asked], call: Round) -> Finding:
    """url_rounds in 2025-11-25: three requests, each answered on its own, round 3 (DECLINE:) declined."""
    for number, ask in enumerate(asks, start=1):
        if ask.result is None:
            got = "an error" if ask.answer is not None else "no answer"
            return Finding.failed(
                f"round {number}'s elicitation/create ({ask.request.jsonrpc_id}) got {got}",
                ask.evidence("the request"),
                run=run.id,
            )
        message = message_of(_request_of(ask))
        wanted = "decline" if message.startswith("DECLINE:") else "accept"
        action = action_of(ask.result)
        if action != wanted and agent_of(run) is not None:
            return own_policy(run, number, wanted, action, ask.evidence("answer"))
        if action != wanted:
            return Finding.failed(
                f"round {number} asked with message {message[:60]!r}: expected {wanted}, got {action} (an earlier "
                "answer reused instead of asking the handler)",
                ask.evidence("answer"),
                run=run.id,
            )
    if len(asks) < ROUNDS or call.response is None or "content" not in call.result:
        return Finding.failed(
            f"the flow stopped after {len(asks)} round(s) without the call's result",
            *(a.evidence("answer") for a in asks[-1:]),
            run=run.id,
        )
    return Finding.passed(
        f"all {len(asks)} elicitation/create requests answered anew, round 3 declined",
        *(a.evidence("answer") for a in asks),
        run=run.id,
    )


def judge_mixed_2025(run: Run, asks: list[Asked]) -> Finding:
    """url_and_form in 2025-11-25: a URL request and a form request on one stream, both answered."""
    link = next((a for a in asks if a.mode == "url"), None)
    confirm = next((a for a in asks if a.mode == "form"), None)
    if link is None or confirm is None:
        return Finding.errored("incomplete-recording", "the server's URL and form requests are not both recorded")
    problems = []
    url_answer = link.result
    if action_of(url_answer) != "accept" or (isinstance(url_answer, dict) and url_answer.get("content")):
        problems.append(f"the URL request was answered {url_answer!r}, expected accept with no content")
    form_answer = confirm.result
    content = form_answer.get("content") if isinstance(form_answer, dict) else None
    if action_of(form_answer) != "accept" or not isinstance(content, dict) or content.get("confirmed") is not True:
        problems.append(f"the form request was answered {form_answer!r}, expected accept with content confirmed=true")
    if problems:
        return Finding.failed("; ".join(problems), link.evidence("URL answer"), confirm.evidence("form answer"),
                              run=run.id)  # fmt: skip
    return Finding.passed(
        "both requests of the call's stream answered", link.evidence("URL answer"), confirm.evidence("form answer"),
        run=run.id,
    )  # fmt: skip


def judge_missing_mode_2025(run: Run, asks: list[Asked]) -> Finding:
    """missing_mode in a 2025 era: the request without mode (a stray url beside its schema) answered as a form."""
    if not asks or asks[0].result is None:
        cited = asks[0].evidence("the request") if asks else None
        return Finding.failed("the client never answered the request without mode", *([cited] if cited else []),
                              run=run.id)  # fmt: skip
    answer = asks[0].result
    content = answer.get("content")
    if action_of(answer) == "accept" and isinstance(content, dict) and content:
        return Finding.passed("answered as form mode, with content", asks[0].evidence("answer"), run=run.id)
    if action_of(answer) == "accept":
        return Finding.failed(
            f"accepted with no content, as if it were URL mode: {answer!r}", asks[0].evidence("answer"), run=run.id
        )
    return Finding.failed(
        f"answered {answer!r}; the contract asks form requests to be accepted with content",
        asks[0].evidence("answer"),
        run=run.id,
    )
