"""Benchmark: what backchannel's mitmdump costs per request, per SSE event, at start-up and on disk.

Run:  python bench/proxy_bench.py [--json results.json]

Four measurements, all on loopback, all in one process except the mitmdump children:

1. latency of sequential `tools/call get_repo_status` exchanges on one keep-alive connection:
   (a) direct to the scripted endpoint, (b) through a no-op mitmdump, (c) through backchannel
   (recorder + rewriter, empty plan) and (c') the same with a `drop-result-type` plan;
2. SSE per-event forwarding delay (arrival - send, one clock) from a raw asyncio upstream: direct, through
   a no-op mitmdump that only turns on streaming, and through backchannel;
3. `start_proxy` start-up time with the warm shared confdir (and, for comparison, a no-op mitmdump's);
4. the recording's size and row counts after (c).

This is a script, not a test: it prints a table and, with --json, writes every number it printed.

With `--build NAME=PYTHON` (repeatable) the backchannel series come from other builds instead of this checkout:
each build's proxy is started by bench/build_proxy.py run with that build's own interpreter, so its mitmdump runs
that build's addon (`backchannel.addons.entry`) whichever package layout it has. The series of all builds are
interleaved round by round with direct and the no-op mitmdump, and each build gets its own rows and ratios:

    python bench/proxy_bench.py --build before=/work/wt-before/.venv/bin/python \
        --build after=/work/main/.venv/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.client
import json
import os
import platform
import selectors
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from build_spec import name_and_python  # bench/ is first on sys.path when a bench runs as a script
from machine_cpu import machine_ticks as _machine_ticks

from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig

# This checkout's proxy (Capture, start_proxy, the addon) is imported only when it is measured, i.e. without
# --build: with --build, this process needs only the scripted endpoint, and every proxy comes from its own build.

PROTOCOL_VERSION = "2026-07-28"
TOOL = "get_repo_status"
HEADERS = {
    "MCP-Protocol-Version": PROTOCOL_VERSION,
    "Mcp-Method": "tools/call",
    "Mcp-Name": TOOL,
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}
DROP_PLAN = {"mutations": [{"kind": "drop-result-type", "match": {"method": "tools/call", "name": TOOL}}]}
DIE_WITH_BENCH = """
import ctypes, os, signal

# Once, at load: SIGTERM this mitmdump when the bench process dies (Linux PR_SET_PDEATHSIG), so a killed bench
# leaves no proxy behind. Nothing runs per request.
ctypes.CDLL(None).prctl(1, signal.SIGTERM)
if os.getppid() == 1:
    os.kill(os.getpid(), signal.SIGTERM)
"""
NOOP_ADDON = (
    '''"""A no-op mitmproxy addon: hooks that do nothing, so mitmdump loads a script as backchannel's does."""
'''
    + DIE_WITH_BENCH
    + """

class NoOp:
    def request(self, flow):
        pass

    def response(self, flow):
        pass


addons = [NoOp()]
"""
)
NOOP_STREAM_ADDON = (
    '''"""A no-op addon that only turns on streaming for text/event-stream, so SSE is not buffered."""
