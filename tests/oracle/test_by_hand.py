"""A run a person drove (check --by-hand) is never judged on what only the lab can see: the client's terminal,
screens, files and browser. The same recording with the by_hand fact set gives SKIP by-hand on those checks, and the
wire's own checks judge it exactly as before."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.oracle.by_hand import BY_HAND_FACT, REASON, by_hand_runs, is_by_hand, unseen_by_lab
from backchannel.recordings import load

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
# every elicitation-ui check that reads what the client showed (terminal, screens) or opened (the lab's browser shim)
UI_CLIENT_SIDE = (
    "elicitation-decline-cancel-offered",
    "elicitation-form-reviewable-before-send",
    "elicitation-names-requesting-server",
    "elicitation-no-clickable-links-in-message",
    "elicitation-terminal-escape-injection",
    "elicitation-url-host-shown",
    "elicitation-url-not-opened-without-consent",
    "elicitation-url-punycode-warned",
    "elicitation-url-shown-before-consent",
)
PROBE_CLIENT_SIDE = (
    "elicitation-names-requesting-server",
    "mrtr-provenance-input-requests",
    "mrtr-provenance-result-type-default",
)


def driven_by_hand(reference: str, tmp_path: Path) -> Path:
    """A copy of a committed reference whose runs all carry the by-hand lab's fact."""
    copy = tmp_path / reference
    shutil.copyfile(REFERENCE / reference, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute(f"UPDATE runs SET detail = json_set(detail, '$.{BY_HAND_FACT}', json('true'))")
    conn.close()
    return copy


def statuses(path: Path) -> dict[tuple[str, str | None], tuple[str, str | None]]:
    return {(r.id, r.subject): (r.status, r.reason) for r in judge(load(path)).results}


@pytest.mark.parametrize(
    ("reference", "client_side"),
    [
        ("elicitation-ui-toy-careful.sqlite", UI_CLIENT_SIDE),
        ("mrtr-provenance-toy-flawed.sqlite", PROBE_CLIENT_SIDE),
        ("sampling-toy-careful.sqlite", ("sampling-human-in-the-loop", "sampling-names-requesting-server")),
        ("roots-toy-careful.sqlite", ("roots-within-configured",)),
        ("elicitation-url-mode-py-sdk-2025-11-25.sqlite", ("sep-1036-client-url-required-urls-shown",)),
    ],
)
def test_checks_that_read_the_clients_side_skip_a_run_driven_by_hand_and_the_wire_checks_do_not_change(
    tmp_path: Path, reference: str, client_side: tuple[str, ...]
) -> None:
    before = statuses(REFERENCE / reference)
    after = statuses(driven_by_hand(reference, tmp_path))
    judged_before = {check for (check, _), (status, _) in before.items() if check in client_side}
    assert judged_before == set(client_side)  # each is in the recording's report at all
    assert any(before[key][0] != "SKIP" for key in before if key[0] in client_side)  # and the lab judged some
    for (check, subject), (status, reason) in after.items():
        if check in client_side:
            assert (status, reason) == ("SKIP", REASON), (check, subject, status, reason)
        elif not check.startswith("by-hand-"):
            assert before.get((check, subject)) == (status, reason), check


def test_a_run_the_lab_drove_itself_is_judged_as_always(tmp_path: Path) -> None:
    rec = load(REFERENCE / "elicitation-ui-toy-careful.sqlite")
    assert by_hand_runs(rec) == [] and unseen_by_lab(rec) is None
    assert not any(is_by_hand(run) for run in rec.runs)


def test_the_skip_names_the_run_and_says_the_person_s_answers_judge_instead(tmp_path: Path) -> None:
    rec = load(driven_by_hand("elicitation-ui-toy-careful.sqlite", tmp_path))
    run = by_hand_runs(rec, ("contract",))[0]
    found = unseen_by_lab(rec, run)
    assert found is not None and (found.status, found.reason, found.run) == ("SKIP", "by-hand", run.id)
    assert "by-hand-*" in found.message
