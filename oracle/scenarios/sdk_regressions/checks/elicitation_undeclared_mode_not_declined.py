"""An elicitation in a mode the client did not declare is not answered `decline` as though its user had declined
(a Dart client did this to URL-only clients)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.capabilities import undeclared
from backchannel.oracle.terminal import first_sighting
from backchannel.recordings.model import Recording

from ..facts import ELICITATION, SCENARIO, Asked, elicitations


def _shown(rec: Recording, asked: Asked) -> bool | None:
    """Whether the request's message (or URL) was on the client's terminal before its answer left; None: unknown."""
    if asked.run_id is None or asked.answer is None:
        return None
    left = asked.answer.t
    url = asked.params.get("url")
    for needle in (asked.message.strip().splitlines()[0] if asked.message.strip() else "", url):
        if not isinstance(needle, str) or not needle:
            continue
        seen = first_sighting(rec, asked.run_id, needle[:200])
        if seen is not None and (left is None or seen.t is None or seen.t <= left):
            return True
    return False


@check(
    "elicitation-undeclared-mode-not-declined",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{ELICITATION}#response-actions",
    title="An elicitation in a mode the client did not declare is not declined in its user's name, unseen",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """What a client owes an input request in a mode it did not declare, from the 2026-07-28 text:

    - the server broke a rule, not the client: "Servers **MUST NOT** send elicitation requests with modes that are
      not supported by the client" (Elicitation, Capabilities);
    - a round's answer has no error slot: `InputResponses` values are "the client's result for each request (e.g.,
      `ElicitResult`, ...)", and the schema's `InputResponse` is a CreateMessageResult, ListRootsResult or
      ElicitResult, so the 2025 way (a JSON-RPC error) is gone;
    - the client may leave the round unanswered: "Servers **MUST NOT** assume that clients will fulfill the
      `inputRequests` or retry the original request" (MRTR, server requirements);
    - but `decline` is a statement about the user: "Decline (`action: "decline"`): User explicitly declined the
      request", where "Cancel (`action: "cancel"`): User dismissed without making an explicit choice" (its examples
      include "browser failed to load"), and the server is to "Handle explicit decline (e.g., offer alternatives)".

    So a `decline` for a request its user never saw tells the server a choice no user made (the Dart bug). No RFC
    keyword covers it, and a client may show a request where the recording cannot see (a window of its own): WARN,
    never FAIL. Staged by `ask_other_mode` (2026-07-28 only; in the 2025 eras a JSON-RPC error answers it, and this
    text does not speak for them): a URL-mode request to a client that declared form only, or a form to one that
    declared URL only. Judged on every elicitation whose mode the request that drew it did not declare
    (`elicitation: {}` means form):
    PASS the call given up (no retry) or answered `cancel`; WARN `decline` when neither its message nor its URL was
    on the client's terminal before the retry left. SKIP, with the reason, what the recording cannot decide: a
    `decline` after the request was shown (the user may have declined it), an `accept` (the client handled the mode
    after all; the elicitation checks judge how), a retry without an entry for it
    (`session-client-answers-every-input-request` judges that). No such request: SKIP `not-exercised`."""
    found = [
        a
        for a in elicitations(rec)
        if a.round_ is not None
        and a.capabilities is not None
        and "elicitation" in a.capabilities
        and undeclared("elicitation", a.params, a.capabilities) is not None
    ]
    if not found:
        yield Finding.skipped(
            "not-exercised",
            "no elicitation in a mode its client did not declare (a client declaring both is not asked)",
        )
        return
    for asked in found:
        what = (
            f"a {asked.mode}-mode elicitation (the client declared {dict(asked.capabilities or {}).get('elicitation')})"
        )
        if asked.answer is None:
            yield Finding.passed(f"{what} was not retried: the call was given up, no choice claimed for the user",
                                 *asked.evidence(""), run=asked.run_id)  # fmt: skip
        elif asked.action == "cancel":
            yield Finding.passed(f"{what} was answered cancel (dismissed, no explicit choice claimed)",
                                 *asked.evidence("answered cancel"), run=asked.run_id)  # fmt: skip
        elif asked.action == "decline" and _shown(rec, asked) is False:
            yield Finding.warned(
                f"{what} was answered decline, though neither its message nor its URL was on the client's terminal "
                "before the answer left: the server is told the user explicitly declined a request no user saw "
                "(give the call up, or answer cancel)",
                *asked.evidence("answered decline, unseen"),
                run=asked.run_id,
            )
        elif asked.action == "decline":
            yield Finding.skipped("undecidable", f"{what} was shown, then answered decline: the user may have "
                                  "declined it, which the recording cannot tell from the client doing so",
                                  *asked.evidence("answered decline"), run=asked.run_id)  # fmt: skip
        elif asked.action == "accept":
            yield Finding.skipped("handled", f"{what} was answered accept: the client handled the mode after all "
                                  "(the elicitation checks judge how)", *asked.evidence("answered accept"),
                                  run=asked.run_id)  # fmt: skip
        else:
            yield Finding.skipped("not-answered", f"{what}: the retry carries no ElicitResult for it "
                                  "(session-client-answers-every-input-request judges that)",
                                  *asked.evidence("the retry"), run=asked.run_id)  # fmt: skip
