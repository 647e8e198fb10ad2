"""The site: every page from autoescaped templates, nothing from a recording becomes markup, rebuilds are identical."""

from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.proxy.judging.inputs import Input, expand
from backchannel.proxy.matrix.model import build
from backchannel.proxy.matrix.render import GENERATOR, SiteError, _clear_previous, safe_href, write_site
from backchannel.recordings.reader import load
from tests.factories import HOSTILE_SHOT, JPEG_SHOT, PNG_SHOT, answered_recording
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


def _answered_site(tmp_path: Path, out: Path) -> Path:
    source = answered_recording(tmp_path / "answered.sqlite")
    write_site(build([(Input(source, "answered.sqlite"), load(source), judge(load(source)))]), out)
    return out


def _case(site: Path, check: str) -> str:
    return (site / "cases" / "answered" / f"{check}.html").read_text(encoding="utf-8")


def test_a_persons_screenshot_is_an_img_of_a_file_beside_its_case_page_with_the_exact_bytes(tmp_path: Path):
    site = _answered_site(tmp_path, tmp_path / "site")
    png, _, jpeg, _ = load(tmp_path / "answered.sqlite").attestations
    names = _case(site, "by-hand-names-requesting-server")
    assert (
        f'<img class="screenshot" src="answer-{png.seq}.png" alt="the screenshot given with answer #{png.seq}">'
        in names
    )
    assert "<dt>Asked</dt><dd>About names-requesting-server?</dd><dt>Answered</dt><dd>no (a person)</dd>" in names
    assert f'src="answer-{jpeg.seq}.jpg"' in _case(site, "by-hand-nothing-opened-before-consent")
    folder = site / "cases" / "answered"
    assert (folder / f"answer-{png.seq}.png").read_bytes() == PNG_SHOT
    assert (folder / f"answer-{jpeg.seq}.jpg").read_bytes() == JPEG_SHOT
    assert "data:" not in names


def test_a_screenshot_that_is_not_the_image_its_row_says_is_never_written_and_the_page_says_so(tmp_path: Path):
    site = _answered_site(tmp_path, tmp_path / "site")
    hostile = load(tmp_path / "answered.sqlite").attestations[1]
    page = _case(site, "by-hand-url-shown-before-consent")
    assert "<img" not in page and "<script" not in page
    assert "The screenshot given with this answer is not shown: its bytes are not a PNG image." in page
    assert not list(site.rglob(f"answer-{hostile.seq}.*"))
    assert [p.read_bytes() for p in site.rglob("*") if p.is_file() and HOSTILE_SHOT in p.read_bytes()] == []


def test_a_site_with_screenshots_rebuilds_byte_for_byte_and_a_rebuild_clears_images_no_longer_shown(tmp_path: Path):
    one = _answered_site(tmp_path / "a", tmp_path / "one")
    two = _answered_site(tmp_path / "b", tmp_path / "two")
    assert _pages(one) == _pages(two) and any(name.endswith(".png") for name in _pages(one))
    write_site(build(hostile_judged(tmp_path / "c")), one)  # the same folder, recordings without screenshots
    assert not [p for p in one.rglob("*") if p.suffix in (".png", ".jpg")]
