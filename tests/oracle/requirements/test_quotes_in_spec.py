"""Every quote in requirements.toml is verbatim in the section its anchor names; every suite id where it was read.

The spec pages, the suite's reference and the seeds are in the shared folder beside the checkout (`../shared` from
the repository root, as CI lays it out; BACKCHANNEL_SHARED names another place). Without it these tests fail,
never skip: a quote that cannot be checked is not checked. The official schemas are shipped in oracle/schema/, so
`schema#` anchors are always checked. The 2025-11-25 pages are not in the shared folder: those quotes were copied
from modelcontextprotocol/modelcontextprotocol@b0f60ba5 and are held by review, listed here by name so that a new
one is a deliberate edit of this file.
"""

import json
import os
import re
from importlib import resources
from pathlib import Path

import pytest

from backchannel.oracle.requirements import load_requirements
from backchannel.oracle.requirements.anchors import parse_anchor
from backchannel.oracle.requirements.quotes import quote_found, schema_section, section

ROOT = Path(__file__).resolve().parents[3]
SCHEMAS = {"2026-07-28": "schema.json", "2025-11-25": "schema-2025-11-25.json", "2025-06-18": "schema-2025-06-18.json"}
HELD_BY_REVIEW = {
    "roots-list-changed-notified",
    "roots-only-with-capability",
    "sep-1036-client-url-required-retried",
    "sep-1036-client-url-required-urls-shown",
    "server-session-id-visible-ascii",
    "session-client-sends-session-id",
    "session-client-version-header-negotiated",
    "session-server-requests-declared-capability",
}


@pytest.fixture(scope="module")
def shared() -> Path:
    folder = Path(os.environ.get("BACKCHANNEL_SHARED") or ROOT.parent / "shared")
    if not (folder / "spec" / "2026-07-28" / "docs").is_dir():
        pytest.fail(
            f"the shared folder is missing: {folder} has no spec/2026-07-28/docs. Put a copy of the project's shared "
            "folder beside the checkout (../shared), or name it in BACKCHANNEL_SHARED; the quotes cannot be checked "
            "without it"
        )
    return folder


def quoted() -> list[tuple[str, str, str]]:
    """(what, quote, anchor) for every quote in the file: each check's, then each requirement not checked."""
    requirements = load_requirements()
    rows = [(e.check_id, e.quote, e.anchor) for e in requirements.entries.values() if e.quote and e.anchor]
    rows += [(f"not_checked #{i}", n.quote, n.anchor) for i, n in enumerate(requirements.not_checked, start=1)]
    return rows


def held_text(shared: Path, anchor_url: str) -> str | None:
    """The section the anchor names, from the shared spec copy or the shipped schema; None if the page is not held."""
    anchor = parse_anchor(anchor_url)
    if anchor.is_schema:
        schema = json.loads(resources.files("backchannel.oracle.schema").joinpath(SCHEMAS[anchor.era]).read_text())
        return schema_section(schema, anchor.fragment) or ""
    if anchor.era != "2026-07-28":
        return None
    page = shared / "spec" / anchor.era / "docs" / anchor.page_file
    assert page.is_file(), f"{anchor_url}: no page {page.name} in the shared spec copy"
    return section(page.read_text(encoding="utf-8"), anchor.fragment) or ""


def test_every_quote_of_a_held_page_or_schema_is_verbatim_in_the_section_its_anchor_names(shared):
    wrong = []
    for what, quote, anchor in quoted():
        text = held_text(shared, anchor)
        if text is not None and not quote_found(quote, text):
            wrong.append(f"{what}: {quote!r} is not in {anchor}" + ("" if text else " (no such section)"))
    assert not wrong, "\n".join(wrong)


def test_only_the_listed_2025_page_quotes_are_held_by_review(shared):
    not_held = {what for what, _, anchor in quoted() if held_text(shared, anchor) is None}
    assert not_held == HELD_BY_REVIEW
    for what, _, anchor in quoted():
        if what in HELD_BY_REVIEW:
            assert anchor.startswith("https://modelcontextprotocol.io/specification/2025-11-25/"), what


def test_every_suite_id_is_where_the_file_says_it_was_read(shared):
    releases = load_requirements().suite_releases
    reference = braces_expanded((shared / "reference" / "conformance-suite.md").read_text(encoding="utf-8"))
    seed = (shared / "seeds" / "004_8160fb50b1591cfa.txt").read_text(encoding="utf-8")
    assert set(releases) == {"0.2.0-alpha.12", "pr-558", "source", "0.2.0-alpha.12-bundle"}
    assert [i for i in releases["0.2.0-alpha.12"] if i not in reference] == []
    assert [i for i in releases["pr-558"] if i not in seed] == []
    assert releases["source"] == ("server-session-id-visible-ascii",)  # the suite's server-initialize, by review


def test_every_suite_id_read_in_the_installed_package_is_in_it() -> None:
    """The ids the reference notes do not list were read in the pinned package's own bundle, which
    scripts/install-clients installs for the cross-check (a missing install fails here, never skips)."""
    clients = Path(os.environ.get("BACKCHANNEL_CLIENTS") or Path(__file__).resolve().parents[3] / ".cache" / "clients")
    bundle = clients / "conformance" / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    assert bundle.is_file(), f"{bundle} is missing: run scripts/install-clients"
    text = bundle.read_text(encoding="utf-8")
    ids = load_requirements().suite_releases["0.2.0-alpha.12-bundle"]
    assert ids and [i for i in ids if f"'{i}'" not in text and f'"{i}"' not in text and f"`{i}" not in text] == []


def braces_expanded(text: str) -> str:
    """The reference writes id families as `sep-2575-client-declares-{roots,sampling}-capability`: each spelled out."""
    family = re.compile(r"([\w-]*)\{([\w,-]+)\}([\w-]*)")
    return family.sub(lambda m: " ".join(f"{m[1]}{part}{m[3]}" for part in m[2].split(",")), text)


def test_a_wrong_word_in_a_quote_would_be_caught(shared):
    text = held_text(
        shared, "https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#safe-url-handling"
    )
    assert text and quote_found("MUST NOT open the URL without explicit consent from the user.", text)
    assert not quote_found("MUST NOT open the URL without explicit consent from a user.", text)


def test_every_2026_spec_link_a_check_reports_names_a_page_and_section_that_exist(shared):
    """The `spec=` link each result carries (text, JSON, SARIF helpUri, the matrix) leads somewhere real."""
    from backchannel.oracle import all_checks

    broken = []
    for check in all_checks().values():
        if "/specification/2026-07-28/" not in check.spec or "#" not in check.spec:
            continue
        try:
            text = held_text(shared, check.spec)
        except AssertionError as exc:
            broken.append(f"{check.id}: {exc}")
            continue
        if not text:
            broken.append(f"{check.id}: {check.spec} names no section of its page")
    assert not broken, "\n".join(broken)
