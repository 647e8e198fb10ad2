"""Integer and boolean parameters are mirrored as decimal text and lowercase true/false."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import HTTP_SPEC
from ..mirroring import judge_mirrored
from ..param_headers import ENCODE


@check(
    ENCODE,
    scenario=SCENARIO,
    level="MUST",
    spec=f"{HTTP_SPEC}#value-encoding",
    title="x-mcp-header integers and booleans go as decimal text and lowercase true/false",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "Clients MUST encode parameter values before including them in HTTP headers ... integer: Convert to decimal
    string representation (e.g., 42, -7); boolean: Convert to lowercase "true" or "false"." Every annotated integer
    or boolean parameter with a value: its header must be exactly that text (or the Base64 sentinel of it). Stricter
    than the suite, which compares integers as numbers (it takes `42.0` for 42): the spec names the decimal
    representation. Missing or other text: FAIL. None: SKIP (the suite backfills FAILURE)."""
    yield judge_mirrored(rec, ENCODE, "annotated integer or boolean parameter(s)")
