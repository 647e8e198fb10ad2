import os
import signal
import subprocess
import sys
from pathlib import Path

from backchannel.proxy.run import reaper

_DETACHED = (
    "import os, subprocess, sys;"
    "subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); print(os.getpid(), flush=True);"
    " time.sleep(300)'], stdout=sys.stdout)"
)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _detached_grandchild(marker_env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _DETACHED],
        stdout=subprocess.PIPE,
        env={**os.environ, **marker_env},
        start_new_session=True,
    )
    assert proc.stdout is not None
    pid = int(proc.stdout.readline())
    proc.wait(10)
    proc.stdout.close()
    return proc, pid


def test_a_setsid_orphan_is_found_by_the_run_marker_and_killed():
    assert reaper.become_subreaper()
    proc, orphan = _detached_grandchild({reaper.MARKER_VAR: "m1"})
    try:
        assert orphan in reaper.members(proc.pid, "m1")
        assert reaper.kill_run(proc.pid, "m1") >= 1
        assert not _alive(orphan)
    finally:
        if _alive(orphan):
            os.kill(orphan, signal.SIGKILL)


def test_a_marked_orphan_started_after_the_run_is_found_when_only_younger_processes_are_looked_at():
    assert reaper.become_subreaper()
    proc, orphan = _detached_grandchild({reaper.MARKER_VAR: "m2"})
    try:
        assert orphan in reaper.members(proc.pid, "m2", since=reaper.started_at(orphan))
        # a process older than `since` is not the run's: its environment is not even read
        assert orphan not in reaper.members(proc.pid, "m2", since=reaper.started_at(orphan) + 1)
        assert reaper.kill_run(proc.pid, "m2", since=reaper.started_at(orphan)) >= 1
        assert not _alive(orphan)
    finally:
        if _alive(orphan):
            os.kill(orphan, signal.SIGKILL)


def test_the_start_of_a_process_that_is_gone_reads_as_zero():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(10)
    assert reaper.started_at(proc.pid) == 0
    assert reaper.started_at(os.getpid()) > 0


def test_kill_marked_finds_processes_by_any_variable_and_spares_the_rest():
    proc, marked = _detached_grandchild({"BCKCH_TEST_MARK": "yes"})
    other, unmarked = _detached_grandchild({"BCKCH_TEST_MARK": "no"})
    try:
        assert reaper.kill_marked("BCKCH_TEST_MARK", "yes") == 1
        assert not _alive(marked) and _alive(unmarked)
    finally:
        for pid in (marked, unmarked):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        reaper.kill_marked("BCKCH_TEST_MARK", "no")


def test_a_process_table_entry_with_spaces_and_parentheses_in_its_name_parses():
    assert reaper._stat(os.getpid()) is not None
    assert reaper._stat(2**31) is None
