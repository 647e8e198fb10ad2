"""A network-URI `$ref` in a listed tool's inputSchema is not dereferenced automatically."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import cite
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import NOT_EXERCISED, SPEC, listed, result_of, runs_requests

CANARY = "canary"  # the url_hits server the run's network $ref points at (proxy/scenarios/conformance/ref_tools.py)


def network_refs(schema: Any) -> list[str]:
    """Every `$ref` in `schema` naming an http(s) URI."""
    if isinstance(schema, dict):
        own = schema.get("$ref")
        found = [own] if isinstance(own, str) and own.startswith(("http://", "https://")) else []
        return found + [ref for value in schema.values() for ref in network_refs(value)]
    if isinstance(schema, list):
        return [ref for value in schema for ref in network_refs(value)]
    return []


@check(
    "sep-2106-no-network-ref-deref",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{SPEC}/basic/index#ref-resolution",
    title="A network-URI $ref in a tool's inputSchema is never fetched on the client's own (the canary sees nothing)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """"JSON Schema 2020-12 permits $ref to point at an absolute URI. Implementations MUST NOT automatically
    dereference $ref values that resolve to a network URI." Exercised by a run whose client got a tools/list answer
    with a network `$ref` in some inputSchema; the `$ref` points at a loopback canary that records every request.
    A request reaching it: FAIL, citing each hit. None: PASS (only the canary is watched: a fetch of another host is
    not seen). No such listing: SKIP (the suite FAILs a client that never lists the tools). An opt-in fetching mode
    (the spec's MAY) must be off by default, and a check run is the default."""
    offered: list[Evidence] = []
    runs: set[str] = set()
    for requests in runs_requests(rec):
        for request in requests:
            if request.message.method != "tools/list" or result_of(request) is None:
                continue
            tools = listed(requests, request.message.seq + 1)
            refs = [ref for schema in tools.values() for ref in network_refs(schema)]
            if refs:
                offered.append(cite(request.message, f"listed a tool whose $ref names {refs[0][:120]}"))
                runs.add(str(request.message.run_id))
    hits = [h for h in rec.url_hits if h.server == CANARY and h.run_id in runs]
    if hits:
        shown = ", ".join(f"{h.method} {h.path}" for h in hits[:5])
        cited = (Evidence(kind="run", run=h.run_id, seq=h.seq, note=f"canary hit {h.method} {h.path}") for h in hits)
        yield Finding.failed(f"the network $ref was fetched {len(hits)} time(s): {shown}", *cited, *offered[:3])
    elif not offered:
        yield Finding.skipped(NOT_EXERCISED, "no tools/list answer the client got held a network-URI $ref")
    else:
        yield Finding.passed("no request reached the canary behind the listed network $ref", *offered[:3])
