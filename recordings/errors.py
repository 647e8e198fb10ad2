"""The user-facing error tree: the root every package's own errors share, and the recordings' branch.

UserError                     what the user can act on; the CLI says it in one line and exits 2 (proxy/cli_output.py)
├── RecordingError            a recording cannot be read or written as asked
│   └── RecordingFormatError  the file is not a backchannel recording, or its format is older or newer than this tool's
└── (elsewhere) PlanError, CheckError, CaptureError, ProxyError, ReplayError, ScenarioError

The root lives here, at the bottom of the layers, so that the CLI can catch every one of them without importing the
packages that raise them (a `backchannel judge` never loads mitmproxy or the proxy launcher just to name an error).
"""

from __future__ import annotations


class UserError(Exception):
    """Something the user gave or asked for cannot be done as it stands; the message says what and what to do."""


class RecordingError(UserError):
    """A recording cannot be read or written; the message says what, where, and what to do next."""


class RecordingFormatError(RecordingError):
    """The file is not a recording this tool can read as it stands."""
