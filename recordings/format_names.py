"""The recording format's names, without the migrations themselves: what a reader needs to recognise a recording
and its version. migrations.py defines the steps (and needs sqlite_utils, a tenth of a `judge`'s start-up); this
module only lists their names, in order, and a test holds the two lists equal."""

from __future__ import annotations

MIGRATION_SET = "backchannel"
FORMAT_MARKER = "backchannel-recording"

# every migration of MIGRATION_SET, in the order they are applied (migrations.py): the format versions
NAMES = (
    "m001_initial",
    "m002_url_hits",
    "m003_descriptions",
    "m004_screens",
    "m005_opens",
    "m006_model_exchanges",
    "m007_attestations",
)

# Migrations a recording may lack and still be read as it is, without `backchannel upgrade`: each only adds a
# table, and the reader reads a missing one as empty. The recording keeps its own format name (reports say it).
READ_AS_IS = frozenset({"m004_screens", "m005_opens", "m006_model_exchanges", "m007_attestations"})


def known_migrations() -> list[str]:
    """Every migration this tool knows, in order: the recording format versions it can read."""
    return list(NAMES)
