"""The recording format: schema, migrations, reader and writer. The only code that touches SQLite."""

from __future__ import annotations

from .errors import RecordingError, RecordingFormatError
from .model import Anomaly, Exchange, LabFile, Message, Recording, Run, SseEvent, TerminalChunk, UrlHit
from .reader import load

__all__ = [
    "Anomaly",
    "Exchange",
    "LabFile",
    "Message",
    "Recording",
    "RecordingError",
    "RecordingFormatError",
    "Run",
    "SseEvent",
    "TerminalChunk",
    "UrlHit",
    "load",
]
