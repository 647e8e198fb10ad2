"""Starting and stopping mitmdump in reverse mode with the backchannel addon, on 127.0.0.1 only."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from backchannel.addons import entry
from backchannel.addons.session import origin_of

READY_MARKER = entry.READY_MARKER
START_TIMEOUT = 30.0


class ProxyError(Exception):
    """mitmdump could not be started or stopped; the message says why and what to do."""


def confdir() -> Path:
    """A shared mitmproxy confdir, so the CA is generated once per machine rather than once per run."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "backchannel" / "mitmproxy"
    base.mkdir(parents=True, exist_ok=True)
    return base


def mitmdump_argv(recording: Path, upstream: str, *, listen_port: int = 0, flow_state: bool = False) -> list[str]:
    extra = ["--set", "backchannel_flow_state=true"] if flow_state else []
    return [
        sys.executable,
        "-c",
        "from mitmproxy.tools.main import mitmdump; mitmdump()",
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
        entry.__file__,
        "--set",
        f"backchannel_recording={recording}",
        *extra,
    ]


@dataclass
class RunningProxy:
    process: subprocess.Popen[bytes]
    port: int
    hold_port: int
    started_in: float
    _tail: deque[bytes] = field(default_factory=lambda: deque(maxlen=200))

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output_tail(self) -> str:
        return b"".join(self._tail).decode("utf-8", "replace")

    def stop(self, timeout: float = 10.0) -> int:
        """Ask mitmdump to shut down (so its addon commits), then kill it if it does not."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        if self.process.stdout is not None:
            self.process.stdout.close()
        return self.process.returncode


def _drain(stream: object, tail: deque[bytes]) -> None:
    try:
        for line in iter(stream.readline, b""):  # type: ignore[attr-defined]
            tail.append(line)
    except (ValueError, OSError):
        return  # the pipe was closed by stop()


def start_proxy(
    recording: Path, upstream: str, *, timeout: float = START_TIMEOUT, flow_state: bool = False
) -> RunningProxy:
    """Spawn mitmdump and wait, bounded, for the addon's ready line; a dead or silent process is a ProxyError."""
    began = time.monotonic()
    try:
        process = subprocess.Popen(
            mitmdump_argv(recording, upstream, flow_state=flow_state),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        raise ProxyError(f"cannot start mitmdump with {sys.executable}: {exc}") from exc
    assert process.stdout is not None
    tail: deque[bytes] = deque(maxlen=200)
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    info = None
    try:
        while info is None:
            left = timeout - (time.monotonic() - began)
            if left <= 0 or not selector.select(left):
                process.kill()
                process.wait(5)
                process.stdout.close()
                raise ProxyError(
                    f"mitmdump did not become ready within {timeout:.0f} s; its output:\n"
                    + b"".join(tail).decode("utf-8", "replace")
                )
            line = process.stdout.readline()
            if not line:
                process.wait(5)
                process.stdout.close()
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
    return RunningProxy(process, int(info["proxy_port"]), int(info["hold_port"]), time.monotonic() - began, tail)
