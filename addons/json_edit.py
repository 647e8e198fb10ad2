"""Removing one member from JSON text in place, so every other byte stays exactly as the server sent it."""

from __future__ import annotations

import json
from dataclasses import dataclass

_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class Removal:
    """The text after the edit, and the exact span [start, end) of the original that was cut."""

    text: str
    start: int
    end: int

    def removed(self, original: str) -> str:
        return original[self.start : self.end]


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _members(text: str, i: int) -> list[tuple[str, int, int, int]]:
    """(key, member start, value start, value end) for each member of the object opening at text[i]."""
    assert text[i] == "{"
    out: list[tuple[str, int, int, int]] = []
    i = _skip_ws(text, i + 1)
    if text[i] == "}":
        return out
    while True:
        start = i
        key, i = _DECODER.raw_decode(text, i)
        i = _skip_ws(text, i)
        if text[i] != ":":
            raise ValueError("expected ':'")
        vstart = _skip_ws(text, i + 1)
        _, vend = _DECODER.raw_decode(text, vstart)
        out.append((str(key), start, vstart, vend))
        i = _skip_ws(text, vend)
        if text[i] == "}":
            return out
        if text[i] != ",":
            raise ValueError("expected ','")
        i = _skip_ws(text, i + 1)


def remove_member(text: str, path: tuple[str, ...]) -> Removal | None:
    """Cut the member at `path` (e.g. ("result", "resultType")) with one adjoining comma; None if it is absent."""
    try:
        return _remove(text, path)
    except (ValueError, IndexError, RecursionError):
        return None  # not well-formed JSON, or nested too deeply to walk: nothing to cut


def _remove(text: str, path: tuple[str, ...]) -> Removal | None:
    i = _skip_ws(text, 0)
    for depth, name in enumerate(path):
        if i >= len(text) or text[i] != "{":
            return None
        members = _members(text, i)
        found = [m for m in members if m[0] == name]
        if not found:
            return None
        if depth < len(path) - 1:
            i = found[0][2]
            continue
        index = members.index(found[0])
        _, start, _, end = found[0]
        if index + 1 < len(members):
            end = members[index + 1][1]  # take the following comma and whitespace
        elif index > 0:
            start = members[index - 1][3]  # take the preceding comma
        return Removal(text[:start] + text[end:], start, end)
    return None
