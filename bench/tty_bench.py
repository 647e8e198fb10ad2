#!/usr/bin/env python3
"""What `--tty` costs: the same client run piped and under a terminal, through the proxy, N times each.

Two measures, both wall clock: the client run alone (`Capture.run_client`: start, the whole MCP exchange through
the proxy, exit, and for a tty run the snapshots and the drain of its output), and the whole `check` of the
mrtr-provenance probe (mitmdump, discovery, witnesses, four runs, judging), piped vs `--tty`. The goal (issue 12):
a tty run costs at most 10 % more than the piped run of the same client. A third: the whole `check` of
elicitation-ui on the toy agent's careful terminal client, answered at its prompts piped (`--answer --no-tty`) vs
under a terminal (`--answer`).

Usage: python bench/tty_bench.py [--rounds 10] [--checks 3] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from backchannel.oracle import judge
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.tty import TtyOptions, parse_answer
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.default.endpoint import TOOLS as DEFAULT_TOOLS
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load

TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent"]
CLIENTS = {
    "toy agent (mcp call)": [*TOY, "mcp", "call", "{url}", "get_repo_status"],
    "Python SDK driver": [sys.executable, "-m", "backchannel.proxy.clients.drivers.py_sdk", "{url}"],
}
GOAL = 0.10
UI_ANSWERS = (r"browser\? \[y\].*: =>y\n", r"\[enter to review\]: =>true\n", r"Send\? \[y\].*: =>y\n")


def client_runs(folder: Path, argv: list[str], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"piped": [], "tty": []}
    with Capture(folder / "runs.sqlite", endpoint=EndpointConfig(tools=DEFAULT_TOOLS)) as capture:
        for n in range(rounds):
            for mode in ("piped", "tty") if n % 2 == 0 else ("tty", "piped"):  # alternate: no order bias
                run = capture.new_run(f"{mode}-{n}", {}, scenario="default")
                began = time.perf_counter()
                capture.run_client(run, argv, timeout=60, tty=TtyOptions() if mode == "tty" else None)
                times[mode].append(time.perf_counter() - began)
    return times


def whole_checks(folder: Path, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"piped": [], "tty": []}
    for n in range(rounds):
        for mode in ("piped", "tty") if n % 2 == 0 else ("tty", "piped"):
            out = folder / f"check-{mode}-{n}.sqlite"
            options = CheckOptions(out=out, target=list(TOY), tty=TtyOptions() if mode == "tty" else None)
            began = time.perf_counter()
            run_check("mrtr-provenance", options, lambda _: None)
            judge(load(out))
            times[mode].append(time.perf_counter() - began)
    return times


def ui_checks(folder: Path, rounds: int) -> dict[str, list[float]]:
    answers = tuple(parse_answer(a) for a in UI_ANSWERS)
    times: dict[str, list[float]] = {"piped": [], "tty": []}
    for n in range(rounds):
        for mode in ("piped", "tty") if n % 2 == 0 else ("tty", "piped"):
            out = folder / f"ui-{mode}-{n}.sqlite"
            tty = TtyOptions(answers=answers, piped=mode == "piped")
            options = CheckOptions(out=out, client=[*TOY, "ui", "{url}"], tty=tty)
            began = time.perf_counter()
            run_check("elicitation-ui", options, lambda _: None)
            judge(load(out))
            times[mode].append(time.perf_counter() - began)
    return times


def line(name: str, times: dict[str, list[float]]) -> dict[str, Any]:
    piped, tty = statistics.median(times["piped"]), statistics.median(times["tty"])
    extra = tty / piped - 1
    verdict = "goal met" if extra <= GOAL else f"GOAL MISSED (at most {GOAL:.0%})"
    print(f"{name:28} piped {piped * 1000:7.0f} ms  tty {tty * 1000:7.0f} ms  {extra:+6.1%}  {verdict}", flush=True)
    return {"piped_s": times["piped"], "tty_s": times["tty"], "extra": extra}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--checks", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bc-tty-bench-") as tmp:
        for n, (name, argv) in enumerate(CLIENTS.items()):
            folder = Path(tmp) / str(n)
            folder.mkdir()
            results[name] = line(f"run: {name}", client_runs(folder, argv, args.rounds))
        if args.checks:
            results["check"] = line("check: mrtr-provenance (toy)", whole_checks(Path(tmp), args.checks))
            results["ui-check"] = line("check: elicitation-ui (toy ui)", ui_checks(Path(tmp), args.checks))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
