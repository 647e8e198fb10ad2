#!/usr/bin/env python3
"""Judging corpora of recordings: recordings per second through `backchannel judge DIR` and in process.

Builds corpora (default 1,000 and 5,000 recordings) in a temp folder from the committed references
(recordings/reference/*.sqlite, all of them): plain copies, and variants whose nonce and tool version differ (each
variant is a different file with different bytes, judged to the same statuses). Then, per corpus:

  cli-jN    `python -m backchannel.proxy.cli judge DIR --format F --jobs N` (F: --format, default json) for each N
            of --cli-jobs (default 1 and 2), wall clock, start-up included; the scaling line says what the most
            workers give over one
  cached-jN the same with `--cache` (N: the most of --cli-jobs), re-judging the unchanged corpus: the cache is
            filled by one unmeasured run first, so this is what a CI job re-judging its fixtures pays; its output
            must be the same bytes as cli-jN's
  parallel  `judge_all` in process with --jobs workers (what the CLI runs, without start-up and rendering)
  serial    load + judge, one recording after another, on one core
  read      the yardstick, on one core: every row of every table read with the sqlite3 module and every JSON cell
            decoded (text and BLOB), nothing judged; "the speed of reading" the corpus, which the summary compares
            judging with

With `--build NAME=PYTHON` (repeatable) every mode is measured for each build, each run by that build's own
interpreter (its venv's backchannel), interleaved round by round (--rounds) so that before and after share the
machine's load; the CLI's output of every build must be the same bytes (a speed change changes no verdict).

The CLI modes also say how large the CLI's own process grew (its peak resident memory, the pool's workers not
counted): what judging a corpus of that size costs the CLI in memory.

Usage: python bench/judge_bench.py [--sizes 1000,5000] [--jobs N] [--cli-jobs 1,2] [--format json|text]
                                   [--rounds R] [--build NAME=PYTHON ...] [--json results.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from build_spec import name_and_python  # bench/ is first on sys.path when a bench runs as a script
from machine_cpu import busy_seconds as _busy_seconds

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = sorted((ROOT / "recordings" / "reference").glob("*.sqlite"))
IN_PROCESS = ("parallel", "serial", "read")
READ = "read"  # build-independent (plain sqlite3 and json): measured once per round, with the bench's interpreter


@dataclass(frozen=True)
class Build:
    """A backchannel build: a name for the tables and the interpreter of its venv."""

    name: str
    python: str


def parse_build(spec: str) -> Build:
    return Build(*name_and_python(spec))


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


def _own_seconds() -> float:
    """CPU time this process and its reaped children (the CLI, the pool's workers) have used so far."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class Measure:
    seconds: float
    judged: int
    cpu: float  # CPU seconds the judging used (the CLI with its workers, or the in-process loop)
    others: float  # the share of all CPUs other processes used meanwhile (0..1)
    digest: str = ""  # of the CLI's output
    peak_mb: float = 0.0  # the CLI's own process at its largest (resident), workers not counted; 0: not measured


def measured(run: Callable[[], Measure | tuple[float, int, str, float]]) -> Measure:
    """A run's measure; a run that measured its own window (in process) says it, else it is measured around it."""
    busy, own = _busy_seconds(), _own_seconds()
    said = run()
    if isinstance(said, Measure):
        return said
    elapsed, judged, digest, peak_mb = said
    cpu = _own_seconds() - own
    return Measure(elapsed, judged, cpu, _share((_busy_seconds() - busy) - cpu, elapsed), digest, peak_mb)


def _share(others: float, elapsed: float) -> float:
    return max(0.0, others / (elapsed * (os.cpu_count() or 1)))


# `python -m backchannel.proxy.cli ...`, saying on stderr at exit how large its own process grew (VmHWM: the pool's
# workers leave through os._exit, so only the parent says it)
_CLI = """
import atexit, runpy, sys
def _peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write("%s %s\\n" % (PEAK, line.split()[1]))
atexit.register(_peak)
sys.argv[0] = "backchannel"
runpy.run_module("backchannel.proxy.cli", run_name="__main__", alter_sys=True)
"""
PEAK = "BACKCHANNEL-BENCH-PEAK-KB"


def time_cli(
    python: str, folder: Path, jobs: int, fmt: str = "json", cache: Path | None = None
) -> tuple[float, int, str, float]:
    argv = [python, "-c", f"PEAK = {PEAK!r}\n{_CLI}", "judge", str(folder), "--format", fmt, "--jobs", str(jobs)]
    if cache is not None:
        argv += ["--cache", str(cache)]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"judge failed ({done.returncode}): {done.stderr[-2000:].decode(errors='replace')}")
    if fmt == "json":
        judged = int(json.loads(done.stdout)["summary"]["recordings"])
    else:  # the text output's last line: "N recordings, M not judged; exit code C"
        judged = int(done.stdout.decode().rstrip("\n").rsplit("\n", 1)[-1].split()[0])
    peaks = [line.split()[1] for line in done.stderr.decode(errors="replace").splitlines() if line.startswith(PEAK)]
    peak_mb = int(peaks[-1]) / 1024 if peaks else 0.0
    return elapsed, judged, hashlib.sha256(done.stdout).hexdigest()[:16], peak_mb


