"""Starting and stopping mitmdump in reverse mode with the backchannel addon, on 127.0.0.1 only."""

from __future__ import annotations

import atexit
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from backchannel.addons import stopping
from backchannel.addons.session import READY_MARKER, Limits, limit_options, origin_of
from backchannel.proxy.run import one_cpu
from backchannel.proxy.timings import mark
from backchannel.recordings import redact
from backchannel.recordings.errors import UserError

# mitmdump's script (`-s`), named, not imported: importing it would load mitmproxy here, where only mitmdump needs it
ENTRY_SCRIPT = str(Path(stopping.__file__).with_name("entry.py"))
START_TIMEOUT = 30.0


class ProxyError(UserError):
    """mitmdump could not be started or stopped; the message says why and what to do."""


def confdir() -> Path:
    """A shared mitmproxy confdir, so the CA is generated once per machine rather than once per run."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "backchannel" / "mitmproxy"
    base.mkdir(parents=True, exist_ok=True)
    return base


STOP_GRACE = 10.0  # after its parent is gone, mitmdump has this long to commit before it exits hard
CAPTURE_MARKER_VAR = "BACKCHANNEL_CAPTURE_MARKER"


STOP_LINE = b"stop\n"  # the parent stops mitmdump by writing it on mitmdump's stdin (addons/stopping.py says why)
_PARENT_GONE = stopping.PARENT_GONE  # set by the watchdog when the parent's end of stdin closed


def _watch_parent() -> None:
    """In mitmdump: stdin is a pipe only the parent holds; the stop line means the parent stops us (noted before
    the signal, so the addon tells it from a stop signal sent from outside); end of input means the parent is gone,
    however it died."""
    try:
        while chunk := os.read(0, 4096):
            if STOP_LINE.strip() in chunk and not stopping.STOP_ASKED.is_set():
                stopping.STOP_ASKED.set()
                os.kill(os.getpid(), signal.SIGINT)  # mitmproxy shuts down cleanly: the addon commits what it has
    except OSError:
        pass
    _PARENT_GONE.set()
    os.kill(os.getpid(), signal.SIGTERM)  # mitmproxy shuts down cleanly: the addon commits what it has
    time.sleep(STOP_GRACE)  # bounded, in a daemon thread: the process normally ends long before
    os._exit(1)


def _sweep(parent: int, marker: str, labs: str) -> None:
    """The parent died without cleaning up: kill what its clients left (they carry `marker`), remove their labs,
    and close the recording saying so, so judging it is ERROR rather than a clean report."""
    from backchannel.proxy.run.reaper import kill_marked
    from backchannel.recordings import store
    from backchannel.recordings.rows import AnomalyRow

    if marker:
        kill_marked(CAPTURE_MARKER_VAR, marker)
    if labs:
        shutil.rmtree(labs, ignore_errors=True)
    recording = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("backchannel_recording=")), "")
    if not recording:
        return
    detail = f"backchannel (pid {parent}) died without closing the recording; mitmdump closed it"
    try:
        writer = store.RecordingWriter(Path(recording))
        writer.insert(AnomalyRow(kind="orchestrator-interrupted", detail=detail, t=time.time()))
        writer.close()
        store.finalize(Path(recording))
    except Exception as exc:  # noqa: BLE001 - the last words of a dying process: say why, never hang
        print(f"backchannel: could not close {recording}: {exc}", file=sys.stderr)


# the modules a warm mitmdump imports before it knows its command line: the lean mitmdump's and the addon script's
WARM_MODULES = (
    "backchannel.addons.recorder",
    "backchannel.addons.rewriter",
    "backchannel.addons.router",
    "backchannel.addons.hold",
    "backchannel.addons.transforms",
    "backchannel.addons.upstream_timeout",
    "backchannel.addons.marks",
)
_warm: subprocess.Popen[bytes] | None = None  # a mitmdump started by `prespawn`, waiting for its command line


def prespawn() -> None:
    """Start the next proxy's Python now: it imports mitmproxy and the addon (most of a proxy's start) while this
    process imports and sets up the rest, then waits on its stdin for the command line `start_proxy` hands it.

    It dies with this process like any mitmdump (a parent-death signal, and the end of its stdin), so one never
    used costs only the CPU it spent importing. At most one waits at a time."""
    global _warm
    if _warm is not None:
        return
    try:
        _warm = subprocess.Popen(
            [sys.executable, "-c", "from backchannel.proxy.run.launcher import serve_warm; serve_warm()"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.PIPE,
            start_new_session=True,
            bufsize=0,
        )
    except OSError:
        _warm = None  # start_proxy spawns its own, and says why if that fails too
        return
    atexit.register(discard_warm)


def discard_warm() -> None:
    """Stop a warm mitmdump no capture took (the check failed first, or ran without a proxy), by its pid, and reap
    it: it would die with this process anyway, but not before a caller that checks for leftovers looks."""
    process = _take_warm()
    if process is not None:
        _kill_and_reap(process)


def _take_warm() -> subprocess.Popen[bytes] | None:
    """The waiting warm mitmdump, if one is still alive (handed over once)."""
    global _warm
    taken, _warm = _warm, None
    if taken is not None and taken.poll() is not None:
        _close_pipes(taken)
        return None
    return taken


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()


def _kill_and_reap(process: subprocess.Popen[bytes]) -> None:
    """A mitmdump that will not be used: killed by its pid, waited for (bounded), its pipes closed."""
    process.kill()
    process.wait(5)
    _close_pipes(process)


def serve_warm() -> None:
    """A warm mitmdump's entry point: die with the parent, import, then read the command line (one JSON list, the
    arguments `serve` takes after `-c`) from stdin, byte by byte so nothing after it is read ahead of the watchdog.
    The end of stdin before a whole line means the parent is gone, or never needed this proxy: exit quietly."""
    import importlib

    from backchannel.proxy.run import lean_dump
    from backchannel.proxy.run.reaper import die_with_parent

    die_with_parent(signal.SIGTERM)
    lean_dump.preload()
    lean_dump.preload_ca(str(confdir()))  # the CA store the command line will name: loaded before it comes
    for module in WARM_MODULES:
        importlib.import_module(module)
    mark("mitmdump-warm")
    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            os._exit(0)
        line += byte
    sys.argv[1:] = [str(part) for part in json.loads(line)]
    serve()


def serve(tool: str = "mitmdump") -> None:
    """mitmdump's entry point: `serve PARENT_PID MARKER LABS mitmdump-args...`; it dies with its parent.

    mitmdump is `lean_dump` (mitmproxy without the default addons backchannel never uses); `tool="mitmweb"` runs
    mitmproxy's own mitmweb instead (the live web view), under the same watchdog and stop protocol."""
    from backchannel.proxy.run.reaper import die_with_parent

    mark("mitmdump-serving")
    if tool == "mitmdump":  # before any thread starts: every thread of the proxy shares the core (one_cpu.py)
        one_cpu.keep_to_one_cpu()  # not mitmweb: a UI a person drives beside a browser is left to the kernel
    parent, marker, labs = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    del sys.argv[1:4]
    stopping.parent_pid = parent
    die_with_parent(signal.SIGTERM)  # a parent-death signal, and the stdin watchdog for when it cannot fire
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=_watch_parent, daemon=True).start()
    try:
        if tool == "mitmweb":
            from mitmproxy.tools import main

            main.mitmweb()
        else:
            from backchannel.proxy.run import lean_dump

            lean_dump.dump()
    finally:
        mark("mitmdump-run-returned")
        # asked to stop, the parent is alive and waiting for us: no need to wait for an end of stdin that only its
        # death would bring (its death is still seen: a changed parent pid, its /proc entry, a closed stdin)
        if stopping.parent_gone(parent, wait=0.0 if stopping.STOP_ASKED.is_set() else stopping.PARENT_EOF_WAIT_S):
            # mitmproxy's own handlers are gone by now: a second SIGTERM (the watchdog's, once it sees the parent's
            # end of stdin) would kill this process halfway through closing the recording
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            _sweep(parent, marker, labs)
        mark("mitmdump-done")
    if tool != "mitmweb":
        # the addon has committed and closed the recording, the sweep (if any) is done: skip the interpreter's
        # teardown of mitmproxy's objects, a third of a second of the parent's wait at every stop
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def mitmdump_argv(
    recording: Path,
    upstream: str,
    *,
    listen_port: int = 0,
    flow_state: bool = False,
    marker: str = "",
    labs: Path | None = None,
    limits: Limits | None = None,
    redaction: redact.Policy = redact.DEFAULT_POLICY,
    web_ui: WebUiOptions | None = None,
) -> list[str]:
    """The mitmdump command line: the addon, the recording, and the capture's settings as the addon's options."""
    extra = ["--set", "backchannel_flow_state=true"] if flow_state else []
    extra += limit_options(limits or Limits())  # the command's --max-body, --max-sse-event, --upstream-idle-timeout
    extra += [f"--set=backchannel_redact={pattern}" for pattern in redaction.extra]  # the command's --redact
    entry_point = "from backchannel.proxy.run.launcher import serve; serve()"
    if web_ui is not None:  # `record --ui web`: mitmweb, its UI on 127.0.0.1 behind a token
        entry_point = "from backchannel.proxy.run.launcher import serve; serve('mitmweb')"
        extra += web_ui.options()
    return [
        sys.executable,
        "-c",
        entry_point,
        str(os.getpid()),
        marker,
        str(labs or ""),
        "-q",
        "--set",
        f"confdir={confdir()}",
        "--set",
        "connection_strategy=lazy",
        "--set",
        "keep_host_header=false",
        "--mode",
        f"reverse:{origin_of(upstream)}@127.0.0.1:{listen_port}",
        "-s",
        ENTRY_SCRIPT,
        "--set",
        f"backchannel_recording={recording}",
        *extra,
    ]


