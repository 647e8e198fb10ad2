"""A stdlib-only client that carries fake secrets everywhere a real one might travel, for the secrets test.

    python tests/clients/secrets_client.py URL

It sends one `tools/call` to URL with secrets in headers, in the query string and in the tool's arguments (nested),
prints bearer and key-like values to stdout and stderr, and leaves a credentials file under HOME. Every secret is
spelled in SECRETS, so the test can look for each one's bytes in the recording.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

SECRETS = {
    "header-authorization": "hdrAuthQ9v2Lx7Rk4Pz",
    "header-x-auth-token": "hdrXAuthTokenW3m8Nc5",
    "header-goog-api-key": "hdrGoogKeyB6t1Yd0Fs",
    "header-cookie": "hdrCookieJ2h7Ue4Xa",
    "header-extra": "hdrTenantPinK8r3Vq",  # only secret because the test passes --redact tenant
    "query-access-token": "qryAccessTokN5b0Gw",
    "query-api-key": "qryApiKeyT7c4Hm9",
    "json-api-key": "jsonApiKeyE1s6Rp3",
    "json-password": "jsonPassWdZ4k9Lo2",
    "json-nested-secret": "jsonNestedSecretV0q5Ci",
    "json-extra": "jsonTenantPinM6w2Ab",
    "terminal-bearer": "termBearerQ3z8Lr5Kx1",
    "terminal-openai": "sk-termOpenAiKeyHu7Dm2Pq9Wx",
    "terminal-github": "ghp_termGithubTok0123456789abcdefXYZ",
    "terminal-token-assignment": "termAssignTok4c1e9b7a2f6d",
    "file-aws": "AKIAFILEAWSKEY0EXAMP",
    "file-slack": "xoxb-1234567890-fileSlackTokVb8",
    "file-password": "filePassWord7Jk2Nm",
}


def call(url: str) -> None:
    parts = urlsplit(url)
    query = f"access_token={SECRETS['query-access-token']}&api_key={SECRETS['query-api-key']}&page=1"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "get_repo_status",
            "arguments": {
                "apiKey": SECRETS["json-api-key"],
                "options": {
                    "password": SECRETS["json-password"],
                    "deep": [{"client_secret": SECRETS["json-nested-secret"]}],
                },
                "tenantPin": SECRETS["json-extra"],
            },
            "_meta": {"progressToken": "progress-1", "io.modelcontextprotocol/clientCapabilities": {}},
        },
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "get_repo_status",
        "Authorization": f"Bearer {SECRETS['header-authorization']}",
        "X-Auth-Token": SECRETS["header-x-auth-token"],
        "x-goog-api-key": SECRETS["header-goog-api-key"],
        "Cookie": f"sid={SECRETS['header-cookie']}",
        "X-Tenant": SECRETS["header-extra"],
    }
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=20)
    try:
        conn.request("POST", f"{parts.path}?{query}", json.dumps(body), headers)
        response = conn.getresponse()
        print(f"status {response.status}: {len(response.read())} bytes")
    finally:
        conn.close()


def leave_traces() -> None:
    print(f"Authorization: Bearer {SECRETS['terminal-bearer']}")
    print(f"export OPENAI_API_KEY={SECRETS['terminal-openai']}")
    print(f"access_token={SECRETS['terminal-token-assignment']}")
    print(f"using {SECRETS['terminal-github']} to push", file=sys.stderr)
    folder = Path(os.environ["HOME"]) / ".config" / "tool"
    folder.mkdir(parents=True)
    (folder / "credentials").write_text(
        f"[default]\naws_access_key_id = {SECRETS['file-aws']}\nslack={SECRETS['file-slack']}\n"
        f"password: {SECRETS['file-password']}\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    call(sys.argv[1])
    leave_traces()
