"""Running the client under test in a lab: a temp HOME and working folder, a clean env, output recorded as it comes."""

from __future__ import annotations

import atexit
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from backchannel.proxy.run import openers
from backchannel.proxy.run.prompts import PipedPrompts
from backchannel.proxy.run.reaper import MARKER_VAR, become_subreaper, die_with_parent, kill_run, started_at
from backchannel.proxy.run.tty import TERM as TTY_TERM
from backchannel.proxy.run.tty import Snapshot, TtyOptions, run_tty, under_terminal
from backchannel.proxy.run.ui_steps import UiStep
from backchannel.proxy.timings import mark

FILE_LIMIT = 1024 * 1024  # lab files above this are recorded truncated
FILE_COUNT_LIMIT = 500
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
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


_LIVE: set[Lab] = set()  # labs not yet closed: removed at exit, however the run ended


def _remove_live_labs() -> None:
    for lab in list(_LIVE):
        lab.close()


atexit.register(_remove_live_labs)


def resolve_command(argv: Sequence[str], cwd: Path | None = None) -> list[str]:
    """Relative paths in a command mean the caller's working folder, not the lab's (where the client runs).

    The program itself when it names a path (`.venv/bin/python`), and any later argument that is a relative path
    to something that exists there (`.cache/clients/node/ts_sdk.mjs`). Made absolute without resolving symlinks,
    so a virtualenv's `bin/python` stays itself."""
    base = cwd or Path.cwd()
    out = list(argv)
    for index, part in enumerate(out):
        if not part or os.path.isabs(part) or part.startswith("-") or "{url}" in part:
            continue
        if index == 0 and os.sep in part:
            out[index] = os.path.normpath(os.path.join(base, part))
        elif index > 0 and os.sep in part and os.path.exists(os.path.join(base, part)):
            out[index] = os.path.normpath(os.path.join(base, part))
    return out


class Lab:
    """One run's HOME and cwd (owner-only); removed on close unless kept, and at exit if a run was cut short.

    Beside them, outside HOME, the URL-opener stand-ins (`openers`, first on the client's PATH and in BROWSER) and
    the log they write (`opener_log`), read after the run (proxy/run/openers.py)."""

    def __init__(self, run_id: str, keep: bool = False, parent: Path | None = None) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"backchannel-lab-{run_id}-", dir=parent))  # mode 0700
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.home.mkdir(mode=0o700)
        self.work.mkdir(mode=0o700)
        self.keep = keep
        self.marker = secrets.token_hex(8)  # in the client's environment: how its stray processes are found
        _LIVE.add(self)
        self.openers = openers.install(self.root)
        self.opener_log = self.root / openers.LOG_NAME

    def env(self, url: str, extra: dict[str, str] | None = None, tty: TtyOptions | None = None) -> dict[str, str]:
        """The client's whole environment; under a terminal (`tty`) TERM names a real one instead of `dumb`.

        The URL-opener stand-ins come first on PATH (the real PATH after them: the client still finds its own tools)
        and BROWSER names the `xdg-open` one, whatever `extra` says: a client that opens a URL is always seen."""
        env = {k: os.environ[k] for k in KEEP_ENV if k in os.environ}
        env.update(
            {
                "HOME": str(self.home),
                "TMPDIR": str(self.root),
                "BACKCHANNEL_URL": url,
                "NO_COLOR": "1",
                "TERM": TTY_TERM if under_terminal(tty) else "dumb",
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(extra or {})
        path = env.get("PATH") or os.pathsep.join(p for p in os.defpath.split(os.pathsep) if p)  # never the cwd
        env["PATH"] = os.pathsep.join((str(self.openers), path))
        env["BROWSER"] = str(self.openers / openers.BROWSER_OPENER)
        env[MARKER_VAR] = self.marker
        return env

    def opener_calls(self) -> openers.OpenerLog:
        """What the client asked the URL-opener stand-ins to open, read from their log (bounded, never raising)."""
        return openers.read_log(self.opener_log)

    def run(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        on_output: Callable[[str, bytes], None],
        timeout: float,
        stdin: bytes | None = None,
        tty: TtyOptions | None = None,
        on_snapshot: Callable[[Snapshot], None] | None = None,
        steps: Sequence[UiStep] = (),
    ) -> LabResult:
        """Run argv to completion or timeout; on_output(stream, chunk) sees every chunk as it arrives.

        `stdin` is what the client reads as typed answers (a CLI that prompts at the terminal); then end of input.
        Without it the client's stdin is empty from the start.

        With `tty`, the client runs under a pseudo-terminal of that size instead of pipes (proxy/run/tty.py): one
        stream, `tty`; `on_snapshot` sees each screen snapshot; `stdin` is typed once at the start, and no end of
        input follows. The guarantees are the same: its own session, dead with us, every process it started killed
        at exit or at the timeout.

        `steps`, under a terminal only: keys the lab types itself (proxy/run/ui_steps.py: an agent's task and exit).

        With a `piped` tty (`--answer --no-tty`), the client runs on pipes and is answered at its prompts
        (proxy/run/prompts.py): `stdin` is written first, and its stdin stays open until it exits.
        """
        began = time.monotonic()
        become_subreaper()
        env = {**env, MARKER_VAR: self.marker}
        if tty is not None and not tty.piped:
            done = run_tty(
                argv,
                cwd=self.work,
                env=env,
                marker=self.marker,
                on_output=on_output,
                timeout=timeout,
                options=tty,
                stdin=stdin,
                on_snapshot=on_snapshot,
                steps=steps,
            )
            return LabResult(done.exit_code, done.outcome, done.detail, time.monotonic() - began)
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=self.work,
                env=env,
                stdin=subprocess.DEVNULL if stdin is None and tty is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=die_with_parent,  # the client dies with us even on kill -9
            )
        except OSError as exc:
            return LabResult(None, "failed-to-start", f"{argv[0]}: {exc.strerror or exc}", 0.0)
        prompts = None
        if tty is not None:  # piped, answered at its prompts
            assert proc.stdin is not None
            prompts = PipedPrompts(tty, proc.stdin, on_snapshot, preamble=stdin)
            stdin = None  # written by `prompts`, with no end of input after it
            on_output = _answering(on_output, prompts)
        mark("client-spawned")
        since = started_at(proc.pid)
        swept = False
        try:
            result = self._watch(proc, on_output, timeout, stdin, began, since)
            swept = True  # _watch swept the run's processes once the client was gone: no second sweep
            return result
        finally:
            if prompts is not None:
                prompts.close()
            if not swept:
                kill_run(proc.pid, self.marker, since=since)  # an interruption still leaves nothing running
            _kill_group(proc)
            mark("client-reaped")

    def _watch(
        self,
        proc: subprocess.Popen[bytes],
        on_output: Callable[[str, bytes], None],
        timeout: float,
        stdin: bytes | None,
        began: float,
        since: int = 0,
    ) -> LabResult:
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
            mark("client-exited")
        except subprocess.TimeoutExpired:
            outcome, detail = (
                "timeout",
                f"still running after {timeout:g} s; it and every process it started was killed",
            )
            _kill_group(proc)
        # leftovers the client started, in its group, in a session of their own, or orphaned: none outlive the run
        kill_run(proc.pid, self.marker, since=since)
        for reader in readers:
            reader.join(5)
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
        _LIVE.discard(self)
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


def _pump(stream: object, name: str, on_output: Callable[[str, bytes], None]) -> None:
    read = stream.read1  # type: ignore[attr-defined]
    while True:
        chunk = read(65536)
        if not chunk:
            return
        on_output(name, chunk)


def _answering(on_output: Callable[[str, bytes], None], prompts: PipedPrompts) -> Callable[[str, bytes], None]:
    """on_output that also hands each chunk to the prompt matcher, after it is recorded."""

    def output(stream: str, chunk: bytes) -> None:
        on_output(stream, chunk)
        prompts.output(chunk)

    return output


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


def parse_env(items: Sequence[str], environ: Mapping[str, str]) -> dict[str, str]:
    """`--env NAME` (its value from `environ`) and `--env NAME=VALUE`; a bad or missing name is a ValueError."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not _ENV_NAME.match(name):
            raise ValueError(f"--env {item.split('=')[0]!r}: not a variable name (give NAME or NAME=VALUE)")
        if not sep:
            if name not in environ:
                raise ValueError(f"--env {name}: it is not set here; give --env {name}=VALUE or export it first")
            value = environ[name]
        out[name] = value
    return out
