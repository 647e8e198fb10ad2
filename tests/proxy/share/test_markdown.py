"""Text from a recording cannot become markdown structure, HTML, a link, a mention or a terminal escape."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from backchannel.proxy.share.markdown import Markdown, code, environment, fenced, text

from .conftest import HOSTILE

MD = MarkdownIt("commonmark").enable("table")


def test_inline_text_renders_as_exactly_what_it_says():
    html = MD.render(f"para {text('<b>x</b> [a](javascript:b) *c* `d` &amp; #1 @who | e')}\n")
    assert html == "<p>para &lt;b&gt;x&lt;/b&gt; [a](javascript:b) *c* `d` &amp;amp; #1 @who | e</p>\n"


def test_inline_text_stays_on_its_line_and_control_and_bidi_characters_are_shown_not_emitted():
    out = text("a\nb\r\n# c \x1b[31m \u202e")
    assert "\n" not in out and "\x1b" not in out and "\u202e" not in out
    assert MD.render(out).startswith("<p>a b # c \\x1b[31m \\u202e")


@pytest.mark.parametrize("content", ["plain", "```", "a ``` b\n````\n~~~", "` start", HOSTILE])
def test_a_fence_always_closes_and_holds_exactly_its_neutralised_content(content):
    tokens = MD.parse(f"{fenced(content)}\n\nafter\n")
    assert [t.type for t in tokens][:1] == ["fence"] and tokens[1].type == "paragraph_open"
    assert "\x1b" not in tokens[0].content and "\u202e" not in tokens[0].content
    assert tokens[0].content.rstrip("\n").replace("\\x1b", "\x1b").replace("\\u202e", "\u202e").replace(
        "\\u202c", "\u202c"
    ) == content.rstrip("\n")


@pytest.mark.parametrize("content", ["run-1", "a`b", "`", "``x``", " "])
def test_a_code_span_holds_exactly_its_content(content):
    spans = [c for c in MD.parseInline(code(content))[0].children or [] if c.type == "code_inline"]
    assert len(spans) == 1 and spans[0].content.strip() == content.strip()


def test_the_template_environment_escapes_every_value_unless_it_is_already_markdown():
    env = environment()
    assert env.from_string("{{ v }}").render(v="<b>") == "\\<b\\>"
    assert env.from_string("{{ v }}").render(v=Markdown("<kept>")) == "<kept>"
    assert env.from_string("{{ v | code }}").render(v="x") == "`x`"
