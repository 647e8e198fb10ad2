"""`backchannel replay FILE`: serve the server side of a recorded run to a live client until Ctrl-C.

The lead registers `replay_command` in proxy/cli.py; everything it needs is here, so cli.py stays thin.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from backchannel.proxy.judging.keep import keep_report
from backchannel.proxy.replay.session import choose_run, load_recording, serve
from backchannel.proxy.replay.through_proxy import proxied_replay
from backchannel.proxy.run.guard import Interrupted
from backchannel.recordings.errors import UserError
from backchannel.recordings.safe_text import neutralise


def _fail(message: str) -> typer.Exit:
    # one line, and nothing a recording put in it (a run's name, a path) may drive the terminal
    print(neutralise(f"backchannel: {message}".replace("\n", " ")), file=sys.stderr, flush=True)
    return typer.Exit(2)


def _note(line: str) -> None:
    print(neutralise(line), file=sys.stderr, flush=True)


def _wait_for_interrupt() -> None:
    try:
        threading.Event().wait()  # nothing ends a replay but Ctrl-C, or SIGTERM (Capture turns it into Interrupted)
    except (KeyboardInterrupt, Interrupted):
        pass


def replay_command(
    file: Annotated[Path, typer.Argument(help="The recording to replay (.sqlite).")],
    run: Annotated[
        str | None, typer.Option(help="Which run: its id, name or ordinal (default: the first a client made).")
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).", min=0, max=65535)] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Also record the replay through the proxy into this new recording (.sqlite).")
    ] = None,
    speed: Annotated[
        float,
        typer.Option(
            help="Scale recorded waits (SSE keep-alives, holds): 2 is twice as fast, 0 no waiting. Each wait lasts at"
            " most 30 s and one reply's waits together at most 60 s; the rest of a longer stream is sent at once"
            " (anomaly replay-waits-cut)."
        ),
    ] = 1.0,
    allow_repeats: Annotated[
        bool,
        typer.Option(
            "--allow-repeats", help="Serve a recorded reply again once used (a client that reconnects and starts over)."
        ),
    ] = False,
) -> None:
    """Serve the server side of a recorded run at http://127.0.0.1:N/mcp and print that URL; Ctrl-C stops."""
    if speed < 0:
        raise _fail(f"--speed {speed} is negative; use 0 for no waiting")
    try:
        rec = load_recording(file)
        chosen = choose_run(rec, run)
        if out is None:
            with serve(rec, chosen, speed=speed, allow_repeats=allow_repeats, port=port) as replay:
                try:  # once the URL is out, Ctrl-C at any moment is a clean stop (not only while waiting)
                    print(replay.url, flush=True)
                    _note(f"replaying run {chosen.name} ({chosen.id}) of {file}; Ctrl-C stops")
                    others = (r for r in rec.runs if r.id != chosen.id and any(True for _ in rec.exchanges_in(r.id)))
                    for other in others:
                        _note(f"  run {other.name}: {replay.run_url(other.id)}")
                    sys.stderr.flush()
                    _wait_for_interrupt()
                except (KeyboardInterrupt, Interrupted):
                    pass
            return
        if out.exists():
            raise _fail(f"{out} already exists; pick a new --out")
        if port:
            raise _fail("--port applies without --out; with --out the proxy picks its own port")
        with proxied_replay(rec, out, speed=speed, allow_repeats=allow_repeats) as proxied:
            proxied.attribute_url_hits(chosen.id)
            for line in proxied.unappliable:
                _note(line)
            try:
                print(proxied.handles[chosen.id].url, flush=True)
                _note(f"replaying run {chosen.name} ({chosen.id}) of {file} through the proxy into {out}")
                _wait_for_interrupt()
            except (KeyboardInterrupt, Interrupted):
                pass
            proxied.capture.end_run(proxied.handles[chosen.id], outcome="live-stopped")
        warning = keep_report(out)
        if warning is not None:
            _note(warning)
        print(f"closed {out}; judge it with: backchannel judge {out}", file=sys.stderr)
    except UserError as exc:  # every package's own errors (recordings/errors.py): one line, never a traceback
        raise _fail(str(exc)) from exc