class WebUiOptions(Protocol):
    """How mitmweb serves its UI (proxy/run/web_ui.py): the `--set` options it adds, and the URL that opens it."""

    @property
    def url(self) -> str: ...

    def options(self) -> list[str]: ...


@dataclass
class RunningProxy:
    process: subprocess.Popen[bytes]
    port: int
    hold_port: int
    started_in: float
    _tail: deque[bytes] = field(default_factory=lambda: deque(maxlen=200))
    web_url: str | None = None  # mitmweb's UI, when the proxy runs with the web view

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output_tail(self) -> str:
        return b"".join(self._tail).decode("utf-8", "replace")

    def stop(self, timeout: float = 10.0) -> int:
        """Ask mitmdump to shut down (so its addon commits), then kill it if it does not."""
        if self.process.poll() is None:
            try:  # a line, not a signal: mitmdump tells a stop we asked for from a signal sent from elsewhere
                assert self.process.stdin is not None
                self.process.stdin.write(STOP_LINE)
                self.process.stdin.flush()
            except (OSError, ValueError):
                pass  # its stdin is gone: it is ending anyway (the wait below bounds it)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        for pipe in (self.process.stdin, self.process.stdout):  # it has ended by now: only our ends are left
            if pipe is not None:
                pipe.close()
        return self.process.returncode

    def exited(self) -> int | None:
        """mitmdump's exit code if it is no longer running (it died under the capture), else None."""
        return self.process.poll()


