"""`judge --cache DIR`: a recording judged once is not judged again while neither it nor the oracle changed.

A fixture corpus is re-judged on every commit of a project that keeps one, and almost every file and the oracle
are the same as last time. The judge is a pure function of the recording's bytes, the path it was given by (the
report names it) and the oracle's own code, so its report can be kept under a key made of exactly those:

- the recording: SHA-256 of the file's bytes, and the path as the task names it. A recording left open (a `-wal`
  with bytes beside it) is never cached: its rows are the file's and the WAL's together.
- the oracle: SHA-256 of backchannel's version, the Python version, the versions of the libraries a verdict
  depends on (jsonschema, jsonschema-rs, rfc3986-validator) and every `.py` file of the package and every file
  under `oracle/` (the schemas). Any change to them is another fingerprint, and the entries of any other
  fingerprint are removed when the cache is opened, so the folder holds one oracle's reports at most.

An entry is the report's JSON data, zlib-compressed, written to a temporary file and renamed into place: a worker
that dies mid-write leaves no half entry. An entry that does not decode is a miss and is written again. Only a
recording that was judged is cached; one that could not be read is tried again every time.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
import zlib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import backchannel
from backchannel.oracle import ORACLE_VERSION

# the libraries whose versions can change a verdict (the schema's validators, the URI checker)
VERDICT_LIBRARIES = ("jsonschema", "jsonschema-rs", "rfc3986-validator")
_FINGERPRINT_DIR = re.compile(r"^[0-9a-f]{16}$")  # a folder of entries for one oracle: only those are ever removed
_READ = 1 << 20


@cache
def oracle_fingerprint() -> str:
    """What the oracle's verdicts depend on besides the recording, as one hex digest (computed once per process)."""
    digest = hashlib.sha256()
    versions = [f"backchannel={_version('backchannel')}", f"oracle={ORACLE_VERSION}", f"python={sys.version}"]
    versions += [f"{name}={_version(name)}" for name in VERDICT_LIBRARIES]
    digest.update("\n".join(versions).encode())
    for root in backchannel.__path__:
        base = Path(root)
        files = [p for p in base.rglob("*.py")] + [p for p in (base / "oracle").rglob("*") if p.suffix != ".py"]
        for path in sorted({p for p in files if p.is_file() and "__pycache__" not in p.parts}):
            digest.update(str(path.relative_to(base)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def recording_key(path: str) -> str | None:
    """The entry's name for this recording as the task names it, or None when it must not be cached (left open)."""
    target = Path(path)
    wal = target.with_name(target.name + "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        return None
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape") + b"\0")
    with open(target, "rb") as file:
        while block := file.read(_READ):
            digest.update(block)
    return digest.hexdigest()


class JudgeCache:
    """The reports of one oracle fingerprint in `folder`/<its first 16 hex digits>/."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = folder / fingerprint[:16]
        self.fingerprint = fingerprint

    @classmethod
    def open(cls, folder: Path) -> JudgeCache:
        """Make the folder if needed and remove the entries of every other oracle (they can never be read again)."""
        made = cls(folder, oracle_fingerprint())
        made.folder.mkdir(parents=True, exist_ok=True)
        for other in folder.iterdir():
            if other != made.folder and other.is_dir() and _FINGERPRINT_DIR.match(other.name):
                shutil.rmtree(other, ignore_errors=True)
        return made

    def _entry(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json.z"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(zlib.decompress(self._entry(key).read_bytes()))
        except (OSError, zlib.error, ValueError):
            return None
        if not isinstance(data, dict) or data.get("fingerprint") != self.fingerprint:
            return None
        report = data.get("report")
        return report if isinstance(report, dict) else None

    def put(self, key: str, report: Mapping[str, Any]) -> None:
        """Keep a report; a cache that cannot be written is only slower, never an error."""
        entry = self._entry(key)
        payload = zlib.compress(json.dumps({"fingerprint": self.fingerprint, "report": report}).encode(), 6)
        try:
            entry.parent.mkdir(exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".", suffix=".part")
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(payload)
                os.replace(temporary, entry)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            return
