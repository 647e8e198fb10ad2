"""`judge --cache DIR`: a recording judged once is not judged again while neither it nor the oracle changed.

A fixture corpus is re-judged on every commit of a project that keeps one, and almost every file and the oracle
are the same as last time. The judge is a pure function of the recording's bytes, the path it was given by (the
report names it) and the oracle's own code, so its report can be kept under a key made of exactly those:

- the recording: SHA-256 of the path as the task names it and of the file's bytes. Only a regular file of at most
  MAX_HASHED_BYTES is cached (never a FIFO or a device), never one left open (a `-wal` with bytes beside it: its
  rows are the file's and the WAL's together), and a report is kept only when the file's inode, size and
  modification time were the same before it was hashed and after it was judged (a file rewritten meanwhile is
  judged again next time).
- the oracle: SHA-256 of backchannel's version, the Python version, the versions of the libraries a verdict
  depends on (jsonschema, jsonschema-rs, rfc3986-validator), every `.py` file of backchannel's packages and every
  file under `oracle/` (the schemas), and the scenarios added from outside (the `backchannel.scenarios` entry
  points and BACKCHANNEL_SCENARIOS: their names and their packages' files).

Each oracle's entries live in a folder of their own, DIR/<16 hex digits of its fingerprint>/, marked by a file
(MARKER) so that only folders this cache made are ever removed. Opening the cache keeps the KEEP_ORACLES most
recently used oracles (two virtualenvs sharing DIR do not evict each other) and at most MAX_ENTRIES entries for
this one (the oldest go first), and removes temporary files a killed worker left.

An entry is the report's JSON data, zlib-compressed, written to a temporary file and renamed into place: a worker
that dies mid-write leaves no half entry. An entry that does not decode, decodes past MAX_ENTRY_BYTES or is not a
report is a miss and is written again. Only a recording that was judged is cached; one that could not be read is
tried again every time.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import stat
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

from backchannel.oracle import ORACLE_VERSION
from backchannel.oracle.model import STATUSES
from backchannel.oracle.registry import extra_roots

# the libraries whose versions can change a verdict (the schema's validators, the URI checker)
VERDICT_LIBRARIES = ("jsonschema", "jsonschema-rs", "rfc3986-validator")
PACKAGES = ("backchannel.oracle", "backchannel.recordings", "backchannel.proxy", "backchannel.addons")
MARKER = "BACKCHANNEL-JUDGE-CACHE"  # in each oracle's folder: only folders holding it are ever removed
KEEP_ORACLES = 4
MAX_ENTRIES = 50_000  # of one oracle (about 7 KB each): past it the oldest half goes
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # of one entry, decompressed: a larger one is not a report this cache wrote
# a recording larger than this is judged without the cache: hashing reads all of it, where the reader reads only the
# pages the database holds, so a sparse file of a terabyte (a few KB on disk) would take an hour to hash
MAX_HASHED_BYTES = 256 * 1024 * 1024
STALE_PART_S = 3600  # a temporary file this old was left by a worker that died
_READ = 1 << 20


class CacheError(Exception):
    """The cache cannot be used (its folder cannot be made or written, the oracle's code cannot be found)."""


@cache
def oracle_fingerprint() -> str:
    """What the oracle's verdicts depend on besides the recording, as one hex digest (computed once per process)."""
    digest = hashlib.sha256()
    versions = [f"backchannel={_version('backchannel')}", f"oracle={ORACLE_VERSION}", f"python={sys.version}"]
    versions += [f"{name}={_version(name)}" for name in VERDICT_LIBRARIES]
    versions += [f"scenario-root={root}" for root in extra_roots()]
    digest.update("\n".join(versions).encode())
    hashed = 0
    for package in (*PACKAGES, *extra_roots()):
        for base in _locations(package):
            for relative, path in _source_files(base):
                digest.update(f"{package}/{relative}".encode() + b"\0")
                with open(path, "rb") as source:
                    digest.update(source.read())
                hashed += 1
    if not hashed:
        raise CacheError("cannot find backchannel's own source files to fingerprint the oracle")
    return digest.hexdigest()


def _locations(package: str) -> list[Path]:
    """The folders of a package, found without importing it (a lenient editable install included)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(location) for location in spec.submodule_search_locations if Path(location).is_dir()]


def _source_files(base: Path) -> list[tuple[str, str]]:
    """Every .py file under base, and every file under an `oracle/` folder in it (schemas, requirements): (its path
    relative to base, with /, and its path). os.walk and plain strings: pathlib's rglob and relative_to took most of
    the 0.09 s this cost every cached run."""
    found: dict[str, str] = {}
    for folder, folders, files in os.walk(base):
        folders[:] = [name for name in folders if name != "__pycache__"]
        relative = os.path.relpath(folder, base)
        parts = [] if relative == os.curdir else relative.split(os.sep)
        in_oracle = base.name == "oracle" or "oracle" in parts
        for name in files:
            path = os.path.join(folder, name)
            if (in_oracle or name.endswith(".py")) and os.path.isfile(path):
                found["/".join([*parts, name])] = path
    return sorted(found.items())


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def file_state(path: str) -> tuple[int, int, int] | None:
    """(inode, size, modification time in ns) of a regular file; None for anything else or a missing file."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None


@contextmanager
def _regular(path: Path, *, follow: bool = True) -> Iterator[tuple[BinaryIO, int] | None]:
    """A file opened for reading and its size, or None when it is not a regular file. Opened without blocking, so a
    FIFO where a file should be never hangs judging; with `follow=False` a link is refused (OSError)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW))
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        yield (file, info.st_size) if stat.S_ISREG(info.st_mode) else None


def _read_entry(path: Path) -> bytes:
    """An entry's bytes: a regular file of at most MAX_ENTRY_BYTES, not a link; OSError for anything else, which
    the caller takes as a miss."""
    with _regular(path, follow=False) as found:
        if found is None or found[1] > MAX_ENTRY_BYTES:
            raise OSError(f"{path}: not an entry this cache wrote")
        return found[0].read(MAX_ENTRY_BYTES + 1)


def recording_key(path: str) -> str | None:
    """The entry's name for this recording as the task names it, or None when it must not be cached: not a regular
    file (opened without blocking, so a FIFO never hangs), larger than MAX_HASHED_BYTES, or left open (a `-wal` with
    bytes beside it)."""
    target = Path(path)
    wal = target.with_name(target.name + "-wal")
    if wal.is_symlink() or wal.exists() and (not wal.is_file() or wal.stat().st_size > 0):
        return None  # a linked -wal (judging refuses the recording) is never cached either
    with _regular(target) as found:
        if found is None or found[1] > MAX_HASHED_BYTES:
            return None
        digest = hashlib.sha256(path.encode("utf-8", "surrogateescape") + b"\0")
        while block := found[0].read(_READ):
            digest.update(block)
    return digest.hexdigest()


def is_report(data: Any) -> bool:
    """Whether `data` has the shape of a report's dict in every field a corpus output reads of it (its counts, its
    exit code, its results' identities and what the text lists of them): what a cache entry must hold to be used.
    Not whether this oracle would have said it (whoever writes DIR decides the verdicts, docs/scaling.md); reading a
    whole report back costs half a millisecond, as much as the rest of a cached recording, and the sarif output does
    that anyway."""
    if not isinstance(data, dict):
        return False
    summary, code, results = data.get("summary"), data.get("exit_code"), data.get("results")
    if not isinstance(summary, dict) or not all(_count(value) for value in summary.values()):
        return False
    if type(code) is not int or code not in (0, 1, 2) or not isinstance(results, list):
        return False
    return all(_result(result) for result in results)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _result(result: Any) -> bool:
    if not isinstance(result, dict) or result.get("status") not in STATUSES:
        return False
    named = all(isinstance(result.get(key), str) for key in ("id", "scenario"))
    return named and all(isinstance(result.get(key, ""), str | None) for key in ("verdict", "subject", "message"))


class JudgeCache:
    """The reports of one oracle fingerprint in `folder`/<its first 16 hex digits>/."""

    def __init__(self, root: Path, fingerprint: str) -> None:
        self.root = root
        self.folder = root / fingerprint[:16]
        self.fingerprint = fingerprint

    @classmethod
    def open(cls, root: Path) -> JudgeCache:
        """Make this oracle's folder (marked) and tidy the cache (CacheError: it cannot be used)."""
        try:
            made = cls(root, oracle_fingerprint())
            made.folder.mkdir(parents=True, exist_ok=True)
            marker = made.folder / MARKER
            for link in (made.folder, marker):
                # a cache folder restored from elsewhere (a CI cache) could hold links: the cache writes, reads and
                # removes only inside DIR, so it never goes through one
                if link.is_symlink():
                    raise CacheError(f"--cache {root}: {link} is a link, not what the cache made; refusing to use it")
            marker.touch()  # its time says when this oracle was last used
            made._tidy()
        except OSError as exc:
            raise CacheError(f"--cache {root}: {exc.strerror or exc}") from exc
        return made

    def _tidy(self) -> None:
        oracles = sorted(
            (p for p in self.root.iterdir() if p.is_dir() and (p / MARKER).is_file()),
            key=lambda p: (p / MARKER).stat().st_mtime,
            reverse=True,
        )
        for other in oracles[KEEP_ORACLES:]:
            if other != self.folder:
                shutil.rmtree(other, ignore_errors=True)
        now = time.time()
        entries = []
        for path in self._files():
            if path.name.endswith(".part"):
                if now - path.stat().st_mtime > STALE_PART_S:
                    path.unlink(missing_ok=True)
            else:
                entries.append(path)
        if len(entries) > MAX_ENTRIES:
            entries.sort(key=lambda p: p.stat().st_mtime)
            for path in entries[: len(entries) - MAX_ENTRIES // 2]:
                path.unlink(missing_ok=True)

    def _files(self) -> Iterator[Path]:
        """The regular files in the shard folders: never through a link (a cache folder restored from elsewhere, a
        CI cache, could point one at any folder, and tidying removes files), and never a folder or anything else
        that stands where an entry or a temporary file would (unlinking it failed, and the cache went unused)."""
        with os.scandir(self.folder) as shards:
            for shard in shards:
                if len(shard.name) == 2 and shard.is_dir(follow_symlinks=False):
                    with os.scandir(shard.path) as found:
                        yield from (Path(entry.path) for entry in found if entry.is_file(follow_symlinks=False))

    def _entry(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json.z"

    def get(self, key: str) -> dict[str, Any] | None:
        """The report kept under key, or None (absent, damaged, too large, another oracle's, not a report)."""
        entry = self._entry(key)
        try:
            if entry.parent.is_symlink():  # a linked shard folder: a miss, never read through
                return None
            inflate = zlib.decompressobj()
            raw = inflate.decompress(_read_entry(entry), MAX_ENTRY_BYTES)
            if inflate.unconsumed_tail:
                return None
            data = json.loads(raw)
        except Exception:  # noqa: BLE001 - a damaged or hostile entry (zlib, JSON, nesting) is a miss
            return None
        if not isinstance(data, dict) or data.get("fingerprint") != self.fingerprint:
            return None
        report = data.get("report")
        return report if is_report(report) else None

    def put(self, key: str, report: Mapping[str, Any]) -> None:
        """Keep a report; a cache that cannot be written is only slower, never an error."""
        entry = self._entry(key)
        payload = zlib.compress(json.dumps({"fingerprint": self.fingerprint, "report": report}).encode(), 6)
        try:
            entry.parent.mkdir(exist_ok=True)
            if entry.parent.is_symlink():  # never written through a link (a linked shard folder stays unused)
                return
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
