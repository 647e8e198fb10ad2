"""Start a real MCP server as a subprocess, wait (bounded) for its `READY <url>` line, and stop it for certain.

A server command must print `READY <url>` on stdout once it listens, and must stop when its stdin reaches EOF or
it gets SIGTERM. `start_server` runs it in its own process group with stdin a pipe held open (closing it is the
first way `stop` asks the server to go), reads stdout against a deadline (no sleeps), and raises
`ServerStartError`, naming the command and the last lines of its stderr, if the server exits or stays silent.
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from types import TracebackType
from typing import IO, Self

READY_PREFIX = "READY "
STDERR_TAIL_LINES = 20
# how long a server that exited (or was killed) before READY gets to be reaped, and its stdout to drain
_REAP_S = 5.0


class ServerStartError(RuntimeError):
    """A server command exited, or stayed silent, before printing `READY <url>`."""


def py_server() -> list[str]:
    """The command for the Python SDK server (`backchannel.proxy.servers.py_sdk`), on this interpreter."""
    return [sys.executable, "-m", "backchannel.proxy.servers.py_sdk"]


class ServerProcess:
    """A started server: its URL and pid; `stop()` (or leaving the `with` block) ends its whole process group."""

    def __init__(self, argv: Sequence[str], popen: subprocess.Popen[bytes], stderr: IO[bytes], url: str) -> None:
        self.argv = list(argv)
        self.url = url
        self._popen = popen
        self._stderr = stderr
        self._stopped = False

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once the server has been stopped (or exited); negative: killed by that signal."""
        return self._popen.poll()

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> str:
        """The last lines the server wrote to stderr so far (empty once stopped)."""
        return "" if self._stopped else _tail(self._stderr, lines)

    def wait(self, timeout: float) -> int:
        """Wait up to `timeout` seconds for the server to exit on its own; its exit status (TimeoutExpired if not)."""
        return self._popen.wait(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Close stdin, SIGTERM the process group, SIGKILL it after `timeout` seconds; safe to call again."""
        if self._stopped:
            return
        self._stopped = True
        try:
            _terminate(self._popen, timeout)
        finally:
            _close(self._popen, self._stderr)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ServerProcess(pid={self.pid}, url={self.url!r}, argv={_quoted(self.argv)!r})"


def start_server(argv: Sequence[str], *, timeout: float = 20.0) -> ServerProcess:
    """Start `argv` and return once it printed `READY <url>`; ServerStartError if it exits or `timeout` passes.

    Lines before the READY line are skipped (and reported if READY never comes).
    """
    if not argv:
        raise ValueError("start_server needs a command")
    stderr = tempfile.TemporaryFile()  # a file, not a pipe: a chatty server can never block on a full pipe
    try:
        popen = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True
        )
    except OSError as exc:
        stderr.close()
        raise ServerStartError(f"could not start {_quoted(argv)}: {exc}") from exc
    try:
        url = _await_ready(argv, popen, stderr, timeout)
    except BaseException:
        try:
            _terminate(popen, _REAP_S)
        finally:
            _close(popen, stderr)
        raise
    return ServerProcess(argv, popen, stderr, url)


def _await_ready(argv: Sequence[str], popen: subprocess.Popen[bytes], stderr: IO[bytes], timeout: float) -> str:
    assert popen.stdout is not None
    fd = popen.stdout.fileno()
    deadline = time.monotonic() + timeout
    buffer = b""
    skipped: list[str] = []
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                line = raw.decode("utf-8", "replace").strip()
                if line.startswith(READY_PREFIX) and line[len(READY_PREFIX) :].strip():
                    return line[len(READY_PREFIX) :].strip()
                skipped.append(line)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise ServerStartError(
                    _failure(argv, f"printed no READY line within {timeout:g} s", skipped, stderr, popen)
                )
            chunk = os.read(fd, 65536)
            if not chunk:  # stdout closed: the server exited (or closed it) before READY
                try:
                    popen.wait(_REAP_S)
                except subprocess.TimeoutExpired:
                    pass
                status = popen.poll()
                how = "closed its stdout" if status is None else f"exited with status {status}"
                raise ServerStartError(_failure(argv, f"{how} before printing a READY line", skipped, stderr, popen))
            buffer += chunk


def _failure(
    argv: Sequence[str], what: str, skipped: list[str], stderr: IO[bytes], popen: subprocess.Popen[bytes]
) -> str:
    parts = [f"server {_quoted(argv)} (pid {popen.pid}) {what}"]
    if skipped:
        parts.append("stdout before that:\n" + "\n".join(f"  {line}" for line in skipped[-STDERR_TAIL_LINES:]))
    tail = _tail(stderr, STDERR_TAIL_LINES)
    parts.append("last stderr lines:\n" + tail if tail else "stderr was empty")
    return "\n".join(parts)


def _tail(stream: IO[bytes], lines: int) -> str:
    stream.flush()
    stream.seek(0)
    text = stream.read().decode("utf-8", "replace")
    stream.seek(0, os.SEEK_END)
    return "\n".join(text.splitlines()[-lines:])


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone


def _terminate(popen: subprocess.Popen[bytes], timeout: float) -> None:
    """Close stdin, SIGTERM the group, SIGKILL it after `timeout`; then sweep whatever is left of the group."""
    if popen.stdin is not None:
        try:
            popen.stdin.close()
        except OSError:
            pass  # the server already went away
    pgid = popen.pid  # start_new_session: the server leads its own group
    if popen.poll() is None:
        _signal_group(pgid, signal.SIGTERM)
        try:
            popen.wait(timeout)
        except subprocess.TimeoutExpired:
            _signal_group(pgid, signal.SIGKILL)
            popen.wait(_REAP_S)
    _signal_group(pgid, signal.SIGKILL)  # children the server left behind in its group


def _close(popen: subprocess.Popen[bytes], stderr: IO[bytes]) -> None:
    if popen.stdout is not None:
        popen.stdout.close()
    stderr.close()


def _quoted(argv: Sequence[str]) -> str:
    return shlex.join(argv)