_ready_work: list[Callable[[], object]] = []  # run once, by the next start_proxy, once mitmdump is ready


def when_ready(work: Callable[[], object]) -> None:
    """Have the next proxy start call `work` once mitmdump is ready (a check then starts its judging's imports in
    the background: after its own set-up, not in its way). `cancel_when_ready` takes it back if no proxy started."""
    _ready_work.append(work)


def cancel_when_ready(work: Callable[[], object]) -> None:
    if work in _ready_work:
        _ready_work.remove(work)


def _run_ready_work() -> None:
    while _ready_work:
        _ready_work.pop(0)()


def _hand_over(argv: list[str]) -> subprocess.Popen[bytes] | None:
    """Give the warm mitmdump (`prespawn`) its command line; None when there is none or it cannot take it."""
    process = _take_warm()
    if process is None:
        return None
    try:
        assert process.stdin is not None
        process.stdin.write(json.dumps(argv[3:]).encode() + b"\n")  # what `serve` reads after `-c ENTRY`
        process.stdin.flush()
    except (OSError, ValueError):
        _kill_and_reap(process)
        return None
    return process


def _drain(stream: object, tail: deque[bytes]) -> None:
    try:
        for line in iter(stream.readline, b""):  # type: ignore[attr-defined]
            tail.append(line)
    except (ValueError, OSError):
        return  # the pipe was closed by stop()


def start_proxy(
    recording: Path,
    upstream: str,
    *,
    timeout: float = START_TIMEOUT,
    flow_state: bool = False,
    marker: str = "",
    labs: Path | None = None,
    limits: Limits | None = None,
    redaction: redact.Policy = redact.DEFAULT_POLICY,
    web_ui: WebUiOptions | None = None,
) -> RunningProxy:
    """Spawn mitmdump and wait, bounded, for the addon's ready line; a dead or silent process is a ProxyError.

    `limits` and `redaction` become the addon's options; with `web_ui` the proxy is mitmweb, its UI served so."""
    began = time.monotonic()
    argv = mitmdump_argv(
        recording,
        upstream,
        flow_state=flow_state,
        marker=marker,
        labs=labs,
        limits=limits,
        redaction=redaction,
        web_ui=web_ui,
    )
    process = _hand_over(argv) if web_ui is None else None  # a warm one runs the lean mitmdump, never mitmweb
    if process is None:
        try:
            process = subprocess.Popen(
                argv,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.PIPE,  # the stop line, and its end (our death included) tells mitmdump to go
                start_new_session=True,
                # unbuffered: the wait below selects on the pipe, and a buffered readline could pull the ready line
                # into Python's buffer along with an earlier one, where select would never see it
                bufsize=0,
            )
        except OSError as exc:
            raise ProxyError(f"cannot start mitmdump with {sys.executable}: {exc}") from exc
    mark("proxy-spawned")
    assert process.stdout is not None
    tail: deque[bytes] = deque(maxlen=200)
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    info = None
    try:
        while info is None:
            left = timeout - (time.monotonic() - began)
            if left <= 0 or not selector.select(left):
                _kill_and_reap(process)
                raise ProxyError(
                    f"mitmdump did not become ready within {timeout:.0f} s; its output:\n"
                    + b"".join(tail).decode("utf-8", "replace")
                )
            line = process.stdout.readline()
            if not line:
                process.wait(5)
                _close_pipes(process)
                raise ProxyError(
                    f"mitmdump exited with code {process.returncode} before it was ready; its output:\n"
                    + b"".join(tail).decode("utf-8", "replace")
                )
            if line.startswith(READY_MARKER.encode()):
                info = json.loads(line[len(READY_MARKER) :])
            else:
                tail.append(line)
    finally:
        selector.close()
    threading.Thread(target=_drain, args=(process.stdout, tail), daemon=True).start()
    _run_ready_work()
    web_url = web_ui.url if web_ui is not None else None
    return RunningProxy(
        process, int(info["proxy_port"]), int(info["hold_port"]), time.monotonic() - began, tail, web_url
    )
