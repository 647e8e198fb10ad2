"""The matrix as a static site: index.html, style.css and one page per case, from the package's Jinja2 templates.

Autoescaping is on for every template, so nothing a recording holds becomes markup; the model has neutralised
control and bidi characters already. Pages hold no clock and no absolute path: a rebuild is byte-identical. A
person's screenshot is written as a file beside the case page that shows it (`cases/<recording>/answer-<seq>.png`,
named from the answer's number only, under `cases/` so a rebuild clears it), never as a data: URI, and only when its
bytes are the image its name says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from backchannel.oracle import ORACLE_VERSION
from backchannel.recordings.screenshots import image_files

from .model import Case, Matrix

# resolved: in the strict editable install the module is a link into the source tree, beside its templates
TEMPLATES = Path(__file__).resolve().parent / "templates"
GENERATOR = '<meta name="generator" content="backchannel matrix">'
SITE_FILES = ("index.html", "style.css")
SITE_FOLDERS = ("cases",)


class SiteError(Exception):
    """The output folder cannot take the site."""


def safe_href(url: object) -> bool:
    """Only web links become links: a javascript: or data: URL in a report must stay text."""
    return isinstance(url, str) and url.startswith(("https://", "http://"))


def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["safe_href"] = safe_href
    return env


def _clear_previous(out: Path) -> None:
    """Make `out` ready: new, empty, or a site this command built before (replaced); anything else is refused."""
    if not out.exists():
        return
    if not out.is_dir():
        raise SiteError(f"{out} is a file; --out takes a folder")
    entries = list(out.iterdir())
    if not entries:
        return
    index = out / "index.html"
    if not index.is_file() or GENERATOR not in index.read_text(encoding="utf-8", errors="replace"):
        raise SiteError(f"{out} is not empty and holds no matrix site; pick a new or empty --out")
    linked = [name for name in (*SITE_FILES, *SITE_FOLDERS) if (out / name).is_symlink()]
    if linked:  # refused before anything is deleted: a link would lead the clean-up out of the folder
        raise SiteError(f"{out} holds symbolic links ({', '.join(linked)}); pick a new or empty --out")
    for name in SITE_FILES:
        (out / name).unlink(missing_ok=True)
    for name in SITE_FOLDERS:
        if (out / name).is_dir():
            shutil.rmtree(out / name)


def write_site(matrix: Matrix, out: Path) -> list[Path]:
    """Write the site into `out` (replacing a site built there before); the files written, index first."""
    _clear_previous(out)
    env = environment()
    common = {"oracle_version": ORACLE_VERSION}
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "index.html", out / "style.css"]
    written[0].write_text(env.get_template("index.html.j2").render(matrix=matrix, root="", **common), encoding="utf-8")
    shutil.copyfile(TEMPLATES / "style.css", written[1])
    for case in matrix.cases:
        page = out / case.page
        page.parent.mkdir(parents=True, exist_ok=True)
        depth = case.page.count("/")
        html = env.get_template("case.html.j2").render(case=case, root="../" * depth, **common)
        page.write_text(html, encoding="utf-8")
        written.append(page)
        _write_screenshots(case, page.parent)
    return written


def _write_screenshots(case: Case, folder: Path) -> None:
    """The images the case's answers carry, beside its page, where its <img src> names them (each file once: one
    answer may be cited by several cases of its recording, with the same bytes)."""
    shots = image_files(excerpt.screenshot for finding in case.findings for excerpt in finding.excerpts)
    for name, shot in shots.items():
        image = folder / name
        if not image.exists():  # another case of the same recording, on the same page folder, wrote it
            image.write_bytes(shot.data)
