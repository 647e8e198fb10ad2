"""What a `backchannel check` costs around its client runs (issue 26, goal 4).

Each scenario's check is run as a user runs it: the build's own `backchannel` script, a new process, a real
mitmdump, a real recording. For every check:

- wall: from just before the process is spawned until it has exited;
- client: the summed durations of the recording's runs (each run's `started_at` to `ended_at` in the `runs` table);
- overhead: wall - client; the goal is at most 1.5 s for the default check (mrtr-provenance, the toy agent) and
  at most 2 s for every other scenario.

The overhead is broken down with the phase marks a check writes when BACKCHANNEL_TIMINGS names a file
(proxy/timings.py): each stretch of time outside the runs is named after the mark that ends it ("proxy-ready":
the proxy start, "judged": the judging, ...). A build without those marks still gets wall, client and overhead.

`--build NAME=PYTHON` (repeatable) compares builds in one run: every round runs every scenario with every build,
the build order rotating by one each round. Each check prints the share of the machine's CPU that other
processes used while it ran (the noise). See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from build_spec import name_and_python  # bench/ is first on sys.path when a bench runs as a script
from machine_cpu import machine_ticks

ROOT = Path(__file__).resolve().parents[1]
TIMINGS_ENV = "BACKCHANNEL_TIMINGS"
CHECK_TIMEOUT_S = 180
SERVER_READY_S = 60
DEFAULT_GOAL_S = 1.5  # the default check (mrtr-provenance on the toy agent)
OTHER_GOAL_S = 2.0  # every other scenario

# each scenario's check, as the README runs it; {bin} is the build's venv bin folder, {server} the bundled Python
# SDK server's URL (started once by the bench)
SCENARIOS: dict[str, list[str]] = {
    "mrtr-provenance": [],  # `backchannel check` with no flags: the toy agent, discovered from its help
    "default": ["--scenario", "default", "--client", "{bin}/backchannel-toy-agent mcp call {url} get_repo_status"],
    "elicitation-ui": [
        "--scenario",
        "elicitation-ui",
        "--client",
        "{bin}/backchannel-toy-agent ui {url}",
        "--answer",
        "browser\\? \\[y\\].*: =>y\\n",
        "--answer",
        "\\[enter to review\\]: =>true\\n",
        "--answer",
        "Send\\? \\[y\\].*: =>y\\n",
    ],
    "elicitation-url-mode": [
        "--scenario",
        "elicitation-url-mode",
        "--hold-ms",
        "1500",
        "--client",
        "{bin}/python -m backchannel.proxy.clients.drivers.py_sdk {url}",
    ],
    "sampling": [
        "--scenario",
        "sampling",
        "--client",
        "{bin}/backchannel-toy-agent sampling {url}",
        "--answer",
        "\\[y\\]es / \\[n\\]o: =>y\\n",
    ],
    "roots": ["--scenario", "roots", "--client", "{bin}/backchannel-toy-agent roots {url}"],
    "conformance": ["--scenario", "conformance", "--client", "{bin}/backchannel-toy-agent conformance {url}"],
    "sdk-regressions": ["--scenario", "sdk-regressions", "--client", "{bin}/backchannel-toy-agent regressions {url}"],
    "elicitation-sep1036-url-mode": ["--server", "{server}"],
}

# a stretch of time outside the runs is named after the mark that ends it
PHASES = {
    "cli-main": "python start, CLI import",
    "check-called": "check command import, flags",
    "capture-start": "scenario set-up",
    "recording-created": "recording created",
    "endpoint-started": "endpoint start",
    "proxy-spawned": "proxy spawn",
    "proxy-ready": "proxy start (until ready)",
    "run-start": "before a run (side servers, waits, discovery)",
    "close-start": "after the last run",
    "labs-removed": "labs removed",
    "writer-closed": "writer closed",
    "proxy-stopped": "proxy stop",
    "endpoints-stopped": "endpoints and side servers stop",
    "finalized": "recording finalised",
    "runner-returned": "runner return",
    "recording-loaded": "judging: load",
    "judged": "judging: judge",
    "report-kept": "report stored in the recording",
    "rendering": "before rendering",
    "exit": "render, exit",
}
IN_RUN_MARKS = {"client-spawned", "client-exited", "client-reaped"}
MITMDUMP_MARKS = {"mitmdump-serving", "mitmdump-imported"}


@dataclass(frozen=True)
class Build:
    name: str
    python: Path

    @property
    def bin(self) -> Path:
        return self.python.parent


def parse_build(spec: str) -> Build:
    name, python = name_and_python(spec)
    path = Path(python)
    if not (path.parent / "backchannel").exists():
        raise argparse.ArgumentTypeError(f"--build {name}: no backchannel script beside {python}")
    return Build(name, path)


# ---------------------------------------------------------------- CPU accounting (noise indicator)


def children_ticks() -> float:
    """CPU seconds of every waited-for descendant so far (the check, its mitmdump, its clients)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------- one check


