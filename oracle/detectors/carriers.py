"""Carriers: the places server-chosen text can reach a client's context, as recorded for one run."""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.recordings.model import Recording

from ..terminal import streams


@dataclass(frozen=True, slots=True)
class Carrier:
    """stdout, stderr, the terminal of a run under a tty (as plain text: oracle/terminal.py), or one lab file."""

    name: str  # "stdout", "stderr", "tty" or "file"
    path: str | None
    data: bytes


def carriers(rec: Recording, run_id: str) -> list[Carrier]:
    out = [Carrier(stream.name, None, stream.data) for stream in streams(rec, run_id)]
    out.extend(Carrier("file", f.path, f.data or b"") for f in rec.files if f.run_id == run_id)
    return out


def lab_files(rec: Recording, run_id: str) -> dict[str, bytes]:
    return {f.path: f.data or b"" for f in rec.files if f.run_id == run_id}
