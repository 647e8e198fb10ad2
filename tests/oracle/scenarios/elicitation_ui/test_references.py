"""The toy agent's terminal client against elicitation-ui, committed (scripts/make-reference-recordings): the
careful build passes every check; each --ui-flaw build fails (or WARNs, for a SHOULD or a heuristic) exactly its
own check and nothing else; and every build judges the same under a terminal (--tty) and piped, answered at its
prompts (--answer --no-tty)."""

import pytest

from backchannel.oracle import all_checks
from backchannel.oracle.terminal import is_tty
from tests.oracle.reference import recording, results

# the by-hand checks judge a person's answers: a toy build has no person, so they SKIP not-by-hand on every build
# (their verdicts are tested in checks/test_by_hand_*.py)
BY_HAND = {
    c.id for c in all_checks().values() if c.id.startswith("by-hand-") and "elicitation-ui" in (c.scenario, *c.also)
}
CHECKS = {c.id for c in all_checks().values() if "elicitation-ui" in (c.scenario, *c.also)} - BY_HAND
FLAWS = {
    "hide-url": ("elicitation-url-shown-before-consent", "FAIL"),
    # the host is part of the URL: a client hiding it hides the URL too, so two checks fail together
    "hide-host": ("elicitation-url-host-shown", "FAIL"),
    "show-url-after-consent": ("elicitation-url-shown-before-consent", "FAIL"),
    "open-at-once": ("elicitation-url-not-opened-without-consent", "FAIL"),
    "open-declined": ("elicitation-url-not-opened-without-consent", "FAIL"),
    "no-punycode-warning": ("elicitation-url-punycode-warned", "WARN"),
    "auto-accept": ("elicitation-form-reviewable-before-send", "FAIL"),
    "no-decline-option": ("elicitation-decline-cancel-offered", "WARN"),
    "osc8-links": ("elicitation-no-clickable-links-in-message", "WARN"),
    "raw-escapes": ("elicitation-terminal-escape-injection", "FAIL"),
    "no-server-name": ("elicitation-names-requesting-server", "FAIL"),
}


def test_the_careful_build_passes_every_check():
    found = results("elicitation-ui-toy-careful")
    assert set(found) == CHECKS | BY_HAND
    assert {c: r.status for c, r in found.items() if r.status != "PASS" and c not in BY_HAND} == {}
    assert {(found[c].status, found[c].reason) for c in BY_HAND} == {("SKIP", "not-by-hand")}
    assert found["elicitation-terminal-escape-injection"].verdict == "REFUTED"


@pytest.mark.parametrize("flaw", sorted(FLAWS))
def test_each_flawed_build_trips_exactly_its_own_check(flaw):
    found = results(f"elicitation-ui-toy-{flaw}")
    check, status = FLAWS[flaw]
    expected = {check: status}
    if flaw == "hide-host":  # and the Punycode host is hidden too: nothing to warn beside, so that check SKIPs
        expected.update({"elicitation-url-shown-before-consent": "FAIL", "elicitation-url-punycode-warned": "SKIP"})
    tripped = {c: r.status for c, r in found.items() if r.status != "PASS" and c not in BY_HAND}
    assert tripped == expected, found[check].message


@pytest.mark.parametrize("build", ["careful", *sorted(FLAWS)])
def test_each_build_judges_the_same_piped_as_under_a_terminal(build):
    def verdicts(name: str) -> dict[str, tuple[str, str | None, tuple[str, ...]]]:
        return {c: (r.status, r.verdict, tuple(r.signals)) for c, r in results(name).items()}

    tty, piped = f"elicitation-ui-toy-{build}", f"elicitation-ui-toy-{build}-piped"
    assert verdicts(piped) == verdicts(tty)
    assert not is_tty(recording(piped), recording(piped).runs[-1].id)  # really piped: stdout and stderr
    assert any(s.reason == "answered" for s in recording(piped).screens)  # ... answered at its prompts


def test_every_check_has_a_build_that_trips_it():
    assert {check for check, _ in FLAWS.values()} == CHECKS


def test_the_escape_probe_names_every_class_that_reached_the_terminal_raw():
    probe = results("elicitation-ui-toy-raw-escapes")["elicitation-terminal-escape-injection"]
    assert probe.verdict == "CONFIRMED"
    assert set(probe.signals) == {
        "escape-cursor-erase",
        "escape-osc8-mismatch",
        "escape-osc52-clipboard",
        "escape-window-title",
        "escape-bidi-override",
        "escape-bidi-embedding",
        "escape-bidi-isolate",
        "escape-c1-control",
    }


def test_the_python_sdk_driver_shows_url_and_host_but_answers_forms_by_itself():
    found = results("elicitation-ui-py-sdk")
    assert found["elicitation-url-shown-before-consent"].status == "PASS"
    assert found["elicitation-form-reviewable-before-send"].status == "FAIL"  # our driver: no user to ask


