"""The real client/server pairs the session rules are proven on: committed, explained, each judging to its report."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "make-pair-recordings"
DOC = ROOT / "docs" / "real-clients.md"


# session rules no client/server pair can break, each proven broken by a real run elsewhere
PROVEN_ELSEWHERE = {
    "session-agent-stays-in-lab": "tests/proxy/run/test_agent_lab.py::"
    "test_an_agent_without_its_offline_settings_is_seen_reaching_out (Claude Code without its offline settings)",
}


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_the_docs_verdict_table_is_the_one_the_committed_reports_give():
    assert _run("--table") in DOC.read_text(encoding="utf-8")


def test_every_pair_is_committed_and_named_in_the_docs():
    names = [line.split()[0] for line in _run("--list").splitlines() if line.strip()]
    assert len(names) >= 6
    doc = DOC.read_text(encoding="utf-8")
    for name in names:
        assert (ROOT / "recordings" / "reference" / f"{name}.sqlite").is_file()
        assert f"`{name}`" in doc


def test_an_unknown_pair_is_refused_with_exit_2():
    done = subprocess.run([sys.executable, str(SCRIPT), "no-such-pair"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown pair" in done.stderr


def test_the_docs_builds_table_is_the_one_the_committed_reports_give():
    assert _run("--builds-table") in DOC.read_text(encoding="utf-8")


def test_each_build_breaks_the_rule_it_names_and_every_session_rule_has_a_build():
    import json

    from backchannel.oracle.registry import session_checks

    table = _run("--builds-table").splitlines()[2:]
    broken = set()
    for row in table:
        name, _note, rule, seen = (cell.strip() for cell in row.strip("|").split(" | "))
        report = json.loads((ROOT / "recordings" / "reference" / f"{name.strip('`')}.expected.json").read_text())
        statuses = {r["id"]: r["status"] for r in report["results"]}
        assert statuses[rule.strip("`")] in ("FAIL", "WARN"), (name, rule)
        broken.add(rule.strip("`"))
    assert broken == set(session_checks()) - set(PROVEN_ELSEWHERE)
