"""A parameter value that is not plain visible ASCII without edge whitespace goes Base64-encoded."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import HTTP_SPEC
from ..mirroring import judge_mirrored
from ..param_headers import BASE64


@check(
    BASE64,
    scenario=SCENARIO,
    level="MUST",
    spec=f"{HTTP_SPEC}#value-encoding",
    title="An x-mcp-header value that is not header-safe goes as =?base64?...?= of its UTF-8",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "When a value cannot be safely represented as a plain ASCII header value (e.g., it contains non-ASCII
    characters, control characters, or has leading/trailing whitespace), clients MUST use Base64 encoding of the
    UTF-8 representation" as `=?base64?{Base64EncodedValue}?=`; also a plain value shaped like the sentinel. Every
    annotated string parameter whose value needs it: the header must be the sentinel and decode to the value exactly.
    Sent plain (sanitised, stripped), missing or decoding to something else: FAIL. None: SKIP (the suite backfills
    FAILURE)."""
    yield judge_mirrored(rec, BASE64, "annotated parameter(s) needing Base64")
