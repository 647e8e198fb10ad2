"""The official MCP 2026-07-28 JSON schema, shipped unchanged with its license (LICENSE beside it)."""
