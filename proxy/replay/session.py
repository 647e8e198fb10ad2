"""A replay of one recording: load it (untrusted), script every run, and serve them on one port."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.replay.app import AnomalySink, ReplayApp, RunningReplay, start_replay
from backchannel.proxy.replay.script import Ledger, Side, pick_run, script_of
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError, UserError
from backchannel.recordings.model import Recording, Run
from backchannel.recordings.safe_text import neutralise


class ReplayError(UserError):
    """The recording cannot be replayed as asked (unreadable, or no such run); the message says why, on one line."""


def load_recording(path: str | Path) -> Recording:
    try:
        return load(path)
    except RecordingError as exc:
        raise ReplayError(str(exc)) from exc


def choose_run(rec: Recording, wanted: str | None) -> Run:
    try:
        return pick_run(rec, wanted)
    except LookupError as exc:
        raise ReplayError(str(exc.args[0])) from exc


def print_anomaly(run_id: str, kind: str, detail: str) -> None:
    print(neutralise(f"{kind} (run {run_id}): {detail}"), file=sys.stderr, flush=True)


def serve(
    rec: Recording,
    default: Run,
    *,
    side: Side = "client",
    speed: float = 1.0,
    allow_repeats: bool = False,
    port: int = 0,
    on_anomaly: AnomalySink | None = print_anomaly,
) -> RunningReplay:
    """Every run of `rec` at `/r/<run id>/mcp`, and `default` at `/mcp` too."""
    ledgers = {run.id: Ledger(script_of(rec, run, side), allow_repeats) for run in rec.runs}
    app = ReplayApp(ledgers, default.id, speed=speed, on_anomaly=on_anomaly)
    try:
        return start_replay(app, port=port)
    except OSError as exc:
        raise ReplayError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}; pick another --port") from exc
