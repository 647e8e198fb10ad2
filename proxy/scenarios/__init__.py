"""Scenarios for the scripted endpoint: each module defines one `SCENARIO`; `_`-prefixed modules are helpers."""
