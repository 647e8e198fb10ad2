"""What `judge PATH...` judges: files as given, folders searched for `*.sqlite`, globs expanded; each input keeps
the path relative to the argument it came from, so a shard is the same on every machine."""

from __future__ import annotations

import fnmatch
import glob
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from backchannel.recordings.errors import RecordingError

SUFFIX = ".sqlite"


@dataclass(frozen=True, slots=True)
class Input:
    """One recording to judge: where it is, and its path relative to the argument that named it."""

    path: Path
    relative: str


def has_magic(text: str) -> bool:
    return glob.has_magic(text)


def _glob_root(pattern: str) -> Path:
    """The part of a glob before its first wildcard: matches are named relative to it."""
    parts = Path(pattern).parts
    fixed = [p for p in parts[: next(i for i, p in enumerate(parts) if has_magic(p))]]
    return Path(*fixed) if fixed else Path()


def _walk_matching(root: Path, pattern: tuple[str, ...]) -> list[Path]:
    """Files under `root` whose relative path matches `pattern` (segments; `**` is any number of folders), found
    without following symlinked folders."""
    found = []
    for folder, dirs, files in os.walk(root or Path(".")):
        dirs.sort()
        for name in files:
            path = Path(folder) / name
            if _segments_match(pattern, path.relative_to(root).parts):
                found.append(path)
    return sorted(found)


def _segments_match(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    @cache
    def match(i: int, j: int) -> bool:
        if i == len(pattern):
            return j == len(parts)
        if pattern[i] == "**":
            return match(i + 1, j) or (j < len(parts) and match(i, j + 1))
        return j < len(parts) and fnmatch.fnmatchcase(parts[j], pattern[i]) and match(i + 1, j + 1)

    return match(0, 0)


def _in_folder(folder: Path) -> list[Input]:
    found = []
    for root, dirs, files in os.walk(folder):  # no symlinked folders followed: a corpus cannot loop
        dirs.sort()
        found += [Path(root) / name for name in sorted(files) if name.endswith(SUFFIX)]
    return sorted((Input(path, path.relative_to(folder).as_posix()) for path in found), key=lambda i: i.relative)


def expand(arguments: list[str]) -> list[Input]:
    """Every recording the arguments name, in argument order, each folder and glob in sorted order, no repeats.

    An argument naming nothing (a missing path, a glob with no match, a folder with no recording) is an error: a
    typo must not turn into a green run over nothing."""
    out: list[Input] = []
    seen: set[Path] = set()
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = _in_folder(path)
        elif path.exists():
            found = [Input(path, path.name)]
        elif has_magic(argument):
            root = _glob_root(argument)
            if "**" in argument:  # glob's `**` follows symlinked folders, and a link loop never ends: walk instead
                matches = _walk_matching(root, Path(argument).parts[len(root.parts) :])
            else:
                matches = sorted(Path(m) for m in glob.glob(argument))
            found = [Input(m, m.relative_to(root).as_posix()) for m in matches if m.is_file()]
        else:
            raise RecordingError(f"{argument}: no such recording or folder; check the path")
        if not found:
            raise RecordingError(f"{argument}: names no {SUFFIX} recording")
        for item in found:
            key = item.path.resolve()
            if key not in seen:
                seen.add(key)
                out.append(item)
    return out
