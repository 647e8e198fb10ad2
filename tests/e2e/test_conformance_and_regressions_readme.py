"""The README's `conformance` and `sdk-regressions` examples, run exactly as written: the toy agent's contract client
and its careful regressions client break no check of their scenario and no session rule."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
SECTIONS = {
    "conformance": "## The official suite's client scenarios: the `conformance` scenario",
    "sdk-regressions": "## Bugs real SDKs shipped: the `sdk-regressions` scenario",
}


def _examples(heading: str) -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(heading)
    section = readme[start : readme.index("\n## ", start + 1)]
    return re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)


@pytest.mark.parametrize("scenario", sorted(SECTIONS))
def test_each_section_has_its_one_example_and_it_runs_as_written_breaking_nothing(
    scenario: str, tmp_path: Path
) -> None:
    examples = _examples(SECTIONS[scenario])
    assert len(examples) == 1
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    line = examples[0]
    assert f"--scenario {scenario}" in line
    done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    counts = re.search(r"results: (\d+) PASS, 0 FAIL, 0 WARN, \d+ SKIP, 0 ERROR", done.stdout)
    assert counts and int(counts[1]) > 0, done.stdout[-2000:]
    assert list(tmp_path.glob("backchannel-check-*.sqlite")), "the recording is kept beside the command"