def test_fastmcp_under_a_terminal_one_run_per_tool_what_it_shows_its_user():
    rec = recording("elicitation-ui-fastmcp-tty")
    assert [run.detail.facts.get("tool") for run in rec.runs] == [
        "connect_account",
        "open_dashboard",
        "confirm_change",
        "show_notice",
        "get_notice",
    ]
    found = results("elicitation-ui-fastmcp-tty")
    assert found["elicitation-names-requesting-server"].status == "FAIL"  # "Server asks:", as on the probe
    probe = found["elicitation-terminal-escape-injection"]
    # ESC and the C1 CSI shown escaped; every bidi control (override, embedding, isolate) raw
    assert probe.verdict == "CONFIRMED"
    assert probe.signals == ("escape-bidi-override", "escape-bidi-embedding", "escape-bidi-isolate")
    assert found["elicitation-form-reviewable-before-send"].status == "PASS"  # it asked, and --answer typed
    # a URL-mode request stalls it (no URL, no answer until the run's timeout): a person judges, never a FAIL
    assert found["elicitation-url-shown-before-consent"].status == "WARN"
    assert "stalled" in found["elicitation-url-shown-before-consent"].message


def test_a_cli_found_by_discovery_runs_once_per_tool_and_is_judged_like_any_client():
    from backchannel.recordings.shapes import Discovery, Invocation

    rec = recording("elicitation-ui-toy-target")
    found = Discovery.read(rec.meta)
    assert found is not None and found.status == "found"
    assert Invocation.read(rec.meta).argv[-2:] == ("{url}", "{tool}")  # the per-tool template it then ran
    contract = [run for run in rec.runs if run.name == "contract"]
    assert [run.detail.facts.get("tool") for run in contract] == [
        "connect_account",
        "open_dashboard",
        "confirm_change",
        "show_notice",
        "get_notice",
    ]
    trials = [run for run in rec.runs if run.name == "discovery-call"]
    assert trials and all(run.plan["mutations"][0]["kind"] == "error" for run in trials)  # no trial elicits
    found_results = results("elicitation-ui-toy-target")
    assert "ERROR" not in {r.status for r in found_results.values()}
    # the shipped toy's `mcp call`: prints server text raw, names no server, accepts the form by itself
    assert found_results["elicitation-terminal-escape-injection"].verdict == "CONFIRMED"
    assert found_results["elicitation-names-requesting-server"].status == "FAIL"
    assert found_results["elicitation-form-reviewable-before-send"].status == "FAIL"


@pytest.mark.parametrize("driver", ["py-sdk", "ts-sdk"])
def test_a_2025_client_gets_every_elicitation_on_the_calls_stream_and_each_ui_check_judges_it_as_in_2026(driver):
    modern = results(f"elicitation-ui-{driver}")
    legacy = results(f"elicitation-ui-{driver}-2025-11-25")
    assert all(legacy[c].reason != "tool-not-called" for c in CHECKS)
    assert {c: legacy[c].status for c in CHECKS} == {c: modern[c].status for c in CHECKS}


URL_CHECKS = {c.id for c in all_checks().values() if c.scenario == "elicitation-ui" and "2025-06-18" not in c.eras}


@pytest.mark.parametrize("client", ["py-sdk", "ts-sdk", "fastmcp-tty"])
def test_in_2025_06_18_the_form_checks_judge_as_in_2026_and_the_url_checks_skip_not_in_era(client):
    """2025-06-18 has no URL mode: the endpoint reads the client's `form`/`url` declaration as form only, its URL
    tools refuse the call, and every check about a URL or its consent is SKIP not-in-era, never a verdict."""
    modern, legacy = results(f"elicitation-ui-{client}"), results(f"elicitation-ui-{client}-2025-06-18")
    assert URL_CHECKS and all(legacy[c].status == "SKIP" and legacy[c].reason == "not-in-era" for c in URL_CHECKS)
    assert all("spoke 2025-06-18" in legacy[c].message for c in URL_CHECKS)
    form = CHECKS - URL_CHECKS
    assert {c: legacy[c].status for c in form} == {c: modern[c].status for c in form}
    rec = recording(f"elicitation-ui-{client}-2025-06-18")
    assert not [
        m for m in rec.messages if m.method == "elicitation/create" and '"mode":"url"' in m.text.replace(" ", "")
    ]


def test_fastmcp_forced_into_2025_11_25_falls_back_from_its_refused_discover_and_judges_as_in_2026():
    """fastmcp negotiates 2026-07-28 itself; with check --era 2025-11-25 its server/discover is refused, it runs
    initialize at 2025-11-25, and each elicitation reaches it on the call's stream: the same verdicts as in 2026-07-28
    (its URL runs stall at its Enter prompt in both eras; the 2025 endpoint gives up first, with a tool error)."""
    modern, legacy = results("elicitation-ui-fastmcp-tty"), results("elicitation-ui-fastmcp-tty-2025-11-25")
    assert {c: legacy[c].status for c in CHECKS} == {c: modern[c].status for c in CHECKS}
    rec = recording("elicitation-ui-fastmcp-tty-2025-11-25")
    assert {m.method for m in rec.messages if m.direction == "to-client" and m.kind == "request"} == {
        "elicitation/create"
    }
    gave_up = [m for m in rec.messages if m.direction == "to-client" and "did not answer elicitation/create" in m.text]
    assert gave_up and all(
        run.outcome == "timeout" for run in rec.runs if run.detail.facts.get("tool") == "connect_account"
    )
