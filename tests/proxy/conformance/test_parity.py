"""The cross-check, live: the README's command, run exactly as written, runs the official suite's six client scenarios
and backchannel's scenarios against both SDK drivers and holds docs/conformance-parity.md equal to what the run
produces; a difference with no committed reason fails it, named. The rest: what the page and the verdict on it
say for a run put together by hand.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from backchannel.proxy.conformance.check_run import OurCheck
from backchannel.proxy.conformance.parity import Driver, DriverParity, main, render, unexplained, unused
from backchannel.proxy.conformance.reasons import REASONS
from backchannel.proxy.conformance.suite import SuiteCheck, SuiteMissing, installed, run_bounded
from backchannel.proxy.conformance.verdicts import DIFFER, Row

ROOT = Path(__file__).resolve().parents[3]
SECTION = "\n## Parity with the official suite\n"
KNOWN = "sep-2322-default-result-type-complete"


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION) : readme.index("\n## ", readme.index(SECTION) + 1)]
    found = re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)
    assert len(found) == 1, found
    return found[0]


def test_the_readme_cross_check_runs_as_written_and_the_page_matches_the_run():
    try:
        installed()
    except SuiteMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run scripts/install-clients first: {exc}")
        pytest.skip(str(exc))
    line = readme_example()
    assert line == "scripts/conformance-parity --check"
    # its own process group: past the bound, the suite's mocks and every driver go with it
    code, stdout, stderr = run_bounded(["bash", "-c", line], 180, cwd=ROOT)
    # its stderr names each unexplained difference and a page that no longer matches (with the diff on stdout)
    assert code == 0, stdout[-4000:] + stderr[-3000:]
    assert re.findall(r"^(python|typescript): \d+ shared ids", stdout, re.MULTILINE) == ["python", "typescript"]
    page = (ROOT / "docs" / "conformance-parity.md").read_text(encoding="utf-8")
    # the known case is on the page, with its spec sentence
    assert f"### `{KNOWN}`" in page and "clients **MUST** treat an absent `resultType`" in page


def parity(outcome_status: str, our: OurCheck, check_id: str = KNOWN) -> DriverParity:
    theirs = SuiteCheck(check_id, "SUCCESS", "sep-2322-client-request-state", "")
    row = Row(check_id, our.id, theirs, our, outcome_status)
    return DriverParity(Driver("python", "Python SDK `mcp` 2", ("python",)), (row,), ())


OBSERVED = OurCheck(
    "mrtr-provenance-result-type-default",
    "PASS",
    "mrtr-provenance",
    "",
    verdict="REFUTED",
    observations=("rejects-missing-result-type-on-modern-connection",),
)


def test_the_known_difference_is_explained_and_its_reason_is_in_use():
    run = [parity(DIFFER, OBSERVED)]
    assert unexplained(run) == [] and unused(run) == []
    page = render(run)
    assert "| `sep-2322-default-result-type-complete` | `mrtr-provenance-result-type-default` | SUCCESS |" in page
    assert "**differ**" in page and REASONS[KNOWN].quotes[1] in page


def test_a_difference_of_another_pair_is_unexplained_and_named():
    failed = OurCheck("mrtr-provenance-result-type-default", "FAIL", "mrtr-provenance", "", verdict="CONFIRMED")
    run = [parity(DIFFER, failed)]
    (problem,) = unexplained(run)
    assert problem.startswith(f"python: {KNOWN} vs {OBSERVED.id}: suite SUCCESS, backchannel CONFIRMED (class fail)")
    assert unused([parity("agree", OurCheck("x", "PASS", "s", ""), check_id="x")]) == [KNOWN]
    # the same pair under another of backchannel's ids is another row: the reason is not about it
    elsewhere = OurCheck(KNOWN, "PASS", "conformance", "", observations=("seen",))
    (problem,) = unexplained([parity(DIFFER, elsewhere)])
    assert problem.startswith(f"python: {KNOWN} vs {KNOWN}: suite SUCCESS, backchannel PASS, observation `seen`")


def test_check_mode_fails_on_a_page_the_run_does_not_produce_and_names_the_stale_reason(tmp_path, capsys):
    page = tmp_path / "parity.md"
    agreeing = [parity("agree", OurCheck("x", "PASS", "s", ""), check_id="x")]
    assert main(["--out", str(page)], runner=lambda: agreeing) == 1  # written, but the known reason is stale
    assert page.read_text(encoding="utf-8") == render(agreeing)
    assert main(["--check", "--out", str(page)], runner=lambda: [parity(DIFFER, OBSERVED)]) == 1
    err = capsys.readouterr()
    assert f"stale reason: {KNOWN}" in err.err and "differs from this run" in err.err and "+### `" in err.out
