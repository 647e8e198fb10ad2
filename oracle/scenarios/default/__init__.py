"""The `default` scenario has no checks of its own: its recordings are for `show`, export and replay."""

SCENARIO = "default"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
