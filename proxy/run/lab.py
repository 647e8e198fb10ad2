"""Running the client under test in a lab: a temp HOME and working folder, a clean env, output recorded as it comes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

FILE_LIMIT = 1024 * 1024  # lab files above this are recorded truncated
FILE_COUNT_LIMIT = 500
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT", "PYENV_ROOT", "PYENV_VERSION")


@dataclass(frozen=True)
class LabResult:
    exit_code: int | None
    outcome: str  # exited | timeout | failed-to-start
    detail: str
    seconds: float


@dataclass(frozen=True)
class LabFileFound:
    path: str
    size: int
    data: bytes
    truncated: bool


class Lab:
    """One run's HOME and cwd; removed on close unless kept."""

    def __init__(self, run_id: str, keep: bool = False) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"backchannel-lab-{run_id}-"))
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.home.mkdir()
        self.work.mkdir()
        self.keep = keep

    def env(self, url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: os.environ[k] for k in KEEP_ENV if k in os.environ}
        env.update(
            {
                "HOME": str(self.home),
                "TMPDIR": str(self.root),
                "BACKCHANNEL_URL": url,
                "NO_COLOR": "1",
                "TERM": "dumb",
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(extra or {})
        return env

    def run(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        on_output: Callable[[str, bytes], None],
        timeout: float,
        stdin: bytes | None = None,
    ) -> LabResult:
        """Run argv to completion or timeout; on_output(stream, chunk) sees every chunk as it arrives.

        `stdin` is what the client reads as typed answers (a CLI that prompts at the terminal); then end of input.
        Without it the client's stdin is empty from the start.
        """
        began = time.monotonic()
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=self.work,
                env=env,
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return LabResult(None, "failed-to-start", f"{argv[0]}: {exc.strerror or exc}", 0.0)
        readers = [
            threading.Thread(target=_pump, args=(proc.stdout, "stdout", on_output), daemon=True),
            threading.Thread(target=_pump, args=(proc.stderr, "stderr", on_output), daemon=True),
        ]
        for reader in readers:
            reader.start()
        if stdin is not None:
            threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()
        outcome, detail = "exited", ""
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            outcome, detail = "timeout", f"still running after {timeout:g} s; its process group was killed"
            _kill_group(proc)
        for reader in readers:
            reader.join(5)
        _kill_group(proc)  # leftovers the client forked
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        return LabResult(proc.returncode, outcome, detail, time.monotonic() - began)

    def files(self) -> list[LabFileFound]:
        """Text files the client left under HOME (a file with a NUL byte in its first 8 KiB counts as binary)."""
        found: list[LabFileFound] = []
        for path in sorted(self.home.rglob("*")):
            if len(found) >= FILE_COUNT_LIMIT:
                break
            if not path.is_file() or path.is_symlink():
                continue
            try:
                size = path.stat().st_size
                with path.open("rb") as handle:
                    data = handle.read(FILE_LIMIT)
            except OSError:
                continue
            if b"\0" in data[:8192]:
                continue
            found.append(LabFileFound(str(path.relative_to(self.home)), size, data, size > FILE_LIMIT))
        return found

    def close(self) -> None:
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


def _pump(stream: object, name: str, on_output: Callable[[str, bytes], None]) -> None:
    read = stream.read1  # type: ignore[attr-defined]
    while True:
        chunk = read(65536)
        if not chunk:
            return
        on_output(name, chunk)


def _feed(pipe: object, data: bytes) -> None:
    try:
        pipe.write(data)  # type: ignore[attr-defined]
        pipe.close()  # type: ignore[attr-defined]
    except (BrokenPipeError, OSError, ValueError):
        return  # the client exited or closed its stdin without reading: nothing to answer


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass
