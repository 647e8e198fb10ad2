"""`backchannel explore FILE [--port N]`: serve a recording in Datasette on 127.0.0.1, read-only, until Ctrl-C.

The lead registers `explore_command` in proxy/cli.py. Datasette is an optional extra, so it runs as a child
process (`python -m datasette`), found or refused before anything starts.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Annotated

import typer

from backchannel.proxy.explore.metadata import datasette_metadata
from backchannel.proxy.run.guard import Interrupted, interruptible
from backchannel.proxy.run.reaper import die_with_parent
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.safe_text import neutralise

MISSING = "Datasette is not installed; install the extra: pip install 'backchannel[explore]'"
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
SQL_TIME_LIMIT_MS = 1000  # any query, a stranger's view included, is interrupted after this long
_LISTENING = re.compile(rb"Uvicorn running on http://127\.0\.0\.1:(\d+)")


class ExploreError(Exception):
    """Datasette could not be started; the message says why."""


def _fail(message: str) -> typer.Exit:
    print(neutralise(f"backchannel: {message}".replace("\n", " ")), file=sys.stderr, flush=True)
    return typer.Exit(2)


def datasette_installed() -> bool:
    return importlib.util.find_spec("datasette") is not None


def datasette_argv(recording: Path, metadata: Path, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "datasette",
        "serve",
        "-i",  # immutable: opened read-only, never written, no -wal or -shm beside it
        str(recording),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--metadata",
        str(metadata),
        "--setting",
        "sql_time_limit_ms",
        str(SQL_TIME_LIMIT_MS),
    ]


def _die_with_us() -> None:
    die_with_parent(signal.SIGTERM)  # in the child before exec: Datasette goes when backchannel does, however


def start_datasette(recording: Path, metadata: Path, port: int) -> tuple[subprocess.Popen[bytes], int]:
    """Start Datasette and wait, bounded, for the port it listens on."""
    process = subprocess.Popen(
        datasette_argv(recording, metadata, port),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_die_with_us,  # only a prctl, between fork and exec
    )
    assert process.stdout is not None
    fd = process.stdout.fileno()
    seen = b""
    deadline = time.monotonic() + START_TIMEOUT_S
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        # raw reads, not readline: a buffered reader may hold the line we wait for while select() sees nothing
        while (left := deadline - time.monotonic()) > 0 and selector.select(left):
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            seen = (seen + chunk)[-65536:]
            if found := _LISTENING.search(seen):
                threading.Thread(target=_drain, args=(process.stdout,), daemon=True).start()
                return process, int(found.group(1))
    stop(process)
    output = seen.decode("utf-8", "replace").strip().splitlines()[-5:]
    raise ExploreError(f"Datasette did not start within {START_TIMEOUT_S:.0f} s: {' / '.join(output) or 'no output'}")


def _drain(stream: IO[bytes]) -> None:
    """Datasette logs every request: read it so it never blocks on a full pipe."""
    try:
        while stream.read(65536):
            pass
    except (OSError, ValueError):
        return


def stop(process: subprocess.Popen[bytes]) -> int:
    """Stop Datasette by its own pid: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT_S)
    if process.stdout is not None:
        process.stdout.close()
    return process.returncode


def database_url(port: int, recording: Path) -> str:
    from datasette.utils import tilde_encode  # the extra is installed by the time this runs

    return f"http://127.0.0.1:{port}/{tilde_encode(recording.stem)}"


def explore_command(
    file: Annotated[Path, typer.Argument(help="The recording to open (.sqlite).")],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).", min=0, max=65535)] = 0,
) -> None:
    """Open a recording in Datasette at http://127.0.0.1:N/NAME (read-only) and print that URL; Ctrl-C stops."""
    if not datasette_installed():
        raise _fail(MISSING)
    try:
        load(file)  # a stranger's file is vetted by the reader first: triggers, disguised tables, damage refused
    except RecordingError as exc:
        raise _fail(str(exc)) from exc
    with tempfile.TemporaryDirectory(prefix="backchannel-explore-") as folder:
        metadata = Path(folder) / "metadata.json"
        metadata.write_text(json.dumps(datasette_metadata(file.stem, file.name)), encoding="utf-8")
        try:
            process, bound = start_datasette(file, metadata, port)
        except (ExploreError, OSError) as exc:
            raise _fail(str(exc)) from exc
        try:
            # SIGTERM and SIGHUP end it like Ctrl-C (Datasette stopped, the temp folder gone) from before the URL is
            # out: a caller that signals the moment it reads the URL must not find the default handler still there
            with interruptible():
                print(database_url(bound, file), flush=True)
                print(neutralise(f"exploring {file} read-only; Ctrl-C stops"), file=sys.stderr, flush=True)
                code = process.wait()
        except (KeyboardInterrupt, Interrupted):
            return
        finally:
            stop(process)
    raise _fail(f"Datasette exited on its own with code {code}")
