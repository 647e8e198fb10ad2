"""Suite-wide settings: Hypothesis profiles, the live marker, and which tests start first.

The suite runs the `suite` profile (fewer examples, so the offline tests stay fast; no deadline, see below); set
HYPOTHESIS_PROFILE=thorough for a deeper search before a release or after touching a parser. Tests that pin their
own `max_examples` keep it.
"""

import os
import signal
import sys

import pytest
from hypothesis import HealthCheck, settings

# no per-example deadline and no too-slow health check in the suite: the suite runs on several workers (often on a
# shared machine), where an example's wall time says how busy the cores were, not how fast the code is; what each
# property asserts is unchanged (the fuzz tests already pinned deadline=None for the same reason)
# The suite starts a few thousand Python processes (the CLI, mitmdump with the addon, the bridge, the drivers). Where
# the environment forbids bytecode caches (PYTHONDONTWRITEBYTECODE, as on our CI machines), each compiled backchannel's
# modules again: about 0.9 s of CPU per CLI start. This session (and every process it starts, xdist's workers
# included: they are spawned after this file loads) caches them in __pycache__, which git ignores.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# A suite started in the background of a shell without job control (`cmd &` in a script, nohup, some CI runners)
# inherits SIGINT ignored, and so does every process it starts: then the CLI never sees the Ctrl-C that the tests
# send to stop `record` and `serve` cleanly, and those tests wait out their bounds. Ctrl-C is restored here, as an
# interactive shell would have it, before xdist's workers or any test's process starts.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("suite", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (addopts) starts one worker per core. Two per core looked attractive (a live test waits on the
    processes it started) but the live part is CPU-bound here: four workers on two cores gained little over two and
    made tests that replay a recording or drive a browser miss their bounds (docs/benchmarks.md).
    PYTEST_XDIST_AUTO_NUM_WORKERS or `-n N` choose otherwise; `-n 0` runs in this one process."""
    return os.cpu_count() or 1


LIVE_FOLDERS = ("e2e", "proxy")  # these start processes: the endpoint, mitmdump, real clients, the CLI
_ROOT = os.path.dirname(os.path.abspath(__file__))


def pytest_ignore_collect(collection_path: "os.PathLike[str]", config: pytest.Config) -> bool | None:
    """With exactly `-m 'not live'`, do not even import the live folders: every test in them is live (marked below),
    and importing and rewriting their modules only to deselect them was a third of the offline part's time."""
    if config.getoption("markexpr", "").strip() not in ("not live", '"not live"'):
        return None
    parts = os.path.relpath(os.fspath(collection_path), _ROOT).split(os.sep)
    return True if parts[0] in LIVE_FOLDERS else None


# The longest single tests (minutes, not seconds), started first: the suite runs on several workers (pytest-xdist,
# addopts), each taking the next test as it frees up, so a long test collected last would run alone at the end.
# Order only; each stays a test like any other. Names from `--durations` of a whole run (docs/benchmarks.md).
START_FIRST = (
    "test_lint.py::test_mypy_is_clean_on_every_package",  # a cold mypy on a fresh clone: about 2-4 CPU minutes
    "bench/test_proxy_bench.py::test_the_readme_benchmark_command_runs_as_written_and_reports_every_section",
    # the official suite and backchannel against both SDK drivers, a few processes at once: about 15 s
    "proxy/conformance/test_parity.py::test_the_readme_cross_check_runs_as_written_and_the_page_matches_the_run",
    # the next longest of a whole run (2026-12-07, 10-30 s each): Claude Code under a tty, the model API fuzz test,
    # fastmcp against the probe, the references redacted twice, the matrix site built from a checkout
    "e2e/test_agents_readme.py::test_the_tty_example_judges_what_claude_codes_own_ui_shows_and_every_run_ends_when_its_task_is_done",
    "proxy/model/test_routes.py::test_any_json_object_on_any_api_is_read_or_refused_and_any_turn_read_renders",
    "proxy/scenarios/mrtr_provenance/test_runner_with_real_clients.py::test_fastmcp_shows_the_request_under_server_asks_without_naming_the_server_and_answers_it_from_stdin",
    "recordings/test_redaction_keeps_verdicts.py::test_redaction_of_the_references_is_a_fixed_point",
    "proxy/matrix/test_command.py::test_the_readme_command_run_as_written_from_a_checkout_builds_the_committed_site",
)


def pytest_collection_modifyitems(items: list) -> None:
    """Mark every test under tests/e2e and tests/proxy `live`, so `-m 'not live'` runs only the offline tests;
    move the START_FIRST tests to the front (the sort is stable: every other test keeps its collected order)."""
    root = os.path.dirname(__file__)
    for item in items:
        parts = os.path.relpath(str(item.path), root).split(os.sep)
        if parts[0] in LIVE_FOLDERS:
            item.add_marker(pytest.mark.live)

    def rank(item: pytest.Item) -> int:
        name = "/".join(os.path.relpath(str(item.path), root).split(os.sep)) + "::" + item.name
        return START_FIRST.index(name) if name in START_FIRST else len(START_FIRST)

    items.sort(key=rank)


def _live_children() -> set[int]:
    """This process's children that are still running (a zombie has ended; Popen reaps it when asked). Each thread
    lists the children it forked (/proc/self/task/*/children): a handful of files, not a walk over /proc."""
    found = set()
    for task in os.scandir("/proc/self/task"):
        try:
            with open(f"{task.path}/children", "rb") as listed:
                found.update(int(pid) for pid in listed.read().split())
        except OSError:
            continue  # the thread ended while we looked
    running = set()
    for pid in found:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                # "pid (comm) state ...": comm may hold spaces and parentheses, so read after the last ")"
                state = stat.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # it ended while we looked
        if state != b"Z":
            running.add(pid)
    return running


@pytest.fixture(autouse=True)
def no_process_outlives_its_test():
    """Every test stops what it started: a child still running after the test's own teardown (a stop that timed
    out, a forgotten Popen) is killed here, by its pid, and the test errors naming it. Left running, such a
    process holds ports and files the next tests need (a replay kept a recorded URL server's port for half an
    hour, failing two later tests on another worker). Children that fixtures of wider scope started are there
    before the test begins, and are theirs to stop."""
    before = _live_children()
    yield
    left = _live_children() - before
    if not left:
        return
    names = {}
    for pid in sorted(left):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                names[pid] = cmdline.read().replace(b"\0", b" ").decode(errors="replace")[:160]
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (OSError, ChildProcessError):
            pass  # it ended (or was reaped) on its own meanwhile
    pytest.fail(f"the test left {len(left)} process(es) running, now killed: {names}", pytrace=False)
