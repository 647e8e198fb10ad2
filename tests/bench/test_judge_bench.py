"""The corpus benchmark runs from the checkout and prints a rate for every mode it promises."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 300


def test_the_judge_benchmark_judges_a_small_corpus_in_every_mode(tmp_path: Path) -> None:
    out = tmp_path / "numbers.json"
    argv = [sys.executable, str(ROOT / "bench" / "judge_bench.py"), "--sizes", "40", "--jobs", "2", "--json", str(out)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for mode in ("cli", "parallel", "serial"):
        assert re.search(
            rf"^\s+40 recordings\s+{mode}\s+[\d.]+ s\s+\d+ recordings/s  \(other processes: \d+% of the CPUs\)$",
            done.stdout,
            re.MULTILINE,
        )
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert {row["mode"] for row in numbers} == {"cli", "parallel", "serial"}
    assert all(row["per_second"] > 0 for row in numbers)
