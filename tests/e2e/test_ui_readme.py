"""The README's elicitation-ui example, run exactly as written: the careful toy terminal client passes every check."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
SECTION = "## What the user sees: the `elicitation-ui` scenario"


def test_the_readmes_elicitation_ui_example_runs_as_written_and_passes_everything(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION) : readme.index("\n## ", readme.index(SECTION) + 1)]
    [line] = re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "9 results: 9 PASS, 0 FAIL, 0 WARN, 0 SKIP, 0 ERROR; probes: 0 CONFIRMED, 1 REFUTED" in done.stdout
