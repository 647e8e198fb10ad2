"""The site: every page from autoescaped templates, nothing from a recording becomes markup, rebuilds are identical."""

from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.matrix.model import build
from backchannel.proxy.matrix.render import GENERATOR, SiteError, _clear_previous, safe_href, write_site
from backchannel.recordings.reader import load
from tests.proxy.matrix.conftest import IMG, REFERENCES, SCRIPT, hostile_judged


def _pages(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_a_hostile_recording_renders_as_text_on_every_page(tmp_path: Path):
    written = write_site(build(hostile_judged(tmp_path)), tmp_path / "site")
    assert [p.name for p in written[:2]] == ["index.html", "style.css"] and len(written) == 3
    for page in (written[0], written[2]):
        html = page.read_text(encoding="utf-8")
        assert "<script" not in html and "<img" not in html and "javascript:" not in html
        assert "\x1b" not in html and "\u202e" not in html and "\u2066" not in html
        assert "&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;" in html
    case = written[2].read_text(encoding="utf-8")
    assert "saw " in case and "note " in case and "said: " in case and "observed " in case


def test_only_web_links_become_links():
    assert safe_href("https://modelcontextprotocol.io/x") and not safe_href("javascript:alert(1)")
    assert not safe_href(None) and not safe_href(" https://x")


def test_building_twice_gives_the_same_bytes(tmp_path: Path):
    matrix = build(hostile_judged(tmp_path))
    write_site(matrix, tmp_path / "one")
    write_site(matrix, tmp_path / "two")
    assert _pages(tmp_path / "one") == _pages(tmp_path / "two")


def test_a_previous_site_is_replaced_and_its_stale_cases_go(tmp_path: Path):
    site, matrix = tmp_path / "site", build(hostile_judged(tmp_path))
    write_site(matrix, site)
    stale = site / "cases" / "gone" / "old.html"
    stale.parent.mkdir()
    stale.write_text("old", encoding="utf-8")
    write_site(matrix, site)
    assert not stale.exists() and (site / "index.html").is_file()


def test_a_folder_holding_something_else_is_left_alone(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SiteError, match="holds no matrix site"):
        write_site(build(hostile_judged(tmp_path / "x")), tmp_path)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_file_as_the_output_folder_is_refused(tmp_path: Path):
    (tmp_path / "f").write_text("", encoding="utf-8")
    with pytest.raises(SiteError, match="is a file"):
        write_site(build([]), tmp_path / "f")


def test_the_hostile_strings_are_what_the_test_thinks_they_are():
    assert SCRIPT.startswith("<script>") and IMG.startswith("<img")


def test_a_previous_site_holding_a_symbolic_link_is_refused_before_anything_is_deleted(tmp_path):
    out = tmp_path / "site"
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    out.mkdir()
    (out / "index.html").write_text(f"<html>{GENERATOR}</html>")
    (out / "cases").symlink_to(victim)
    with pytest.raises(SiteError, match="symbolic links"):
        _clear_previous(out)
    assert (out / "index.html").exists() and (victim / "keep.txt").read_text() == "mine"


def test_a_case_page_quotes_its_checks_sentence_and_links_the_spec_anchor(tmp_path: Path):
    item = next(i for i in expand([str(REFERENCES / "mrtr-provenance-toy-flawed.sqlite")]))
    rec = load(item.path)
    write_site(build([(item, rec, judge(rec))]), tmp_path / "site")
    page = tmp_path / "site" / "cases" / "mrtr-provenance-toy-flawed" / "mrtr-provenance-result-type-default.html"
    html = page.read_text(encoding="utf-8")
    anchor = "https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype"
    assert f'<a href="{anchor}">{anchor}</a>' in html
    assert "<q>For backward compatibility with servers implementing earlier protocol versions, which do not" in html
    assert "clients MUST treat an absent `resultType` as `&#34;complete&#34;`.</q>" in html
