"""In headless Chromium: the matrix renders, a FAIL cell opens its case page, the page shows its evidence, and a
hostile recording's markup and script stay inert text."""

from html.parser import HTMLParser
from pathlib import Path

from backchannel.proxy.matrix.model import build
from backchannel.proxy.matrix.render import write_site
from tests.proxy.matrix.conftest import dump_dom, hostile_judged, screenshot


class Page(HTMLParser):
    """What the tests read from a DOM: the status cells with their links, the evidence captions and the text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.cells: list[tuple[str, str | None]] = []  # (classes, href)
        self.captions: list[str] = []
        self.elements: set[str] = set()
        self.attributes: set[str] = set()
        self.text: list[str] = []
        self._in: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.add(tag)
        self.attributes |= {name for name, _ in attrs}
        found = dict(attrs)
        if tag == "td" and "status" in (found.get("class") or ""):
            self.cells.append((found["class"] or "", None))
        if tag == "a" and self._in and self._in[-1] == "td" and self.cells:
            self.cells[-1] = (self.cells[-1][0], found.get("href"))
        if tag not in ("br", "meta", "link", "img"):
            self._in.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._in:
            while self._in.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if "figcaption" in self._in:
            self.captions.append(data)


def test_the_matrix_renders_as_a_table_whose_fail_cell_opens_a_case_page_showing_evidence(
    reference_site: Path, tmp_path: Path
):
    index = Page(dump_dom(reference_site / "index.html", tmp_path))
    assert "table" in index.elements and len(index.cells) > 100
    fails = [href for classes, href in index.cells if classes.split()[-1] == "fail" and href]
    assert fails, "no FAIL cell with a link"
    case_path = reference_site / fails[0]
    case = Page(dump_dom(case_path, tmp_path))
    text = "".join(case.text)
    assert "Expected" in text and "Observed" in text and "FAIL" in text
    assert case.captions and "pre" in case.elements
    screenshot(case_path, tmp_path, tmp_path / "case.png")


def test_the_index_screenshot_is_drawn(reference_site: Path, tmp_path: Path):
    png = screenshot(reference_site / "index.html", tmp_path, tmp_path / "index.png")
    assert png.read_bytes().startswith(b"\x89PNG")


def test_a_hostile_recording_renders_inert_in_the_browser(tmp_path: Path):
    written = write_site(build(hostile_judged(tmp_path)), tmp_path / "site")
    for page in (written[0], written[2]):
        dom = Page(dump_dom(page, tmp_path))
        text = "".join(dom.text)
        assert "script" not in dom.elements and "img" not in dom.elements
        assert "data-pwned" not in dom.attributes and "onerror" not in dom.attributes
        assert "PWNED" in text and "document.title" in text  # shown as text, never run
        assert "\u202e" not in text and "\\u202e" in text


def test_a_confirmed_probe_page_shows_the_terminal_bytes_it_cites_marked_in_their_context(
    reference_site: Path, tmp_path: Path
):
    page = reference_site / "cases" / "mrtr-provenance-toy-flawed" / "mrtr-provenance-input-requests.html"
    dom = dump_dom(page, tmp_path)
    assert "Reference <mark>BCKCH-BODY-" in dom and "stdout @ byte 73, 23 bytes" in dom
