#!/usr/bin/env python3
"""Judging corpora of recordings: recordings per second through `backchannel judge PATH...` and in process.

Builds corpora (default 1,000 and 5,000 recordings) in a temp folder from the committed references
(recordings/reference/*.sqlite): plain copies, and variants whose nonce and tool version differ (each variant is a
different file with different bytes, judged to the same statuses). Then, per corpus:

  cli       `python -m backchannel.proxy.cli judge DIR --format json` (all cores), wall clock, start-up included
  parallel  `judge_all` in this process with --jobs workers (what the CLI runs, without start-up and rendering)
  serial    load + judge, one recording after another, on one core

Usage: python bench/judge_bench.py [--sizes 1000,5000] [--jobs N] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from backchannel.oracle import judge
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.judging.parallel import default_jobs, judge_all, tasks_for
from backchannel.recordings import load

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = sorted((ROOT / "recordings" / "reference").glob("*.sqlite"))


def build_corpus(folder: Path, size: int) -> Path:
    """`size` recordings: copies of the references round-robin; every third one a variant with its own nonce."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(size):
        source = REFERENCES[i % len(REFERENCES)]
        target = folder / f"{i // 100:03d}" / f"{source.stem}-{i:05d}.sqlite"
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(source, target)
        if i % 3 == 1:  # a variant: other meta values, so the files are not byte-identical copies
            conn = sqlite3.connect(target)
            with conn:
                conn.execute("UPDATE meta SET value = ? WHERE key = 'nonce'", [f"{i:012x}"])
                conn.execute("UPDATE meta SET value = ? WHERE key = 'tool_version'", [f"0.1.{i}"])
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.close()
    return folder


def _busy_seconds() -> float:
    """CPU time every process on the machine has used so far (from /proc/stat), in seconds."""
    with open("/proc/stat", encoding="ascii") as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    """CPU time this process and its reaped children (the CLI, the pool's workers) have used so far."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def measured(run: Callable[[], tuple[float, int]]) -> tuple[float, int, float]:
    """Seconds, recordings judged, and the share of all CPUs other processes used meanwhile (0..1)."""
    busy, own = _busy_seconds(), _own_seconds()
    elapsed, judged = run()
    others = (_busy_seconds() - busy) - (_own_seconds() - own)
    return elapsed, judged, max(0.0, others / (elapsed * (os.cpu_count() or 1)))


def time_cli(folder: Path, jobs: int) -> tuple[float, int]:
    argv = [sys.executable, "-m", "backchannel.proxy.cli", "judge", str(folder), "--format", "json"]
    start = time.perf_counter()
    done = subprocess.run([*argv, "--jobs", str(jobs)], capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"judge failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, int(json.loads(done.stdout)["summary"]["recordings"])


def time_parallel(folder: Path, jobs: int) -> tuple[float, int]:
    tasks = tasks_for(expand([str(folder)]))
    start = time.perf_counter()
    judged = sum(1 for outcome in judge_all(tasks, jobs) if outcome.report is not None)
    return time.perf_counter() - start, judged


def time_serial(folder: Path) -> tuple[float, int]:
    paths = [item.path for item in expand([str(folder)])]
    start = time.perf_counter()
    for path in paths:
        judge(load(path))
    return time.perf_counter() - start, len(paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,5000", help="corpus sizes, comma-separated")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="workers (default: one per CPU)")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--skip-serial", action="store_true", help="skip the one-core in-process pass")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.jobs} jobs, {len(REFERENCES)} references")
    results: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="backchannel-judge-bench-") as tmp:
        for size in sizes:
            folder = build_corpus(Path(tmp) / f"corpus-{size}", size)
            modes = ["cli", "parallel"] + ([] if args.skip_serial else ["serial"])
            for mode in modes:
                if mode == "cli":
                    elapsed, judged, others = measured(partial(time_cli, folder, args.jobs))
                elif mode == "parallel":
                    elapsed, judged, others = measured(partial(time_parallel, folder, args.jobs))
                else:
                    elapsed, judged, others = measured(partial(time_serial, folder))
                rate = judged / elapsed
                results.append(
                    {
                        "size": size,
                        "mode": mode,
                        "seconds": round(elapsed, 3),
                        "per_second": round(rate),
                        "other_processes_cpu_share": round(others, 2),
                    }
                )
                print(
                    f"{size:>6} recordings  {mode:<8}  {elapsed:7.2f} s  {rate:7.0f} recordings/s"
                    f"  (other processes: {others:.0%} of the CPUs)",
                    flush=True,
                )
            shutil.rmtree(folder)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
