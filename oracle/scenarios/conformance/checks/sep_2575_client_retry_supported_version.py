"""Refused with -32022, the client retries the request with a version the error lists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.facts import PROTOCOL_VERSION, Request, cite
from backchannel.recordings.json_form import member
from backchannel.recordings.model import Recording

from .. import SCENARIO
from ..facts import NOT_EXERCISED, SPEC, runs_requests, sent_headers

UNSUPPORTED_PROTOCOL_VERSION = -32022


def _supported(request: Request) -> list[Any] | None:
    error = member(request.got, "error")
    if not isinstance(error, dict) or error.get("code") != UNSUPPORTED_PROTOCOL_VERSION:
        return None
    supported = member(error.get("data"), "supported")
    return supported if isinstance(supported, list) else []


def _versions(request: Request) -> tuple[Any, str | None]:
    return request.meta.get(PROTOCOL_VERSION), sent_headers(request).get("mcp-protocol-version")


@check(
    "sep-2575-client-retry-supported-version",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC}/basic/versioning#protocol-version-negotiation",
    title="Refused with -32022, the client retries the request with a version from data.supported",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "The client SHOULD select a mutually supported version from the supported list and retry the request, or
    surface an error to the user if no compatible version exists." For each request answered -32022 whose
    `data.supported` lists versions: its retry is the next request of the same method (and tool or resource name);
    PASS when it declares a listed version in `_meta`, and in `MCP-Protocol-Version` when it sends one (a missing
    header is `sep-2575-http-client-sends-version-header`'s). WARN (a SHOULD)
    when it never retried, or retried with a version the error did not list. Stricter than the suite, which takes any
    later request carrying 2026-07-28 as the retry (a client that moves on to another method passes there): the spec
    says "retry the request". An error listing no version the client could pick (an empty list) is the "no
    compatible version" branch: SKIP. No -32022 answered: SKIP (the suite backfills FAILURE, at WARNING level)."""
    judged = 0
    warned: list[tuple[str, tuple[Evidence, ...]]] = []
    kept: list[Evidence] = []
    for requests in runs_requests(rec):
        for index, request in enumerate(requests):
            supported = _supported(request)
            if not supported:
                continue
            judged += 1
            method, name = request.message.method, request.params.get("name", request.params.get("uri"))
            retry = next(
                (r for r in requests[index + 1 :] if r.message.method == method
                 and r.params.get("name", r.params.get("uri")) == name),
                None,
            )  # fmt: skip
            refused = cite(request.message, f"refused -32022, supported {supported!r}"[:200])
            if retry is None:
                warned.append((f"{method} was never retried", (refused,)))
                continue
            meta, header = _versions(retry)
            if meta in supported and (header is None or header in supported or retry.exchange is None):
                kept.extend((refused, cite(retry.message, f"retried with {meta!r}")))
            else:
                why = f"{method} retried with _meta {meta!r} and header {header!r}, not in {supported!r}"
                warned.append((why, (refused, cite(retry.message, why[:200]))))
    if warned:
        message = f"{len(warned)} of {judged} -32022 refusal(s) not followed by a retry with a listed version: "
        yield Finding.warned(message + "; ".join(w for w, _ in warned[:3]), *(e for _, ev in warned[:5] for e in ev))
    elif judged == 0:
        yield Finding.skipped(NOT_EXERCISED, "no request was answered -32022 with a list of supported versions")
    else:
        yield Finding.passed(f"{judged} -32022 refusal(s): each retried with a listed version", *kept[:4])
