"""The check benchmark runs a real check from the checkout and reports its wall, client and overhead times, and
where the overhead went (the phase marks the check wrote)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 180


def test_the_check_benchmark_times_one_default_check_and_names_its_phases(tmp_path: Path) -> None:
    out = tmp_path / "numbers.json"
    argv = [sys.executable, str(ROOT / "bench" / "check_bench.py"), "--scenario", "default", "--runs", "1"]
    done = subprocess.run([*argv, "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"^default-this-0 +wall +[\d.]+ +client +[\d.]+ +overhead +[\d.]+ +exit 0 ", done.stdout, re.M)
    (check,) = json.loads(out.read_text(encoding="utf-8"))["checks"]
    assert check["runs"] == 1 and check["summary"]["FAIL"] == 0
    assert check["wall_s"] > check["client_s"] > 0
    assert abs(check["overhead_s"] - (check["wall_s"] - check["client_s"])) < 1e-9
    phases = check["phases"]
    assert {"proxy start (until ready)", "proxy stop", "judging: judge", "render, exit"} <= set(phases)
    assert sum(phases.values()) <= check["overhead_s"] + 1e-6  # the stretches outside the runs, no more
