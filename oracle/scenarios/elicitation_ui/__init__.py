"""Checks of `elicitation-ui`: what a terminal client shows its user when a server elicits (2026-07-28, MRTR)."""

SCENARIO = "elicitation-ui"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
