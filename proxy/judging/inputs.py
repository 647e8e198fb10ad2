"""What `judge PATH...` judges: files as given, folders searched for `*.sqlite`, globs expanded; each input keeps
the path relative to the argument it came from, so a shard is the same on every machine."""

from __future__ import annotations

import errno
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
    """One recording to judge: where it is, and its path relative to the argument that named it. `problem`: why it
    cannot be judged, known before it is opened (a folder that could not be read: what it holds is not known, and
    a corpus run must not pass over it as if it held nothing)."""

    path: Path
    relative: str
    problem: str | None = None


class _Unreadable(list[Input]):
    """os.walk's errors, each a problem Input named relative to `root`: a folder it could not list."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __call__(self, error: OSError) -> None:
        where = Path(error.filename) if error.filename else self.root
        if where == self.root and error.errno in (errno.ENOENT, errno.ENOTDIR):
            return  # the argument names no folder: "names no recording", as a glob without ** says
        relative = os.path.relpath(where, self.root)
        name = (self.root.name or str(self.root)) if relative == os.curdir else Path(relative).as_posix()
        said = f"{where}: cannot read this folder ({error.strerror or error}); the recordings in it are not judged"
        self.append(Input(where, name, said))


def has_magic(text: str) -> bool:
    return glob.has_magic(text)


def _glob_root(pattern: str) -> Path:
    """The part of a glob before its first wildcard: matches are named relative to it."""
    parts = Path(pattern).parts
    fixed = [p for p in parts[: next(i for i, p in enumerate(parts) if has_magic(p))]]
    return Path(*fixed) if fixed else Path()


def _glob_walked(root: Path, pattern: tuple[str, ...]) -> list[Input]:
    """Files under `root` whose relative path matches `pattern` (segments; `**` is any number of folders), found
    without following symlinked folders; and each folder on the way that could not be read."""
    found = []
    unreadable = _Unreadable(root)
    for folder, dirs, files in os.walk(root or Path("."), onerror=unreadable):
        dirs.sort()
        for name in files:
            path = Path(folder) / name
            if _segments_match(pattern, path.relative_to(root).parts):
                found.append(Input(path, path.relative_to(root).as_posix()))
    return sorted([*found, *unreadable], key=lambda i: i.relative)


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
    unreadable = _Unreadable(folder)
    for root, dirs, files in os.walk(folder, onerror=unreadable):  # no symlinked folders followed: cannot loop
        dirs.sort()
        found += [Path(root) / name for name in sorted(files) if name.endswith(SUFFIX)]
    listed = [Input(path, path.relative_to(folder).as_posix()) for path in found]
    return sorted([*listed, *unreadable], key=lambda i: i.relative)


def _identity(path: Path) -> Path:
    """What two arguments naming one file have in common; a link loop or a path that cannot be resolved is itself
    (it is judged, and its error named, as any unreadable recording is)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.12)
        return Path(os.path.abspath(path))


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
        elif path.exists() or path.is_symlink():  # a dangling link or a link loop: judged, and its error named
            found = [Input(path, path.name)]
        elif has_magic(argument):
            root = _glob_root(argument)
            if "**" in argument:  # glob's `**` follows symlinked folders, and a link loop never ends: walk instead
                found = _glob_walked(root, Path(argument).parts[len(root.parts) :])
            else:
                matches = sorted(Path(m) for m in glob.glob(argument))
                # what the pattern names, folders aside: a FIFO, a dangling link or a link loop among the matches
                # is judged, and its error named, as it is when a folder holds it
                found = [Input(m, m.relative_to(root).as_posix()) for m in matches if not m.is_dir()]
        else:
            raise RecordingError(f"{argument}: no such recording or folder; check the path")
        if not found:
            raise RecordingError(f"{argument}: names no {SUFFIX} recording")
        for item in found:
            key = _identity(item.path)
            if key not in seen:
                seen.add(key)
                out.append(item)
    return out
