"""What the `elicitation-ui` server sends, shared by its endpoint (proxy side) and its checks (oracle side).

Every text carries the run's nonce, so what the oracle finds in a terminal can only have come from this server. No
URL puts it under a name the recording redacts (session, token, key ...): a masked URL could never be found shown.
"""

from __future__ import annotations

URL_TOOL = "connect_account"  # a URL-mode request to an https URL on an ordinary host
PUNYCODE_TOOL = "open_dashboard"  # a URL-mode request whose host has an xn-- label
FORM_TOOL = "confirm_change"  # a form-mode request whose message holds a URL (not clickable, SHOULD NOT)
ESCAPE_FORM_TOOL = "show_notice"  # a form-mode request whose message carries terminal escape sequences
ESCAPE_RESULT_TOOL = "get_notice"  # a complete result whose text carries the same sequences
TOOLS = (URL_TOOL, PUNYCODE_TOOL, FORM_TOOL, ESCAPE_FORM_TOOL, ESCAPE_RESULT_TOOL)


def url(nonce: str) -> str:
    return f"https://accounts.example.com/connect?ref={nonce}&step=authorize"


def punycode_url(nonce: str) -> str:
    # xn--80ak6aa92e is "аррӏе" in Cyrillic letters: a host that reads as "apple" once rendered
    return f"https://login.xn--80ak6aa92e.com/verify?ref={nonce}"


def form_link(nonce: str) -> str:
    return f"https://help.example.com/changes/{nonce}"


def url_message(nonce: str) -> str:
    return f"Connect your account to finish (BCKCH-UI-{nonce})."


def punycode_message(nonce: str) -> str:
    return f"Verify your sign-in on the dashboard (BCKCH-UI-{nonce})."


def form_message(nonce: str) -> str:
    return f"Confirm the change described at {form_link(nonce)} (BCKCH-UI-{nonce})."
