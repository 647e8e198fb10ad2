"""Finding a quoted sentence in the section its anchor names: the rule that holds every quote verbatim.

A quote matches when, after both sides lose markdown emphasis (`**MUST**`, `_not_`) and have their whitespace
collapsed, it appears in the section; nothing else is forgiven. `[...]` in a quote marks an elision: its pieces
must appear in order, each starting at most `MAX_GAP` characters after the previous one ends (a list's lead-in and
the item quoted, a link's markup), so an elision cannot stitch together sentences from all over a page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

ELISION = "[...]"
MAX_GAP = 400
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_EMPHASIS = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.DOTALL),
    re.compile(r"__(?=\S)(.+?)(?<=\S)__", re.DOTALL),
    re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", re.DOTALL),
    re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])", re.DOTALL),
)
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def normalise(text: str) -> str:
    """Markdown emphasis removed outside code spans, whitespace collapsed to single spaces."""
    parts: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        parts.append(_plain(text[last : span.start()]))
        parts.append(span.group(0))
        last = span.end()
    parts.append(_plain(text[last:]))
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _plain(text: str) -> str:
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    return text


def quote_found(quote: str, text: str) -> bool:
    """Whether the quote (its elided pieces in order, each within MAX_GAP of the last) is in the text."""
    haystack = normalise(text)
    pieces = [normalise(piece) for piece in quote.split(ELISION)]
    pieces = [piece for piece in pieces if piece]
    if not pieces:
        return False
    return any(_rest_found(pieces[1:], haystack, start + len(pieces[0])) for start in _all(haystack, pieces[0]))


def _rest_found(pieces: list[str], haystack: str, after: int) -> bool:
    if not pieces:
        return True
    window = haystack[after : after + MAX_GAP + len(pieces[0])]
    return any(_rest_found(pieces[1:], haystack, after + at + len(pieces[0])) for at in _all(window, pieces[0]))


def _all(haystack: str, needle: str) -> Iterator[int]:
    at = haystack.find(needle)
    while at >= 0:
        yield at
        at = haystack.find(needle, at + 1)


def slug(heading: str) -> str:
    """A heading's anchor as the spec site makes it: lowercase, code marks dropped, words joined by hyphens."""
    words = heading.replace("`", "").strip().lower()
    return re.sub(r"[^a-z0-9_ -]", "", words).replace(" ", "-")


def section(page: str, fragment: str) -> str | None:
    """The text under the heading whose slug is `fragment`, up to the next heading of its level or above (fenced
    code skipped when reading headings); None when the page has no such heading."""
    lines = page.splitlines()
    start: int | None = None
    level = 0
    fenced = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading is None:
            continue
        depth = len(heading.group(1))
        if start is not None and depth <= level:
            return "\n".join(lines[start:index])
        if start is None and slug(heading.group(2)) == fragment:
            start, level = index + 1, depth
    return None if start is None else "\n".join(lines[start:])


def schema_section(schema: Mapping[str, Any], fragment: str) -> str | None:
    """Every description inside the schema definition whose lowercased name is `fragment` (the schema page's
    anchors), joined by blank lines; None when no definition has that name."""
    definitions = schema.get("$defs", {})
    for name, definition in definitions.items():
        if name.lower() == fragment:
            return "\n\n".join(_descriptions(definition))
    return None


def _descriptions(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from _descriptions(value)
    elif isinstance(node, list):
        for item in node:
            yield from _descriptions(item)
