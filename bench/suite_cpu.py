"""Where the test suite's CPU goes: a pytest plugin that writes each test's CPU seconds, and a per-file table.

The suite's wall time follows its CPU (both workers are busy most of the time), and a test's own duration says as
much about the other jobs on a shared machine as about the test. CPU seconds do not: each test's line holds the CPU
of the worker that ran it and of every process it started and reaped (the CLI, mitmdump, the clients), from
os.times(), so a run under load still gives the same figures.

    CPUPROF_OUT=before.jsonl PYTHONPATH=. .venv/bin/python -m pytest -p bench.suite_cpu -p no:randomly FILES...
    .venv/bin/python bench/suite_cpu.py before.jsonl [after.jsonl]

A module- or session-scoped fixture's CPU is counted in the test that set it up (and tore it down).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest


def _cpu() -> tuple[float, float]:
    """(this process's CPU, its reaped children's CPU), user and system, in seconds."""
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
    own, children, began = *_cpu(), time.monotonic()
    yield
    own_after, children_after = _cpu()
    out = os.environ.get("CPUPROF_OUT")
    if out:  # one line per test, appended (each xdist worker writes its own lines)
        line = {"id": item.nodeid, "self": own_after - own, "children": children_after - children}
        line["wall"] = time.monotonic() - began
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def per_file(path: Path) -> dict[str, float]:
    """CPU seconds (own and children's) per test file."""
    found: dict[str, float] = defaultdict(float)
    for line in path.read_text(encoding="utf-8").splitlines():
        test = json.loads(line)
        found[test["id"].split("::")[0]] += test["self"] + test["children"]
    return found


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs = [per_file(Path(arg)) for arg in argv]
    files = sorted(set().union(*runs), key=lambda name: -runs[0].get(name, 0.0))
    print("| file | " + " | ".join(f"CPU s ({Path(arg).stem})" for arg in argv) + " |")
    print("|---|" + "---|" * len(runs))
    for name in files:
        print(f"| `{name}` | " + " | ".join(f"{run.get(name, 0.0):.1f}" for run in runs) + " |")
    print("| **all** | " + " | ".join(f"**{sum(run.values()):.1f}**" for run in runs) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
