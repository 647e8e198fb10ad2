"""The `default` scenario has no checks of its own: its recordings are for `show`, export and replay."""

SCENARIO = "default"
