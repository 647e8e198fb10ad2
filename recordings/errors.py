"""The user-facing error tree for recordings.

RecordingError            a recording cannot be read or written as asked
└── RecordingFormatError  the file is not a backchannel recording, or its format is older or newer than this tool's
"""

from __future__ import annotations


class RecordingError(Exception):
    """A recording cannot be read or written; the message says what, where, and what to do next."""


class RecordingFormatError(RecordingError):
    """The file is not a recording this tool can read as it stands."""
