"""`backchannel merge-reports FILE...`: the `--format json` outputs of several `judge` runs (shards of a corpus, or
single reports) as one corpus document. The files come from anywhere: each is checked for shape before use."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .corpus import KIND

MAX_BYTES = 512 * 1024 * 1024


class MergeError(ValueError):
    """A file that is not a judge JSON output; the message names it and says what is wrong, on one line."""


MAX_COUNT = 2**53  # a count past it is no count a judge run made (and a sum of huge ones cannot even be printed)


def _is_count_map(value: Any) -> bool:
    """Counts are whole numbers from 0 up: a negative one would cancel another shard's failures in the totals."""
    return isinstance(value, dict) and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < MAX_COUNT for v in value.values()
    )


def _check_report(report: Any, where: str) -> dict[str, Any]:
    if not isinstance(report, dict) or report.get("tool") != "backchannel":
        raise MergeError(f"{where} is not a backchannel report")
    if not isinstance(report.get("results"), list) or not all(isinstance(r, dict) for r in report["results"]):
        raise MergeError(f"{where}: its results are not a list of objects")
    if not _is_count_map(report.get("summary")) or report.get("exit_code") not in (0, 1):
        raise MergeError(f"{where}: its summary or exit code is malformed")
    return report


def _check_entry(item: Any, where: str) -> dict[str, Any]:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise MergeError(f"{where} has no name")
    if "report" in item:
        _check_report(item["report"], f"{where} ({item['name'][:80]})")
    elif not isinstance(item.get("error"), str):
        raise MergeError(f"{where} ({item['name'][:80]}) has neither a report nor an error")
    if "error" in item and not isinstance(item["error"], str):
        raise MergeError(f"{where} ({item['name'][:80]}): its error is not text")
    return {key: item[key] for key in ("name", "report", "error") if key in item}  # nothing else is carried over


def read_output(path: Path) -> tuple[list[dict[str, Any]], tuple[int, int] | None, tuple[int, int]]:
    """The recordings one judge output holds (a corpus document's entries, or one report as one entry), its shard
    (K, N) when it is an output of `judge --shard`, and the file's identity (device, inode) as it was read."""
    try:
        # opened without blocking: a FIFO no one writes to is read as empty at once, where a plain open waited for
        # a writer for ever; one being written to (`<(judge ...)`, /dev/stdin) is then read as a file is
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
                raise MergeError(f"{path} is not a file; give the file a judge run wrote")
            os.set_blocking(fd, True)
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise MergeError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    identity = (info.st_dev, info.st_ino)
    if len(raw) > MAX_BYTES:
        raise MergeError(f"{path} is larger than {MAX_BYTES} bytes; refusing it")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise MergeError(f"{path} is not JSON ({type(exc).__name__}: {str(exc)[:120]})") from exc
    if isinstance(data, dict) and data.get("kind") == KIND:
        entries = data.get("recordings")
        if not isinstance(entries, list):
            raise MergeError(f"{path}: its recordings are not a list")
        return (
            [_check_entry(item, f"{path} entry {i}") for i, item in enumerate(entries, 1)],
            _shard_of(data, path),
            identity,
        )
    report = _check_report(data, str(path))
    recording = report.get("recording")
    name = recording.get("file") if isinstance(recording, dict) else None
    return [{"name": name if isinstance(name, str) else path.name, "report": report}], None, identity


def merge(paths: list[Path]) -> list[dict[str, Any]]:
    """Every entry of every file, in the order given. Outputs of `judge --shard K/N` must come complete: every
    shard of N exactly once (the rest may be other outputs), or a merged verdict would pass a shard that never
    ran, and a baseline entry would look stale for want of the shard that fails it."""
    out: list[dict[str, Any]] = []
    shards: dict[int, dict[int, Path]] = {}  # N -> K -> the file that held shard K/N
    files: dict[tuple[int, int], Path] = {}  # each file's device and inode -> how it was first named
    for path in paths:
        entries, shard, identity = read_output(path)
        if identity in files:  # its recordings would be counted twice
            raise MergeError(f"{path} is {files[identity]} given again; give each output once")
        files[identity] = path
        out += entries
        if shard is not None:
            k, n = shard
            earlier = shards.setdefault(n, {}).setdefault(k, path)
            if earlier is not path:
                raise MergeError(f"{path} and {earlier} both hold shard {k}/{n}; give each shard's output once")
    if len(shards) > 1:
        counts = " and ".join(f"of {n}" for n in sorted(shards))
        raise MergeError(f"the outputs to merge are shards of different splits ({counts}); merge one split's shards")
    for n, given in shards.items():
        missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in given]
        if missing:
            raise MergeError(
                f"shard {', '.join(missing)} is missing (given: {', '.join(f'{k}/{n}' for k in sorted(given))});"
                " merge every shard's output, or the merged verdict would leave its recordings out"
            )
    return out


def _shard_of(data: dict[str, Any], path: Path) -> tuple[int, int] | None:
    """(K, N) of a `judge --shard K/N` output, None for any other output."""
    said = data.get("shard")
    if said is None:
        return None
    parts = said.split("/") if isinstance(said, str) else []
    if len(parts) != 2 or not all(part.isascii() and part.isdigit() and len(part) <= 6 for part in parts):
        raise MergeError(f"{path}: its shard is not K/N")
    k, n = int(parts[0]), int(parts[1])
    if not 1 <= k <= n:
        raise MergeError(f"{path}: its shard {k}/{n} is not one of {n}")
    return k, n
