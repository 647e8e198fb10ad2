"""Scenario modules for the scripted endpoint: each module defines one module-level `SCENARIO`."""
