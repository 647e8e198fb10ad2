"""Carriers: the places server-chosen text can reach a client's context, as recorded for one run."""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.recordings.model import Recording


@dataclass(frozen=True, slots=True)
class Carrier:
    """stdout, stderr, or one text file under the lab HOME."""

    name: str  # "stdout", "stderr" or "file"
    path: str | None
    data: bytes


def carriers(rec: Recording, run_id: str) -> list[Carrier]:
    out = [Carrier(stream, None, rec.terminal_bytes(run_id, stream)) for stream in ("stdout", "stderr")]
    out.extend(Carrier("file", f.path, f.data or b"") for f in rec.files if f.run_id == run_id)
    return out


def lab_files(rec: Recording, run_id: str) -> dict[str, bytes]:
    return {f.path: f.data or b"" for f in rec.files if f.run_id == run_id}
