"""`backchannel check` on the bundled default target, and `backchannel judge` reproducing its report exactly.

`check` runs as the installed command does, in a process of its own; `judge`, `checks` and the usage errors run in
this process (tests/in_process.py): what they print does not depend on the process boundary, and each new process
would cost a CLI start (about a CPU second) for nothing more."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.in_process import backchannel


def _cli(*args: str, cwd=None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "backchannel.proxy.cli", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


@pytest.fixture(scope="module")
def default_check(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """`check --format json` on the default target, run once for the module: the recording and what check printed."""
    out = tmp_path_factory.mktemp("default-check") / "check.sqlite"
    return out, _cli("check", "--out", str(out), "--format", "json")


def test_check_with_no_target_confirms_both_arms_of_the_flawed_toy_and_judge_reproduces_it(default_check):
    out, checked = default_check
    assert checked.returncode == 1, checked.stderr
    report = json.loads(checked.stdout)
    verdicts = {r["id"]: r.get("verdict") for r in report["results"]}
    assert verdicts["mrtr-provenance-input-requests"] == "CONFIRMED"
    assert verdicts["mrtr-provenance-result-type-default"] == "CONFIRMED"
    judged = backchannel("judge", str(out), "--format", "json")
    assert judged.exit_code == 1
    assert judged.stdout == checked.stdout
    for fmt in ("text", "junit", "sarif"):
        assert backchannel("judge", str(out), "--format", fmt).exit_code == 1


def test_the_text_report_names_each_arm_and_its_cwe(default_check):
    # the text report of the same run (check prints this format by default: test_kill and the README's examples
    # read it from check itself)
    out, _ = default_check
    text = backchannel("judge", str(out)).stdout
    assert "CONFIRMED" in text and "CWE-346" in text and "CWE-1289" in text


def test_usage_errors_exit_2_with_one_line(tmp_path):
    both = backchannel("check", "--target", "x", "--client", "y {url}")
    assert both.exit_code == 2 and len(both.stderr.strip().splitlines()) == 1
    fmt = backchannel("judge", str(tmp_path / "missing.sqlite"), "--format", "xml")
    assert fmt.exit_code == 2 and "valid formats" in fmt.stderr
    no_client = backchannel("check", "--scenario", "elicitation-url-mode", "--out", str(tmp_path / "u.sqlite"))
    assert no_client.exit_code == 2 and "--client" in no_client.stderr


def test_the_checks_command_lists_every_check():
    listed = backchannel("checks").stdout
    assert "mrtr-provenance-input-requests" in listed and "wire-schema-valid" in listed


def test_check_era_makes_the_toy_agent_speak_2025_and_the_report_names_the_era_of_each_run(tmp_path):
    out = tmp_path / "era.sqlite"
    # the provenance flaw kept, the resultType one fixed (the flawed build retries any result without resultType,
    # which in a 2025 era is every result, so its CONTROL run would show nothing)
    toy = f"{sys.executable} -m backchannel.proxy.clients.toy_agent --fix result-type"
    checked = _cli("check", "--target", toy, "--era", "2025-06-18", "--out", str(out), "--format", "json")
    report = json.loads(checked.stdout)
    eras = {run["name"]: run["era"] for run in report["runs"]}
    assert eras["probe"] == eras["control"] == "2025-06-18"
    provenance = next(r for r in report["results"] if r["id"] == "mrtr-provenance-input-requests")
    # the flawed toy agent shows the streamed elicitation bare and follows its directive, as it does in 2026
    assert provenance["verdict"] == "CONFIRMED", provenance["message"]
    assert any(e["note"] == "server-initiated request (2025)" for e in provenance["evidence"])
    assert backchannel("judge", str(out), "--format", "json").stdout == checked.stdout
