"""A client that declares the roots capability declares it as an object."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..capabilities import declares_as_object
from ..facts import SCENARIO, SPEC


@check(
    "sep-2575-client-declares-roots-capability",
    scenario=SCENARIO,
    side="client",
    level="MUST",
    spec=f"{SPEC}/schema#clientcapabilities",
    title="The roots capability, when declared, is a JSON object",
    eras=("2025-06-18", "2025-11-25", "2026-07-28"),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ClientCapabilities.roots is an object in the schema: a request declaring it (in `_meta` clientCapabilities,
    or in `initialize`) as anything else (true, a string, null) FAILs, citing the request. Never declared: SKIP."""
    yield declares_as_object(rec, "roots")
