#!/usr/bin/env python3
"""The server scenario's wall time: `backchannel check --server URL` against each local server, end to end.

For each server (the bundled conformant one, the Python SDK server, the TypeScript SDK v2 server when installed),
runs the `elicitation-sep1036-url-mode` scenario --rounds times in process (`run_check` + `judge`: mitmdump start,
the seven probes through the proxy, finalising, judging) against one server kept up between rounds, and prints the
median, minimum and maximum. The goal (issue 11) is under 10 s a run against a local server.

Usage: python bench/server_scenario_bench.py [--rounds 5] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from backchannel.oracle import judge
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.proxy.servers.launch import py_server, start_server
from backchannel.proxy.servers.paths import node_server
from backchannel.recordings import load

SCENARIO = "elicitation-sep1036-url-mode"
GOAL_S = 10.0


def one_run(folder: Path, n: int, url: str | None) -> tuple[float, str]:
    out = folder / f"run-{n}.sqlite"
    began = time.perf_counter()
    run_check(SCENARIO, CheckOptions(out=out, server=url), lambda _: None)
    report = judge(load(out))
    took = time.perf_counter() - began
    counts = report.counts()
    return took, f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['ERROR']} ERROR"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    servers: dict[str, Callable[[], list[str] | None]] = {
        "bundled": lambda: [],
        "py-sdk": py_server,
        "ts-sdk": node_server,
    }
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bc-server-bench-") as tmp:
        for name, argv_of in servers.items():
            argv = argv_of()
            if argv is None:
                print(f"{name:8} not installed (scripts/install-clients)", flush=True)
                continue
            folder = Path(tmp) / name
            folder.mkdir()
            with start_server(argv) if argv else nullcontext() as server:
                url = server.url if server is not None else None
                runs = [one_run(folder, n, url) for n in range(args.rounds)]
            times = [t for t, _ in runs]
            verdicts = sorted({v for _, v in runs})
            results[name] = {"runs_s": times, "median_s": statistics.median(times), "verdicts": verdicts}
            met = "goal met" if max(times) < GOAL_S else f"GOAL MISSED (under {GOAL_S:g} s)"
            print(
                f"{name:8} median {statistics.median(times):5.2f} s  min {min(times):5.2f}  max {max(times):5.2f}"
                f"  ({args.rounds} runs; {'; '.join(verdicts)}; {met})",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