def time_in_process(python: str, folder: Path, mode: str, jobs: int) -> Measure:
    """An in-process mode run by `python` (this script again, with --inner): each build imports its own code."""
    argv = [python, str(Path(__file__).resolve()), "--inner", mode, "--folder", str(folder), "--jobs", str(jobs)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed ({done.returncode}): {done.stderr[-2000:]}")
    said = json.loads(done.stdout.strip().splitlines()[-1])
    return Measure(float(said["seconds"]), int(said["judged"]), float(said["cpu"]), float(said["others"]))


_JSON_STARTS = ("{", "[", b"{", b"[")


def read_everything(path: Path) -> int:
    """Every row of every table of a recording, with every cell that holds a JSON object or array decoded: what any
    judge must at least do. Opened read-only and immutable, as the reader opens a finished recording."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        rows = 0
        tables = [str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                rows += 1
                for value in row:
                    # text cells and BLOB ones (the bodies, the files): json.loads takes UTF-8 bytes as they are
                    if isinstance(value, str | bytes) and value[:1] in _JSON_STARTS:
                        try:
                            json.loads(value)
                        except ValueError:  # UnicodeDecodeError included
                            pass
        return rows
    finally:
        conn.close()


def inner(mode: str, folder: Path, jobs: int) -> None:
    """One in-process measurement with whichever backchannel this interpreter imports; one JSON line out."""
    if mode == READ:  # no backchannel at all: the files and the standard library
        paths = sorted(folder.rglob("*.sqlite"))
        busy, own, start = _busy_seconds(), _own_seconds(), time.perf_counter()
        for path in paths:
            read_everything(path)
        elapsed, cpu = time.perf_counter() - start, _own_seconds() - own
        others = _share((_busy_seconds() - busy) - cpu, elapsed)
        print(json.dumps({"seconds": elapsed, "judged": len(paths), "others": others, "cpu": cpu}))
        return
    from backchannel.oracle import judge
    from backchannel.proxy.judging.inputs import expand
    from backchannel.proxy.judging.parallel import judge_all, tasks_for
    from backchannel.recordings import load

    found = expand([str(folder)])
    if mode == "parallel":
        tasks = tasks_for(found)
        busy, own, start = _busy_seconds(), _own_seconds(), time.perf_counter()
        judged = sum(1 for outcome in judge_all(tasks, jobs) if outcome.report is not None)
    else:
        paths = [item.path for item in found]
        judge(load(paths[0]))  # the checks imported, as the pool's parent does before forking
        busy, own, start = _busy_seconds(), _own_seconds(), time.perf_counter()
        for path in paths:
            judge(load(path))
        judged = len(paths)
    elapsed, cpu = time.perf_counter() - start, _own_seconds() - own
    others = _share((_busy_seconds() - busy) - cpu, elapsed)
    print(json.dumps({"seconds": elapsed, "judged": judged, "others": others, "cpu": cpu}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,5000", help="corpus sizes, comma-separated")
    parser.add_argument("--jobs", type=int, default=0, help="workers of the parallel mode (default: one per CPU)")
    parser.add_argument("--cli-jobs", default="1,2", help="the CLI's --jobs values to measure, comma-separated")
    parser.add_argument("--format", default="json", choices=("json", "text"), help="the CLI's output format")
    parser.add_argument("--rounds", type=int, default=1, help="times each mode runs, interleaved across builds")
    parser.add_argument("--build", type=parse_build, action="append", default=[], help="NAME=PYTHON (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--skip-serial", action="store_true", help="skip the one-core in-process pass")
    parser.add_argument("--only", help="measure only these modes, comma-separated (cli-j1, parallel, serial, read...)")
    parser.add_argument("--inner", choices=IN_PROCESS, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    jobs = args.jobs or len(os.sched_getaffinity(0))
    if args.inner:
        inner(args.inner, args.folder, jobs)
        return
    builds = args.build or [Build("this", sys.executable)]
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    cli_jobs = [int(j) for j in args.cli_jobs.split(",") if j.strip()]
    modes = [f"cli-j{j}" for j in cli_jobs] + [f"cached-j{max(cli_jobs)}", "parallel"]
    modes += ([] if args.skip_serial else ["serial"]) + [READ]
    if args.only:
        modes = [mode for mode in modes if mode in args.only.split(",")]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, parallel {jobs} jobs, {len(REFERENCES)} references,"
        f" builds: {', '.join(f'{b.name}={b.python}' for b in builds)}",
        flush=True,
    )
    results: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="backchannel-judge-bench-") as tmp:
        for size in sizes:
            folder = build_corpus(Path(tmp) / f"corpus-{size}", size)
            rates: dict[tuple[str, str], list[float]] = {}
            cpus: dict[tuple[str, str], list[float]] = {}
            peaks: dict[tuple[str, str], list[float]] = {}
            digests: set[str] = set()
            for round_no in range(1, args.rounds + 1):
                for mode in modes:
                    # interleaved: each mode of every build, back to back; the yardstick once, as "sqlite3"
                    for build in [Build("sqlite3", sys.executable)] if mode == READ else builds:
                        if mode.startswith("cli-j"):
                            run = partial(time_cli, build.python, folder, int(mode[5:]), args.format)
                        elif mode.startswith("cached-j"):
                            cache = Path(tmp) / f"cache-{size}-{build.name}"
                            run = partial(time_cli, build.python, folder, int(mode[8:]), args.format, cache)
                            if not cache.exists():  # filled once, unmeasured: the mode re-judges an unchanged corpus
                                run()
                        else:
                            run = partial(time_in_process, build.python, folder, mode, jobs)
                        got = measured(run)
                        if got.digest:
                            digests.add(got.digest)
                        rate = got.judged / got.seconds
                        rates.setdefault((build.name, mode), []).append(rate)
                        cpus.setdefault((build.name, mode), []).append(got.cpu * 1000 / got.judged)
                        results.append(
                            {
                                "size": size,
                                "build": build.name,
                                "round": round_no,
                                "mode": mode,
                                "seconds": round(got.seconds, 3),
                                "per_second": round(rate),
                                "cpu_ms_per_recording": round(got.cpu * 1000 / got.judged, 2),
                                "other_processes_cpu_share": round(got.others, 2),
                                "cli_peak_rss_mb": round(got.peak_mb, 1) if got.peak_mb else None,
                            }
                        )
                        if got.peak_mb:
                            peaks.setdefault((build.name, mode), []).append(got.peak_mb)
                        peak = f"  peak {got.peak_mb:4.0f} MB" if got.peak_mb else ""
                        print(
                            f"{size:>6} recordings  {build.name:<8} {mode:<8}  {got.seconds:7.2f} s"
                            f"  {rate:7.0f} recordings/s  {got.cpu * 1000 / got.judged:6.2f} CPU-ms each{peak}"
                            f"  (other processes: {got.others:.0%} of the CPUs)",
                            flush=True,
                        )
            _summary(size, builds, modes, cli_jobs, rates, cpus, digests, peaks)
            shutil.rmtree(folder)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def _summary(
    size: int,
    builds: list[Build],
    modes: list[str],
    cli_jobs: list[int],
    rates: dict[tuple[str, str], list[float]],
    cpus: dict[tuple[str, str], list[float]],
    digests: set[str],
    peaks: dict[tuple[str, str], list[float]] | None = None,
) -> None:
    """Medians per build and mode, the CLI's scaling with workers, and whether every CLI output was the same."""
    floor = statistics.median(cpus[("sqlite3", READ)]) if ("sqlite3", READ) in cpus else 0.0
    cores = len(os.sched_getaffinity(0))
    if floor > 0:
        print(
            f"{size:>6} recordings  sqlite3  median: reading and decoding everything {floor:.2f} CPU-ms a recording,"
            f" at most {1000 / floor * cores:.0f}/s on {cores} cores",
            flush=True,
        )
    judged_modes = [mode for mode in modes if mode != READ]
    for build in builds:
        medians = {mode: statistics.median(rates[(build.name, mode)]) for mode in judged_modes}
        said = ", ".join(
            f"{mode} {rate:.0f}/s ({statistics.median(cpus[(build.name, mode)]):.2f} CPU-ms)"
            for mode, rate in medians.items()
        )
        scaling = ""
        low, high = min(cli_jobs, default=1), max(cli_jobs, default=1)
        if high > low and f"cli-j{high}" in medians and f"cli-j{low}" in medians:
            ratio = medians[f"cli-j{high}"] / medians[f"cli-j{low}"]
            scaling = f"; scaling --jobs {high} / --jobs {low}: {ratio:.2f}x"
        cost = ""
        cli = sorted((mode for mode in judged_modes if mode.startswith("cli-j")), key=lambda mode: int(mode[5:]))
        if floor > 0 and cli:  # the CLI with the most workers, its start-up included (the reading pass has none)
            spent = statistics.median(cpus[(build.name, cli[-1])])
            cost = f"; {cli[-1]} costs {spent / floor:.1f}x reading (start-up included)"
        grown = ", ".join(
            f"{mode} {statistics.median(peaks[(build.name, mode)]):.0f} MB"
            for mode in judged_modes
            if peaks and (build.name, mode) in peaks
        )
        memory = f"; the CLI's own peak memory: {grown}" if grown else ""
        print(f"{size:>6} recordings  {build.name:<8} median: {said}{scaling}{cost}{memory}", flush=True)
    if digests:
        print(f"{size:>6} recordings  CLI outputs identical across builds and runs: {len(digests) == 1}", flush=True)


if __name__ == "__main__":
    main()
