"""An anchor names an era, a page and a section; the page's file is the flattened name the spec copy uses."""

import pytest

from backchannel.oracle.requirements.anchors import parse_anchor

BASE = "https://modelcontextprotocol.io/specification/"


def test_an_anchor_names_its_era_page_and_section_and_the_flattened_page_file():
    anchor = parse_anchor(f"{BASE}2026-07-28/basic/patterns/mrtr#client-requirements-basic-workflow")
    assert (anchor.era, anchor.page, anchor.fragment) == (
        "2026-07-28",
        "basic/patterns/mrtr",
        "client-requirements-basic-workflow",
    )
    assert anchor.page_file == "basic_patterns_mrtr.mdx"
    assert not anchor.is_schema


def test_the_short_basic_page_is_basic_index_and_schema_anchors_name_a_definition():
    assert parse_anchor(f"{BASE}2026-07-28/basic#_meta").page_file == "basic_index.mdx"
    assert parse_anchor(f"{BASE}2025-11-25/schema#createmessagerequestparams").is_schema


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (f"{BASE}2024-11-05/basic#x", "names era '2024-11-05'"),
        (f"{BASE}2026-07-28#x", "names no page"),
        (f"{BASE}2026-07-28/basic", "needs a #fragment"),
        (f"{BASE}2026-07-28/basic#Mixed-Case", "needs a #fragment"),
        ("http://modelcontextprotocol.io/specification/2026-07-28/basic#x", "does not start with"),
    ],
)
def test_a_malformed_anchor_says_what_is_wrong(url, said):
    with pytest.raises(ValueError, match=said):
        parse_anchor(url)
