"""The proxy's process keeps to the CPU it starts serving on, unless told not to; a machine that cannot say or
set its CPUs leaves it where it is. Pinning is tried in child processes: the test's own process stays free."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from backchannel.proxy.run.one_cpu import current_cpu, keep_to_one_cpu, processor_of

BOUND_S = 30.0
CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
CHILD = (
    "import os\n"
    "from backchannel.proxy.run.one_cpu import keep_to_one_cpu\n"
    "cpu = keep_to_one_cpu()\n"
    "print(cpu, sorted(os.sched_getaffinity(0)))\n"
)


def _child(env_extra: dict[str, str]) -> tuple[str, str]:
    env = {**os.environ, **env_extra}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=BOUND_S, env=env)
    assert done.returncode == 0, done.stderr
    cpu, _, mask = done.stdout.strip().partition(" ")
    return cpu, mask


def test_the_processor_field_is_read_past_a_command_name_holding_spaces_and_parentheses() -> None:
    fields = " ".join(["S"] + [str(n) for n in range(4, 39)] + ["7", "0", "0"])  # field 39 is 7
    assert processor_of(b"123 (my (odd) name) " + fields.encode()) == 7
    assert processor_of(b"123 (cut short) S 1 2") is None
    assert processor_of(b"") is None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc on this OS: the proxy is left unpinned")
def test_this_process_s_cpu_is_one_it_may_run_on() -> None:
    assert current_cpu() in os.sched_getaffinity(0)


@pytest.mark.skipif(CPUS < 2, reason="a single CPU allowed: nothing to choose (the next test covers that case)")
def test_a_proxy_process_keeps_to_the_one_cpu_it_runs_on() -> None:
    cpu, mask = _child({})
    assert mask == f"[{cpu}]"


def test_any_turns_it_off_and_the_mask_stays_as_the_parent_gave_it() -> None:
    cpu, mask = _child({"BACKCHANNEL_PROXY_CPUS": "any"})
    assert cpu == "None" and mask == str(sorted(os.sched_getaffinity(0)))


def test_a_process_already_on_one_cpu_is_left_as_it_is() -> None:
    env = {**os.environ}
    argv = ["taskset", "-c", str(min(os.sched_getaffinity(0))), sys.executable, "-c", CHILD]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=BOUND_S, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "None"


def test_a_kernel_that_refuses_the_mask_leaves_the_process_where_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(pid: int, mask: object) -> None:
        raise PermissionError("not in this container")

    monkeypatch.setattr(os, "sched_setaffinity", refuse)
    assert keep_to_one_cpu({}) is None