def run_check(build: Build, scenario: str, server: str | None, work: Path, label: str) -> dict[str, Any]:
    out = work / f"{label}.sqlite"
    timings = work / f"{label}.timings.jsonl"
    flags = [part.format(bin=build.bin, server=server, url="{url}") for part in SCENARIOS[scenario]]
    argv = [str(build.bin / "backchannel"), "check", *flags, "--out", str(out), "--format", "json"]
    env = {**os.environ, TIMINGS_ENV: str(timings)}
    hz = os.sysconf("SC_CLK_TCK")
    busy0, total0 = machine_ticks()
    cpu0 = children_ticks()
    began = time.time()
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=CHECK_TIMEOUT_S)
    ended = time.time()
    busy, total = machine_ticks()
    ours = children_ticks() - cpu0
    other = max(0.0, (busy - busy0) / hz - ours) / max(1e-9, (total - total0) / hz)
    runs = recorded_runs(out)
    client = sum(end - start for _, start, end in runs)
    verdict = json.loads(done.stdout).get("summary", {}) if done.stdout.startswith(b"{") else {}
    marks = read_marks(timings)
    return {
        "build": build.name,
        "scenario": scenario,
        "exit_code": done.returncode,
        "stderr_tail": done.stderr.decode("utf-8", "replace")[-600:] if done.returncode not in (0, 1) else "",
        "summary": verdict,
        "wall_s": ended - began,
        "client_s": client,
        "overhead_s": ended - began - client,
        "runs": len(runs),
        "cpu_s": ours,
        "other_cpu_share": other,
        "phases": phases(marks, runs, began, ended),
        "in_runs": in_run_harness(marks, runs),
        "mitmdump": mitmdump_phases(marks),
    }


def recorded_runs(path: Path) -> list[tuple[str, float, float]]:
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT name, started_at, ended_at FROM runs WHERE ended_at IS NOT NULL ORDER BY ordinal"
        ).fetchall()
    finally:
        conn.close()
    return [(str(name), float(start), float(end)) for name, start, end in rows]


