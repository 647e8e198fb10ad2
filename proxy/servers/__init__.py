"""Real MCP servers built with official SDKs, started as subprocesses for server-side scenarios."""
