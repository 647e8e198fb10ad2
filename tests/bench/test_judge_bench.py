"""The corpus benchmark runs from the checkout and prints a rate for every mode it promises, for every build."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 300
MODES = ("cli-j1", "cli-j2", "cached-j2", "parallel", "serial")
YARDSTICK = "read"  # reading and decoding everything, nothing judged: measured once a round, named sqlite3


def test_the_judge_benchmark_judges_a_small_corpus_in_every_mode(tmp_path: Path) -> None:
    out = tmp_path / "numbers.json"
    argv = [sys.executable, str(ROOT / "bench" / "judge_bench.py"), "--sizes", "40", "--jobs", "2", "--json", str(out)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for mode in MODES:
        peak = r"  peak +\d+ MB" if mode.startswith(("cli-", "cached-")) else ""  # the CLI's own peak memory
        assert re.search(
            rf"^\s+40 recordings\s+this\s+{mode}\s+[\d.]+ s\s+\d+ recordings/s\s+[\d.]+ CPU-ms each{peak}"
            r"  \(other processes: \d+% of the CPUs\)$",
            done.stdout,
            re.MULTILINE,
        ), done.stdout
    assert re.search(
        rf"^\s+40 recordings\s+sqlite3\s+{YARDSTICK}\s+[\d.]+ s\s+\d+ recordings/s\s+[\d.]+ CPU-ms each",
        done.stdout,
        re.M,
    ), done.stdout
    assert re.search(
        r"scaling --jobs 2 / --jobs 1: [\d.]+x; cli-j2 costs [\d.]+x reading \(start-up included\);"
        r" the CLI's own peak memory: cli-j1 \d+ MB, cli-j2 \d+ MB, cached-j2 \d+ MB$",
        done.stdout,
        re.MULTILINE,
    ), done.stdout
    assert re.search(r"reading and decoding everything [\d.]+ CPU-ms a recording, at most \d+/s on", done.stdout)
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert {row["mode"] for row in numbers} == {*MODES, YARDSTICK}
    assert {row["build"] for row in numbers if row["mode"] == YARDSTICK} == {"sqlite3"}
    assert all(row["per_second"] > 0 and row["cpu_ms_per_recording"] > 0 for row in numbers)
    assert all((row["cli_peak_rss_mb"] or 0) > 10 for row in numbers if row["mode"].startswith("cli-"))


def test_the_text_output_is_measured_with_the_same_rates_and_peak_memory(tmp_path: Path) -> None:
    argv = [sys.executable, str(ROOT / "bench" / "judge_bench.py"), "--sizes", "10", "--only", "cli-j1"]
    done = subprocess.run([*argv, "--format", "text"], cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"^\s+10 recordings\s+this\s+cli-j1\s.*\d+ recordings/s.*  peak +\d+ MB", done.stdout, re.M)


def test_two_builds_are_measured_interleaved_and_their_outputs_compared(tmp_path: Path) -> None:
    argv = [
        sys.executable, str(ROOT / "bench" / "judge_bench.py"), "--sizes", "10", "--cli-jobs", "1", "--only", "cli-j1",
        "--rounds", "2", "--build", f"one={sys.executable}", "--build", f"two={sys.executable}",
    ]  # fmt: skip
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    order = re.findall(r"^\s+10 recordings\s+(one|two)\s+cli-j1\s", done.stdout, re.MULTILINE)
    assert order == ["one", "two", "one", "two"]
    assert "CLI outputs identical across builds and runs: True" in done.stdout


def test_a_build_that_is_not_an_interpreter_is_refused() -> None:
    argv = [sys.executable, str(ROOT / "bench" / "judge_bench.py"), "--build", "x=/nonexistent/python"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "is not an executable interpreter" in done.stderr
