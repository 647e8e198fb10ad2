"""A URL-mode URL is opened only after the user consented, and never after a decline or cancel."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.by_hand import REASON as BY_HAND
from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.terminal import screens_in
from backchannel.recordings.formats import predates
from backchannel.recordings.model import Recording, UrlOpen

from ..facts import AMBIGUOUS_S, NO_USER_STEP, SCENARIO, SPEC, Elicitation, exercised, no_user_step
from ..payloads import PUNYCODE_TOOL, URL_TOOL

OPENS_FROM = "m005_opens"  # the format that first records the URL openers' stand-ins


@check(
    "elicitation-url-not-opened-without-consent",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}#safe-url-handling",
    title="No URL is opened before the user's consent, and none after a decline or cancel",
    eras=("2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """Clients "MUST NOT open the URL without explicit consent from the user". Every lab puts recording stand-ins
    for the common URL openers (xdg-open, open, sensible-browser, x-www-browser, www-browser, gio, wslview) first on
    PATH and in BROWSER; each call is in the recording with its time. For connect_account and open_dashboard: an
    open of the URL after a decline or cancel fails; so does one before the user answered: when `--answer` answered
    the prompt (under --tty, or piped with --no-tty) the moment it was typed (its `answered` snapshot) decides,
    otherwise the moment the answer left (an open up to 0.25 s before it is too close to order: WARN). Where the
    run had no user step at all (nothing typed, nothing on stdin) there is no consent to order against: any open
    fails. An open after an accept a user gave is an observation, not a finding. An open in a run answered decline or
    cancel fails when it came after that answer, with no user step before it, or after the user's last step; between
    two steps of the user's, the refusal after it, it is WARN (a UI may ask to open and then ask again; which key
    meant "open" is not on the wire)."""
    if predates(rec.format_version, OPENS_FROM):
        yield Finding.skipped("opens-not-recorded", f"a {rec.format_version} recording does not record URL openers")
        return
    judged = 0
    bad: list[Evidence] = []
    warned: list[Evidence] = []
    notes: list[Evidence] = []
    run_id: str | None = None
    for tool in (URL_TOOL, PUNYCODE_TOOL):
        found = exercised(rec, tool)
        if isinstance(found, Finding):
            if found.status == "ERROR" or found.reason == BY_HAND:  # by hand: the host's browser is not the lab's
                yield found
                return
            continue
        run, asked = found
        run_id, judged = run.id, judged + 1
        url = asked.url or "\0"
        for opened in (o for o in rec.opens_in(run.id) if any(url in target for target in o.targets)):
            verdict, note = _judge_open(rec, run.id, asked, opened)
            evidence = Evidence(kind="run", run=run.id, note=f"{opened.opener} #{opened.seq}: {note}")
            {"fail": bad, "warn": warned, "ok": notes}[verdict].append(evidence)
    if not judged:
        yield Finding.skipped("tool-not-called", "the client got no URL-mode request to judge")
        return
    observations = tuple(e.note for e in notes)
    if bad:
        yield Finding.failed("; ".join(e.note for e in bad), *bad, *warned, run=run_id, observations=observations)
    elif warned:
        yield Finding.warned("; ".join(e.note for e in warned), *warned, run=run_id, observations=observations)
    else:
        said = f"{len(notes)} open(s), each after an accept" if notes else "no URL was opened"
        yield Finding.passed(said, *notes, run=run_id, observations=observations)


def _judge_open(rec: Recording, run_id: str, asked: Elicitation, opened: UrlOpen) -> tuple[str, str]:
    action = asked.action
    typed = [
        s.t
        for s in screens_in(rec, run_id)
        if s.reason == "answered" and s.t is not None and s.t >= (asked.asked.t or 0)
    ]
    if action in ("decline", "cancel"):
        return _after_refusal(asked, opened, typed)
    if not typed and no_user_step(rec, rec.run(run_id)):
        return "fail", f"opened {asked.tool}'s URL with {NO_USER_STEP}"
    if opened.t is None:
        return "warn", f"opened {asked.tool}'s URL at an unknown time"
    if typed:
        if opened.t < typed[0]:
            return "fail", f"opened {asked.tool}'s URL {typed[0] - opened.t:.2f} s before the user answered"
        return "ok", f"opened {asked.tool}'s URL after the user answered {action}"
    left = asked.retry.t if asked.retry is not None else None
    if left is None:
        return "fail", f"opened {asked.tool}'s URL and never answered"
    if opened.t < left - AMBIGUOUS_S:
        return "fail", f"opened {asked.tool}'s URL {left - opened.t:.2f} s before the answer ({action}) left"
    if opened.t < left:
        return "warn", f"opened {asked.tool}'s URL {(left - opened.t) * 1000:.0f} ms before the answer left (too close)"
    return "ok", f"opened {asked.tool}'s URL after the answer ({action}) left"


def _after_refusal(asked: Elicitation, opened: UrlOpen, typed: list[float]) -> tuple[str, str]:
    """An open in a run whose answer was decline or cancel. After that answer left, with no user step before it, or
    with the user's last step (the refusal) before it: FAIL. Between two steps of the user's, the refusal after it:
    WARN, since a UI may ask twice (Claude Code: "Open in browser", then "I'm done, continue" or "Decline") and
    whether the first step meant "open" is for a person to see."""
    action = asked.action
    left = asked.retry.t if asked.retry is not None else None
    if opened.t is not None and left is not None and opened.t > left + AMBIGUOUS_S:
        return "fail", f"opened {asked.tool}'s URL {opened.t - left:.2f} s after the user chose {action}"
    before = [t for t in typed if opened.t is None or t <= opened.t]
    after = [t for t in typed if opened.t is not None and t > opened.t and (left is None or t <= left)]
    if before and not after:  # the user's last step, the refusal itself, came before the open
        return "fail", f"opened {asked.tool}'s URL after the user's step that answered {action}"
    if before:
        return "warn", (
            f"opened {asked.tool}'s URL after a step the user took at its prompt, then answered {action}: whether that"
            " step asked for it to open is for a person to see"
        )
    return "fail", f"opened {asked.tool}'s URL though the user chose {action}, with no step of theirs before it"