'''
    + DIE_WITH_BENCH
    + """

class NoOpStream:
    def responseheaders(self, flow):
        if "text/event-stream" in flow.response.headers.get("content-type", ""):
            flow.response.stream = True


addons = [NoOpStream()]
"""
)
READY_TIMEOUT_S = 30.0
LATENCY_GOAL_PCT = 15.0
SSE_GOAL_MS = 5.0
QUIET_SHARE = 0.10  # a series is "quiet" when other processes used at most this share of all CPUs
HELPER = Path(__file__).resolve().parent / "build_proxy.py"
HELPER_MARKER = b"BACKCHANNEL-BENCH-BUILD "  # build_proxy.MARKER: the lines meant for us
HELPER_STOP_TIMEOUT_S = 30.0
LATENCY_RUNS = {"latency-plain": {}, "latency-drop-result-type": DROP_PLAN}


# ---------------------------------------------------------------- confdir

_CONFDIR: Path | None = None


def set_confdir(args: argparse.Namespace) -> None:
    """The shared mitmproxy confdir: the first build's (all builds compute the same one), else this checkout's."""
    global _CONFDIR
    if args.build:
        found = {b.info["confdir"] for b in args.build}
        if len(found) > 1:
            print(f"  warning: the builds use different confdirs {sorted(found)}", file=sys.stderr, flush=True)
        _CONFDIR = Path(args.build[0].info["confdir"])
    else:
        from backchannel.proxy.run.launcher import confdir as launcher_confdir

        _CONFDIR = launcher_confdir()


def confdir() -> Path:
    assert _CONFDIR is not None, "set_confdir() first"
    return _CONFDIR


# ---------------------------------------------------------------- statistics


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between closest ranks."""
    s = sorted(values)
    if not s:
        return float("nan")
    pos = (len(s) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "median": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


# ---------------------------------------------------------------- machine


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "--no-optional-locks", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            timeout=5,
        ).stdout.strip()
        dirty = subprocess.run(  # --no-optional-locks: never take the index lock in a repository others use
            ["git", "--no-optional-locks", "status", "--porcelain", "--", "addons", "recordings", "proxy"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
            timeout=5,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "", []
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_count": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "mitmproxy": version("mitmproxy"),
        "backchannel": version("backchannel"),
        "commit": commit,
        "product_files_changed_since_commit": len(dirty),
        "loadavg_at_start": os.getloadavg(),
        "confdir": str(confdir()),
        "confdir_warm_at_start": (confdir() / "mitmproxy-ca.pem").exists(),
    }


# ---------------------------------------------------------------- CPU accounting (noise indicator)


def _process_ticks(pids: Sequence[int]) -> int:
    ticks = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2 :].split()
        ticks += int(rest[11]) + int(rest[12])  # utime, stime (all threads)
    return ticks


class ForeignCpu:
    """How much of the machine's CPU went to processes other than ours while a series ran (0..1 of all cores)."""

    def __init__(self, pids: Sequence[int]) -> None:
        self.pids = [os.getpid(), *pids]
        self.busy0, self.total0 = _machine_ticks()
        self.ours0 = _process_ticks(self.pids)

    def share(self) -> float:
        busy, total = _machine_ticks()
        ours = _process_ticks(self.pids)
        if total == self.total0:
            return 0.0
        return max(0.0, ((busy - self.busy0) - (ours - self.ours0)) / (total - self.total0))


# ---------------------------------------------------------------- MCP requests


def call_body(request_id: int) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {
                "name": TOOL,
                "arguments": {"repo": "demo"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        },
        separators=(",", ":"),
    ).encode()


def latency_series(url: str, n: int, warmup: int, first_id: int) -> tuple[list[float], bytes]:
    """n timed exchanges (ms each) after `warmup` untimed ones, on one fresh keep-alive connection."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    bodies = [call_body(first_id + i) for i in range(warmup + n)]
    path = parts.path
    last = b""
    lat: list[float] = []
    gc.collect()
    try:
        for i, body in enumerate(bodies):
            t0 = time.perf_counter_ns()
            conn.request("POST", path, body=body, headers=HEADERS)
            resp = conn.getresponse()
            data = resp.read()
            t1 = time.perf_counter_ns()
            if resp.status != 200:
                raise RuntimeError(f"{url}: HTTP {resp.status}: {data[:300]!r}")
            if i >= warmup:
                lat.append((t1 - t0) / 1e6)
            last = data
    finally:
        conn.close()
    return lat, last


def check_reply(label: str, data: bytes, expect_result_type: bool) -> None:
    """The last reply of a series is a tools/call result, with or without resultType as the plan says."""
    msg = json.loads(data)
    result = msg.get("result")
    if not isinstance(result, dict) or "content" not in result:
        raise RuntimeError(f"{label}: not a tools/call result: {data[:300]!r}")
    if ("resultType" in result) != expect_result_type:
        raise RuntimeError(f"{label}: resultType {'missing' if expect_result_type else 'present'}: {data[:300]!r}")


# ---------------------------------------------------------------- no-op mitmdump


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_accepting(
    port: int, process: subprocess.Popen[bytes], timeout: float = READY_TIMEOUT_S, what: str = "no-op mitmdump"
) -> None:
    """Poll connect every 5 ms until the port accepts; bounded, and a dead process fails at once."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode} before accepting")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not accept on port {port} within {timeout:.0f} s")
        time.sleep(0.005)


# the lean mitmdump backchannel runs on (proxy/run/lean_dump.py: mitmproxy without the default addons backchannel
# never uses), run by this checkout's interpreter: the no-op on the proxy backchannel itself runs on
LEAN_DUMP = "from backchannel.proxy.run.lean_dump import dump; dump()"


class NoopProxy:
    """`mitmdump -q -s noop.py --mode reverse:UPSTREAM@127.0.0.1:PORT` with the shared confdir (with `lean`, the same
    no-op on backchannel's lean mitmdump)."""

    def __init__(self, upstream_origin: str, addon: Path, log: Path, *, lean: bool = False) -> None:
        self.port = free_port()
        self.argv = [
            sys.executable,
            "-c",
            LEAN_DUMP if lean else "from mitmproxy.tools.main import mitmdump; mitmdump()",
            "-q",
            "--set",
            f"confdir={confdir()}",
            "--mode",
            f"reverse:{upstream_origin}@127.0.0.1:{self.port}",
            "-s",
            str(addon),
        ]
        self._log = open(log, "ab")  # closed in stop()
        t0 = time.monotonic()
        self.process = subprocess.Popen(
            self.argv, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            wait_accepting(self.port, self.process)
        except BaseException:
            self.stop()
            raise
        self.started_in = time.monotonic() - t0

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._log.close()


# ---------------------------------------------------------------- peers: other MCP recorders, optional (--peer)

# Each peer lives in its own venv under PEERS_HOME, made by this script with `python -m venv` and pip from PyPI the
# first time it is asked for: never a dependency of backchannel, never in the project's venv.
PEERS_HOME = Path.home() / ".cache" / "backchannel" / "bench-peers"
PEER_SPECS = {"mcp-cassette": "mcp-cassette[http]==0.4.0"}  # pinned: its numbers are for this version
PEER_INSTALL_TIMEOUT_S = 600.0
PEER_STOP_TIMEOUT_S = 30.0


def peer_command(name: str) -> Path | None:
    """The peer's command in its own venv, installed there the first time; None (the reason printed) when it
    cannot be installed, so the bench goes on without it."""
    spec = PEER_SPECS[name]
    venv = PEERS_HOME / name
    command = venv / "bin" / name
    marker = venv / "bench-installed"  # the spec pip installed, written once it succeeded
    if command.exists() and marker.exists() and marker.read_text() == spec:
        return command
    steps = []
    if not (venv / "bin" / "python").exists():
        steps.append([sys.executable, "-m", "venv", str(venv)])
    steps.append([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", spec])
    print(f"  peer {name}: installing {spec} into {venv} (its own venv)", flush=True)
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=PEER_INSTALL_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"  skipping peer {name}: `{' '.join(step[:4])} ...` failed: {exc}", flush=True)
            return None
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            print(f"  skipping peer {name}: `{' '.join(step[:4])} ...` exited {done.returncode}: {tail}", flush=True)
            return None
    if not command.exists():
        print(f"  skipping peer {name}: {spec} installed no {command}", flush=True)
        return None
    marker.write_text(spec)
    return command


def _die_with_bench() -> None:
    """In the peer's child process, before exec: SIGTERM it when the bench dies (Linux PR_SET_PDEATHSIG)."""
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGTERM)


class PeerProxy:
    """mcp-cassette recording a Streamable HTTP endpoint: `mcp-cassette record --url UPSTREAM --port P --cassette F`.

    Its recording proxy forwards every request to UPSTREAM with httpx (any local path), keeps the session in memory
    and writes the cassette (JSON) at the end, with a crash-safety checkpoint to `<cassette>.partial` every 5 s."""

    def __init__(self, name: str, command: Path, upstream_url: str, cassette: Path, log: Path) -> None:
        self.name = name
        self.label = name.replace("-", "_")
        self.port = free_port()
        self.cassette = cassette
        self.argv = [str(command), "record", "--cassette", str(cassette), "--url", upstream_url]
        self.argv += ["--port", str(self.port)]
        self._log = open(log, "ab")  # closed in stop()
        self.process = subprocess.Popen(
            self.argv,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_bench,
        )
        try:
            wait_accepting(self.port, self.process, what=name)
        except BaseException:
            self.stop()
            raise
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.exit_code: int | None = None

    def stop(self) -> None:
        """SIGINT (it writes its cassette then), SIGKILL if it does not end in time; by its own pid."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(PEER_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.exit_code = self.process.returncode
        self._log.close()

    def stats(self) -> dict[str, Any]:
        size = self.cassette.stat().st_size if self.cassette.exists() else 0
        return {"argv": self.argv, "spec": PEER_SPECS[self.name], "exit_code": self.exit_code, "cassette_bytes": size}


def open_peers(args: argparse.Namespace, tmp: Path, section: str, upstream_url: str) -> list[PeerProxy]:
    peers: list[PeerProxy] = []
    try:
        for name, command in args.peer_commands.items():
            cassette = tmp / f"{section}-{name}.json"
            peers.append(PeerProxy(name, command, upstream_url, cassette, tmp / f"{section}-{name}.log"))
    except BaseException:
        for peer in peers:
            peer.stop()
        raise
    return peers


def stop_peers(peers: Sequence[PeerProxy]) -> None:
    for peer in peers:
        peer.stop()


# ---------------------------------------------------------------- backchannel proxies under test


@dataclass
class Build:
    """A backchannel build given with --build NAME=PYTHON: its interpreter, and what build_proxy.py info said."""

    name: str
    python: str
    info: dict[str, Any] = field(default_factory=dict)


def parse_build(spec: str) -> Build:
    return Build(*name_and_python(spec))


def _helper_line(process: subprocess.Popen[bytes], timeout: float, what: str, log: Path | None) -> dict[str, Any]:
    """The next MARKER line the helper prints, within `timeout` s; its death or silence is a RuntimeError."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise RuntimeError(f"{what}: no answer within {timeout:.0f} s{_log_tail(log)}")
            line = process.stdout.readline()
            if not line:
                process.wait(10)
                raise RuntimeError(f"{what}: exited with code {process.returncode}{_log_tail(log)}")
            if line.startswith(HELPER_MARKER):
                return dict(json.loads(line[len(HELPER_MARKER) :]))
    finally:
        selector.close()


def _log_tail(log: Path | None) -> str:
    if log is None or not log.exists():
        return ""
    return "; its stderr ends:\n" + log.read_bytes()[-3000:].decode("utf-8", "replace")


def build_info(build: Build, tmp: Path) -> dict[str, Any]:
    log = tmp / f"build-{build.name}-info.log"
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [build.python, str(HELPER), "info"],
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            return _helper_line(process, 60, f"build {build.name} ({build.python}) info", log)
        finally:
            _stop_pid_process(process)


def _stop_pid_process(process: subprocess.Popen[bytes]) -> None:
    """Stop one child of ours by its pid: wait briefly, then SIGKILL; close its pipes."""
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()


class InProcessBackchannel:
    """This checkout's backchannel: a Capture opened in this process (the default, without --build)."""

    def __init__(self, recording: Path, upstream: str, runs: dict[str, dict[str, Any]]) -> None:
        self.label = "backchannel"
        self.suffix = ""
        from backchannel.proxy.run.capture import Capture

        self.recording = recording
        self.capture = Capture(recording, upstream=upstream)
        self.capture.__enter__()
        try:
            assert self.capture.proxy is not None
            self.urls = {name: self.capture.new_run(name, plan).url for name, plan in runs.items()}
        except BaseException:
            self.capture.close()
            raise
        self.pids = [self.capture.proxy.process.pid]
        self.describe = f"backchannel mitmdump pid {self.capture.proxy.process.pid} port {self.capture.proxy.port}"
        self.proxy_argv: list[str] = []

    def close(self) -> None:
        self.capture.close()


class BuildBackchannel:
    """Another build's backchannel: `BUILD_PYTHON bench/build_proxy.py serve`, which opens that build's Capture
    (its mitmdump is spawned with that build's interpreter and addon entry script), prints the run URLs, and
    closes the capture when we write "stop", close its stdin, or its --max-seconds run out."""

    def __init__(
        self,
        build: Build,
        recording: Path,
        upstream: str,
        runs: dict[str, dict[str, Any]],
        log: Path,
        max_seconds: float,
    ) -> None:
        self.build = build
        self.label = f"backchannel@{build.name}"
        self.suffix = f"@{build.name}"
        self.recording = recording
        self.proxy_pid: int | None = None
        self.proxy_exit: int | None = None
        self.log = log
        argv = [
            build.python,
            str(HELPER),
            "serve",
            "--recording",
            str(recording),
            "--upstream",
            upstream,
            "--max-seconds",
            f"{max_seconds:.0f}",
            *(f"--run={name}={json.dumps(plan, separators=(',', ':'))}" for name, plan in runs.items()),
        ]
        self._log = open(log, "ab")  # closed in close()
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, start_new_session=True
        )
        try:
            ready = _helper_line(self.process, READY_TIMEOUT_S + 30, f"build {build.name} proxy", log)
            self.proxy_pid = int(ready["proxy_pid"])
            self.urls = {str(k): str(v) for k, v in ready["runs"].items()}
            self.proxy_argv = [str(a) for a in ready["proxy_argv"]]
            self._check_argv()
        except BaseException:
            try:
                self.close()
            except Exception:
                pass  # the first failure is the one to report
            raise
        self.pids = [self.process.pid, self.proxy_pid]
        self.describe = (
            f"{self.label}: helper pid {self.process.pid}, mitmdump pid {self.proxy_pid} port {ready['proxy_port']} "
            f"({self.proxy_argv[0] if self.proxy_argv else '?'} -s {build.info.get('entry', '?')})"
        )

    def _check_argv(self) -> None:
        """The mitmdump really runs with this build's interpreter and its own addon entry script."""
        entry = self.build.info.get("entry")
        if not self.proxy_argv or self.proxy_argv[0] != self.build.info.get("python", self.build.python):
            raise RuntimeError(f"{self.label}: mitmdump runs {self.proxy_argv[:1]}, not {self.build.python}")
        if entry and entry not in self.proxy_argv:
            raise RuntimeError(f"{self.label}: mitmdump does not load {entry}: {self.proxy_argv}")

    def close(self) -> None:
        """Ask the helper to close its capture (mitmdump stopped by pid, recording finalised); bounded, and
        whatever does not stop is killed by its own pid."""
        problem: RuntimeError | None = None
        if self.process.poll() is None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.write(b"stop\n")
                self.process.stdin.close()
            except OSError:
                pass
            try:
                closed = _helper_line(self.process, HELPER_STOP_TIMEOUT_S, f"{self.label} closing", self.log)
                self.proxy_exit = closed.get("proxy_exit")
            except RuntimeError as exc:
                problem = exc
        _stop_pid_process(self.process)
        if self.proxy_pid is not None and self._ours_alive(self.proxy_pid):
            print(f"  warning: {self.label}: mitmdump pid {self.proxy_pid} outlived its helper; killing it", flush=True)
            try:
                os.kill(self.proxy_pid, signal.SIGKILL)
            except OSError:
                pass
        self._log.close()
        if problem is not None:
            raise problem

    def _ours_alive(self, pid: int) -> bool:
        """Still running, and still the mitmdump we started (its command line names our recording)."""
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        return str(self.recording).encode() in cmdline


Backchannel = InProcessBackchannel | BuildBackchannel


def open_backchannels(
    args: argparse.Namespace, tmp: Path, section: str, upstream: str, runs: dict[str, dict[str, Any]]
) -> list[Backchannel]:
    """This checkout's backchannel, or one per --build; all of them started before any series runs."""
    if not args.build:
        return [InProcessBackchannel(tmp / f"{section}.sqlite", upstream, runs)]
    opened: list[Backchannel] = []
    try:
        for build in args.build:
            opened.append(
                BuildBackchannel(
                    build,
                    tmp / f"{section}-{build.name}.sqlite",
                    upstream,
                    runs,
                    tmp / f"{section}-{build.name}-helper.log",
                    args.helper_max_seconds,
                )
            )
    except BaseException:
        close_backchannels(opened)
        raise
    return opened


def close_backchannels(backchannels: Sequence[Backchannel]) -> None:
    """Close every one of them, then raise the first failure, if any."""
    first: Exception | None = None
    for bc in backchannels:
        try:
            bc.close()
        except Exception as exc:  # close the others all the same
            first = first or exc
    if first is not None:
        raise first


# ---------------------------------------------------------------- SSE upstream and client


class SseUpstream:
    """A raw asyncio HTTP/1.1 server: every POST gets a chunked text/event-stream of `events` events,
    `interval` s apart (scheduled on absolute times), the last one the JSON-RPC result. The send times of
    the events (perf_counter_ns just before each write) go to `self.sends[request id]` once the stream ends."""

    def __init__(self, events: int, interval_s: float) -> None:
        self.events = events
        self.interval = interval_s
        self.sends: dict[Any, list[int]] = {}
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sse-upstream", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("SSE upstream did not start")
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()

    def stop(self) -> None:
        def _close() -> None:
            self.server.close()
            self.loop.stop()

        self.loop.call_soon_threadsafe(_close)
        self._thread.join(5)

    def event(self, i: int, request_id: Any) -> bytes:
        if i == self.events - 1:
            msg: dict[str, Any] = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {
                    "content": [{"type": "text", "text": "repo demo: branch main, clean"}],
                    "isError": False,
                    "resultType": "complete",
                },
            }
        else:
            msg = {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "bench", "progress": i, "total": self.events, "message": "working"},
            }
        return b"event: message\r\nid: %d\r\ndata: %s\r\n\r\n" % (i, json.dumps(msg, separators=(",", ":")).encode())

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            try:
                request_id = json.loads(body).get("id")
            except ValueError:
                request_id = None
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            await writer.drain()
            sends: list[int] = []
            start = self.loop.time()
            for i in range(self.events):
                delay = start + i * self.interval - self.loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                event = self.event(i, request_id)
                chunk = b"%x\r\n%s\r\n" % (len(event), event)
                sends.append(time.perf_counter_ns())
                writer.write(chunk)
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            self.sends[request_id] = sends
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


def sse_client(url: str, request_id: int, timeout: float = 30.0) -> dict[int, int]:
    """POST one tools/call on a raw socket; the arrival time (perf_counter_ns of the recv that completed it)
    of every SSE event, keyed by its id. Decodes chunked framing by hand so nothing buffers in between."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    body = call_body(request_id)
    req = [f"POST {parts.path} HTTP/1.1", f"Host: {parts.hostname}:{parts.port}", f"Content-Length: {len(body)}"]
    req += [f"{k}: {v}" for k, v in HEADERS.items()]
    arrivals: dict[int, int] = {}
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(("\r\n".join(req) + "\r\n\r\n").encode() + body)
        raw = b""  # undecoded bytes
        events = b""  # decoded body not yet split into events
        headers_done = False
        chunked = False
        chunk_left = 0  # body bytes left in the current chunk (plus its trailing CRLF)
        done = False
        while not done:
            data = sock.recv(65536)
            now = time.perf_counter_ns()
            if not data:
                break
            raw += data
            if not headers_done:
                end = raw.find(b"\r\n\r\n")
                if end < 0:
                    continue
                head = raw[:end].decode("latin-1").split("\r\n")
                if not head[0].startswith("HTTP/1.1 200"):
                    raise RuntimeError(f"{url}: {head[0]}")
                chunked = any(h.lower().replace(" ", "") == "transfer-encoding:chunked" for h in head[1:])
                raw = raw[end + 4 :]
                headers_done = True
            if not chunked:
                events += raw
                raw = b""
            while chunked and raw:
                if chunk_left == 0:
                    eol = raw.find(b"\r\n")
                    if eol < 0:
                        break
                    size = int(raw[:eol].split(b";")[0], 16)
                    raw = raw[eol + 2 :]
                    if size == 0:
                        done = True
                        break
                    chunk_left = size + 2
                take = raw[: max(0, chunk_left - 2)]
                events += take
                consumed = min(len(raw), chunk_left)
                raw = raw[consumed:]
                chunk_left -= consumed
            while True:
                end = events.find(b"\r\n\r\n")
                if end < 0:
                    break
                block, events = events[:end], events[end + 4 :]
                for line in block.split(b"\r\n"):
                    if line.startswith(b"id:"):
                        arrivals[int(line[3:])] = now
    return arrivals


def sse_series(upstream: SseUpstream, url: str, request_id: int) -> list[float]:
    arrivals = sse_client(url, request_id)
    deadline = time.monotonic() + 5  # the upstream stores its send log just after the terminating chunk
    while request_id not in upstream.sends and time.monotonic() < deadline:
        time.sleep(0.005)
    sends = upstream.sends.pop(request_id, [])
    if len(arrivals) != upstream.events or len(sends) != upstream.events:
        raise RuntimeError(f"{url}: {len(arrivals)} events arrived, {len(sends)} sent, {upstream.events} expected")
    return [(arrivals[i] - sends[i]) / 1e6 for i in range(upstream.events)]


# ---------------------------------------------------------------- recording


def recording_stats(path: Path) -> dict[str, Any]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        rows = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
        anomalies = dict(conn.execute("SELECT kind, count(*) FROM anomalies GROUP BY kind").fetchall())
        mutations = {str(k): v for k, v in conn.execute("SELECT mutation, count(*) FROM messages GROUP BY mutation")}
        journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
        column_bytes: dict[str, int] = {}
        for table in ("exchanges", "messages", "sse_events"):
            cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            sums = conn.execute(
                "SELECT " + ", ".join(f'COALESCE(SUM(LENGTH(CAST("{c}" AS BLOB))), 0)' for c in cols) + f" FROM {table}"
            ).fetchone()
            column_bytes.update({f"{table}.{c}": int(v) for c, v in zip(cols, sums, strict=True) if v})
    finally:
        conn.close()
    size = path.stat().st_size
    wal = path.with_name(path.name + "-wal")
    compact = path.with_name(path.stem + "-vacuumed.sqlite")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        conn.execute("VACUUM INTO ?", (str(compact),))
    finally:
        conn.close()
    vacuumed = compact.stat().st_size
    compact.unlink()
    return {
        "bytes": size,
        "bytes_after_vacuum": vacuumed,
        "wal_bytes": wal.stat().st_size if wal.exists() else 0,
        "journal_mode": journal,
        "rows": rows,
        "anomalies": anomalies,
        "messages_by_mutation": mutations,
        "bytes_per_exchange": size / rows["exchanges"] if rows.get("exchanges") else None,
        "payload_bytes_by_column": dict(sorted(column_bytes.items(), key=lambda kv: -kv[1])),
    }


# ---------------------------------------------------------------- sections


def latency_overhead(
    names: Sequence[str], stats: dict[str, Any], rounds: dict[str, list[dict[str, float]]], n_rounds: int
) -> dict[str, Any]:
    """The goal's measure, (c - b) / (b - a) on the medians, for every backchannel series: pooled, per round, and
    the median over the quiet rounds (other processes used at most QUIET_SHARE of the CPUs in every series)."""
    a, b = stats["a_direct"]["median"], stats["b_noop_mitmdump"]["median"]
    quiet = [i for i in range(n_rounds) if all(rounds[n][i]["foreign_cpu"] <= QUIET_SHARE for n in rounds)]
    overhead: dict[str, Any] = {"noop_over_direct_ms": b - a, "quiet_rounds": [i + 1 for i in quiet]}
    for name in names:
        c = stats[name]["median"]
        per_round = [
            100
            * (rounds[name][i]["median"] - rounds["b_noop_mitmdump"][i]["median"])
            / (rounds["b_noop_mitmdump"][i]["median"] - rounds["a_direct"][i]["median"])
            for i in range(n_rounds)
        ]
        overhead[name] = {
            "over_direct_ms": c - a,
            # issue 26's measure: the latency added over direct, relative to the no-op mitmdump's (1.00: the same),
            # and relative to the same no-op on the lean mitmdump backchannel runs on
            "added_vs_noop": (c - a) / (b - a),
            "added_vs_noop_lean": (c - a) / (stats["b2_noop_lean_mitmdump"]["median"] - a)
            if "b2_noop_lean_mitmdump" in stats
            else None,
            "over_noop_ms": c - b,
            "pct_of_noop_overhead": 100 * (c - b) / (b - a),
            "pct_of_noop_overhead_per_round": per_round,
            "pct_median_of_rounds": percentile(per_round, 50),
            "pct_median_of_quiet_rounds": percentile([per_round[i] for i in quiet], 50) if quiet else None,
            "goal_met": 100 * (c - b) / (b - a) <= LATENCY_GOAL_PCT,
        }
    return overhead


def between_builds(
    builds: Sequence[Build], overhead: dict[str, Any], stats: dict[str, Any], rounds: dict[str, Any], n_rounds: int
) -> dict[str, Any]:
    """Each later build against the first one, series by series: the change of the pooled median and of the
    ratio, and the change of the median per round (the rounds pair the builds under the same load)."""
    first = builds[0].name
    out: dict[str, Any] = {}
    for base in ("c_backchannel", "c2_backchannel_drop_result_type"):
        ref = f"{base}@{first}"
        if ref not in stats:
            continue
        for build in builds[1:]:
            name = f"{base}@{build.name}"
            per_round = [rounds[name][i]["median"] - rounds[ref][i]["median"] for i in range(n_rounds)]
            out[f"{name} vs @{first}"] = {
                "median_delta_ms": stats[name]["median"] - stats[ref]["median"],
                "median_delta_ms_per_round": per_round,
                "median_delta_ms_median_of_rounds": percentile(per_round, 50),
                "pct_points_delta": overhead[name]["pct_of_noop_overhead"] - overhead[ref]["pct_of_noop_overhead"],
            }
    return out


def section_latency(args: argparse.Namespace, tmp: Path, endpoint_url: str, out: dict[str, Any]) -> None:
    addon = tmp / "noop_addon.py"
    addon.write_text(NOOP_ADDON)
    origin = "{0.scheme}://{0.hostname}:{0.port}".format(urlsplit(endpoint_url))
    runs = dict(LATENCY_RUNS)
    if args.no_drop:
        del runs["latency-drop-result-type"]
    noop = NoopProxy(origin, addon, tmp / "noop-mitmdump.log")
    lean: NoopProxy | None = None
    backchannels: list[Backchannel] = []
    peers: list[PeerProxy] = []
    try:
        lean = NoopProxy(origin, addon, tmp / "noop-lean-mitmdump.log", lean=True)
        backchannels = open_backchannels(args, tmp, "latency", endpoint_url, runs)
        peers = open_peers(args, tmp, "latency", endpoint_url)
        targets: list[tuple[str, str, bool]] = [
            ("a_direct", endpoint_url, True),
            ("b_noop_mitmdump", f"http://127.0.0.1:{noop.port}{urlsplit(endpoint_url).path}", True),
            ("b2_noop_lean_mitmdump", f"http://127.0.0.1:{lean.port}{urlsplit(endpoint_url).path}", True),
        ]
        targets += [(f"d_{peer.label}", peer.url, True) for peer in peers]  # other recorders, as they come
        # grouped by plan, then by build, so the builds' series of one plan run next to each other
        targets += [(f"c_backchannel{bc.suffix}", bc.urls["latency-plain"], True) for bc in backchannels]
        if not args.no_drop:
            targets += [
                (f"c2_backchannel_drop_result_type{bc.suffix}", bc.urls["latency-drop-result-type"], False)
                for bc in backchannels
            ]
        print(f"  no-op mitmdump pid {noop.process.pid} port {noop.port}", flush=True)
        print(f"  no-op lean mitmdump pid {lean.process.pid} port {lean.port}", flush=True)
        for bc in backchannels:
            print(f"  {bc.describe}", flush=True)
        for peer in peers:
            print(f"  peer {peer.name} pid {peer.process.pid} port {peer.port}: {' '.join(peer.argv[1:])}", flush=True)
        samples: dict[str, list[float]] = {name: [] for name, _, _ in targets}
        rounds: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in targets}
        # the CPU the proxy process serving a series spent on it (all its threads): steadier than latency on a busy
        # or throttled machine, and what backchannel adds is the difference to the no-op mitmdump's
        mitm_pid = {"b_noop_mitmdump": noop.process.pid, "b2_noop_lean_mitmdump": lean.process.pid}
        for bc in backchannels:
            pid = getattr(bc, "proxy_pid", None) or bc.pids[0]
            mitm_pid[f"c_backchannel{bc.suffix}"] = mitm_pid[f"c2_backchannel_drop_result_type{bc.suffix}"] = pid
        for peer in peers:
            mitm_pid[f"d_{peer.label}"] = peer.process.pid
        cpu_ms: dict[str, list[float]] = {name: [] for name, _, _ in targets}
        tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
        pids = [noop.process.pid, lean.process.pid, *(pid for bc in backchannels for pid in bc.pids)]
        pids += [p.process.pid for p in peers]
        width = max(len(name) for name, _, _ in targets) + 1
        next_id = 1
        for r in range(args.rounds):
            order = targets[r % len(targets) :] + targets[: r % len(targets)]  # rotate to spread drift
            for name, url, expect_rt in order:
                foreign = ForeignCpu(pids)
                proxy_ticks = _process_ticks([mitm_pid[name]]) if name in mitm_pid else 0
                lat, last = latency_series(url, args.requests, args.warmup, next_id)
                if name in mitm_pid:
                    spent = (_process_ticks([mitm_pid[name]]) - proxy_ticks) * tick_ms
                    cpu_ms[name].append(spent / (args.requests + args.warmup))
                next_id += args.requests + args.warmup
                check_reply(name, last, expect_rt)
                samples[name] += lat
                rounds[name].append({**summary(lat), "foreign_cpu": foreign.share()})
                print(
                    f"  round {r + 1} {name:<{width}} median {rounds[name][-1]['median']:.3f} ms "
                    f"p95 {rounds[name][-1]['p95']:.3f} ms  (other processes used "
                    f"{100 * rounds[name][-1]['foreign_cpu']:.0f}% of the CPUs)",
                    flush=True,
                )
    finally:
        try:
            close_backchannels(backchannels)
        finally:
            stop_peers(peers)
            if lean is not None:
                lean.stop()
            noop.stop()
    stats = {name: summary(v) for name, v in samples.items()}
    overhead = latency_overhead([name for name, _, _ in targets[3:]], stats, rounds, args.rounds)
    out["latency"] = {
        "requests_per_series": args.requests,
        "warmup": args.warmup,
        "rounds": args.rounds,
        "unit": "ms",
        "series_order_round_1": [name for name, _, _ in targets],
        "pooled": stats,
        "per_round": rounds,
        "overhead": overhead,
        "goal": f"backchannel adds at most {LATENCY_GOAL_PCT:.0f}% over the no-op mitmdump's own overhead (medians)",
        # per series: the serving proxy process's CPU ms per request (all threads), one value per round
        "proxy_cpu_ms_per_request": {name: v for name, v in cpu_ms.items() if v},
    }
    if args.build:
        out["latency"]["between_builds"] = between_builds(args.build, overhead, stats, rounds, args.rounds)
        out["latency"]["proxy_argv"] = {bc.label: bc.proxy_argv for bc in backchannels}
    if peers:
        out["latency"]["peers"] = {f"d_{peer.label}": peer.stats() for peer in peers}
    recordings = {bc.label: recording_stats(bc.recording) for bc in backchannels}
    out["recordings"] = recordings
    if not args.build:
        out["recording"] = recordings["backchannel"]


def section_sse(args: argparse.Namespace, tmp: Path, out: dict[str, Any]) -> None:
    upstream = SseUpstream(args.sse_events, args.sse_interval_ms / 1000)
    addon = tmp / "noop_stream_addon.py"
    addon.write_text(NOOP_STREAM_ADDON)
    noop: NoopProxy | None = None
    lean: NoopProxy | None = None
    backchannels: list[Backchannel] = []
    peers: list[PeerProxy] = []
    try:
        noop = NoopProxy(f"http://127.0.0.1:{upstream.port}", addon, tmp / "noop-sse-mitmdump.log")
        lean = NoopProxy(f"http://127.0.0.1:{upstream.port}", addon, tmp / "noop-lean-sse-mitmdump.log", lean=True)
        backchannels = open_backchannels(args, tmp, "sse", upstream.url, {"sse": {}})
        peers = open_peers(args, tmp, "sse", upstream.url)
        urls = {"direct": upstream.url, "noop_mitmdump_streaming": f"http://127.0.0.1:{noop.port}/mcp"}
        urls["noop_lean_mitmdump_streaming"] = f"http://127.0.0.1:{lean.port}/mcp"
        urls.update({peer.label: peer.url for peer in peers})
        urls.update({bc.label: bc.urls["sse"] for bc in backchannels})
        names = list(urls)
        pooled: dict[str, list[float]] = {name: [] for name in names}
        reps: dict[str, list[dict[str, float]]] = {name: [] for name in names}
        pids = [noop.process.pid, lean.process.pid, *(pid for bc in backchannels for pid in bc.pids)]
        pids += [p.process.pid for p in peers]
        width = max(len(name) for name in names) + 1
        for r in range(args.sse_reps):
            for name in names:
                foreign = ForeignCpu(pids)
                d = sse_series(upstream, urls[name], 10_000 + 10 * r + names.index(name))
                pooled[name] += d
                reps[name].append({**summary(d), "foreign_cpu": foreign.share()})
                print(
                    f"  rep {r + 1} {name:<{width}} median {reps[name][-1]['median']:.3f} ms "
                    f"p95 {reps[name][-1]['p95']:.3f} ms max {reps[name][-1]['max']:.3f} ms  (other processes "
                    f"used {100 * reps[name][-1]['foreign_cpu']:.0f}% of the CPUs)",
                    flush=True,
                )
    finally:
        try:
            close_backchannels(backchannels)
        finally:
            stop_peers(peers)
            for no_op in (noop, lean):
                if no_op is not None:
                    no_op.stop()
            upstream.stop()
    stats = {name: {**summary(v), "over_goal": sum(x > SSE_GOAL_MS for x in v)} for name, v in pooled.items()}
    per_backchannel: dict[str, Any] = {}
    for bc in backchannels:
        rec = recording_stats(bc.recording)
        per_backchannel[bc.label] = {
            "added_median_ms": stats[bc.label]["median"] - stats["direct"]["median"],
            "added_median_over_noop_ms": stats[bc.label]["median"] - stats["noop_mitmdump_streaming"]["median"],
            "added_median_over_noop_lean_ms": stats[bc.label]["median"]
            - stats["noop_lean_mitmdump_streaming"]["median"],
            "goal_met_p95": stats[bc.label]["p95"] <= SSE_GOAL_MS,
            "goal_met_max": stats[bc.label]["max"] <= SSE_GOAL_MS,
            "recording": {"rows": rec["rows"], "anomalies": rec["anomalies"], "bytes": rec["bytes"]},
        }
    out["sse"] = {
        "events": args.sse_events,
        "interval_ms": args.sse_interval_ms,
        "reps": args.sse_reps,
        "unit": "ms",
        "pooled": stats,
        "per_rep": reps,
        "goal": f"forward an SSE event within {SSE_GOAL_MS:.0f} ms",
        "backchannels": per_backchannel,
    }
    if peers:
        noop_median = stats["noop_mitmdump_streaming"]["median"]
        out["sse"]["peers"] = {
            peer.label: {"added_median_over_noop_ms": stats[peer.label]["median"] - noop_median, **peer.stats()}
            for peer in peers
        }
    if not args.build:  # the keys of the single-build runs
        out["sse"].update(per_backchannel["backchannel"])


def build_startups(args: argparse.Namespace, tmp: Path, endpoint_url: str) -> dict[str, dict[str, list[float]]]:
    """`build_proxy.py startup --n 1` with each build's interpreter, the builds taken in turn, args.startups times."""
    times: dict[str, dict[str, list[float]]] = {
        f"backchannel@{b.name}": {"start_proxy": [], "start_proxy_started_in": [], "stop_sigint": []}
        for b in args.build
    }
    for i in range(args.startups):
        for build in args.build:
            folder = tmp / f"startup-{build.name}-{i}"
            folder.mkdir()
            log = tmp / f"startup-{build.name}-helper.log"
            with open(log, "ab") as err:
                process = subprocess.Popen(
                    [build.python, str(HELPER), "startup", "--dir", str(folder), "--upstream", endpoint_url]
                    + ["--n", "1"],
                    stdout=subprocess.PIPE,
                    stderr=err,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
                try:
                    got = _helper_line(process, READY_TIMEOUT_S + 30, f"build {build.name} startup", log)
                finally:
                    _stop_pid_process(process)
            for key, values in times[f"backchannel@{build.name}"].items():
                values += [float(x) for x in got[key]]
    return times


def section_startup(args: argparse.Namespace, tmp: Path, endpoint_url: str, out: dict[str, Any]) -> None:
    if args.build:
        times = build_startups(args, tmp, endpoint_url)
    else:
        from build_proxy import new_recording  # bench/, next to this script; knows both store.create APIs

        from backchannel.proxy.run.launcher import start_proxy

        starts: list[float] = []
        ready_lines: list[float] = []
        stops: list[float] = []
        for i in range(args.startups):
            rec = new_recording(tmp / f"startup-{i}.sqlite")
            t0 = time.perf_counter()
            proxy = start_proxy(rec, endpoint_url)
            starts.append(time.perf_counter() - t0)
            ready_lines.append(proxy.started_in)
            t1 = time.perf_counter()
            code = proxy.stop()
            stops.append(time.perf_counter() - t1)
            if code not in (0, -2, 130):
                raise RuntimeError(f"mitmdump exited with {code}: {proxy.output_tail()[-2000:]}")
        times = {"backchannel": {"start_proxy": starts, "start_proxy_started_in": ready_lines, "stop_sigint": stops}}
    addon = tmp / "noop_addon.py"
    addon.write_text(NOOP_ADDON)
    origin = "{0.scheme}://{0.hostname}:{0.port}".format(urlsplit(endpoint_url))
    noop_starts: list[float] = []
    for _ in range(args.startups):
        p = NoopProxy(origin, addon, tmp / "noop-startup.log")
        noop_starts.append(p.started_in)
        p.stop()

    def s(v: list[float]) -> dict[str, float]:
        return {"n": len(v), "median": percentile(v, 50), "min": min(v), "max": max(v)}

    per_backchannel = {label: {k: s(v) for k, v in t.items()} for label, t in times.items()}
    out["startup"] = {
        "unit": "s",
        "backchannels": per_backchannel,
        "noop_mitmdump_spawn_to_accept": s(noop_starts),
        "confdir_warm": (confdir() / "mitmproxy-ca.pem").exists(),
    }
    if not args.build:  # the keys of the single-build runs
        out["startup"].update(per_backchannel["backchannel"])


# ---------------------------------------------------------------- report


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def report(out: dict[str, Any]) -> None:
    m = out["machine"]
    print(
        f"\nmachine: nproc {m['nproc']} ({m['cpu']}), Python {m['python']}, mitmproxy {m['mitmproxy']}, "
        f"backchannel {m['backchannel']} @ {m['commit']} ({m['product_files_changed_since_commit']} product files "
        f"changed since), load avg at start {m['loadavg_at_start'][0]:.2f}, at end {m['loadavg_at_end'][0]:.2f}"
    )
    for name, b in out.get("builds", {}).items():
        print(
            f"build {name}: {b['python']} (Python {b['python_version']}, mitmproxy {b['mitmproxy']}), "
            f"{b['launcher_module']}, addon {b['entry_source']}, commit {b['commit']} "
            f"({b['product_files_changed_since_commit']} product files changed since; product tree "
            f"{b['product_tree_sha256']})"
        )
    if "latency" in out:
        lat = out["latency"]
        print(
            f"\n1. tools/call latency, {lat['rounds']} x {lat['requests_per_series']} requests per path "
            f"(after {lat['warmup']} warm-ups each), ms"
        )
        rows = [["path", "median", "p95", "p99", "max", "+median vs direct"]]
        a = lat["pooled"]["a_direct"]["median"]
        for name, st in lat["pooled"].items():
            rows.append(
                [
                    name,
                    f"{st['median']:.3f}",
                    f"{st['p95']:.3f}",
                    f"{st['p99']:.3f}",
                    f"{st['max']:.2f}",
                    f"{st['median'] - a:+.3f}",
                ]
            )
        print(table(rows))
        backchannel_series = [name for name in lat["pooled"] if name in lat["overhead"]]
        for name in backchannel_series:
            o = lat["overhead"][name]
            per = ", ".join(f"{p:.0f}%" for p in o["pct_of_noop_overhead_per_round"])
            goal = "" if name.startswith("d_") else f"; goal <= {LATENCY_GOAL_PCT:.0f}%: "
            goal += ("MET" if o["goal_met"] else "MISSED") if goal else ""
            print(
                f"  {name}: {o['over_noop_ms']:+.3f} ms over no-op mitmdump = {o['pct_of_noop_overhead']:.0f}% of "
                f"the no-op's own +{lat['overhead']['noop_over_direct_ms']:.3f} ms (per round: {per}; median "
                f"{o['pct_median_of_rounds']:.0f}%){goal}"
            )
        for name in backchannel_series:
            o = lat["overhead"][name]
            lean = "" if o.get("added_vs_noop_lean") is None else f", {o['added_vs_noop_lean']:.2f}x the lean no-op's"
            print(f"  {name}: added latency over direct {o['added_vs_noop']:.2f}x the no-op mitmdump's{lean}")
        foreign = [r["foreign_cpu"] for v in lat["per_round"].values() for r in v]
        quiet = lat["overhead"]["quiet_rounds"]
        for name in backchannel_series:
            q = lat["overhead"][name]["pct_median_of_quiet_rounds"]
            if q is not None:
                print(f"  {name}: median over the quiet rounds {quiet}: {q:.0f}% of the no-op's own overhead")
        if not quiet:
            print(f"  no quiet round (one where other processes used <= {100 * QUIET_SHARE:.0f}% in every series)")
        cpu = lat.get("proxy_cpu_ms_per_request", {})
        if "b_noop_mitmdump" in cpu:
            noop_cpu = percentile(cpu["b_noop_mitmdump"], 50)
            lean_cpu = percentile(cpu["b2_noop_lean_mitmdump"], 50) if "b2_noop_lean_mitmdump" in cpu else None
            print(
                f"  proxy CPU per request (median of rounds): no-op mitmdump {noop_cpu:.3f} ms"
                + ("" if lean_cpu is None else f", no-op lean mitmdump {lean_cpu:.3f} ms")
            )
            for name in backchannel_series:
                if name in cpu:
                    mine = percentile(cpu[name], 50)
                    per = ", ".join(f"{x:.3f}" for x in cpu[name])
                    vs_lean = "" if lean_cpu is None else f", {mine / lean_cpu:.2f}x the lean no-op's"
                    print(
                        f"  proxy CPU per request, {name}: {mine:.3f} ms = {mine / noop_cpu:.2f}x the no-op's"
                        f"{vs_lean}, {mine - noop_cpu:+.3f} ms (per round: {per})"
                    )
        for name, peer in lat.get("peers", {}).items():
            print(
                f"  {name}: {peer['spec']}, exit code {peer['exit_code']}, its cassette {peer['cassette_bytes']:,} "
                "bytes after the section"
            )
        for name, d in lat.get("between_builds", {}).items():
            per = ", ".join(f"{x:+.3f}" for x in d["median_delta_ms_per_round"])
            print(
                f"  {name}: pooled median {d['median_delta_ms']:+.3f} ms, {d['pct_points_delta']:+.0f} points of "
                f"ratio; per round {per} ms (median {d['median_delta_ms_median_of_rounds']:+.3f} ms)"
            )
        print(
            f"  other processes used {100 * min(foreign):.0f}-{100 * max(foreign):.0f}% of the CPUs during the series"
        )
    if "sse" in out:
        sse = out["sse"]
        print(
            f"\n2. SSE per-event delay (arrival - send), {sse['reps']} x {sse['events']} events "
            f"{sse['interval_ms']} ms apart, ms"
        )
        rows = [["path", "median", "p95", "p99", "max", f"events > {SSE_GOAL_MS:.0f} ms"]]
        for name, st in sse["pooled"].items():
            rows.append(
                [
                    name,
                    f"{st['median']:.3f}",
                    f"{st['p95']:.3f}",
                    f"{st['p99']:.3f}",
                    f"{st['max']:.3f}",
                    f"{st['over_goal']} of {st['n']}",
                ]
            )
        print(table(rows))
        foreign = [r["foreign_cpu"] for v in sse["per_rep"].values() for r in v]
        print(f"  other processes used {100 * min(foreign):.0f}-{100 * max(foreign):.0f}% of the CPUs during the reps")
        noop_median = sse["pooled"]["noop_mitmdump_streaming"]["median"]
        lean_median = sse["pooled"].get("noop_lean_mitmdump_streaming", {}).get("median")
        for name, st in sse["pooled"].items():
            if name not in ("direct", "noop_mitmdump_streaming", "noop_lean_mitmdump_streaming"):
                lean = "" if lean_median is None else f", {st['median'] - lean_median:+.3f} ms over the lean one"
                print(
                    f"  {name}: {st['median'] - noop_median:+.3f} ms per event over the no-op streaming mitmdump{lean}"
                )
        for label, b in sse["backchannels"].items():
            print(
                f"  {label}: goal: {sse['goal']}: p95 {'MET' if b['goal_met_p95'] else 'MISSED'}, "
                f"max {'MET' if b['goal_met_max'] else 'MISSED'}; recorded {b['recording']['rows'].get('sse_events')} "
                f"sse_events, {b['recording']['rows'].get('messages')} messages, anomalies "
                f"{b['recording']['anomalies'] or 'none'}"
            )
    if "startup" in out:
        st = out["startup"]
        print(f"\n3. start-up, {args_startups(st)} times each, warm confdir: {st['confdir_warm']}, s")
        rows = [["what", "median", "min", "max"]]
        for label, b in st["backchannels"].items():
            for key, what in (
                ("start_proxy", "start_proxy() until ready line"),
                ("stop_sigint", "RunningProxy.stop() (SIGINT until exit)"),
            ):
                v = b[key]
                rows.append([f"{label}: {what}", f"{v['median']:.3f}", f"{v['min']:.3f}", f"{v['max']:.3f}"])
        v = st["noop_mitmdump_spawn_to_accept"]
        noop = "no-op mitmdump spawn until port accepts"
        rows.append([noop, f"{v['median']:.3f}", f"{v['min']:.3f}", f"{v['max']:.3f}"])
        print(table(rows))
    for label, rec in out.get("recordings", {}).items():
        print(
            f"\n4. recording after (1c), {label}: {rec['bytes']:,} bytes ({rec['journal_mode']}; "
            f"{rec['bytes_after_vacuum']:,} after VACUUM), "
            f"{rec['bytes_per_exchange'] or 0:,.0f} bytes per exchange"
        )
        print("  rows: " + ", ".join(f"{k} {v}" for k, v in rec["rows"].items()))
        print(f"  anomalies: {rec['anomalies'] or 'none'}; messages by mutation: {rec['messages_by_mutation']}")
        top = list(rec["payload_bytes_by_column"].items())[:8]
        print("  largest columns (payload bytes): " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in top))
    sections = ", ".join(f"{k} {v:.0f} s" for k, v in out.get("section_seconds", {}).items())
    print(f"\ntotal wall time {out['wall_seconds']:.1f} s ({sections})")


def args_startups(st: dict[str, Any]) -> int:
    return int(st["noop_mitmdump_spawn_to_accept"]["n"])


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--json", type=Path, help="write every reported number to this file")
    p.add_argument("--requests", type=int, default=1000, help="timed requests per path per round (1000)")
    p.add_argument("--warmup", type=int, default=50, help="untimed requests before each series (50)")
    p.add_argument("--rounds", type=int, default=5, help="rounds over the four paths, order rotated (5)")
    p.add_argument("--sse-events", type=int, default=200)
    p.add_argument("--sse-interval-ms", type=float, default=10.0)
    p.add_argument("--sse-reps", type=int, default=3)
    p.add_argument("--startups", type=int, default=5)
    p.add_argument(
        "--only",
        choices=("latency", "sse", "startup"),
        action="append",
        help="run only these sections (repeatable); default all",
    )
    p.add_argument("--keep", type=Path, help="keep the recordings and logs in this (new) folder")
    p.add_argument(
        "--build",
        type=parse_build,
        action="append",
        metavar="NAME=PYTHON",
        help="measure this backchannel build (its venv's interpreter) instead of this checkout; repeatable, the "
        "series of all builds interleaved round by round; the first one is the reference for the comparison",
    )
    p.add_argument("--no-drop", action="store_true", help="leave out the drop-result-type series")
    p.add_argument(
        "--peer",
        choices=sorted(PEER_SPECS),
        action="append",
        default=[],
        help="also measure this other MCP recorder as a proxy (latency, CPU, SSE), installed into its own venv "
        f"under {PEERS_HOME} the first time; skipped with a message if it cannot be installed; repeatable",
    )
    args = p.parse_args(argv)
    sections = set(args.only or ("latency", "sse", "startup"))
    if args.build and len({b.name for b in args.build}) != len(args.build):
        p.error("--build names must differ")
    # a bound for the build helpers, which stop themselves after it even if this process hangs
    series = 2 + len(args.peer) + (1 if args.no_drop else 2) * len(args.build or [1])
    args.helper_max_seconds = 900 + 0.1 * args.rounds * series * (args.requests + args.warmup)

    began = time.perf_counter()
    out: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    if args.keep:
        args.keep.mkdir(parents=True)
        tmp_ctx: Any = None
        tmp = args.keep
    else:
        tmp_ctx = tempfile.TemporaryDirectory(prefix="backchannel-bench-")
        tmp = Path(tmp_ctx.name)
    endpoint = None
    try:
        for build in args.build or []:
            build.info = build_info(build, tmp)
            out.setdefault("builds", {})[build.name] = {"python_arg": build.python, **build.info}
        set_confdir(args)
        args.peer_commands = {name: command for name in args.peer if (command := peer_command(name)) is not None}
        out = {"machine": machine(), **out}
        m = out["machine"]
        print(
            f"nproc {m['nproc']}, Python {m['python']}, mitmproxy {m['mitmproxy']}, confdir warm: "
            f"{m['confdir_warm_at_start']}",
            flush=True,
        )
        for build in args.build or []:
            print(
                f"build {build.name}: {build.info['python']}, {build.info['launcher_module']}, addon "
                f"{build.info['entry_source']}, commit {build.info['commit']} "
                f"({build.info['product_files_changed_since_commit']} product files changed since)",
                flush=True,
            )
        # here, not at the top: importing a scenario package loads this checkout's Capture (see the note above)
        from backchannel.proxy.scenarios.default.endpoint import TOOLS

        endpoint = start_endpoint(EndpointConfig(tools=TOOLS))
        url = endpoint.url
        steps: list[tuple[str, Callable[[], None]]] = [
            ("latency", lambda: section_latency(args, tmp, url, out)),
            ("sse", lambda: section_sse(args, tmp, out)),
            ("startup", lambda: section_startup(args, tmp, url, out)),
        ]
        for name, step in steps:
            if name in sections:
                print(f"[{name}]", flush=True)
                t0 = time.perf_counter()
                step()
                out.setdefault("section_seconds", {})[name] = time.perf_counter() - t0
    finally:
        if endpoint is not None:
            endpoint.stop()
        if tmp_ctx is not None:
            tmp_ctx.cleanup()
    out["wall_seconds"] = time.perf_counter() - began
    out["machine"]["loadavg_at_end"] = os.getloadavg()
    report(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
