"""Report renderers: pure functions `Report -> str`, deterministic byte for byte, no I/O."""

from __future__ import annotations

from collections.abc import Callable

from ..model import Report
from .json_report import render_json
from .junit import render_junit
from .sarif import render_sarif
from .text import render_text

FORMATS = ("text", "json", "junit", "sarif")

_RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "junit": render_junit,
    "sarif": render_sarif,
}


def render(report: Report, fmt: str) -> str:
    """Render `report` in `fmt`, one of FORMATS."""
    try:
        renderer = _RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown report format {fmt!r}: choose one of {', '.join(FORMATS)}") from None
    return renderer(report)


__all__ = ["FORMATS", "render", "render_json", "render_junit", "render_sarif", "render_text"]
