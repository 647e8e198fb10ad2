"""The installed official suite: its mocks listen on 127.0.0.1 only (the preload), and its checks.json is read as the
suite itself collapses it. The suite runs are in test_parity.py; here only what the runner decides on its own.

It needs `scripts/install-clients`. Without it the tests skip on a developer machine and fail under CI (CI set).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from backchannel.proxy.clients.drivers.paths import repo_root
from backchannel.proxy.conformance.suite import Suite, SuiteMissing, collapse, installed, run_bounded, run_scenario

LOOPBACK_HEX = "0100007F"  # 127.0.0.1 as /proc/net/tcp writes it
WAIT_S = 15.0


def the_suite() -> Suite:
    try:
        return installed()
    except SuiteMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run scripts/install-clients first: {exc}")
        pytest.skip(str(exc))


def listening(pid: int) -> dict[int, set[str]]:
    """Port -> local addresses (hex, as /proc/net/tcp* write them) of the sockets process `pid` listens on."""
    inodes = {
        os.readlink(fd)[8:-1] for fd in Path(f"/proc/{pid}/fd").iterdir() if os.readlink(fd).startswith("socket:[")
    }
    found: dict[int, set[str]] = {}
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                address, port = fields[1].rsplit(":", 1)
                found.setdefault(int(port, 16), set()).add(address)
    return found


def server_url(lines: queue.Queue[str]) -> str:
    """The `Server URL:` line the suite prints in interactive mode (each wait bounded)."""
    while True:
        line = lines.get(timeout=WAIT_S)
        if line.startswith("Server URL:"):
            return line.split(":", 1)[1].strip()


@pytest.mark.parametrize(
    "scenario",
    [
        "sep-2322-client-request-state",  # express's app.listen(0)
        "request-metadata",  # http.createServer().listen(0, callback)
        "http-custom-headers",  # the shared raw-http mock of the header scenarios
        "tools_call",  # the shared stateless mock
    ],
)
def test_each_kind_of_suite_mock_listens_on_127_0_0_1_and_nowhere_else(scenario):
    suite = the_suite()
    # interactive mode (no --command): the suite starts the scenario's mock, prints its URL and waits for Ctrl-C
    argv = suite.argv("client", "--scenario", scenario, "--spec-version", "2026-07-28")
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    stdout, lines = process.stdout, queue.Queue[str]()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True)
    reader.start()
    try:
        url = server_url(lines)
        port = int(url.split(":")[2].split("/")[0])
        assert url.startswith("http://localhost:")
        assert listening(process.pid) == {port: {LOOPBACK_HEX}}
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=WAIT_S)
        reader.join(timeout=WAIT_S)  # it ends at the pipe's end, which came with the process's
        stdout.close()


def test_the_preload_puts_every_tcp_listen_form_on_loopback_at_once():
    suite = the_suite()
    script = """
    const net = require('node:net');
    const forms = [[0], [0, '0.0.0.0'], [0, '::', 5], [{port: 0}], [{port: 0, host: '::'}], ['0']];
    const seen = forms.map(form => {
        const server = net.createServer();
        server.listen(...form);
        const bound = server.address();
        server.close();
        return bound && bound.address;
    });
    console.log(JSON.stringify(seen));
    """
    done = subprocess.run(
        [str(suite.node), "--require", str(suite.preload), "-e", script],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    # read right after listen(), as the suite's mocks read their port: bound already, and on loopback
    assert json.loads(done.stdout) == ["127.0.0.1"] * 6


def test_the_installed_preload_is_the_one_in_the_repository():
    suite = the_suite()
    root = repo_root()
    assert root is not None
    source = root / "proxy" / "clients" / "conformance" / "loopback.cjs"
    assert suite.preload.read_bytes() == source.read_bytes(), "stale copy: run scripts/install-clients again"


def test_the_installed_node_is_22_and_the_suite_the_pinned_version():
    suite = the_suite()
    version = subprocess.run([str(suite.node), "--version"], capture_output=True, text=True, timeout=WAIT_S, check=True)
    assert version.stdout.startswith("v22.")
    package = json.loads((suite.cli.parent.parent / "package.json").read_text(encoding="utf-8"))
    assert package["version"] == "0.2.0-alpha.12"


def test_a_repeated_id_keeps_its_most_severe_entry_and_info_logs_are_no_verdicts():
    entries = [
        {"id": "a", "status": "SUCCESS", "description": "fine"},
        {"id": "a", "status": "FAILURE", "errorMessage": "broken"},
        {"id": "a", "status": "SKIPPED"},
        {"id": "b", "status": "SKIPPED", "description": "not exercised"},
        {"id": "b", "status": "WARNING", "description": "should"},
        {"id": "incoming-request", "status": "INFO"},
        {"status": "SUCCESS"},
    ]
    checks = collapse(entries, "s")
    assert {i: (c.status, c.message) for i, c in checks.items()} == {
        "a": ("FAILURE", "broken"),
        "b": ("WARNING", "should"),
    }
    assert checks["a"].scenario == "s"


@pytest.mark.parametrize("part", ["with space", "$(id)", "a;b", "", "x|y", "'q'"])
def test_a_command_argument_the_suite_would_split_or_the_shell_would_read_is_refused(part):
    suite = Suite(Path("/nonexistent/node"), Path("/nonexistent/index.js"), Path("/nonexistent/loopback.cjs"))
    with pytest.raises(ValueError, match="cannot pass"):
        run_scenario(suite, "tools_call", ["/usr/bin/python3", part])


def test_past_its_bound_a_run_is_killed_with_every_process_it_started(tmp_path):
    pid_file = tmp_path / "child.pid"
    with pytest.raises(subprocess.TimeoutExpired):
        run_bounded(["bash", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], timeout_s=1.0)
    child = Path(f"/proc/{pid_file.read_text().strip()}/stat")
    # gone, or a zombie waiting for its reaper: either way no longer running
    assert not child.exists() or child.read_text().split(") ")[1][0] in "ZX"


def test_a_run_within_its_bound_gives_its_exit_code_and_both_streams(tmp_path):
    assert run_bounded(["bash", "-c", "pwd; echo err >&2; exit 3"], timeout_s=10, cwd=tmp_path) == (
        3,
        f"{tmp_path}\n",
        "err\n",
    )
