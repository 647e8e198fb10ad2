"""`record --ui web`: a broken session rule marked on its flows in mitmweb, as the terminal view names it.

mitmweb's own API does it (`PUT /flows/<id>` with `marked` and `comment`), from the orchestrator, so the proxy's
process does no judging. The comment keeps what backchannel's addon already wrote there (how a mutation changed the
flow) and adds the rule's line. Every call is bounded; a UI that cannot be reached costs a line of its own, once,
never the recording.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from typing import Any

MARKERS = {"FAIL": ":x:", "WARN": ":warning:"}  # mitmweb shows the shortcodes as emoji beside the path
FAILED_MARKS = frozenset({":x:", "\N{CROSS MARK}"})  # how mitmweb gives a FAIL's marker back
TIMEOUT_S = 2.0
MAX_COMMENT = 4000  # a flow's comment is shown in the list: many breaks on one flow are not allowed to grow it forever
XSRF_COOKIE = "_mitmproxy_xsrf"


class WebMarks:
    """Marks flows in the mitmweb whose UI is at `url` (the printed one, carrying its token)."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.token = urllib.parse.parse_qs(parts.query).get("token", [""])[0]
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.failed: str | None = None  # why the UI could not be marked, once (the caller says it)

    def mark(self, flows: tuple[str, ...], status: str, line: str) -> bool:
        """Mark each flow and add `line` to its comment; False (and `failed` set) when the UI refused or was gone."""
        try:
            shown = {flow["id"]: flow for flow in self._flows()}
            for flow_id in flows:
                flow = shown.get(flow_id)
                if flow is None:
                    continue  # not (or no longer) in mitmweb's view
                before = str(flow.get("comment") or "")
                comment = f"{before}\n{line}" if before else line
                failed = status == "FAIL" or flow.get("marked") in FAILED_MARKS  # a WARN never hides a FAIL
                marker = MARKERS["FAIL"] if failed else MARKERS["WARN"]
                update = {"marked": marker, "comment": comment[-MAX_COMMENT:]}
                self._call("PUT", f"/flows/{urllib.parse.quote(flow_id)}", update)
            return True
        except (OSError, ValueError, urllib.error.URLError) as exc:
            self.failed = f"{type(exc).__name__}: {exc}"[:200]
            return False

    def _flows(self) -> list[dict[str, Any]]:
        found = json.loads(self._call("GET", "/flows", None) or b"[]")
        return [flow for flow in found if isinstance(flow, dict) and isinstance(flow.get("id"), str)]

    def _call(self, method: str, path: str, body: Any) -> bytes:
        if not any(cookie.name == XSRF_COOKIE for cookie in self.jar):
            # mitmweb hands out the xsrf cookie every change must echo with its sign-in page, which it shows a
            # visitor without the token (with a 403)
            try:
                self.opener.open(urllib.request.Request(f"{self.base}/"), timeout=TIMEOUT_S).read()
            except urllib.error.HTTPError as login:
                login.read()
        request = self._request(method, path, body)
        with self.opener.open(request, timeout=TIMEOUT_S) as answer:
            data: bytes = answer.read()
            return data

    def _request(self, method: str, path: str, body: Any) -> urllib.request.Request:
        headers = {"Authorization": f"Bearer {self.token}"}  # the token on every call: no sign-in state to lose
        xsrf = next((cookie.value for cookie in self.jar if cookie.name == XSRF_COOKIE), None)
        if xsrf:
            headers["X-XSRFToken"] = xsrf
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = "application/json"
        return urllib.request.Request(f"{self.base}{path}", data=data, headers=headers, method=method)
