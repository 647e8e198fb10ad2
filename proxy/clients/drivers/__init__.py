"""Contract drivers: thin scripts that put a real MCP SDK client in front of backchannel's probes.

Each driver follows the same written contract, so a verdict on its run speaks about the SDK underneath, and the few
things the driver itself decides are named here (docs/real-clients.md says which verdict judges which):

- Connect to URL; list tools; call `--tool NAME`, else every listed tool once, all at once (so held retries do not
  add up), with no arguments;
  print each result's text blocks as `result <tool>: <text>` on stdout, flushed.
- Declare elicitation `{form: {}, url: {}}` and nothing else (no sampling: a driver has no model to sample from,
  so declaring it would be a lie the probe could exploit; roots are deprecated at 2026-07-28).
- Render each elicitation for the "user" on stdout, attributed and fenced:
  `[input request from MCP server <name> (<origin>) — untrusted text follows]`, the message lines prefixed
  `  | `, then `[end of server text]`; origin is scheme://host:port of URL, the name what the SDK reports
  from server/discover or initialize (the origin alone when it reports none); a stdio server (the driver's
  --stdio-argv) has no origin: `(stdio)` stands in its place.
- Answer: URL mode `{"action": "decline"}` when the message starts with `DECLINE:`, else `{"action": "accept"}`
  (no content); form mode, including a request with no `mode`, `{"action": "accept", "content": {"confirmed":
  true}}`. Never fetch or open a URL.
- A call answered -32042 (2025-11-25's URLElicitationRequiredError): render each URL-mode elicitation its
  `data.elicitations` names as above (`url (shown, not opened)`), open none, and retry the call once.
- Exit 0 on success; on an MCP error print `error: <code> <message>` to stderr and exit 1.

Drivers: `py_sdk` (the Python SDK, `mcp` 2.x) and `node/ts_sdk.mjs` (the TypeScript SDK v2); `paths` finds them and
the installed clients.
"""
