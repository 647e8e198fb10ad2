"""The order of recording formats, for the read side: could a recording of this format hold a given table at all?

A check that reads a table added by a later migration must tell "nothing happened" from "this file's format does
not record it" (a SKIP, not a PASS); it asks here instead of reaching into the migration machinery.
"""

from __future__ import annotations

from .format_names import known_migrations


def predates(version: str, introduced_by: str) -> bool:
    """True when format `version` is a known format older than migration `introduced_by`.

    A format this tool does not know is not said to predate anything (the reader refuses such files first)."""
    formats = known_migrations()
    return version in formats and introduced_by in formats and formats.index(version) < formats.index(introduced_by)
