"""Markdown that text from a recording cannot break out of: every value escaped, code fenced longer than its content.

A recording may come from anyone. Inline, every ASCII punctuation character is backslash-escaped (CommonMark allows
it for all of them), so `<b>`, `[a](b)`, `#`, `|` and `&amp;` show as typed; in fences, the fence is longer than any
run of backticks inside. Control, escape and bidi characters are neutralised (`neutralise`) in both.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import jinja2

from backchannel.recordings.safe_text import neutralise

_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
_BACKTICKS = re.compile(r"`+")
_LINE_BREAKS = re.compile(r"[\r\n]+")


class Markdown(str):
    """Text already made safe for markdown: the template prints it as it is."""


def text(value: object) -> Markdown:
    """Inline text: one line, control characters neutralised, every markdown character escaped."""
    one_line = neutralise(_LINE_BREAKS.sub(" ", str(value)))
    return Markdown(_PUNCTUATION.sub(r"\\\1", one_line))


def code(value: object) -> Markdown:
    """An inline code span (a run id, a path): delimited by more backticks than it holds."""
    content = neutralise(_LINE_BREAKS.sub(" ", str(value)))
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(content)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if content.startswith("`") or content.endswith("`") or not content.strip() else ""
    return Markdown(f"{ticks}{pad}{content}{pad}{ticks}")


def fenced(value: object, info: str = "text") -> Markdown:
    """A fenced code block: neutralised, its fence longer than any backtick run inside, always closed."""
    content = neutralise(str(value)).rstrip("\n")
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(content)), default=0)
    fence = "`" * max(3, longest + 1)
    return Markdown(f"{fence}{info}\n{content}\n{fence}")


def _finalize(value: Any) -> str:
    """Every `{{ value }}` is escaped unless it is already Markdown: forgetting a filter cannot inject markup."""
    if isinstance(value, Markdown):
        return value
    return text(value)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        autoescape=False,  # HTML escaping is wrong for markdown (a fence would show &lt;); _finalize escapes instead
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(text=text, code=code, fenced=fenced)
    return env


def render_template(name: str, **context: Any) -> str:
    """Render a template shipped in this package (package data)."""
    source = resources.files("backchannel.proxy.share").joinpath(name).read_text(encoding="utf-8")
    return environment().from_string(source).render(**context)
