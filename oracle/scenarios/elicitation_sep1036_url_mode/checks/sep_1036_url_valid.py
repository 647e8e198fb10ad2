"""The `url` of a URL-mode request is a valid URL: an absolute RFC 3986 URI, the schema's `format: uri`."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Finding
from backchannel.oracle.registry import check
from backchannel.oracle.uri import is_uri
from backchannel.recordings.model import Recording

from ..facts import ELICITATION, SCENARIO, URL_TOOL
from .sep_1036_url_request_params import url_requests


@check(
    "sep-1036-url-valid",
    scenario=SCENARIO,
    level="MUST",
    spec=f"{ELICITATION}#url-mode-elicitation-requests",
    title="The url of a URL-mode request is an absolute RFC 3986 URI (the schema's format: uri)",
    eras=("2026-07-28",),
)
def judge(rec: Recording) -> Iterator[Finding]:
    """ "The `url` parameter MUST contain a valid URL." Valid means what the official schema means by `format:
    uri`, decided by the very checker `wire-schema-valid` uses (oracle/uri.py): an absolute RFC 3986 URI. Relative
    references and strings with spaces fail; the scheme is not restricted (HTTPS is only a SHOULD)."""
    found = url_requests(rec)
    if isinstance(found, Finding):
        yield found
        return
    _, requests = found
    if not requests:
        yield Finding.skipped("no-url-request", f"{URL_TOOL} sent no URL-mode request to judge")
        return
    bad = [
        step.evidence(f"{step.run.name} {where}: {params.get('url')!r}"[:300])
        for step, where, params in requests
        if not is_uri(params.get("url"))
    ]
    if bad:
        yield Finding.failed(f"{len(bad)} url(s) are not absolute RFC 3986 URIs: {bad[0].note}", *bad)
    else:
        yield Finding.passed(
            f"all {len(requests)} url(s) are absolute RFC 3986 URIs",
            *(step.evidence(f"{where}: {params['url']}"[:300]) for step, where, params in requests),
        )
