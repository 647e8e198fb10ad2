"""The README's "Test a coding agent" examples, run exactly as written: `check --agent claude-code` judges a real
Claude Code run with no ERROR, and `record --agent codex` records Codex's run with its model exchanges."""

from __future__ import annotations

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


def test_the_section_has_its_two_examples() -> None:
    assert len(_examples()) == 2


def test_the_check_example_judges_a_real_claude_code_run(tmp_path: Path) -> None:
    done = _run(_examples()[0], tmp_path, "claude-code")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\d+ results: \d+ PASS, 0 FAIL, 0 WARN, \d+ SKIP, 0 ERROR; exit code 0", done.stdout)
    recording = load(tmp_path / "claude-code.sqlite")
    assert recording.runs[0].detail.facts["agent"] == "claude-code"
    assert recording.model_exchanges


def test_the_record_example_records_codex_and_its_model_exchanges(tmp_path: Path) -> None:
    done = _run(_examples()[1], tmp_path, "codex")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "client exited with exit code 0" in done.stderr
    recording = load(tmp_path / "codex.sqlite")
    [run] = recording.runs
    assert run.detail.facts["agent"] == "codex"
    assert [e.api for e in recording.model_exchanges_in(run.id)] == ["openai-responses", "openai-responses"]
    assert any(m.method == "tools/call" for m in recording.messages)
