"""The README's elicitation-ui examples, run exactly as written: the careful toy terminal client passes every check
under a terminal; its auto-accept build, piped and answered at its prompts, fails the form check alone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
SECTION = "## What the user sees: the `elicitation-ui` scenario"


def _examples() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION) : readme.index("\n## ", readme.index(SECTION) + 1)]
    return re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)


def _run(line: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_the_section_has_its_two_examples():
    assert len(_examples()) == 2


def test_the_readmes_elicitation_ui_example_runs_as_written_and_passes_everything(tmp_path):
    done = _run(_examples()[0], tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "41 results: 20 PASS, 0 FAIL, 0 WARN, 21 SKIP, 0 ERROR; probes: 0 CONFIRMED, 1 REFUTED" in done.stdout


def test_the_readmes_piped_auto_accept_example_fails_the_form_check_alone(tmp_path):
    line = _examples()[1]
    assert "--no-tty" in line
    done = _run(line, tmp_path)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert "41 results: 19 PASS, 1 FAIL, 0 WARN, 21 SKIP, 0 ERROR; probes: 0 CONFIRMED, 1 REFUTED" in done.stdout
    assert re.search(r"elicitation-form-reviewable-before-send\s+│\s+FAIL", done.stdout)
