"""Checks of `sampling`: what a client does with a server's `sampling/createMessage` (an MRTR input request in
2026-07-28, a server-initiated request in the 2025 eras), and an MRTR round of every kind answered whole."""

SCENARIO = "sampling"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
