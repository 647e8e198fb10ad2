"""Where a quoted sentence lives: an anchor URL read into the spec era, the page and the section it names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from backchannel.oracle.model import ERAS

SPEC_BASE = "https://modelcontextprotocol.io/specification/"
_PAGE = re.compile(r"^[a-z0-9-]+(/[a-z0-9_-]+)*$")
_FRAGMENT = re.compile(r"^[a-z0-9_-]+$")


@dataclass(frozen=True, slots=True)
class Anchor:
    """A spec anchor: `https://modelcontextprotocol.io/specification/<era>/<page>#<fragment>`."""

    era: str
    page: str  # "basic" is the spec's own short form of "basic/index"
    fragment: str

    @property
    def is_schema(self) -> bool:
        """The schema reference page: its sections are the schema's definitions."""
        return self.page == "schema"

    @property
    def page_file(self) -> str:
        """The page's file name in the flattened copy of the spec (`basic/patterns/mrtr` -> basic_patterns_mrtr.mdx)."""
        page = "basic/index" if self.page == "basic" else self.page
        return page.replace("/", "_") + ".mdx"


def parse_anchor(url: str) -> Anchor:
    """Read an anchor URL; ValueError saying what is wrong with it."""
    if not url.startswith(SPEC_BASE):
        raise ValueError(f"{url!r} does not start with {SPEC_BASE}")
    path, hash_sign, fragment = url[len(SPEC_BASE) :].partition("#")
    era, _, page = path.partition("/")
    if era not in ERAS:
        raise ValueError(f"{url!r} names era {era!r}, not one of {', '.join(ERAS)}")
    if not _PAGE.match(page):
        raise ValueError(f"{url!r} names no page after its era")
    if not hash_sign or not _FRAGMENT.match(fragment):
        raise ValueError(f"{url!r} needs a #fragment naming the section (lowercase, a heading's slug)")
    return Anchor(era=era, page=page, fragment=fragment)
