"""The README's "Test a coding agent" examples, run exactly as written: `check --agent claude-code` judges a real
Claude Code run with no ERROR, the same agent's own terminal UI answers elicitation-ui's dialogs under --tty (the
lab types its task and ends it), and `record --agent codex` records Codex's run with its model exchanges."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from backchannel.proxy.agents.installed import find_installed
from backchannel.proxy.agents.recipe import load_recipe
from backchannel.recordings import load

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Test a coding agent"


def _examples() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION) : readme.index("\n## ", readme.index(SECTION) + 1)]
    return re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)


def _run(line: str, tmp_path: Path, agent: str) -> subprocess.CompletedProcess[str]:
    if find_installed(load_recipe(agent)) is None:  # a failure to see, never a quiet skip
        pytest.fail(f"agent {agent} is not installed: run scripts/install-clients --agents {agent}")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_the_section_has_its_three_examples() -> None:
    assert len(_examples()) == 3


def test_the_check_example_judges_a_real_claude_code_run(tmp_path: Path) -> None:
    done = _run(_examples()[0], tmp_path, "claude-code")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\d+ results: \d+ PASS, 0 FAIL, 0 WARN, \d+ SKIP, 0 ERROR; exit code 0", done.stdout)
    recording = load(tmp_path / "claude-code.sqlite")
    assert recording.runs[0].detail.facts["agent"] == "claude-code"
    assert recording.model_exchanges


def test_the_tty_example_judges_what_claude_codes_own_ui_shows_and_every_run_ends_when_its_task_is_done(
    tmp_path: Path,
) -> None:
    done = _run(_examples()[1], tmp_path, "claude-code")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    recording = load(tmp_path / "claude-ui.sqlite")
    assert [run.outcome for run in recording.runs] == ["exited"] * 5  # the lab typed /exit after each task
    reasons = [screen.reason for screen in recording.screens]
    assert reasons.count("typed") == 10 and "answered" in reasons  # task and exit per run; the user's answers
    judged = subprocess.run(
        [str(ROOT / ".venv/bin/backchannel"), "judge", "claude-ui.sqlite", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    status = {result["id"]: result["status"] for result in json.loads(judged.stdout)["results"]}
    for check in (
        "elicitation-url-shown-before-consent",
        "elicitation-names-requesting-server",
        "elicitation-form-reviewable-before-send",
        "elicitation-url-not-opened-without-consent",
    ):
        assert status[check] == "PASS", (check, status[check])
    assert len(recording.opens) == 2  # "Open in browser", answered, opened each URL through the lab's opener


def test_the_record_example_records_codex_and_its_model_exchanges(tmp_path: Path) -> None:
    done = _run(_examples()[2], tmp_path, "codex")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "client exited with exit code 0" in done.stderr
    recording = load(tmp_path / "codex.sqlite")
    [run] = recording.runs
    assert run.detail.facts["agent"] == "codex"
    assert [e.api for e in recording.model_exchanges_in(run.id)] == ["openai-responses", "openai-responses"]
    assert any(m.method == "tools/call" for m in recording.messages)
