"""What keeps a capture honest when its process is stopped: signals become an exception, the recording is locked.

SIGTERM and SIGHUP raise `Interrupted` in the main thread, so the capture's `with` block unwinds like Ctrl-C: the
client is killed, its lab removed, the interruption recorded and the recording finalised. The recording is held
under an exclusive `flock` while it is written, so `record --force` elsewhere refuses to delete it.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import IO

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Interrupted(BaseException):
    """The orchestrator was told to stop (SIGTERM, SIGHUP) in the middle of a capture."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"backchannel received {signal.Signals(signum).name}")


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """Within the block (main thread only), SIGTERM and SIGHUP raise `Interrupted`; the old handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def interruption(exc: BaseException | None) -> str | None:
    """What stopped the orchestrator, for the recording's `orchestrator-interrupted` anomaly; None if nothing did."""
    if isinstance(exc, Interrupted):
        return f"{signal.Signals(exc.signum).name} received by backchannel (pid {os.getpid()}) while recording"
    if isinstance(exc, KeyboardInterrupt):
        return f"SIGINT (Ctrl-C) received by backchannel (pid {os.getpid()}) while recording"
    return None


class RecordingLock:
    """An exclusive lock on the recording file, held while this process writes it."""

    def __init__(self, path: Path) -> None:
        self.handle: IO[bytes] | None = open(path, "rb")  # noqa: SIM115 - held until release()
        try:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.release()
            raise

    def release(self) -> None:
        if self.handle is not None:
            self.handle.close()  # closing the last descriptor drops the lock
            self.handle = None


def is_locked(path: Path) -> bool:
    """True when another process holds the recording's lock (it is being written right now)."""
    try:
        with open(path, "rb") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    except OSError:
        return False  # missing or unreadable: nothing of ours is writing it
    return False


def _ignore(signum: int, frame: FrameType | None) -> None:
    return None


@contextmanager
def shielded() -> Iterator[None]:
    """Within the block (main thread only), SIGTERM and SIGHUP are ignored: the recording is being finalised."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _ignore) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
