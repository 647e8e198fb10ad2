"""Checks of `roots`: what a client exposes when a server asks for its roots, in 2026-07-28 (an MRTR input request)
and in the 2025 eras (a server-initiated `roots/list`, on a call's stream or on the client's GET stream)."""

SCENARIO = "roots"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