def read_marks(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def phases(
    marks: list[dict[str, Any]], runs: list[tuple[str, float, float]], began: float, ended: float
) -> dict[str, float]:
    """The time outside the runs, each stretch named after the event that ends it (summed per name)."""
    if not marks:
        return {}
    cli = marks[0]["pid"]
    events = [(m["t"], m["phase"]) for m in marks if m["pid"] == cli and m["phase"] not in IN_RUN_MARKS]
    events += [(start, "run-start") for _, start, _ in runs] + [(end, "run-end") for _, _, end in runs]
    events.append((ended, "exit"))
    events.sort()
    out: dict[str, float] = {}
    at, inside = began, False
    for t, name in events:
        if not inside and name != "run-end":
            label = PHASES.get(name, name)
            out[label] = out.get(label, 0.0) + max(0.0, t - at)
        inside = name == "run-start"
        at = t
    return out


def in_run_harness(marks: list[dict[str, Any]], runs: list[tuple[str, float, float]]) -> float:
    """The harness's own time inside the runs: each run's start to its client's spawn, and the client's exit to
    the run's end (the lab, the process sweep, the files and opens recorded). Runs without a client count whole."""
    cli = marks[0]["pid"] if marks else None
    spawned = sorted(m["t"] for m in marks if m["pid"] == cli and m["phase"] == "client-spawned")
    exited = sorted(m["t"] for m in marks if m["pid"] == cli and m["phase"] == "client-exited")
    total = 0.0
    for _, start, end in runs:
        spawn = next((t for t in spawned if start <= t <= end), None)
        gone = next((t for t in exited if start <= t <= end), None)
        if spawn is None or gone is None:
            continue
        total += (spawn - start) + (end - gone)
    return total


def mitmdump_phases(marks: list[dict[str, Any]]) -> dict[str, float]:
    """Inside the proxy start: the new Python and the launcher's imports, mitmproxy's imports, then until ready."""
    if not marks:
        return {}
    cli = marks[0]["pid"]
    first = {}
    for m in marks:
        key = m["phase"] if m["pid"] == cli or m["phase"] in MITMDUMP_MARKS else None
        if key in ("proxy-spawned", "proxy-ready", *MITMDUMP_MARKS) and key not in first:
            first[key] = m["t"]
    chain = ["proxy-spawned", "mitmdump-serving", "mitmdump-imported", "proxy-ready"]
    if not all(k in first for k in chain):
        return {}
    return {f"{a} -> {b}": first[b] - first[a] for a, b in zip(chain, chain[1:], strict=False)}


# ---------------------------------------------------------------- the server under test


class PySdkServer:
    """The bundled Python SDK server (README "Test a server"), on a free loopback port, stopped by its pid."""

    def __init__(self, python: Path) -> None:
        self.process = subprocess.Popen(
            [str(python), "-m", "backchannel.proxy.servers.py_sdk", "--port", "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + SERVER_READY_S
        line = b""
        while time.monotonic() < deadline and not line.startswith(b"READY "):
            line = self.process.stdout.readline()
            if not line:
                break
        if not line.startswith(b"READY "):
            self.stop()
            raise RuntimeError("the bundled Python SDK server did not print READY")
        self.url = line.split()[1].decode()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


# ---------------------------------------------------------------- report


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def goal_of(scenario: str) -> float:
    return DEFAULT_GOAL_S if scenario == "mrtr-provenance" else OTHER_GOAL_S


def report(results: list[dict[str, Any]], builds: Sequence[Build], scenarios: Sequence[str]) -> str:
    lines = []
    names = [b.name for b in builds]
    header = "scenario                      build      wall s  client s  overhead s  goal  met  other CPU  verdicts"
    lines += ["medians per scenario and build", header, "-" * len(header)]
    for scenario in scenarios:
        for name in names:
            rows = [r for r in results if r["scenario"] == scenario and r["build"] == name]
            if not rows:
                continue
            over = median([r["overhead_s"] for r in rows])
            verdicts = sorted({json.dumps(r["summary"], sort_keys=True) for r in rows})
            lines.append(
                f"{scenario:29} {name:9} {median([r['wall_s'] for r in rows]):7.2f} "
                f"{median([r['client_s'] for r in rows]):9.2f} {over:11.2f} {goal_of(scenario):5.1f} "
                f"{'yes' if over <= goal_of(scenario) else 'NO':>4} "
                f"{100 * median([r['other_cpu_share'] for r in rows]):8.0f}%  "
                f"{'same' if len(verdicts) == 1 else 'DIFFER'} (exit {sorted({r['exit_code'] for r in rows})})"
            )
    lines.append("")
    lines.append("where the overhead goes (medians, s; outside the runs, each stretch named after the mark ending it)")
    for scenario in scenarios:
        for name in names:
            rows = [r for r in results if r["scenario"] == scenario and r["build"] == name and r["phases"]]
            if not rows:
                continue
            labels: list[str] = []
            for r in rows:
                labels += [k for k in r["phases"] if k not in labels]
            parts = [f"{k} {median([r['phases'].get(k, 0.0) for r in rows]):.2f}" for k in labels]
            lines.append(f"{scenario} @{name}: " + "; ".join(parts))
            inside = median([r["in_runs"] for r in rows])
            proxy = rows[0]["mitmdump"] and {
                k: median([r["mitmdump"].get(k, 0.0) for r in rows]) for k in rows[0]["mitmdump"]
            }
            lines.append(f"    harness time inside the runs (lab, sweep, files) {inside:.2f}; proxy start: {proxy}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=parse_build, action="append", default=[], help="NAME=PYTHON, repeatable")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="repeatable; default: all")
    parser.add_argument("--runs", type=int, default=3, help="checks per scenario and build (default 3)")
    parser.add_argument("--json", type=Path, help="write every check's numbers here")
    parser.add_argument("--keep", type=Path, help="keep the recordings and timing files in this folder")
    args = parser.parse_args(argv)
    builds: list[Build] = args.build or [Build("this", Path(sys.executable))]
    scenarios: list[str] = args.scenario or list(SCENARIOS)
    work = args.keep or Path(tempfile.mkdtemp(prefix="check-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    server = PySdkServer(builds[0].python) if "elicitation-sep1036-url-mode" in scenarios else None
    results: list[dict[str, Any]] = []
    try:
        for round_no in range(args.runs):
            order = builds[round_no % len(builds) :] + builds[: round_no % len(builds)]
            for scenario in scenarios:
                for build in order:
                    label = f"{scenario}-{build.name}-{round_no}"
                    row = run_check(build, scenario, server.url if server else None, work, label)
                    results.append(row)
                    print(
                        f"{label:45} wall {row['wall_s']:6.2f}  client {row['client_s']:6.2f}  overhead "
                        f"{row['overhead_s']:5.2f}  exit {row['exit_code']}  other CPU "
                        f"{100 * row['other_cpu_share']:3.0f}%  {shlex.quote(row['stderr_tail'])[:200]}",
                        flush=True,
                    )
    finally:
        if server is not None:
            server.stop()
    print()
    print(report(results, builds, scenarios))
    if args.json:
        args.json.write_text(json.dumps({"builds": [str(b.python) for b in builds], "checks": results}, indent=1))
    if args.keep is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
